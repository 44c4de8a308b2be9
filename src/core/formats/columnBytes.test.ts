import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generatePuzzle, type PuzzleRecord, toRecord } from '../puzzle/puzzle';
import { TASK_IDS } from '../puzzle/tasks';
import { ColumnBytes } from './columnBytes';
import { puzzleCsvColumns } from './fromPuzzle';

const decoder = new TextDecoder();

/** The columns' two strings as ColumnBytes wrote them, read back from its bytes. */
function written(puzzles: readonly PuzzleRecord[], split: string, into?: Uint8Array) {
  const w = new ColumnBytes(into);
  const ends = puzzles.map((p) => {
    const from = w.length;
    const query = w.write(p, split);
    return [from, query, w.length] as const;
  });
  const bytes = w.finish();
  return ends.map(([from, query, to]) => ({
    query: decoder.decode(bytes.subarray(from, query)),
    rest: decoder.decode(bytes.subarray(query, to)),
  }));
}

describe('ColumnBytes', () => {
  it('writes the UTF-8 of puzzleCsvColumns, for every task, k and strict mode', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.nat()), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom(...TASK_IDS),
        fc.boolean(),
        fc.constantFrom('train', 'test'),
        (seeds, k, task, strict, split) => {
          const puzzles = seeds.map((seed) => toRecord(generatePuzzle({ seed, k, task, strict })));
          expect(written(puzzles, split)).toEqual(puzzles.map((p) => puzzleCsvColumns(p, split)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes the string path for names and splits that need quoting or escaping, with the same result', () => {
    const odd = ["O'Neil", 'Zoë "Z"', 'Ann\tMarie', '😀', 'Bob\\', 'Renée'];
    const base = toRecord(generatePuzzle({ seed: 'odd', k: 4, task: 2 }));
    const puzzle: PuzzleRecord = {
      ...base,
      entities: base.entities.map((e, i) => ({ ...e, name: odd[i % odd.length]! })),
    };
    const puzzles = [puzzle, base, puzzle];
    expect(written(puzzles, 'train')).toEqual(puzzles.map((p) => puzzleCsvColumns(p, 'train')));
    expect(written([base], 'a,"b"')).toEqual([puzzleCsvColumns(base, 'a,"b"')]);
  });

  it('grows past a small buffer it was given, losing nothing', () => {
    const puzzles = Array.from({ length: 60 }, (_, i) => toRecord(generatePuzzle({ seed: i, k: 9, task: 3 })));
    expect(written(puzzles, 'test', new Uint8Array(4096))).toEqual(puzzles.map((p) => puzzleCsvColumns(p, 'test')));
  });

  it('refuses a name the genders column cannot hold, as puzzleCsvColumns does', () => {
    const base = toRecord(generatePuzzle({ seed: 'bad', k: 2, task: 1 }));
    const puzzle: PuzzleRecord = { ...base, entities: base.entities.map((e) => ({ ...e, name: 'A:B' })) };
    expect(() => puzzleCsvColumns(puzzle, 'test', 4)).toThrow(/genders cannot hold/);
    expect(() => new ColumnBytes().write(puzzle, 'test', 4)).toThrow(/genders cannot hold/);
  });
});
