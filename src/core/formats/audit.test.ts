import { describe, expect, it } from 'vitest';
import { generatePuzzle } from '../puzzle/puzzle';
import { createRng } from '../random/rng';
import { checkRow } from '../reasoning/checkRow';
import { renderPlain } from '../text/plain';
import { auditCsv, type AuditedRow, CsvAudit } from './audit';
import { clutrrFields, writeClutrrCsv } from './clutrrCsv';
import { CLUTRR_COLUMNS, type ClutrrRow, CsvFormatError } from './clutrrRow';
import { writeCsv } from './csv';
import { puzzleToRow } from './fromPuzzle';
import { rowK } from './toPuzzle';
import { parseWord, PRED_CODE } from '../kinship/relations';
import { DEFAULT_PATH_LIMIT, derive } from '../reasoning/solver';

/** An entailed row strict mode would reject: the sound rules alone derive nothing for its query. */
function strictRejects(r: ClutrrRow): boolean {
  if (checkRow(r).verdict !== 'entailed') return false;
  const facts = r.edgeTypes.map((w, i) => ({
    from: r.storyEdges[i]![0],
    to: r.storyEdges[i]![1],
    predicate: PRED_CODE[parseWord(w)!.predicate],
  }));
  return derive(r.genders.length, facts, r.queryEdge[0], r.queryEdge[1], DEFAULT_PATH_LIMIT, true).mask === 0;
}

/**
 * 200 generated task-1 rows (100 at k = 2, 100 at k = 3), every tenth made ambiguous (k = 3
 * only) and every tenth (offset by one) given a wrong label.
 */
function baseRows(): ClutrrRow[] {
  const rows: ClutrrRow[] = [];
  for (const k of [2, 3]) {
    for (let i = 0; i < 100; i++) {
      const p = generatePuzzle({ seed: `audit:${k}:${i}`, k, task: 1 });
      const row = puzzleToRow(p, renderPlain(p, 'train', createRng(p.seed, 'text')), {
        index: rows.length,
        id: `k${k}-${i}`,
        split: 'train',
      });
      if (k === 3 && i % 10 === 0) {
        // husband-son-grandmother from a woman: her mother or her mother-in-law.
        const genders = ['female', 'male', 'male', 'female'];
        rows.push({
          ...row,
          edgeTypes: ['husband', 'son', 'grandmother'],
          genders: row.genders.map((g, j) => ({ ...g, gender: genders[j]! })),
          target: 'mother',
        });
      } else if (i % 10 === 1) rows.push({ ...row, target: row.target === 'uncle' ? 'aunt' : 'uncle' });
      else rows.push(row);
    }
  }
  return rows;
}

/** `copies` copies of `rows` as one CSV text stream: each row with its own index and id, cut into 64 KiB chunks. */
function* csvChunks(rows: readonly ClutrrRow[], copies: number): Generator<string> {
  const fields = rows.map((r) => clutrrFields(r));
  yield writeCsv([CLUTRR_COLUMNS]);
  for (let c = 0; c < copies; c++) {
    const text = writeCsv(
      fields.map((f, i) => {
        const n = c * rows.length + i;
        return [String(n), `${f[1]}-${c}`, ...f.slice(2)];
      }),
    );
    for (let at = 0; at < text.length; at += 65_536) yield text.slice(at, at + 65_536);
  }
}

const failure = async (text: string | string[], file = 'bad.csv'): Promise<CsvFormatError> => {
  try {
    await auditCsv(typeof text === 'string' ? [text] : text, { file });
  } catch (e) {
    if (e instanceof CsvFormatError) return e;
    throw e;
  }
  throw new Error('expected auditCsv to reject');
};

