/**
 * The study definition: every setting a researcher chooses in the designer, as one
 * plain JSON-able value. The participant link carries it (link.ts), the scheduler reads it
 * (schedule.ts). `checkStudyDefinition` is the one place that says what a valid study is; it
 * takes `unknown` because a definition also arrives from a link, where nothing can be trusted.
 */
import type { TaskId } from '../../core/puzzle/tasks';
import { checkSinks } from './sinks';
import {
  type Assignment,
  checkOption,
  type Display,
  type Participation,
  type ResumePolicy,
  STUDY_LIMITS,
  STUDY_OPTION_FIELDS,
  STUDY_OPTIONS,
  type TemplateSplit,
  DISPLAYS,
  isWhole,
  KIND_NAMES,
  kindOf,
  optionDefault,
  STUDY_ID_PATTERN,
  type ClauseGenders,
  type EmbeddedStory,
  type StudyKind,
} from './studyOptions';

/** The definition's format version; a link names it, and a new format gets a new number. */
export const STUDY_FORMAT_VERSION = 1;

export {
  ASSIGNMENTS,
  DISPLAYS,
  RESUME_POLICIES,
  PARTICIPATION,
  ONLINE_SESSIONS_PER_ADDRESS,
  STUDY_LIMITS,
  TEMPLATE_SPLITS,
  STUDY_KINDS,
  CLAUSE_GENDERS,
  REVIEW_REASONS,
  type ClauseGenders,
  type EmbeddedStory,
  type ReviewReason,
  type StudyKind,
  type Assignment,
  type Display,
  type Participation,
  type ResumePolicy,
  type TemplateSplit,
} from './studyOptions';

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
  readonly sinks: readonly StudySink[];
}

/** A problem with one setting: `field` is the definition's key (dotted for nested ones). */
export interface StudyProblem {
  readonly field: string;
  readonly message: string;
}

export const DEFAULT_CONDITION: StudyCondition = {
  id: 'untimed',
  perPuzzleLimitS: null,
  overallLimitS: null,
  display: 'text',
  scratchpad: false,
};

/**
 * The defaults of format version 1. Links leave out every setting equal to its default, so these
 * values are frozen with the version: changing one changes what old links mean. The one change
 * made since: the default consent text said answers were recorded "anonymously" although every
 * row carries the Prolific ids, the user agent and the screen size; it now says what is recorded,
 * and an old link that relied on the default shows the new, truthful text.
 */
export const DEFAULT_STUDY: StudyDefinition = Object.freeze(
  Object.fromEntries([
    ['version', STUDY_FORMAT_VERSION],
    // The table's defaults, with the conditions after the order: the definition's field order.
    ...STUDY_OPTION_FIELDS.flatMap((f) => {
      const entry: [string, unknown] = [f, STUDY_OPTIONS[f].default];
      return f === 'order' ? [entry, ['conditions', [DEFAULT_CONDITION]] as [string, unknown]] : [entry];
    }),
    ['sinks', []],
  ]) as unknown as StudyDefinition,
);

/**
 * The defaults of a study of this kind: DEFAULT_STUDY with the kind and the texts that say what
 * the kind asks of participants. A link leaves out what equals its kind's defaults.
 */
export function defaultsFor(kind: StudyKind): StudyDefinition {
  if (kind === 'solve') return DEFAULT_STUDY;
  const texts = Object.fromEntries(
    STUDY_OPTION_FIELDS.map((f) => [f, optionDefault(f, kind)] as const).filter(
      ([f, v]) => v !== STUDY_OPTIONS[f].default,
    ),
  );
  return { ...DEFAULT_STUDY, ...texts, kind };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const hasOwn = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);
/** Only the value's own enumerable fields: a field named `toString` or `__proto__` is data, never inherited. */
const ownFields = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o)) as Record<string, unknown>;

/** The number of main items (without practice and checks) a definition asks for. */
export function mainItemCount(def: Pick<StudyDefinition, 'k' | 'tasks' | 'itemsPerK'>): number {
  return def.k.length * def.tasks.length * def.itemsPerK;
}

