import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DATASET, type DatasetSpec } from '../puzzle/dataset';
import { generatePuzzle, type PuzzleRecord, toRecord } from '../puzzle/puzzle';
import { TASK_IDS } from '../puzzle/tasks';
import { datasetRenderer } from '../text/datasetText';
import type { RenderedStory } from '../text/render';
import { clutrrFields } from './clutrrCsv';
import { writeCsv } from './csv';
import { makePuzzles, tellRowBytes, tellRows } from './datasetFolder';
import { renderedRow, TEXT_SETTINGS } from './fixtures/renderedPuzzles';
import { puzzleCsvRecord, puzzleToRow } from './fromPuzzle';

/** What a generated row's record was before puzzleCsvRecord: through the ClutrrRow and writeCsv. */
const reference = (puzzle: PuzzleRecord, text: RenderedStory, meta: { index: number; id: string; split: string }) =>
  writeCsv([clutrrFields(puzzleToRow(puzzle, text, meta))]);

describe('puzzleCsvRecord', () => {
  it('writes the bytes of clutrrFields through writeCsv, for every task, k, strict mode and renderer', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.nat()),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom(...TASK_IDS),
        fc.boolean(),
        fc.constantFrom(...TEXT_SETTINGS),
        fc.nat(1e6),
        (seed, k, task, strict, settings, index) => {
          const { puzzle, text, meta } = renderedRow(seed, k, task, strict, settings, index);
          expect(puzzleCsvRecord(puzzle, text, meta) + '\n').toBe(reference(puzzle, text, meta));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('quotes and escapes text that needs it as writeCsv and reprStr do', () => {
    const odd = ["O'Neil", 'Zoë "Z"', 'Ann\tMarie', '😀', 'Bob\\'];
    const base = toRecord(generatePuzzle({ seed: 'odd', k: 3, task: 2 }));
    const puzzle: PuzzleRecord = {
      ...base,
      entities: base.entities.map((e, i) => ({ ...e, name: odd[i % odd.length]! })),
    };
    const text: RenderedStory = {
      sentences: [],
      story: 'A "quoted", two-line\nstory',
      cleanStory: 'plain',
      question: '?',
      textTarget: `it's "it"`,
    };
    const meta = { index: 3, id: 'a,b', split: 'train' };
    expect(puzzleCsvRecord(puzzle, text, meta) + '\n').toBe(reference(puzzle, text, meta));
  });

  it('refuses a name the genders column cannot hold, as clutrrFields does', () => {
    const base = toRecord(generatePuzzle({ seed: 'bad', k: 2, task: 1 }));
    const text: RenderedStory = { sentences: [], story: '', cleanStory: '', question: '', textTarget: '' };
    for (const name of ['', 'A,B', 'A:B']) {
      const puzzle: PuzzleRecord = { ...base, entities: base.entities.map((e) => ({ ...e, name })) };
      const meta = { index: 0, id: 'x', split: 'test' };
      const message = (f: () => unknown) => {
        try {
          f();
        } catch (e) {
          return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        }
        return 'accepted';
      };
      const expected = message(() => clutrrFields(puzzleToRow(puzzle, text, meta), 4));
      expect(expected).toMatch(/name genders cannot hold/);
      expect(message(() => puzzleCsvRecord(puzzle, text, meta, 4))).toBe(expected);
    }
  });
});

describe('tellRowBytes', () => {
  const spec: DatasetSpec = {
    ...DEFAULT_DATASET,
    seed: 'bytes',
    trainTasks: [{ task: 2, k: 3 }],
    testTasks: [{ task: 5, k: 4 }],
  };
  const decoder = new TextDecoder();
  it('is the UTF-8 of tellRows’ text, for any slice of any job, with its puzzles made here or read back', () => {
    for (const settings of TEXT_SETTINGS) {
      const { render } = datasetRenderer(settings, spec.seed);
      for (const job of [
        { task: spec.trainTasks[0]!, split: 'train' as const },
        { task: spec.testTasks[0]!, split: 'test' as const },
      ]) {
        const numbers = [5, 0, 17, 3, 9, 11, 2];
        for (const [from, to] of [
          [0, 7],
          [2, 5],
          [4, 4],
        ] as const) {
          const range = { spec, job, numbers, from, to, indexStart: 100 };
          const text = tellRows(range, render).csv;
          expect(decoder.decode(tellRowBytes(range, render))).toBe(text);
          // The same text when the puzzles were made apart (another thread) and read back.
          expect(decoder.decode(tellRowBytes(range, render, { made: makePuzzles(range) }))).toBe(text);
        }
      }
    }
  });
});
