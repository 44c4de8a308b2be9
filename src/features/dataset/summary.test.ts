import { describe, expect, it } from 'vitest';
import { DEFAULT_DATASET } from '../../core/puzzle/dataset';
import { planDataset } from '../../core/formats/datasetFolder';
import type { PreviewRow } from '../../worker/datasetProtocol';
import {
  countRows,
  countsPerK,
  factsToldSummary,
  fellBackToPlain,
  filterPreview,
  isNoFilter,
  jobRowsDone,
  mergePatternCounts,
  NO_FILTER,
  orderedRows,
  patternCountsPerK,
  sliceInOrder,
  totalDone,
} from './summary';

const row = (k: number, pattern: string, task: 1 | 2 = 1, split: 'train' | 'test' = 'train'): PreviewRow => ({
  id: `${k}-${pattern}-${task}-${split}`,
  split,
  task,
  k,
  pattern,
  target: 'x',
  query: ['A', 'B'],
  story: '',
});

describe('live counts', () => {
  const plan = planDataset({ ...DEFAULT_DATASET, trainRows: 100, testRows: 10 });

  it('counts rows per k from job progress, exactly once a job is finished', () => {
    const [j0, j1] = plan.jobs;
    expect(jobRowsDone(j0!, { done: 150, total: 300 }, false)).toBe(50);
    expect(jobRowsDone(j0!, undefined, false)).toBe(0);
    expect(jobRowsDone(j0!, { done: 1, total: 300 }, true)).toBe(100);
    const counts = countsPerK(plan, { [j0!.key]: { done: 25, total: 100 } }, { [j1!.key]: true });
    expect(counts).toEqual([
      { k: 2, done: 25, planned: 110 },
      { k: 3, done: 100, planned: 110 },
    ]);
    expect(totalDone(plan, {}, Object.fromEntries(plan.jobs.map((j) => [j.key, true])))).toBe(220);
  });
});

describe('pattern counts and filters', () => {
  const rows = [
    row(2, 'son-son'),
    row(3, 'son-son-aunt'),
    row(2, 'son-son'),
    row(2, 'father-wife', 2, 'test'),
    row(3, 'a-b-c'),
  ];

  it('counts patterns per k, most frequent first', () => {
    const m = patternCountsPerK(rows);
    expect([...m.keys()]).toEqual([2, 3]);
    expect(m.get(2)).toEqual([
      { pattern: 'son-son', count: 2 },
      { pattern: 'father-wife', count: 1 },
    ]);
    expect(m.get(3)!.map((p) => p.pattern)).toEqual(['a-b-c', 'son-son-aunt']);
  });

  it('filters by k, task, split and pattern (substring or * glob)', () => {
    expect(filterPreview(rows, NO_FILTER)).toHaveLength(5);
    expect(filterPreview(rows, { ...NO_FILTER, k: 3 })).toHaveLength(2);
    expect(filterPreview(rows, { ...NO_FILTER, task: 2 })).toHaveLength(1);
    expect(filterPreview(rows, { ...NO_FILTER, split: 'test' })).toHaveLength(1);
    expect(filterPreview(rows, { ...NO_FILTER, pattern: 'AUNT' })).toHaveLength(1);
    expect(filterPreview(rows, { ...NO_FILTER, pattern: 'son-*-aunt' })).toHaveLength(1);
    expect(filterPreview(rows, { ...NO_FILTER, pattern: 'son', k: 2 })).toHaveLength(2);
  });
});

describe('rows in file order', () => {
  const plan = planDataset({ ...DEFAULT_DATASET, trainRows: 3, testRows: 2 });
  const [a, b, c, d] = plan.jobs.map((j) => j.key);
  const rowsByJob = {
    [b!]: [row(3, 'b0'), row(3, 'b1'), row(3, 'b2')],
    [a!]: [row(2, 'a0'), row(2, 'a1')],
    [d!]: [row(3, 'd0')],
  };
  void c;

  it('orders by the plan, whatever order jobs arrived in, and slices without building the list', () => {
    const all = orderedRows(plan, rowsByJob).map((r) => r.pattern);
    expect(all).toEqual(['a0', 'a1', 'b0', 'b1', 'b2', 'd0']);
    expect(countRows(plan, rowsByJob)).toBe(6);
    for (let start = 0; start < 7; start++) {
      for (const n of [1, 2, 4])
        expect(sliceInOrder(plan, rowsByJob, start, n).map((r) => r.pattern)).toEqual(all.slice(start, start + n));
    }
  });

  it('merges the per-job pattern counts of the workers per k', () => {
    const m = mergePatternCounts(plan, {
      [a!]: [
        ['son-son', 2],
        ['father-wife', 1],
      ],
      [b!]: [['x-y-z', 1]],
      [d!]: [
        ['x-y-z', 4],
        ['a-b-c', 4],
      ],
    });
    expect(m.get(2)).toEqual([
      { pattern: 'son-son', count: 2 },
      { pattern: 'father-wife', count: 1 },
    ]);
    expect(m.get(3)).toEqual([
      { pattern: 'x-y-z', count: 5 },
      { pattern: 'a-b-c', count: 4 },
    ]);
  });

  it('knows an empty filter', () => {
    expect(isNoFilter(NO_FILTER)).toBe(true);
    expect(isNoFilter({ ...NO_FILTER, pattern: ' ' })).toBe(true);
    expect(isNoFilter({ ...NO_FILTER, k: 2 })).toBe(false);
  });
});

describe('factsToldSummary', () => {
  it('says how many facts the template file, the bank and plain sentences told, with shares', () => {
    expect(factsToldSummary({ file: 410, bank: 0, plain: 90 })).toBe(
      'Facts told: 410 by the template file (82.0%), 0 by the bank, 90 by plain sentences (18.0%).',
    );
    expect(factsToldSummary({ file: 0, bank: 12, plain: 0 })).toBe(
      'Facts told: 0 by the template file, 12 by the bank (100.0%), 0 by plain sentences.',
    );
    expect(factsToldSummary({ file: 0, bank: 0, plain: 0 })).toBe(
      'Facts told: 0 by the template file, 0 by the bank, 0 by plain sentences.',
    );
  });

  it('warns of a fallback only when paraphrases were asked for and some facts were told plainly', () => {
    expect(fellBackToPlain({ file: 410, bank: 0, plain: 90 })).toBe(true);
    expect(fellBackToPlain({ file: 410, bank: 0, plain: 0 })).toBe(false);
    // --synthetic: every fact plain, by choice.
    expect(fellBackToPlain({ file: 0, bank: 0, plain: 30 })).toBe(false);
  });
});
