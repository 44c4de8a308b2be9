import { describe, expect, it } from 'vitest';
import { RELATION_WORDS } from '../../core/kinship/relations';
import { generatePuzzle } from '../../core/puzzle/puzzle';
import { createRng } from '../../core/random/rng';
import { datasetRenderer } from '../../core/text/datasetText';
import { withDefaults } from '../definition/definition';
import { studyItems, type StudyItem } from './schedule';
import { checkInstruction, checkWord, storyRequest, studyText, trialContent } from './trialContent';

const def = withDefaults({ seed: 7, k: [2, 3], itemsPerK: 2, practice: 1, attentionChecks: 2 });
const items = studyItems(def);

/** The item's puzzle and story, made as the generator worker makes them (split seed '1'). */
function made(item: StudyItem) {
  const body = storyRequest(def, item);
  const puzzle = generatePuzzle({ seed: body.seed, k: body.k, task: body.task, strict: body.strict });
  const { render } = datasetRenderer(body.text, '1');
  return { puzzle, story: render(puzzle, body.text.half, createRng(puzzle.seed, 'text')) };
}

describe('studyText', () => {
  it('uses the paraphrase bank with shuffled sentences and the chosen half', () => {
    expect(studyText({ templateSplit: 'all' })).toEqual({
      synthetic: false,
      combinationLength: 3,
      templateSplit: false,
      storyOrder: 'shuffled',
      half: 'train',
    });
    expect(studyText({ templateSplit: 'test' })).toMatchObject({ templateSplit: true, half: 'test' });
    expect(studyText({ templateSplit: 'train' })).toMatchObject({ templateSplit: true, half: 'train' });
  });
});

describe('storyRequest', () => {
  it("asks for the item's seed, k, task and the study's strictness", () => {
    const item = items.main[3]!;
    expect(storyRequest(withDefaults({ strict: false }), item)).toMatchObject({
      seed: String(item.seed),
      k: item.k,
      task: item.task,
      strict: false,
    });
  });
});

describe('trialContent', () => {
  it('shows a main item as plain text and asks how B is related to A; gold is the target', () => {
    const item = items.main[2]!;
    const { puzzle, story } = made(item);
    const t = trialContent(puzzle, story, item);
    const a = puzzle.entities[puzzle.query[0]]!.name;
    const b = puzzle.entities[puzzle.query[1]]!.name;
    expect(t).toMatchObject({ puzzleId: item.puzzleId, phase: 'main', queryA: a, queryB: b });
    expect(t.gold).toBe(puzzle.target.word);
    expect(t.question).toBe(`How is ${b} related to ${a}?`);
    expect(t.story).not.toMatch(/[[\]]/);
    expect(t.story).toContain(a);
    expect(t.story).toBe(story.story.replace(/\[([^\]]+)\]/g, '$1'));
  });

  it('puts an attention check’s instruction inside the question, with the instructed word as gold', () => {
    for (const item of items.checks) {
      const { puzzle, story } = made(item);
      const t = trialContent(puzzle, story, item);
      expect(t.phase).toBe('check');
      expect(t.gold).not.toBe(puzzle.target.word);
      expect(t.question.startsWith(checkInstruction(t.gold))).toBe(true);
      expect(t.question).toContain(`How is ${t.queryB} related to ${t.queryA}?`);
      // The story is the puzzle's own: the check changes only the question.
      expect(t.story).toBe(story.story.replace(/\[([^\]]+)\]/g, '$1'));
    }
  });

  it('is the same for the same item (Node and the browser run the same pure code)', () => {
    const item = items.practice[0]!;
    const one = made(item);
    const two = made(item);
    expect(trialContent(one.puzzle, one.story, item)).toEqual(trialContent(two.puzzle, two.story, item));
  });
});

describe('checkWord', () => {
  it('never asks for the true answer, whatever the seed', () => {
    for (let seed = 0; seed < 100; seed++) {
      for (const answer of RELATION_WORDS) {
        const w = checkWord({ seed }, answer);
        expect(w).not.toBe(answer);
        expect(RELATION_WORDS).toContain(w);
      }
    }
  });
  it('depends on the seed (not one word for every check)', () => {
    const words = new Set(Array.from({ length: 40 }, (_, seed) => checkWord({ seed }, 'son')));
    expect(words.size).toBeGreaterThan(5);
  });
});
