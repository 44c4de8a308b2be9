/**
 * What a study kind is, as one unit: everything that differs between puzzle solving, paraphrase
 * collection and peer review, for the scheduler, the participant's run, the results server's row
 * checks and the designer. The scheduler, the run and the screens look a kind up in
 * `STUDY_KINDS` rather than compare its name.
 */
import type { ReviewItem } from '../delivery/serverApi';
import type { StudyDefinition } from '../definition/types';
import type { StudyKind } from '../definition/vocabulary';
import type { EstimateColumns } from '../results/resultFields';
import type { EndedOn, ResultRow } from '../results/results';
import type { ParticipantInput, StudyItem, StudyItems, Trial } from '../schedule/items';
import type { TrialContent } from '../schedule/trialContent';
import type { AnyTrialScreen, FeedbackScreen, TrialTiming } from './screens';

/** The columns of a row that say what was asked and answered. */
export type AnswerColumns = Pick<
  ResultRow,
  'query_a' | 'query_b' | 'gold' | 'response' | 'correct' | 'difficulty' | 'story'
>;

/**
 * A collection study's items that came from outside the definition (the live review queue's
 * stories, clauses picked with the server's coverage), as the run stores them per session.
 */
export interface StoredItems {
  readonly items: readonly StudyItem[];
  /** The live review queue's stories, by the items' puzzle ids (= story ids). */
  readonly reviews?: readonly ReviewItem[];
}

/** What an adaptive kind decides from: an earlier row's place, k and outcome. */
export type EarlierRow = Pick<ResultRow, 'trial_index' | 'phase' | 'k' | 'correct' | 'ended_on'>;

/** How a kind's items follow the answers (KindSpec.follows). */
export interface ItemsThatFollow {
  /** The schedule's item stands for one decided by the answers. */
  placeholder(item: StudyItem): boolean;
  /**
   * The item of `trial` (a placeholder) given every earlier row of the session (any order; rows
   * at or after the trial are ignored), or null when the procedure has stopped before it.
   * Throws `MissingRowsError` when rows before it are missing.
   */
  item(def: StudyDefinition, trial: Trial, earlier: readonly EarlierRow[]): StudyItem | null;
  /**
   * The estimate columns of `row` (the participant's estimate after its answer) given the session's
   * rows (any order; those after it are ignored, it may be among them); `NO_ESTIMATE` for a row
   * that has none, or when rows before it are missing. The page writes them, the server recomputes them.
   */
  estimate(def: StudyDefinition, row: EarlierRow, rows: readonly EarlierRow[]): EstimateColumns;
}

/** The rows a placeholder's item depends on have not all arrived. */
export class MissingRowsError extends Error {
  override name = 'MissingRowsError';
}

/** The results server's rebuilt puzzles (its `TrialFacts`): what a row of the item must carry. */
export interface FactSource {
  of(def: StudyDefinition, item: StudyItem): TrialContent;
}

/** The designer's view of a kind: which settings show and what its summary says. */
export interface KindDesigner {
  /** The summary panel's heading. */
  readonly summaryHeading: string;
  /** What each participant does, in one sentence; null: the summary shows the items per k and task instead. */
  readonly participantTask: ((def: StudyDefinition) => string) | null;
  /** The legend of the assignment fieldset. */
  readonly assignmentLegend: string;
  /** The order of the items (session or counterbalanced lists) is a setting. */
  readonly orderFields: boolean;
  /** Conditions choose a display (text, text+drawing) and a scratchpad; otherwise text only. */
  readonly displays: boolean;
  /** Embedded stories go into a stories file that the command line reads (`study link --stories`). */
  readonly storiesFile: boolean;
}

/**
 * One study kind. `S` is its trial screen, `M` what a trial is made from (a generated puzzle, a
 * clause, a story to review). Methods take the kind's own screen: the run only hands a spec
 * screens that spec made, which is why they are declared as methods (checked bivariantly) and
 * every spec fits `KindSpec` with the defaults.
 */
export interface KindSpec<S extends AnyTrialScreen = AnyTrialScreen, M = unknown> {
  readonly kind: StudyKind;
  /** What one trial is called: [one, many] ("puzzle", "puzzles"). */
  readonly words: readonly [string, string];
  /** The participants write or judge stories (no puzzles): the instructions show examples. */
  readonly collects: boolean;

  // The schedule.
  /** Items every participant shares, from the study seed (none for a collection study). */
  sharedItems(def: StudyDefinition): StudyItems;
  /** A participant's own main items, in the order shown; null: the shared main items in the study's order. */
  readonly ownItems: ((def: StudyDefinition, who: ParticipantInput) => StudyItem[]) | null;
  /** The items come from the results server's live queue, after the session is issued. */
  liveItems(def: Pick<StudyDefinition, 'sourceStudy'>): boolean;
  /** Items picked with the results server's stories per clause (`fetchCoverage`), when the study asks for it. */
  readonly coverage: {
    wanted(def: StudyDefinition): boolean;
    items(
      def: StudyDefinition,
      sessionSeed: string,
      coverage: Readonly<Record<string, number>> | undefined,
    ): StudyItem[];
  } | null;
  /**
   * Items that follow the answers (an adaptive study): the schedule holds placeholders for them,
   * and each is decided when its trial comes, from the session's earlier rows, by a pure function
   * the results server replays to check the row. Absent: the schedule fixes every item.
   */
  readonly follows?: ItemsThatFollow;
  /** Its rows are stories per clause: a live review study may review them, and the server counts their coverage. */
  readonly writesStories: boolean;

  // The participant's run.
  /** The `kind` of its trial screen. */
  readonly screen: S['kind'];
  /** Each trial's puzzle is generated by the worker up front (progress shown); otherwise made on the page (`pageMaterials`). */
  readonly generated: boolean;
  /** Where the run keeps a trial's material. */
  materialKey(item: StudyItem): string;
  /** The trials' materials made on the page, by `materialKey`, or what cannot be shown. */
  pageMaterials(
    def: StudyDefinition,
    trials: readonly Trial[],
    stored: StoredItems | undefined,
  ): ReadonlyMap<string, M> | string;
  /** A trial's screen with nothing answered yet. */
  blank(timing: TrialTiming, material: M, def: StudyDefinition): S;
  /** The text typed so far is kept across reloads as a draft (restored into a blank screen). */
  readonly draft: { restore(s: S, text: string, def: StudyDefinition): S } | null;
  /** The screen may be submitted. */
  ready(s: S): boolean;
  /** The row's answer columns for a trial that ended on `endedOn`. */
  answer(s: S, endedOn: EndedOn, def: StudyDefinition): AnswerColumns;
  /** The screen after the trial's row is committed, or null for the next step. */
  feedback(s: S, row: ResultRow): FeedbackScreen | null;

  // The results server.
  /** The schedule fixes the row's puzzle id, seed and k (not when the page picked them, or the live queue handed them out). */
  fixesItem(def: StudyDefinition, item: StudyItem): boolean;
  /**
   * `<field>: <problem>` for a row of an issued session whose answer columns cannot be the item's
   * (its schedule fields and times are checked before), or undefined. A live review trial's row is
   * the queue's to check (`reviewRowProblem`): undefined here.
   */
  rowProblem(def: StudyDefinition, item: StudyItem, row: ResultRow, facts: FactSource): string | undefined;

  // The designer.
  readonly designer: KindDesigner;
}
