import { describe, expect, it } from 'vitest';
import { generatePuzzle } from '../puzzle/puzzle';
import { createRng } from '../random/rng';
import { datasetRenderer } from '../text/datasetText';
import { CHOICE_WORDS, jsonlRecord, jsonlRow, parseJsonl, writeJsonl } from './jsonl';

const { render } = datasetRenderer(
  { synthetic: false, combinationLength: 3, templateSplit: false, storyOrder: 'shuffled' },
  'jsonl',
);
const told = (seed: number, k: number, task: 1 | 2 | 5 = 1) => {
  const puzzle = generatePuzzle({ seed, k, task });
  return { puzzle, text: render(puzzle, 'train', createRng(puzzle.seed, 'text')) };
};

describe('JSON Lines rows', () => {
  it('the choices are the 18 answer words: every relation word but husband and wife', () => {
    expect(CHOICE_WORDS).toHaveLength(18);
    expect(CHOICE_WORDS).not.toContain('husband');
    expect(CHOICE_WORDS).not.toContain('wife');
    expect(CHOICE_WORDS).toContain('granddaughter');
    expect(new Set(CHOICE_WORDS).size).toBe(18);
  });

  it('a record is JSON.stringify of its row, keys in order, and its answer is always a choice', () => {
    for (let seed = 0; seed < 40; seed++) {
      const { puzzle, text } = told(seed, 2 + (seed % 9), ([1, 2, 5] as const)[seed % 3]);
      const line = jsonlRecord(puzzle, text, `id-${seed}`);
      const row = jsonlRow(puzzle, text, `id-${seed}`);
      expect(line).toBe(JSON.stringify(row));
      expect(JSON.parse(line)).toEqual({
        id: `id-${seed}`,
        k: puzzle.k,
        task: puzzle.task,
        story: text.story,
        question: text.question,
        answer: puzzle.target.word,
        choices: [...CHOICE_WORDS],
      });
      expect(row.choices).toContain(row.answer);
    }
  });

  it('text that needs escaping round-trips: quotes, backslashes, newlines, non-ASCII', () => {
    const { puzzle, text } = told(3, 3);
    const odd = { ...text, story: 'A "quoted" story\\ with\na newline and Zoë.', question: 'Who is [Zoë]?' };
    const line = jsonlRecord(puzzle, odd, 'x,"y"');
    expect(line).not.toContain('\n');
    expect(parseJsonl(line + '\n')).toEqual([jsonlRow(puzzle, odd, 'x,"y"')]);
  });

  it('writeJsonl and parseJsonl: one line a row; bad lines are named', () => {
    const rows = [0, 1, 2].map((s) => {
      const { puzzle, text } = told(s, 4);
      return jsonlRow(puzzle, text, `r${s}`);
    });
    const text = writeJsonl(rows);
    expect(text.split('\n')).toHaveLength(4);
    expect(parseJsonl(text)).toEqual(rows);
    expect(() => parseJsonl(`${JSON.stringify(rows[0])}\n{"id": "3"}\n`)).toThrow(/^line 2: "story" is missing/);
    expect(() => parseJsonl('{nope\n')).toThrow(/^line 1: not JSON/);
  });
});
