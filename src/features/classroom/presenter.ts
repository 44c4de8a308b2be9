import type { Puzzle } from '../../core/puzzle/puzzle';
import type { RenderedStory } from '../../core/text/render';
import { classroomBeats } from '../../state/classroom';

export interface PresenterView {
  readonly total: number;
  /** How many sentences are told. */
  readonly sentences: number;
  readonly question: boolean;
  readonly answer: boolean;
  /** The proof step shown last, or null. */
  readonly proofStep: number | null;
  readonly current: ReturnType<typeof classroomBeats>[number] | null;
}

/** What is on screen at a cursor position (−1: nothing yet). */
export function presenterView(puzzle: Puzzle, story: RenderedStory, cursor: number): PresenterView {
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
