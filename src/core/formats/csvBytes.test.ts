import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generatePuzzle, type PuzzleRecord, toRecord } from '../puzzle/puzzle';
import { TASK_IDS } from '../puzzle/tasks';
import type { RenderedStory } from '../text/render';
import { ByteSink, writeCsvColumns, writeCsvRecord } from './csvBytes';
import { renderedRow, TEXT_SETTINGS } from './fixtures/renderedPuzzles';
import { puzzleCsvColumns, puzzleCsvRecord } from './fromPuzzle';

const decoder = new TextDecoder();

/** The record writeCsvRecord writes, as text (written after some bytes already in the sink). */
function written(puzzle: PuzzleRecord, text: RenderedStory, meta: { index: number; id: string; split: string }) {
  const sink = new ByteSink(undefined, 16);
  sink.text('é,');
  writeCsvRecord(sink, puzzle, text, meta, 4);
  return decoder.decode(sink.finish()).slice(2);
}

describe('writeCsvRecord', () => {
  it('writes the bytes of puzzleCsvRecord, for every task, k, strict mode and renderer', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.nat()),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom(...TASK_IDS),
        fc.boolean(),
        fc.constantFrom(...TEXT_SETTINGS),
        fc.nat(1e9),
        (seed, k, task, strict, settings, index) => {
          const { puzzle, text, meta } = renderedRow(seed, k, task, strict, settings, index);
          expect(written(puzzle, text, meta)).toBe(puzzleCsvRecord(puzzle, text, meta));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('writes names and text that need quoting or escaping as puzzleCsvRecord does', () => {
    const odd = ["O'Neil", 'Zoë "Z"', 'Ann\tMarie', '😀', 'Bob\\', 'Åsa'];
    const base = toRecord(generatePuzzle({ seed: 'odd', k: 4, task: 2 }));
    for (let shift = 0; shift < odd.length; shift++) {
      const puzzle: PuzzleRecord = {
        ...base,
        entities: base.entities.map((e, i) => ({ ...e, name: odd[(i + shift) % odd.length]! })),
      };
      const text: RenderedStory = {
        sentences: [],
        story: 'A "quoted", two-line\nstory – ünïcode',
        cleanStory: shift % 2 ? 'plain' : 'A "quoted", two-line\nstory – ünïcode',
        question: '?',
        textTarget: `it's "it" ü`,
      };
      const meta = { index: 3, id: 'a,b', split: 'train' };
      expect(written(puzzle, text, meta)).toBe(puzzleCsvRecord(puzzle, text, meta));
    }
  });

  it('refuses a name the genders column cannot hold, with puzzleCsvRecord’s error', () => {
    const base = toRecord(generatePuzzle({ seed: 'bad', k: 2, task: 1 }));
    const text: RenderedStory = { sentences: [], story: '', cleanStory: '', question: '', textTarget: '' };
    for (const name of ['', 'A,B', 'A:B']) {
      const puzzle: PuzzleRecord = { ...base, entities: base.entities.map((e) => ({ ...e, name })) };
      const meta = { index: 0, id: 'x', split: 'test' };
      expect(() => puzzleCsvRecord(puzzle, text, meta, 4)).toThrow(/name genders cannot hold/);
      expect(() => written(puzzle, text, meta)).toThrow(/name genders cannot hold/);
    }
  });
});

describe('writeCsvColumns', () => {
  it('writes puzzleCsvColumns’ query, calls `between` where it ends, then writes its rest', () => {
    for (let seed = 0; seed < 60; seed++) {
      const puzzle = toRecord(generatePuzzle({ seed, k: 1 + (seed % 7), task: TASK_IDS[seed % TASK_IDS.length]! }));
      const sink = new ByteSink(undefined, 8);
      let at = -1;
      writeCsvColumns(sink, puzzle, 'test', 1, (s) => {
        at = s.length;
      });
      const bytes = sink.finish();
      const c = puzzleCsvColumns(puzzle, 'test', 1);
      expect(decoder.decode(bytes.subarray(0, at))).toBe(c.query);
      expect(decoder.decode(bytes.subarray(at))).toBe(c.rest);
    }
  });
});

describe('ByteSink', () => {
  it('writes integers as String does and short text as UTF-8, growing as it must', () => {
    const sink = new ByteSink(undefined, 1);
    const parts: string[] = [];
    for (const n of [0, 7, 10, 99, 100, 12345, 2147483647, 2147483648, 1.5, -3]) {
      sink.uint(n);
      parts.push(String(n));
    }
    for (const s of ['', 'ascii', 'Zoë', '😀 x', 'a'.repeat(5000)]) {
      sink.short(s);
      parts.push(s);
    }
    expect(decoder.decode(sink.finish())).toBe(parts.join(''));
  });
});
