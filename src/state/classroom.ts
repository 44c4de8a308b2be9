import type { Puzzle } from '../core/puzzle/puzzle';
import type { RenderedStory } from '../core/text/render';

/** One thing the presenter shows next: a sentence, the question, the answer, a proof step. */
export type Beat =
  | { readonly type: 'sentence'; readonly index: number }
  | { readonly type: 'question' }
  | { readonly type: 'answer' }
  | { readonly type: 'proof'; readonly step: number };

/**
 * The classroom's sequence, which the cursor in the classroom slice walks: the sentences one by
 * one, the question, the answer, each proof step. The proof comes after the answer, so stepping
 * never shows it early.
 */
export function classroomBeats(puzzle: Puzzle, story: RenderedStory): Beat[] {
  return [
    ...story.sentences.map((_, index) => ({ type: 'sentence' as const, index })),
    { type: 'question' },
    { type: 'answer' },
    ...puzzle.proof.map((_, step) => ({ type: 'proof' as const, step })),
  ];
}
