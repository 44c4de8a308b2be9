import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { aggregate, answeredItems, items, mainRows, participants } from '../study/results/figures';
import { clauseFromId, factSentences } from '../study/collect/clause';
import { collectionSummary } from '../study/collect/collect';
import { bad, GOOD, reviewRow, storyRow } from '../study/collect/testRows';
import { rowsToJson } from '../study/results/results';
import { mergeResults, readResultsFile } from '../study/results/resultsFile';
import type { DashboardView, ReadResultsResult, ResultsCommands, ResultsSource } from './resultsProtocol';
import { createResultsReader } from './resultsReader';
import { type RpcResponse, serve } from './rpc';

// The dashboard's e2e fixtures: 50 generated participants, 1–30 in the CSV, 26–50 in the JSON.
const csv = readFileSync('e2e/fixtures/results-a.csv', 'utf8');
const json = readFileSync('e2e/fixtures/results-b.json', 'utf8');

/** One worker's `read` command, driven through `serve` as the worker runs it. */
function worker() {
  const read = createResultsReader();
  return async (
    { sources }: { sources: ResultsSource[] },
    view: DashboardView = { by: 'k', excludeFlagged: false },
    have: string | null = null,
  ) => {
    const body = { sources, view, have };
    const messages: RpcResponse[] = [];
    await serve<ResultsCommands>({ read }, (m) => messages.push(m))({ id: 1, command: 'read', body });
    const end = messages.at(-1)!;
    if (end.type !== 'result') throw new Error(`expected a result, got ${JSON.stringify(end)}`);
    const progress = messages.flatMap((m) => (m.type === 'progress' ? [[m.done, m.total]] : []));
    return { result: end.result as ReadResultsResult, progress };
  };
}

let stamp = 0;
const source = (name: string, text: string): ResultsSource => ({ name, data: new Blob([text]), stamp: ++stamp });

