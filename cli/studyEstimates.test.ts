/**
 * `study estimates` reads an adaptive study's stored estimate columns when the rows have them, and
 * replays the procedure over the answers when they do not (a file written before the columns):
 * both give the same CSV; a stored value the replay does not reproduce is warned about.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCsv, writeCsv } from '../src/core/formats/csv';
import { LATER_COLUMNS } from '../src/study/results/resultFields';
import { readResultsFile } from '../src/study/results/resultsFile';
import { storedThresholds } from '../src/study/results/thresholds';
import { main } from './main';
import { captureOutput } from './testOutput';

const io = captureOutput();
const lastLine = (s: string) => s.trim().split('\n').at(-1)!;
const dir = mkdtempSync(path.join(tmpdir(), 'clutrr-estimates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]): Promise<number> {
  io.out = '';
  io.err = '';
  return main(argv);
}

/** The CSV without the columns added since the first release: a file written before them. */
function withoutLater(text: string): string {
  const records = parseCsv(text);
  const later = new Set<string>(LATER_COLUMNS);
  const keep = records[0]!.map((c, i) => (later.has(c) ? -1 : i)).filter((i) => i >= 0);
  return writeCsv(
    records.map((r) => keep.map((i) => r[i]!)),
    { lineEnding: '\r\n' },
  );
}

describe('study estimates', () => {
  it('reads the stored estimates, agrees with the replay of an old file, and warns about an edited one', async () => {
    for (const procedure of ['staircase', 'quest']) {
      expect(
        await run(
          'study',
          'link',
          '--kind',
          'adaptive',
          '--adaptive',
          procedure,
          '--adaptive-trials',
          '14',
          '--ci-width',
          '3',
          '--practice',
          '1',
          '--seed',
          '9',
        ),
      ).toBe(0);
      const link = lastLine(io.out);
      const rows = path.join(dir, `${procedure}.csv`);
      const simulated = path.join(dir, `${procedure}-simulated.csv`);
      expect(
        await run(
          'study',
          'simulate',
          link,
          '--respondent',
          'threshold=4,slope=3,lapse=0.05',
          '--participants',
          '5',
          '--seed',
          '3',
          '--out',
          rows,
          '--estimates',
          simulated,
        ),
      ).toBe(0);
      const text = readFileSync(rows, 'utf8');
      // The simulated rows carry the estimate after every main trial, the procedure named.
      const file = readResultsFile('rows.csv', text);
      const main = file.rows.filter((r) => r.phase === 'main');
      expect(main.every((r) => r.threshold_k !== null && r.adaptive_procedure === procedure)).toBe(true);
      expect(file.rows.filter((r) => r.phase === 'practice').every((r) => r.threshold_k === null)).toBe(true);
      expect(storedThresholds(file.rows)).toHaveLength(5);

      const fromStored = path.join(dir, `${procedure}-stored.csv`);
      expect(await run('study', 'estimates', link, rows, '--out', fromStored)).toBe(0);
      expect(io.err).toContain('estimates: 5 stored in the rows, 0 recomputed from the answers');
      const storedLine = lastLine(io.out);
      expect(readFileSync(fromStored, 'utf8')).toBe(readFileSync(simulated, 'utf8'));

      const old = path.join(dir, `${procedure}-old.csv`);
      writeFileSync(old, withoutLater(text));
      const fromOld = path.join(dir, `${procedure}-replayed.csv`);
      expect(await run('study', 'estimates', link, old, '--out', fromOld)).toBe(0);
      expect(io.err).toContain('estimates: 0 stored in the rows, 5 recomputed from the answers');
      expect(readFileSync(fromOld, 'utf8')).toBe(readFileSync(fromStored, 'utf8'));
      expect(lastLine(io.out)).toBe(storedLine);

      // An edited threshold is written as stored, and said.
      const lines = text.split('\r\n');
      const header = lines[0]!.split(',');
      const at = header.indexOf('threshold_k');
      const lastMain = lines.length - 2;
      const cells = parseCsv(lines[lastMain]!)[0]!;
      cells[at] = '9.999';
      lines[lastMain] = writeCsv([cells]).trimEnd();
      const edited = path.join(dir, `${procedure}-edited.csv`);
      writeFileSync(edited, lines.join('\r\n'));
      expect(await run('study', 'estimates', link, edited)).toBe(0);
      expect(io.err).toMatch(/warning: the stored estimate of 1 session\(s\) is not what this study's procedure gives/);
      expect(io.out).toContain(',9.999,');
    }
  });
});
