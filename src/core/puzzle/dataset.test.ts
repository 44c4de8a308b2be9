import { describe, expect, it } from 'vitest';
import {
  balanceByPattern,
  DEFAULT_DATASET,
  type DatasetSpec,
  generateDataset,
  generateTaskRows,
  isHeldOut,
  patternMatcher,
  rowSeed,
  seededUuid,
} from './dataset';
import { createRng } from '../random/rng';
import { generatePuzzle, GenerationError, toRecord } from './puzzle';

const spec = (over: Partial<DatasetSpec>): DatasetSpec => ({ ...DEFAULT_DATASET, ...over });

describe('generateDataset', () => {
  it('gives exactly the rows asked for, per task', () => {
    const d = generateDataset(
      spec({
        trainTasks: [
          { task: 1, k: 2 },
          { task: 2, k: 3 },
        ],
        testTasks: [
          { task: 1, k: 4 },
          { task: 3, k: 2 },
          { task: 6, k: 5 },
        ],
        trainRows: 37,
        testRows: 11,
        equal: true,
      }),
    );
    expect(d.train).toHaveLength(74);
    expect(d.test.map((t) => t.length)).toEqual([11, 11, 11]);
    expect(d.train.filter((r) => r.taskName === '2.3')).toHaveLength(37);
    expect(d.test[2]!.every((r) => r.puzzle.task === 6 && r.puzzle.k === 5 && r.split === 'test')).toBe(true);
  });

  it('is deterministic, and every row regenerates from its own seed', () => {
    const s = spec({ trainTasks: [{ task: 5, k: 4 }], testTasks: [], trainRows: 20, seed: 'det' });
    const a = generateDataset(s);
    const b = generateDataset(s);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    for (const row of a.train) {
      const again = generatePuzzle({ seed: row.puzzle.seed, k: 4, task: 5 });
      expect(JSON.stringify(toRecord(again))).toBe(JSON.stringify(row.puzzle));
      expect('family' in row.puzzle).toBe(false);
    }
    expect(a.train[3]!.puzzle.seed).toBe(rowSeed(s, { task: 5, k: 4 }, 'train', 3));
    expect(new Set(a.train.map((r) => r.id)).size).toBe(20);
  });

  it('holds patterns out of training for k > 2 and tests on them, never at k = 2', () => {
    const s = spec({
      seed: 'hold',
      trainTasks: [
        { task: 1, k: 2 },
        { task: 1, k: 3 },
      ],
      testTasks: [
        { task: 1, k: 2 },
        { task: 1, k: 3 },
      ],
      trainRows: 400,
      testRows: 60,
      holdout: 0.2,
    });
    const d = generateDataset(s);
    const train3 = d.train.filter((r) => r.puzzle.k === 3).map((r) => r.puzzle.pattern);
    const test3 = d.test[1]!.map((r) => r.puzzle.pattern);
    for (const p of train3) expect(isHeldOut(p, s.seed, s.holdout)).toBe(false);
    for (const p of test3) expect(isHeldOut(p, s.seed, s.holdout)).toBe(true);
    expect(test3.some((p) => train3.includes(p))).toBe(false);
    // k = 2: nothing is held out, train and test share patterns.
    const train2 = new Set(d.train.filter((r) => r.puzzle.k === 2).map((r) => r.puzzle.pattern));
    expect(d.test[0]!.some((r) => train2.has(r.puzzle.pattern))).toBe(true);
    expect(isHeldOut('son-father', 'x', 0.99)).toBe(false);
  });

  it('balances patterns with --equal', () => {
    const rows = generateTaskRows(spec({ seed: 'eq', trainRows: 620, equal: true }), { task: 1, k: 2 }, 'train');
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.puzzle.pattern, (counts.get(r.puzzle.pattern) ?? 0) + 1);
    expect(rows).toHaveLength(620);
    expect(counts.size).toBe(62);
    const values = [...counts.values()];
    expect(Math.max(...values) - Math.min(...values)).toBeLessThanOrEqual(1);
    // Without it, the natural distribution is far from flat.
    const plain = generateTaskRows(spec({ seed: 'eq', trainRows: 620 }), { task: 1, k: 2 }, 'train');
    const pc = new Map<string, number>();
    for (const r of plain) pc.set(r.puzzle.pattern, (pc.get(r.puzzle.pattern) ?? 0) + 1);
    expect(Math.max(...pc.values()) - Math.min(...pc.values())).toBeGreaterThan(5);
  });

  it('filters by pattern globs', () => {
    const m = patternMatcher(['son-*', 'mother-in-law-*-aunt']);
    expect(m('son-daughter')).toBe(true);
    expect(m('son-daughter-aunt')).toBe(false);
    expect(m('mother-in-law-son-in-law-aunt')).toBe(true);
    const rows = generateTaskRows(spec({ trainRows: 30, patterns: ['*-*-aunt'] }), { task: 1, k: 3 }, 'train');
    expect(rows.every((r) => r.puzzle.pattern.endsWith('-aunt'))).toBe(true);
  });

  it('ends impossible settings with a message naming the task', () => {
    expect(() => generateDataset(spec({ trainTasks: [{ task: 1, k: 60 }], testTasks: [] }))).toThrow(
      /task 1\.60 \(train\): k = 60 needs 61 different people/,
    );
    expect(() =>
      generateDataset(spec({ trainTasks: [{ task: 1, k: 3 }], testTasks: [], patterns: ['husband-son-grandmother'] })),
    ).toThrow(GenerationError);
    expect(() => generateDataset(spec({ trainRows: -1 }))).toThrow(/train-rows/);
  });

  it('round-robins patterns and keeps pool order', () => {
    const fake = ['a', 'a', 'a', 'b', 'c', 'c'].map((pattern, i) => ({ puzzle: { pattern, i } }) as never);
    const picked = balanceByPattern(fake, 4) as unknown as { puzzle: { i: number } }[];
    expect(picked.map((r) => r.puzzle.i)).toEqual([0, 1, 3, 4]);
  });

  it('writes uuids as the hex-string form always did', () => {
    // The first implementation, kept here as the reference of the table-driven one.
    const reference = (seed: string | number) => {
      const rng = createRng(seed, 'uuid');
      const h = Array.from({ length: 4 }, () => rng.uint32().toString(16).padStart(8, '0')).join('');
      const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    };
    for (let i = 0; i < 3000; i++) {
      const seed = i % 2 ? i : `s:1.3:train:${i}`;
      expect(seededUuid(seed)).toBe(reference(seed));
    }
  });

  it('makes well-formed, distinct uuids', () => {
    const ids = Array.from({ length: 100 }, (_, i) => seededUuid(i));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(100);
  });
});
