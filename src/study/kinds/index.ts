/**
 * The study kinds, one unit each (like a jsPsych plugin): puzzle solving, paraphrase collection,
 * peer review and adaptive puzzle solving. Adding a kind is one member of `StudyKind`, its screen in `KindScreens` and
 * its spec here; the compiler names the rest (the participant's screens, the designer's settings).
 */
import type { StudyDefinition } from '../definition/types';
import type { StudyKind } from '../definition/vocabulary';
import { ADAPTIVE } from './adaptive';
import { PARAPHRASE } from './paraphrase';
import { REVIEW } from './review';
import type { AnyTrialScreen } from './screens';
import { SOLVE } from './solve';
import type { KindSpec } from './types';

export const STUDY_KINDS = {
  solve: SOLVE,
  paraphrase: PARAPHRASE,
  review: REVIEW,
  adaptive: ADAPTIVE,
} as const satisfies Record<StudyKind, KindSpec>;

/** A kind's spec, as the run and the screens use it whatever the kind. */
export const kindSpec = (kind: StudyKind): KindSpec => STUDY_KINDS[kind];

/** A live review study: its items come from the results server's queue. */
export const isLiveReview = (def: Pick<StudyDefinition, 'kind' | 'sourceStudy'>): boolean =>
  kindSpec(def.kind).liveItems(def);

const TRIAL_SCREENS: ReadonlySet<string> = new Set(Object.values(STUDY_KINDS).map((k) => k.screen));

/** The screen shows a trial of some kind (and ends in its row). */
export const isTrialScreen = <T extends { readonly kind: string }>(s: T): s is Extract<T, AnyTrialScreen> =>
  TRIAL_SCREENS.has(s.kind);

export type {
  AnyTrialScreen,
  FeedbackScreen,
  KindScreens,
  ParaphraseScreen,
  ReviewScreen,
  TrialScreen,
  TrialTiming,
} from './screens';
export type {
  AnswerColumns,
  EarlierRow,
  FactSource,
  ItemsThatFollow,
  KindDesigner,
  KindSpec,
  StoredItems,
} from './types';
export { MissingRowsError } from './types';
