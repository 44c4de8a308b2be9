/**
 * The trial screens of each study kind, as the run holds them in its state and the participant
 * page renders them. A leaf of kinds/: the kind specs and the run's screen union both name these.
 */
import type { RelationWord } from '../../core/kinship/relations';
import type { Clause } from '../collect/clause';
import type { Problem } from '../collect/checks';
import type { ReviewTask } from '../collect/reviewStories';
import type { ReviewReason, StudyKind } from '../definition/vocabulary';
import type { Trial } from '../schedule/items';
import type { TrialContent } from '../schedule/trialContent';

/** What every kind of trial screen has: the trial, its deadlines, and whether it is shown again. */
export interface TrialTiming {
  readonly trial: Trial;
  /** Wall-clock ms when the per-puzzle limit ends, or null when untimed. */
  readonly deadline: number | null;
  /** Wall-clock ms when the overall limit ends (main and check trials), or null. */
  readonly overallDeadline: number | null;
  readonly resumed: boolean;
  /** The main or check trial before this screen ran out of time (the page says so, without a click). */
  readonly timeUp?: boolean;
}

/** A puzzle-solving trial: the generated puzzle, the word picked and the difficulty rated so far. */
export interface TrialScreen extends TrialTiming {
  readonly kind: 'trial';
  readonly content: TrialContent;
  readonly picked: RelationWord | null;
  readonly difficulty: number | null;
}

/** A paraphrase trial: the clause, the text as typed so far (a draft kept across reloads) and the live checks' problems. */
export interface ParaphraseScreen extends TrialTiming {
  readonly kind: 'paraphrase';
  readonly clause: Clause;
  readonly text: string;
  readonly problems: readonly Problem[];
}

/** A review trial: someone's story and its clause, the verdict so far and, for bad, the reasons ticked. */
export interface ReviewScreen extends TrialTiming {
  readonly kind: 'review';
  readonly task: ReviewTask;
  readonly verdict: 'good' | 'bad' | null;
  readonly reasons: readonly ReviewReason[];
}

/** A practice puzzle's answer, right or wrong, before the next trial. */
export interface FeedbackScreen {
  readonly kind: 'feedback';
  readonly content: TrialContent;
  readonly response: string;
  readonly correct: boolean;
  readonly timedOut: boolean;
}

/** Each study kind's trial screen. */
export interface KindScreens {
  readonly solve: TrialScreen;
  readonly paraphrase: ParaphraseScreen;
  readonly review: ReviewScreen;
  /** An adaptive study's trial is a puzzle-solving trial (its puzzle picked by the answers so far). */
  readonly adaptive: TrialScreen;
}

/** Any screen that shows a trial and ends in its row. */
export type AnyTrialScreen = KindScreens[StudyKind];
