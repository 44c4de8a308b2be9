import { describe, expect, it } from 'vitest';
import type { AuditedRow } from '../../core/formats/audit';
import { puzzleToRow } from '../../core/formats/fromPuzzle';
import { generatePuzzle } from '../../core/puzzle/puzzle';
import type { Verdict } from '../../core/reasoning/solver';
import { createRng } from '../../core/random/rng';
import { renderPlain } from '../../core/text/plain';
import type { AuditedFile } from '../../worker/auditProtocol';
import { countMatching, entailedShare, filterAudited, NO_AUDIT_FILTER, summariseByFile, summariseByK } from './summary';

const audited = (file: string, n: number, k: number, verdict: Verdict): AuditedRow => {
  const p = generatePuzzle({ seed: `audit:${k}:${n}`, k, task: 1 });
  const row = puzzleToRow(p, renderPlain(p, 'train', createRng(p.seed, 'text')), {
    index: n - 1,
    id: `${file}-${n}`,
    split: 'train',
  });
  return { file, n, row, k, verdict, derived: [row.target], truncated: false, basis: null };
};

describe('audit summaries', () => {
  // The kept rows: all of b.csv, and 3 of a.csv's 1,003.
  const rows = [
    audited('a.csv', 1, 2, 'entailed'),
    audited('a.csv', 2, 3, 'entailed'),
    audited('a.csv', 3, 3, 'ambiguous'),
    audited('b.csv', 1, 3, 'unsupported'),
  ];
  const files: AuditedFile[] = [
    {
      name: 'a.csv',
      rows: 1003,
      entailed: 1002,
      ambiguous: 1,
      unsupported: 0,
      assumed: 0,
      impossible: 0,
      byK: [
        { k: 2, rows: 501, entailed: 501, ambiguous: 0, unsupported: 0, assumed: 0, impossible: 0 },
        { k: 3, rows: 502, entailed: 501, ambiguous: 1, unsupported: 0, assumed: 0, impossible: 0 },
      ],
      kept: 3,
    },
    {
      name: 'bad.csv',
      rows: 0,
      entailed: 0,
      ambiguous: 0,
      unsupported: 0,
      assumed: 0,
      impossible: 0,
      byK: [],
      kept: 0,
      error: {
        message: 'bad.csv, row 2, column story_edges: x',
        detail: 'x',
        file: 'bad.csv',
        row: 2,
        column: 'story_edges',
      },
    },
    {
      name: 'b.csv',
      rows: 1,
      entailed: 0,
      ambiguous: 0,
      unsupported: 1,
      assumed: 0,
      impossible: 0,
      byK: [{ k: 3, rows: 1, entailed: 0, ambiguous: 0, unsupported: 1, assumed: 0, impossible: 0 }],
      kept: 1,
    },
  ];

  it('counts verdicts per file, in import order, with the total; malformed files carry their error', () => {
    const s = summariseByFile(files);
    expect(s.files.map((f) => [f.file, f.rows, f.entailed, f.ambiguous, f.unsupported, f.error?.row])).toEqual([
      ['a.csv', 1003, 1002, 1, 0, undefined],
      ['bad.csv', 0, 0, 0, 0, 2],
      ['b.csv', 1, 0, 0, 1, undefined],
    ]);
    expect(s.total).toEqual({ rows: 1004, entailed: 1002, ambiguous: 1, unsupported: 1, assumed: 0, impossible: 0 });
  });

  it('counts verdicts per k over all files, k ascending', () => {
    expect(summariseByK(files)).toEqual([
      { k: 2, rows: 501, entailed: 501, ambiguous: 0, unsupported: 0, assumed: 0, impossible: 0 },
      { k: 3, rows: 503, entailed: 501, ambiguous: 1, unsupported: 1, assumed: 0, impossible: 0 },
    ]);
  });

  it('filters the kept rows by file, verdict and k', () => {
    expect(filterAudited(rows, NO_AUDIT_FILTER)).toHaveLength(4);
    expect(filterAudited(rows, { ...NO_AUDIT_FILTER, file: 'a.csv' })).toHaveLength(3);
    expect(filterAudited(rows, { ...NO_AUDIT_FILTER, verdict: 'entailed', k: 3 }).map((r) => r.n)).toEqual([2]);
  });

  it('counts the rows of the files, kept or not, that pass a filter', () => {
    expect(countMatching(files, NO_AUDIT_FILTER)).toBe(1004);
    expect(countMatching(files, { ...NO_AUDIT_FILTER, file: 'a.csv' })).toBe(1003);
    expect(countMatching(files, { ...NO_AUDIT_FILTER, verdict: 'entailed', k: 3 })).toBe(501);
    expect(countMatching(files, { file: 'b.csv', verdict: 'unsupported', k: 3, basis: null })).toBe(1);
    expect(countMatching(files, { ...NO_AUDIT_FILTER, k: 7 })).toBe(0);
  });

  it('formats the entailed share', () => {
    expect(entailedShare({ rows: 0, entailed: 0, ambiguous: 0, unsupported: 0, assumed: 0, impossible: 0 })).toBe('–');
    expect(entailedShare({ rows: 3, entailed: 2, ambiguous: 1, unsupported: 0, assumed: 0, impossible: 0 })).toBe(
      '66.7%',
    );
  });

  it('filters and counts entailed rows by how they are decided', () => {
    const sound = { ...rows[0]!, basis: { kind: 'sound' as const } };
    const assumed = {
      ...rows[1]!,
      basis: { kind: 'assumed' as const, rules: ['uncle' as const], together: false, family: 'possible' as const },
    };
    const impossible = {
      ...rows[1]!,
      n: 9,
      basis: {
        kind: 'assumed' as const,
        rules: ['grandparent' as const],
        together: false,
        family: 'impossible' as const,
      },
    };
    const kept = [sound, assumed, impossible, rows[2]!];
    const only = (basis: 'sound' | 'assumed' | 'impossible') =>
      filterAudited(kept, { ...NO_AUDIT_FILTER, basis }).map((r) => r.n);
    expect(only('sound')).toEqual([1]);
    expect(only('assumed')).toEqual([2, 9]);
    expect(only('impossible')).toEqual([9]);
    const counted: AuditedFile[] = [
      {
        ...files[0]!,
        assumed: 300,
        impossible: 20,
        byK: [
          { k: 2, rows: 501, entailed: 501, ambiguous: 0, unsupported: 0, assumed: 100, impossible: 0 },
          { k: 3, rows: 502, entailed: 501, ambiguous: 1, unsupported: 0, assumed: 200, impossible: 20 },
        ],
      },
    ];
    expect(countMatching(counted, { ...NO_AUDIT_FILTER, basis: 'sound' })).toBe(1002 - 300);
    expect(countMatching(counted, { ...NO_AUDIT_FILTER, basis: 'assumed', k: 3 })).toBe(200);
    expect(countMatching(counted, { ...NO_AUDIT_FILTER, basis: 'impossible', verdict: 'entailed' })).toBe(20);
    expect(countMatching(counted, { ...NO_AUDIT_FILTER, basis: 'impossible', verdict: 'ambiguous' })).toBe(0);
  });
});