/**
 * Every problem with a definition, in the order of its fields; empty when the study can run.
 * Accepts any value (a definition decoded from a link is untrusted): missing, mistyped and unknown
 * fields are problems too.
 */
export function checkStudyDefinition(value: unknown): StudyProblem[] {
  const problems: StudyProblem[] = [];
  const fail = (field: string, message: string) => problems.push({ field, message });
  if (!isRecord(value)) return [{ field: '', message: 'a study definition must be an object' }];
  const def = ownFields(value);

  for (const key of Object.keys(def)) {
    if (!hasOwn(DEFAULT_STUDY, key)) fail(key, `"${key}" is not a study setting`);
  }
  // Every setting in the definition's order: the table's checks, the conditions, the sinks.
  for (const field of Object.keys(DEFAULT_STUDY) as (keyof StudyDefinition)[]) {
    if (field === 'version') {
      if (def.version !== STUDY_FORMAT_VERSION) fail('version', `the format version must be ${STUDY_FORMAT_VERSION}`);
    } else if (field === 'conditions') checkConditions(def.conditions, kindOf(def), fail);
    else if (field === 'sinks') checkSinks(def.sinks, STUDY_LIMITS.maxSinks, fail);
    else checkOption(field, def, fail);
  }
  return problems;
}

type Fail = (field: string, message: string) => void;

const CONDITION_KEYS = Object.keys(DEFAULT_CONDITION);

function checkConditions(conditions: unknown, kind: StudyKind, fail: Fail): void {
  if (!Array.isArray(conditions) || conditions.length === 0 || conditions.length > STUDY_LIMITS.maxConditions) {
    return fail('conditions', `a study has from 1 to ${STUDY_LIMITS.maxConditions} conditions`);
  }
  const ids = new Set<string>();
  conditions.forEach((value: unknown, i) => {
    const at = `conditions.${i}`;
    if (!isRecord(value)) return fail(at, 'a condition must be an object');
    const c = ownFields(value);
    for (const key of Object.keys(c)) {
      if (!CONDITION_KEYS.includes(key)) fail(at, `"${key}" is not a condition setting`);
    }
    if (typeof c.id !== 'string' || !STUDY_ID_PATTERN.test(c.id)) {
      fail(`${at}.id`, 'a condition id must be 1–64 letters, digits, "-" or "_"');
    } else if (ids.has(c.id)) fail(`${at}.id`, `the condition id "${c.id}" is used twice`);
    else ids.add(c.id);
    for (const limit of ['perPuzzleLimitS', 'overallLimitS'] as const) {
      if (c[limit] !== null && !isWhole(c[limit], 1, STUDY_LIMITS.maxLimitS)) {
        fail(
          `${at}.${limit}`,
          `a time limit must be none or a whole number of seconds from 1 to ${STUDY_LIMITS.maxLimitS}`,
        );
      }
    }
    if (!DISPLAYS.includes(c.display as Display)) fail(`${at}.display`, 'the display must be "text" or "text+drawing"');
    else if (kind !== 'solve' && c.display !== 'text') {
      fail(`${at}.display`, `a ${KIND_NAMES[kind]} study shows no drawing; its conditions' display is "text"`);
    }
    if (typeof c.scratchpad !== 'boolean') fail(`${at}.scratchpad`, 'the scratchpad must be on (true) or off (false)');
    else if (kind !== 'solve' && c.scratchpad) {
      fail(`${at}.scratchpad`, `a ${KIND_NAMES[kind]} study has no scratchpad; leave it off`);
    }
  });
}

/**
 * A definition with the defaults of its kind for every setting not given (nested values are
 * replaced, not merged).
 */
export function withDefaults(partial: Partial<StudyDefinition>): StudyDefinition {
  const kind = kindOf(partial as Record<string, unknown>);
  return { ...defaultsFor(kind), ...partial, version: STUDY_FORMAT_VERSION };
}
