import type { Puzzle } from '../core/puzzle/puzzle';
import type { RenderedStory } from '../core/text/render';

/** One thing the presenter shows next: a sentence, the question, the answer, a proof step. */
export type Beat =
  | { readonly type: 'sentence'; readonly index: number }
  | { readonly type: 'question' }
  | { readonly type: 'answer' }
  | { readonly type: 'proof'; readonly step: number };

/** The classroom's sequence: the sentences one by one, the question, the answer, each proof step. */
export function classroomBeats(puzzle: Puzzle, story: RenderedStory): Beat[] {
  return [
    ...story.sentences.map((_, index) => ({ type: 'sentence' as const, index })),
    { type: 'question' },
    { type: 'answer' },
    ...puzzle.proof.map((_, step) => ({ type: 'proof' as const, step })),
  ];
}

/** What is on screen at a cursor position. */
export function classroomView(puzzle: Puzzle, story: RenderedStory, cursor: number) {
  const beats = classroomBeats(puzzle, story);
  const shown = beats.slice(0, cursor + 1);
  const sentences = shown.filter((b) => b.type === 'sentence').length;
  const proofBeats = shown.filter((b) => b.type === 'proof');
  return {
    total: beats.length,
    sentences,
    question: shown.some((b) => b.type === 'question'),
    answer: shown.some((b) => b.type === 'answer'),
    proofStep: proofBeats.length > 0 ? proofBeats.length - 1 : null,
    current: beats[cursor] ?? null,
  };
}
