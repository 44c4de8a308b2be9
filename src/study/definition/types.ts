/**
 * The shape of a study definition: every setting a researcher chooses in the designer, as one
 * plain JSON-able value. Types only (and the format version), so that the options table, the
 * sink table and the definition's checks can all name the shape without importing one another.
 */
import type { TaskId } from '../../core/puzzle/tasks';
import type {
  AdaptiveProcedure,
  Assignment,
  ClauseGenders,
  Display,
  Participation,
  ResumePolicy,
  StudyKind,
  TemplateSplit,
} from './vocabulary';

/** The definition's format version; a link names it, and a new format gets a new number. */
export const STUDY_FORMAT_VERSION = 1;

/**
 * One story a review study carries in its link (file mode, without the results server): the story's
 * id (`<session_id>/<trial_index>` of its paraphrase row), its clause (`puzzle_id`) and clause seed,
 * which regenerate the facts (`clauseFromId`), the text as written, and, when its writer had an id,
 * a short hash of it (`authorTag`), so that nobody is given their own story.
 */
export interface EmbeddedStory {
  readonly id: string;
  readonly clause: string;
  readonly seed: number;
  readonly story: string;
  readonly author?: string;
}

/** A between-subjects condition. Untimed means both limits are null; both limits may be set. */
export interface StudyCondition {
  /** Goes into the `condition` column and into `condition=<id>` URLs. */
  readonly id: string;
  /** Seconds per puzzle, with a visible countdown; a timeout is recorded and the run moves on. */
  readonly perPuzzleLimitS: number | null;
  /** Seconds for all main trials together. */
  readonly overallLimitS: number | null;
  readonly display: Display;
  readonly scratchpad: boolean;
}

/** The order of the main items: each participant's own shuffle, or one of `lists` rotations of a fixed order. */
export type StudyOrder = { readonly mode: 'session' } | { readonly mode: 'counterbalanced'; readonly lists: number };

/**
 * Where rows go besides the participant's own browser. `server` is the results server that
 * served the page (`npm run serve`): rows are POSTed to `api/rows` relative to the page, so one
 * link works wherever the server is reached (a proxy's sub-folder too) and stays same-origin.
 * `download` sends nothing: each participant downloads their file and sends it to the researcher
 * as `instructions` say. Everything that differs by kind lives in the sink table (sinks.ts).
 */
export type StudySink =
  | { readonly kind: 'jatos' }
  | { readonly kind: 'http'; readonly url: string }
  | { readonly kind: 'server' }
  | { readonly kind: 'download'; readonly instructions: string };

export interface StudyDefinition {
  readonly version: typeof STUDY_FORMAT_VERSION;
  /**
   * What participants do: `solve` puzzles (the default; links made before kinds existed), write
   * `paraphrase`s of clauses, or `review` others' paraphrases. Settings of other kinds keep their
   * defaults (checkOption refuses anything else).
   */
  readonly kind: StudyKind;
  /** Letters, digits, `-` and `_`; goes into the `study_id` column. */
  readonly studyId: string;
  /** Fixes the items: every participant gets the same puzzles. A 32-bit unsigned integer. */
  readonly seed: number;
  /** Story lengths, each 1–10. */
  readonly k: readonly number[];
  readonly tasks: readonly TaskId[];
  /** Main items for every (k, task) pair. */
  readonly itemsPerK: number;
  /** Strictly solvable puzzles only (sound rules); the default for human studies. */
  readonly strict: boolean;
  readonly templateSplit: TemplateSplit;
  /** Practice items with feedback, before the main items (smallest k, first task). */
  readonly practice: number;
  /** Attention checks (the instruction is inside the question), spread evenly among the main items. */
  readonly attentionChecks: number;
  readonly order: StudyOrder;
  readonly conditions: readonly StudyCondition[];
  readonly assignment: Assignment;
  /** Markdown. */
  readonly consentText: string;
  /** Markdown. */
  readonly instructionsText: string;
  /** Markdown, shown with the completion code. */
  readonly completionText: string;
  /** A break after every N main trials; 0 for none. */
  readonly breakEvery: number;
  /** Shown at the end (Prolific's completion code); may be empty. */
  readonly completionCode: string;
  /** Where the participant goes once every row is acknowledged; empty for none. */
  readonly redirectUrl: string;
  readonly resumePolicy: ResumePolicy;
  /** A session older than this (since its start) is not resumed. */
  readonly maxAgeMinutes: number;
  /** Where participants take part: the results server's limit on new sessions per address. */
  readonly participation: Participation;
  /** With `room`: new sessions one address may start in an hour. */
  readonly roomSessions: number;
  /** Minutes a new session may go without an answer before the results server gives its place to the next. */
  readonly claimMinutes: number;
  // ---- paraphrase studies ----
  /** Facts per clause (1–3) the clauses are drawn with. */
  readonly clauseKs: readonly number[];
  readonly clauseGenders: ClauseGenders;
  readonly clausesPerParticipant: number;
  /** Pick the clause cells with the fewest stories so far (the results server counts them). */
  readonly favourUncovered: boolean;
  /** The live checks' length range, in words. */
  readonly minWords: number;
  readonly maxWords: number;
  // ---- review studies ----
  /** Reviews each story gets (the results server's queue stops handing a story out at this many). */
  readonly reviewsPerStory: number;
  readonly reviewsPerParticipant: number;
  /** The paraphrase study whose stories the results server hands out (live review); empty for none. */
  readonly sourceStudy: string;
  /** Stories carried in the link (review without the results server); empty for none. */
  readonly reviewStories: readonly EmbeddedStory[];
  // ---- adaptive studies ----
  /** How each next story length is picked: the staircase or QUEST+. */
  readonly adaptive: AdaptiveProcedure;
  /** Main trials at most (the stopping rule by trials). */
  readonly adaptiveTrials: number;
  /** Stop once the threshold's 95% interval is at most this many hops wide (after 10 trials); 0: by trials only. */
  readonly ciWidth: number;
  /** The completion screen shows the participant their estimated threshold. */
  readonly showEstimate: boolean;
  readonly sinks: readonly StudySink[];
}

/** A problem with one setting: `field` is the definition's key (dotted for nested ones). */
export interface StudyProblem {
  readonly field: string;
  readonly message: string;
}

/** A problem's reporter: `field` is the definition's (dotted) key, `message` one sentence. */
export type Fail = (field: string, message: string) => void;
