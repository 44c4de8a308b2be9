import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FAMILY } from '../family/family';
import { generatePuzzle, type PuzzleRecord, toRecord } from './puzzle';
import { PuzzleReader, PuzzleWriter } from './puzzleCodec';
import { TASK_IDS } from './tasks';

const record = (seed: string, k: number, task: (typeof TASK_IDS)[number], strict = false): PuzzleRecord =>
  toRecord(generatePuzzle({ seed, k, task, strict }));

/** The records back from their integers, read with their own seeds. */
function roundTrip(records: readonly PuzzleRecord[], into?: Int32Array): PuzzleRecord[] {
  const w = new PuzzleWriter(into);
  for (const r of records) w.write(r);
  const reader = new PuzzleReader(w.finish(), records[0]?.familyParams ?? DEFAULT_FAMILY);
  const out = records.map((r) => reader.read(r.seed));
  expect(reader.done).toBe(true);
  return out;
}

describe('PuzzleWriter and PuzzleReader', () => {
  it('give back every generated record, key order included, for every task, k and mode', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TASK_IDS),
        fc.integer({ min: 2, max: 6 }),
        fc.boolean(),
        fc.array(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 6 }),
        (task, k, strict, seeds) => {
          const records = seeds.map((s) => record(s, k, task, strict));
          const back = roundTrip(records);
          expect(back).toEqual(records);
          // The same keys in the same order (a renderer or serialiser may walk them).
          expect(back.map((r) => JSON.stringify(r))).toEqual(records.map((r) => JSON.stringify(r)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('without proofs, gives back every record but its proof, which reads as empty', () => {
    const records = TASK_IDS.flatMap((task) => [2, 4, 6].map((k) => record(`bare-${task}-${k}`, k, task, k === 4)));
    const w = new PuzzleWriter(undefined, { withoutProofs: true });
    for (const r of records) w.write(r);
    const full = new PuzzleWriter();
    for (const r of records) full.write(r);
    // Each proof step is 9 integers fewer.
    const steps = records.reduce((n, r) => n + r.proof.length, 0);
    expect(steps).toBeGreaterThan(0);
    expect(w.finish().length).toBe(full.finish().length - 9 * steps);
    const reader = new PuzzleReader(w.finish(), DEFAULT_FAMILY);
    const back = records.map((r) => reader.read(r.seed));
    expect(reader.done).toBe(true);
    expect(back).toEqual(records.map((r) => ({ ...r, proof: [] })));
  });

  it('writes past the end of a small buffer it was given, and reuses one with room', () => {
    const records = Array.from({ length: 40 }, (_, i) => record(`grow-${i}`, 5, 2));
    expect(roundTrip(records, new Int32Array(1024))).toEqual(records);
    const big = new Int32Array(1 << 16);
    const w = new PuzzleWriter(big);
    w.write(records[0]!);
    expect(w.finish().buffer).toBe(big.buffer);
  });

  it('refuses a record it cannot write faithfully, naming what is wrong', () => {
    const r = record('odd', 3, 1);
    const renamed = { ...r, entities: r.entities.map((e, i) => (i === 1 ? { ...e, name: 'Zebedee-X' } : e)) };
    expect(() => new PuzzleWriter().write(renamed)).toThrow(/entity 1 \("Zebedee-X"\)/);
    const reworded = { ...r, target: { ...r.target, word: 'cousin' as never } };
    expect(() => new PuzzleWriter().write(reworded)).toThrow(/"cousin" is not a relation word/);
    expect(() => new PuzzleWriter().write({ ...r, pattern: 'son-son-son' })).toThrow(/pattern "son-son-son"/);
  });

  it('refuses data that ends inside a record or holds an unknown code', () => {
    const w = new PuzzleWriter();
    w.write(record('cut', 4, 1));
    const data = w.finish();
    expect(() => new PuzzleReader(data.slice(0, data.length - 2), DEFAULT_FAMILY).read('cut')).toThrow(
      /ends inside a record/,
    );
    const bad = data.slice();
    bad[5] = 99_999; // the first entity's name
    expect(() => new PuzzleReader(bad, DEFAULT_FAMILY).read('cut')).toThrow(/99999 is not a name code/);
  });
});
