import type { PuzzleRecord, Triple } from '../puzzle/puzzle';
import type { Rng } from '../random/rng';
import { arrange, factChains, type StoryOrder } from './order';
import { bracket, joinSentences, type RenderedSentence, type RenderedStory, type StoryRenderer } from './render';

/**
 * The plain synthetic rendering: one short sentence per fact, in one of two fixed shapes
 * ("[B] is the daughter of [A]." or "[A]'s daughter is [B]."), as the original's rule-based
 * templates. Kept for ablations and as the fallback when no paraphrase fits.
 */
export function plainSentence(a: string, word: string, b: string, shape: 0 | 1): string {
  return shape === 0 ? `${bracket(b)} is the ${word} of ${bracket(a)}.` : `${bracket(a)}'s ${word} is ${bracket(b)}.`;
}

/** "How is [B] related to [A]?" for a puzzle. */
export function questionFor(puzzle: PuzzleRecord): string {
  const a = puzzle.entities[puzzle.query[0]]!.name;
  const b = puzzle.entities[puzzle.query[1]]!.name;
  return `How is ${bracket(b)} related to ${bracket(a)}?`;
}

export function tripleSentence(puzzle: PuzzleRecord, t: Triple, rng: Rng): string {
  const a = puzzle.entities[t.from]!.name;
  const b = puzzle.entities[t.to]!.name;
  return plainSentence(a, t.word, b, rng.chance(0.5) ? 0 : 1);
}

/**
 * One plain sentence per fact, arranged as `order` asks (see StoryOrder): the synthetic
 * rendering of `--synthetic`. The question is the plain form.
 */
export function createPlainRenderer(order: StoryOrder): StoryRenderer {
  return (puzzle: PuzzleRecord, _split, rng: Rng): RenderedStory => {
    const told = factChains(puzzle).map((chain) => ({
      path: chain[0]!.kind === 'path',
      sentences: chain.map((f): RenderedSentence => ({ text: tripleSentence(puzzle, f, rng), factIds: [f.id] })),
    }));
    const { sentences, clean } = arrange(told, order, rng);
    const [qa, qb] = puzzle.query;
    const target: Triple = { from: qa, to: qb, predicate: puzzle.target.predicate, word: puzzle.target.word };
    return {
      sentences,
      story: joinSentences(sentences),
      cleanStory: joinSentences(clean),
      question: questionFor(puzzle),
      textTarget: tripleSentence(puzzle, target, rng),
    };
  };
}

/** Plain sentences in a seeded random order (the datasets' default order). */
export const renderPlain: StoryRenderer = createPlainRenderer('shuffled');
