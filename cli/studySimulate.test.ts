/**
 * `study link --kind adaptive` and `study simulate`: the adaptive flags, the kind's own k range,
 * and simulated rows in the export format with the summary line last.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeStudyLink } from '../src/study/definition/link';
import { readParticipantParams } from '../src/study/delivery/route';
import { readResultsFile } from '../src/study/results/resultsFile';
import { main } from './main';
import { captureOutput } from './testOutput';

const io = captureOutput();
const lastLine = (s: string) => s.trim().split('\n').at(-1)!;
const dir = mkdtempSync(path.join(tmpdir(), 'clutrr-simulate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]): Promise<number> {
  io.out = '';
  io.err = '';
  return main(argv);
}

describe('study link --kind adaptive', () => {
  it('makes an adaptive study over k = 2..10 by default, with the procedure and stopping rule given', async () => {
    expect(
      await run('study', 'link', '--kind', 'adaptive', '--adaptive', 'quest', '--ci-width', '1.5', '--show-estimate'),
    ).toBe(0);
    const decoded = decodeStudyLink(readParticipantParams(lastLine(io.out)).token!);
    if (!decoded.ok) throw new Error(decoded.error.message);
    const def = decoded.definition;
    expect([def.kind, def.adaptive, def.ciWidth, def.showEstimate, def.adaptiveTrials]).toEqual([
      'adaptive',
      'quest',
      1.5,
      true,
      30,
    ]);
    expect(def.k).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(io.out).toMatch(/adaptive study \(QUEST\+\)/);
    expect(io.out).toMatch(/once the threshold's 95% interval is at most 1.5 hops wide/);
  });

  it('refuses adaptive settings in a solve study, and a bad procedure', async () => {
    expect(await run('study', 'link', '--adaptive', 'quest')).toBe(2);
    expect(io.err).toMatch(/adaptive: “Adaptive procedure” \(--adaptive\) belongs to adaptive studies/);
    expect(await run('study', 'link', '--kind', 'adaptive', '--adaptive', 'bisection')).toBe(2);
    expect(io.err).toMatch(/the adaptive procedure must be one of staircase, quest/);
    expect(await run('study', 'link', '--kind', 'adaptive', '--k', '4')).toBe(2);
    expect(io.err).toMatch(/at least two story lengths/);
  });
});

describe('study simulate', () => {
  it('runs a link with threshold respondents: rows in the export format, the summary line last', async () => {
    expect(
      await run('study', 'link', '--kind', 'adaptive', '--adaptive-trials', '12', '--practice', '0', '--seed', '4'),
    ).toBe(0);
    const link = lastLine(io.out);
    const out = path.join(dir, 'rows.csv');
    const est = path.join(dir, 'estimates.csv');
    const argv = [
      'study',
      'simulate',
      link,
      '--respondent',
      'threshold=5,slope=3,lapse=0.02',
      '--participants',
      '6',
      '--seed',
      '7',
    ];
    expect(await run(...argv, '--out', out, '--estimates', est)).toBe(0);
    expect(lastLine(io.out)).toMatch(/^participants=6 rows=72 mean_threshold=\d+\.\d{3}$/);
    const file = readResultsFile('rows.csv', readFileSync(out, 'utf8'));
    expect(file.rows).toHaveLength(72);
    expect(new Set(file.rows.map((r) => r.session_id)).size).toBe(6);
    expect(readFileSync(est, 'utf8').split('\n')[0]).toBe('session_id,threshold,low,high,trials');
    // The same seed, the same rows.
    const first = readFileSync(out, 'utf8');
    expect(await run(...argv, '--out', out)).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(first);

    // A researcher's view of the same rows: study estimates recomputes every session's threshold
    // from the exported rows alone, exactly as the simulation (and the completion screen) had it.
    const simulated = readFileSync(est, 'utf8');
    const mean = lastLine(io.out).split(' ').at(-1);
    const again = path.join(dir, 'estimates-again.csv');
    expect(await run('study', 'estimates', link, out, '--out', again)).toBe(0);
    expect(readFileSync(again, 'utf8')).toBe(simulated);
    expect(lastLine(io.out)).toBe(`participants=6 ${mean}`);
    expect(
      simulated
        .trim()
        .split('\n')
        .slice(1)
        .every((l) => /^[^,]+,\d+\.\d{3},\d+\.\d{3},\d+\.\d{3},12$/.test(l)),
    ).toBe(true);
    // Rows of another study only: said, not an empty file.
    expect(await run('study', 'link', '--kind', 'adaptive', '--study-id', 'other', '--seed', '4')).toBe(0);
    expect(await run('study', 'estimates', lastLine(io.out), out)).toBe(2);
    expect(io.err).toMatch(/no rows of study other in /);
  });

  it('runs a definition file of a fixed-item study, and a JSON --out', async () => {
    const defFile = path.join(dir, 'study.json');
    writeFileSync(
      defFile,
      JSON.stringify({ studyId: 'fixed', seed: 3, k: [2, 3, 4, 5], itemsPerK: 2, practice: 0, attentionChecks: 0 }),
    );
    const out = path.join(dir, 'rows.json');
    expect(
      await run('study', 'simulate', defFile, '--respondent', 'threshold=3', '--participants', '2', '--out', out),
    ).toBe(0);
    expect(lastLine(io.out)).toMatch(/^participants=2 rows=16 mean_threshold=\d/);
    expect(readResultsFile('rows.json', readFileSync(out, 'utf8')).rows).toHaveLength(16);
  });

  it('names what is wrong: no respondent, a bad one, an unknown model, a collection study, not a study', async () => {
    expect(await run('study', 'link', '--seed', '2')).toBe(0);
    const link = lastLine(io.out);
    expect(await run('study', 'simulate', link)).toBe(2);
    expect(io.err).toMatch(/--respondent: say who answers/);
    expect(await run('study', 'simulate', link, '--respondent', 'threshold=4,lapse=2')).toBe(2);
    expect(io.err).toMatch(/lapse=2 must be a number from 0 to 0.5/);
    expect(await run('study', 'simulate', link, '--respondent', 'model=oracle')).toBe(2);
    expect(io.err).toMatch(/model=oracle is not a shipped model/);
    expect(await run('study', 'link', '--kind', 'paraphrase')).toBe(0);
    expect(await run('study', 'simulate', lastLine(io.out), '--respondent', 'threshold=4')).toBe(2);
    expect(io.err).toMatch(/a paraphrase study cannot be simulated/);
    expect(await run('study', 'simulate', 'nonsense', '--respondent', 'threshold=4')).toBe(2);
    expect(io.err).toMatch(/nonsense: neither a definition file nor a study link/);
  });
});
