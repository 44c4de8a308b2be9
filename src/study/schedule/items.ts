/**
 * The schedule's vocabulary: items, trials, steps and who a schedule is for. A leaf (it imports
 * only core types), so the study kinds, the trial contents and the result columns can name these
 * types without importing the scheduler, which itself asks the kinds for their items.
 */
import type { TaskId } from '../../core/puzzle/tasks';
import type { Seed } from '../../core/random/rng';

export type Phase = 'practice' | 'main' | 'check';

/** One puzzle of the study; generate it with `generatePuzzle({ seed, k, task, ... })`. */
export interface StudyItem {
  /** Stable within the study: `main-k3-t1-0`, `practice-0`, `check-1`. */
  readonly puzzleId: string;
  readonly phase: Phase;
  readonly seed: number;
  readonly k: number;
  readonly task: TaskId;
}

/** One trial of a participant's run: `trialIndex` counts from 0 over practice, main and check trials. */
export interface Trial {
  readonly trialIndex: number;
  readonly item: StudyItem;
}

/** What the run shows, in order: trials, with a break after every `breakEvery` non-practice trials. */
export type Step =
  { readonly kind: 'trial'; readonly trial: Trial } | { readonly kind: 'break'; readonly afterTrial: number };

/** The study's fixed items, from the study seed. */
export interface StudyItems {
  readonly practice: readonly StudyItem[];
  /** In (k, task, i) order, as the definition lists k and tasks. */
  readonly main: readonly StudyItem[];
  readonly checks: readonly StudyItem[];
}

/** Who the schedule is for. */
export interface ParticipantInput {
  /** The balanced counter's value: 0 for the first participant, 1 for the next… (JATOS batch counter, URL, …). */
  readonly participantNumber: number;
  /** The session's own seed (e.g. its session id): draws the order in `session` mode. */
  readonly sessionSeed: Seed;
  /** A condition id from the URL (`condition=<id>`); required when the study assigns by URL. */
  readonly forcedCondition?: string | undefined;
  /** The participant's id (PROLIFIC_PID, JATOS worker): an embedded review story is never given to its writer. */
  readonly participantId?: string | undefined;
  /**
   * A collection study's main items when they come from outside the definition: clauses picked
   * with the results server's coverage, or the stories the live review queue handed out.
   */
  readonly items?: readonly StudyItem[] | undefined;
}

/** A participant cannot be scheduled (a URL naming no known condition, a missing condition). */
export class StudyScheduleError extends Error {
  override name = 'StudyScheduleError';
}

/** A main item made from a clause or a story: the participant's own, task 1. */
export const ownItem = (puzzleId: string, seed: number, k: number): StudyItem => ({
  puzzleId,
  phase: 'main',
  seed,
  k,
  task: 1,
});