describe('auditCsv', () => {
  const base = baseRows();

  it('has the intended verdicts in its base rows', () => {
    const verdicts = base.map((r) => checkRow(r).verdict);
    expect(verdicts.filter((v) => v === 'ambiguous')).toHaveLength(10);
    expect(verdicts.filter((v) => v === 'unsupported')).toHaveLength(20);
  });

  it('counts 300,000 streamed rows, in all and per k, handing rows over in batches', async () => {
    let delivered = 0;
    let biggest = 0;
    let lastN = 0;
    let ordered = true;
    const result = await auditCsv(csvChunks(base, 1500), {
      file: 'big.csv',
      onRows: (rows) => {
        delivered += rows.length;
        biggest = Math.max(biggest, rows.length);
        for (const r of rows) {
          ordered &&= r.n === lastN + 1;
          lastN = r.n;
        }
      },
    });
    // Generated rows need an assumption rule exactly when the sound rules derive nothing; none is impossible.
    const assumed = (k: number) => 1500 * base.filter((r) => rowK(r) === k && strictRejects(r)).length;
    expect(assumed(2)).toBeGreaterThan(0);
    expect(assumed(3)).toBeGreaterThan(0);
    expect(result).toEqual({
      file: 'big.csv',
      rows: 300_000,
      entailed: 255_000,
      ambiguous: 15_000,
      unsupported: 30_000,
      assumed: assumed(2) + assumed(3),
      impossible: 0,
      byK: [
        {
          k: 2,
          rows: 150_000,
          entailed: 135_000,
          ambiguous: 0,
          unsupported: 15_000,
          assumed: assumed(2),
          impossible: 0,
        },
        {
          k: 3,
          rows: 150_000,
          entailed: 120_000,
          ambiguous: 15_000,
          unsupported: 15_000,
          assumed: assumed(3),
          impossible: 0,
        },
      ],
    });
    expect(delivered).toBe(300_000);
    expect(biggest).toBe(250);
    expect(ordered).toBe(true);
  }, 300_000);

  it('gives each row its file, data row, k and the solver answers', async () => {
    const rows: AuditedRow[] = [];
    const text = writeClutrrCsv(base.slice(100, 102));
    // A blank line counts as a data row, as in error messages.
    const lines = text.split('\n');
    const withBlank = [lines[0], '', ...lines.slice(1)].join('\n');
    await auditCsv([withBlank], { file: 'f.csv', onRows: (r) => rows.push(...r) });
    expect(rows.map((r) => [r.file, r.n, r.k, r.verdict, r.row.id])).toEqual([
      ['f.csv', 2, 3, 'ambiguous', 'k3-0'],
      ['f.csv', 3, 3, 'unsupported', 'k3-1'],
    ]);
    expect(rows[0]!.derived).toEqual(['mother', 'mother-in-law']);
  });

  it('splits entailed rows by the rules that decide them, and says whether any family makes the label true', async () => {
    const row = base[150]!; // a k = 3 row
    const as = (types: string[], genders: string[], target: string): ClutrrRow => ({
      ...row,
      edgeTypes: types,
      genders: row.genders.map((g, j) => ({ ...g, gender: genders[j]! })),
      target,
    });
    const rows: AuditedRow[] = [];
    const text = writeClutrrCsv([
      as(['son', 'mother', 'father'], ['male', 'male', 'female', 'male'], 'father'),
      as(['brother', 'brother', 'son'], ['female', 'male', 'male', 'male'], 'nephew'),
      as(['daughter', 'brother', 'uncle'], ['male', 'female', 'male', 'male'], 'brother'),
    ]);
    const counts = await auditCsv([text], { file: 'v.csv', onRows: (r) => rows.push(...r) });
    expect(rows.map((r) => [r.verdict, r.basis])).toEqual([
      ['entailed', { kind: 'assumed', rules: ['grandparent'], together: false, family: 'impossible' }],
      ['entailed', { kind: 'sound' }],
      ['entailed', { kind: 'assumed', rules: ['uncle'], together: false, family: 'possible' }],
    ]);
    expect(counts).toMatchObject({ rows: 3, entailed: 3, assumed: 2, impossible: 1 });
  });

  it('names file, data row and column of a bad cell, after handing over the rows before it', async () => {
    const text = writeClutrrCsv(base.slice(0, 5)).replace('k2-3,', 'k2-3-broken,').split('\n');
    const row4 = text.findIndex((l) => l.includes('k2-3-broken'));
    text[row4] = text[row4]!.replace(/"\[\((\d), (\d)\),/, '"[($1, $2,');
    const rows: AuditedRow[] = [];
    let error: unknown;
    const audit = new CsvAudit({ file: 'cut.csv', onRows: (r) => rows.push(...r), batchRows: 1 });
    try {
      for (const ch of text.join('\n')) audit.push(ch);
      audit.end();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CsvFormatError);
    expect((error as CsvFormatError).where).toEqual({ file: 'cut.csv', row: 4, column: 'story_edges' });
    expect(rows.map((r) => r.n)).toEqual([1, 2, 3]);
  });

  it('names the row of a relation word the rule base does not know', async () => {
    const bad = writeClutrrCsv(base.slice(0, 3).map((r, i) => (i === 2 ? { ...r, edgeTypes: ['cousin'] } : r)));
    const error = await failure(bad, 'words.csv');
    expect(error.message).toBe('words.csv, row 3, column edge_types: "cousin" (item 1) is not a CLUTRR relation word');
  });

  it('says what is wrong with an empty file and a short row', async () => {
    expect((await failure([])).message).toBe('bad.csv: the file is empty (no header row)');
    const text = writeCsv([CLUTRR_COLUMNS, clutrrFields(base[0]!), clutrrFields(base[1]!).slice(0, 5)]);
    expect((await failure(text)).message).toBe(
      'bad.csv, row 2: the row starting on line 3 has 5 fields, the header has 18',
    );
  });
});
