import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import {
  planThreads,
  PUZZLE_THREAD_ROWS,
  SECOND_THREAD_ROWS,
  startRowThreadsEarly,
  takeRowThreads,
  threadPlan,
} from './rowThreads';

// A stand-in for the row-maker module: answers its first message, as a row maker takes its setup.
const file = path.join(mkdtempSync(path.join(tmpdir(), 'row-threads-')), 'echo.mjs');
writeFileSync(
  file,
  "import { parentPort } from 'node:worker_threads';\nparentPort.once('message', (m) => parentPort.postMessage(['setup', m]));\n",
);
const url = pathToFileURL(file);

const answer = (w: Worker, message: unknown) =>
  new Promise<unknown>((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
    w.postMessage(message);
  });
const exited = (w: Worker) => new Promise<number>((resolve) => w.once('exit', resolve));

let started: Worker[] = [];
afterEach(async () => {
  await Promise.all(started.map((w) => w.terminate()));
  started = [];
});
const take = (count: number) => {
  const ws = takeRowThreads(file, count);
  started.push(...ws);
  return ws;
};

describe('row-maker threads started early', () => {
  it('are the threads the row makers then take, and they serve', async () => {
    const early = startRowThreadsEarly(url, ['--train-rows', '10', '--workers', '3']);
    expect(early).toHaveLength(2);
    const taken = take(2);
    expect(taken[0]).toBe(early[0]);
    expect(taken[1]).toBe(early[1]);
    expect(await answer(taken[1]!, 'go')).toEqual(['setup', 'go']);
  });

  it('reads --workers=N, and starts new threads when fewer were started', async () => {
    const early = startRowThreadsEarly(url, ['--workers=2']);
    expect(early).toHaveLength(1);
    const taken = take(3);
    expect(taken[0]).toBe(early[0]);
    expect(taken).toHaveLength(3);
    expect(await Promise.all(taken.map((w, i) => answer(w, i)))).toEqual([0, 1, 2].map((i) => ['setup', i]));
  });

  it('stops the threads nobody takes', async () => {
    const early = startRowThreadsEarly(url, ['--workers', '4']);
    expect(early).toHaveLength(3);
    const taken = take(1);
    expect(taken[0]).toBe(early[0]);
    // Both end (a test that waits in vain times out).
    await expect(Promise.all([exited(early[1]!), exited(early[2]!)])).resolves.toHaveLength(2);
  });

  it('leaves out an early thread that ended before being taken, starting another', async () => {
    const early = startRowThreadsEarly(url, ['--workers', '2']);
    expect(early).toHaveLength(1);
    const ended = exited(early[0]!);
    await early[0]!.terminate();
    await ended;
    const taken = take(1);
    expect(taken[0]).not.toBe(early[0]);
    expect(await answer(taken[0]!, 'again')).toEqual(['setup', 'again']);
  });

  it('starts none for a --workers value the command will refuse, or for one worker', () => {
    expect(startRowThreadsEarly(url, ['--workers', 'x'])).toEqual([]);
    expect(startRowThreadsEarly(url, ['--workers', '1'])).toEqual([]);
    expect(take(0)).toEqual([]);
  });

  it('starts one for one row maker with a puzzle thread', () => {
    expect(startRowThreadsEarly(url, ['--workers', '1', '--puzzle-thread'])).toHaveLength(1);
    expect(take(1)).toHaveLength(1);
  });

  it('starts one per maker when this thread only writes', () => {
    expect(startRowThreadsEarly(url, ['--workers', '2', '--writer-thread'])).toHaveLength(2);
    expect(take(2)).toHaveLength(2);
  });
});

describe('default thread plan', () => {
  const plan = (makers: number, puzzleThread = false) => ({ makers, puzzleThread, writerThread: makers > 1 });
  it('one maker per core up to 4; on 2 cores a second only for long runs, a puzzle thread for middling ones; one on 1 core', () => {
    expect(threadPlan(8, 10)).toEqual(plan(4));
    expect(threadPlan(3, 10)).toEqual(plan(3));
    expect(threadPlan(2, PUZZLE_THREAD_ROWS - 1)).toEqual(plan(1));
    expect(threadPlan(2, PUZZLE_THREAD_ROWS)).toEqual(plan(1, true));
    expect(threadPlan(2, SECOND_THREAD_ROWS - 1)).toEqual(plan(1, true));
    expect(threadPlan(2, SECOND_THREAD_ROWS)).toEqual(plan(2));
    expect(threadPlan(1, 1_000_000)).toEqual(plan(1));
  });

  it('starts as threads: every maker when this thread writes, else all but this one, plus a puzzle thread', () => {
    expect(planThreads(threadPlan(2, SECOND_THREAD_ROWS))).toBe(2);
    expect(planThreads(threadPlan(2, PUZZLE_THREAD_ROWS))).toBe(1);
    expect(planThreads(threadPlan(2, 10))).toBe(0);
    expect(planThreads(threadPlan(4, 10))).toBe(4);
    expect(planThreads({ makers: 3, puzzleThread: false, writerThread: false })).toBe(2);
  });
});