describe('the results worker', () => {
  it('computes the figures of another view from the rows it holds, reading nothing, sending the participants once', async () => {
    const read = worker();
    const sources = [source('results-a.csv', csv), source('results-b.json', json)];
    const first = await read({ sources });
    const view = { by: 'condition', excludeFlagged: true } as const;
    const again = await read({ sources }, view, first.result.key);
    expect(again.result.participants).toBeNull();
    expect(again.result.summary).toEqual(first.result.summary);
    expect(again.progress.at(-1)).toEqual([1, 1]); // nothing read
    const { rows } = mergeResults([readResultsFile('a', csv), readResultsFile('b', json)]);
    const flagged = new Set(first.result.participants!.flatMap((p) => (p.flags.length ? [p.session_id] : [])));
    expect(flagged.size).toBeGreaterThan(0);
    expect(again.result.figures).toEqual({
      view,
      groups: aggregate(rows, 'condition', flagged),
      items: items(rows, flagged),
      answered: answeredItems(mainRows(rows, flagged)),
    });
    // A page without them (another key) gets the participants.
    expect((await read({ sources }, view, 'other')).result.participants).toEqual(first.result.participants);
  });

  it('reads and merges as the main thread did, files in order, the last progress the total', async () => {
    const read = worker();
    const a = source('results-a.csv', csv);
    const b = source('results-b.json', json);
    const { result, progress } = await read({ sources: [a, b] });
    const expected = mergeResults([readResultsFile('results-a.csv', csv), readResultsFile('results-b.json', json)]);
    expect(result.summary).toEqual({
      rows: expected.rows.length,
      sessions: 50,
      duplicates: 5 * 55,
      conflicts: 0,
      firstConflicts: [],
    });
    // The figures are the pure functions' over the merged rows.
    expect(result.participants).toEqual(participants(expected.rows));
    expect(result.figures).toEqual({
      view: { by: 'k', excludeFlagged: false },
      groups: aggregate(expected.rows, 'k'),
      items: items(expected.rows),
      answered: answeredItems(mainRows(expected.rows)),
    });
    expect(result.files).toEqual([
      { name: 'results-a.csv', ok: true, format: 'csv', rows: 30 * 55, sessions: 30 },
      { name: 'results-b.json', ok: true, format: 'json', rows: 25 * 55, sessions: 25 },
    ]);
    const total = a.data.size + b.data.size;
    expect(progress.at(-1)).toEqual([total, total]);
  });

  it('reads only new stamps again, forgets files no longer listed', async () => {
    const read = worker();
    const a = source('results-a.csv', csv);
    const b = source('results-b.json', json);
    await read({ sources: [a] });
    // a is known: only b's bytes are read.
    const second = await read({ sources: [a, b] });
    expect(second.progress.at(-1)).toEqual([b.data.size, b.data.size]);
    // a removed, then listed again under a new stamp: read again.
    const third = await read({ sources: [b] });
    expect(third.result.summary.sessions).toBe(25);
    const a2 = { ...a, stamp: ++stamp };
    const fourth = await read({ sources: [b, a2] });
    expect(fourth.progress.at(-1)).toEqual([a.data.size, a.data.size]);
    // Order matters for merging (the first file's row stands): b first now.
    expect(fourth.result.files.map((f) => f.name)).toEqual(['results-b.json', 'results-a.csv']);
  });

  it('a session_id that is an object: the file is refused naming file, row and field; the others still count', async () => {
    const doc = JSON.parse(json) as { rows: Record<string, unknown>[] };
    doc.rows[4]!.session_id = { toString: 1, id: 'x' };
    const { result } = await worker()({
      sources: [source('hostile.json', JSON.stringify(doc)), source('results-a.csv', csv)],
    });
    expect(result.files[0]).toEqual({
      name: 'hostile.json',
      ok: false,
      problem: {
        file: 'hostile.json',
        row: 5,
        column: 'session_id',
        line: null,
        message:
          'hostile.json (row 5, field session_id): {"toString":1,"id":"x"} is an object, not a session id (text)',
      },
    });
    expect(result.summary.sessions).toBe(30);
  });

  it('a stream that fails mid-file is a problem naming the file, not a rejected request', async () => {
    const broken = {
      size: 10,
      stream: () =>
        new ReadableStream<Uint8Array>({
          pull: (c) => c.error(new Error('the file changed on disk')),
        }),
    } as unknown as Blob;
    const { result } = await worker()({ sources: [{ name: 'gone.csv', data: broken, stamp: ++stamp }] });
    expect(result.files[0]).toMatchObject({
      ok: false,
      problem: { file: 'gone.csv', message: 'gone.csv: could not be read: the file changed on disk' },
    });
    expect(result.summary.rows).toBe(0);
  });

  it('a request made while a file is being read waits for that reading instead of reading it again', async () => {
    const read = worker();
    const blob = new Blob([csv]);
    let streams = 0;
    const counted = {
      size: blob.size,
      stream: () => {
        streams++;
        return blob.stream();
      },
    } as unknown as Blob;
    const a = { name: 'results-a.csv', data: counted, stamp: ++stamp };
    const [first, second] = await Promise.all([
      read({ sources: [a] }),
      read({ sources: [a] }, { by: 'task', excludeFlagged: false }),
    ]);
    expect(streams).toBe(1);
    expect(first.result.summary).toEqual(second.result.summary);
    expect(second.result.figures.groups.map((g) => g.key)).toEqual(['1', '2']);
    // The second request reported the shared reading's progress to the end.
    expect(second.progress.at(-1)).toEqual([blob.size, blob.size]);
  });

  it('an empty file is called empty', async () => {
    const { result } = await worker()({ sources: [source('empty.csv', '')] });
    expect(result.files[0]).toMatchObject({ ok: false, problem: { message: 'empty.csv: the file is empty' } });
  });

  it('collection rows (issue 24): the dashboard gets collectionSummary, judged as the view says; none for puzzle rows', async () => {
    const clause = clauseFromId('c1.son-son.male-male-male', 11);
    if ('error' in clause) throw new Error(clause.error);
    const text = factSentences(clause).join(' ');
    const stories = [storyRow('w1', 0, clause, text), storyRow('w2', 0, clause, `${text} They live in town.`)];
    const rows = [
      ...stories,
      reviewRow('r1', 0, stories[0]!, GOOD),
      reviewRow('r2', 0, stories[0]!, GOOD),
      reviewRow('r1', 1, stories[1]!, bad('reveals-implied')),
      reviewRow('r2', 1, stories[1]!, GOOD),
    ];
    const read = worker();
    const sources = [source('collected.json', rowsToJson(rows))];
    const { result } = await read({ sources });
    expect(result.collectionOnly).toBe(true);
    expect(result.collection).toEqual(collectionSummary(rows, { minReviews: 3, agree: 'all' }));
    const judge = { minReviews: 2, agree: 'majority' } as const;
    const again = await read({ sources }, { by: 'k', excludeFlagged: false, collect: judge }, result.key);
    expect(again.result.collection).toEqual(collectionSummary(rows, judge));
    expect(again.result.collection!.accepted).toBe(1);
    // Puzzle rows beside them: both dashboards; puzzle rows alone: no collection figures.
    const mixed = await read({ sources: [...sources, source('results-a.csv', csv)] });
    expect(mixed.result.collectionOnly).toBe(false);
    expect(mixed.result.collection?.paraphrases).toBe(2);
    const solve = await worker()({ sources: [source('results-a.csv', csv)] });
    expect(solve.result.collection).toBeNull();
    expect(solve.result.collectionOnly).toBe(false);
  });
});
