/**
 * The few-shot prompt's two worked examples, made by our own generator (task 1, plain sentences)
 * from fixed seeds: k = 2 and k = 3, so the examples show a two- and a three-step chain. The same
 * text every time, in Node and on the page.
 */
import { generatePuzzle, toRecord } from '../core/puzzle/puzzle';
import { createRng } from '../core/random/rng';
import { renderPlain } from '../core/text/plain';
import { unbracket } from '../core/text/render';

/** A puzzle as a language model is asked it: how is `b` related to `a`? */
export interface LlmQuestion {
  /** The story; CLUTRR's `[Name]` brackets are removed before it is sent. */
  readonly story: string;
  readonly a: string;
  readonly b: string;
}
/** The seeds of the examples ("llm-few-shot", rows 0 and 1). */
export const FEW_SHOT_SEEDS = [
  { seed: 'llm-few-shot-0', k: 2 },
  { seed: 'llm-few-shot-1', k: 3 },
] as const;

export interface WorkedExample extends LlmQuestion {
  readonly answer: string;
}

let made: readonly WorkedExample[] | null = null;

/** The two worked examples (made once, then kept). */
export function fewShotExamples(): readonly WorkedExample[] {
  made ??= FEW_SHOT_SEEDS.map(({ seed, k }) => {
    const puzzle = toRecord(generatePuzzle({ seed, k, task: 1 }));
    const story = renderPlain(puzzle, 'train', createRng(seed, 'story'));
    return {
      story: unbracket(story.story),
      a: puzzle.entities[puzzle.query[0]]!.name,
      b: puzzle.entities[puzzle.query[1]]!.name,
      answer: puzzle.target.word,
    };
  });
  return made;
}
