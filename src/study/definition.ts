/**
 * The study definition: every setting a researcher chooses in the designer (issue 9), as one
 * plain JSON-able value. The participant link carries it (link.ts), the scheduler reads it
 * (schedule.ts). `checkStudyDefinition` is the one place that says what a valid study is; it
 * takes `unknown` because a definition also arrives from a link, where nothing can be trusted.
 */
import { TASK_IDS, type TaskId } from '../core/puzzle/tasks';
import { checkSinks, isHttpUrl } from './sinks';

/** The definition's format version; a link names it, and a new format gets a new number. */
export const STUDY_FORMAT_VERSION = 1;

/** Which paraphrases stories are told with: all of them, or only the held-in / held-out 80/20 halves. */
export const TEMPLATE_SPLITS = ['all', 'train', 'test'] as const;
export type TemplateSplit = (typeof TEMPLATE_SPLITS)[number];

/** What the participant sees beside the question. */
export const DISPLAYS = ['text', 'text+drawing'] as const;
export type Display = (typeof DISPLAYS)[number];

/** How a participant gets a condition: a seeded balanced counter, or `condition=<id>` in the URL. */
export const ASSIGNMENTS = ['balanced', 'url'] as const;
export type Assignment = (typeof ASSIGNMENTS)[number];

/** What a reopened session does: carry on at the first unanswered item, start over, or refuse. */
export const RESUME_POLICIES = ['resume', 'restart', 'refuse'] as const;
export type ResumePolicy = (typeof RESUME_POLICIES)[number];

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
export const DEFAULT_STUDY: StudyDefinition = Object.freeze({
  version: STUDY_FORMAT_VERSION,
  studyId: 'study',
  seed: 1,
  k: [2, 3, 4],
  tasks: [1],
  itemsPerK: 5,
  strict: true,
  templateSplit: 'all',
  practice: 2,
  attentionChecks: 1,
  order: { mode: 'session' },
  conditions: [DEFAULT_CONDITION],
  assignment: 'balanced',
  consentText:
    'This study asks you to solve short puzzles about family relations. Taking part is voluntary; you may stop at any time.\n\n' +
    'What is recorded: your answers, how long each answer took, how often you changed an answer, how long the page was hidden, your difficulty ratings and the time of each answer; ' +
    'your browser (its user-agent text) and screen size; and, if you take part through Prolific, your Prolific participant, study and session ids. ' +
    'Your name and contact details are not asked for.',
  instructionsText:
    'Each puzzle is a short story about a family, followed by a question about how two people are related. Choose the answer from the list, then rate how difficult the puzzle was.',
  completionText: 'Thank you for taking part.',
  breakEvery: 0,
  completionCode: '',
  redirectUrl: '',
  resumePolicy: 'resume',
  maxAgeMinutes: 24 * 60,
  sinks: [],
} satisfies StudyDefinition);

/** Limits a definition must stay within (also what keeps links short). */
export const STUDY_LIMITS = {
  maxK: 10,
  maxItemsPerK: 100,
  maxMainItems: 500,
  maxPractice: 20,
  maxAttentionChecks: 20,
  maxConditions: 12,
  maxLimitS: 24 * 60 * 60,
  maxTextLength: 20_000,
  maxMaxAgeMinutes: 60 * 24 * 90,
  maxSinks: 8,
} as const;

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const CODE = /^[A-Za-z0-9_-]{0,64}$/;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isWhole = (v: unknown, lo: number, hi: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi;

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
  if (def.version !== STUDY_FORMAT_VERSION) fail('version', `the format version must be ${STUDY_FORMAT_VERSION}`);
  if (typeof def.studyId !== 'string' || !ID.test(def.studyId)) {
    fail('studyId', 'the study id must be 1–64 letters, digits, "-" or "_"');
  }
  if (!isWhole(def.seed, 0, 0xffffffff)) fail('seed', 'the seed must be a whole number from 0 to 4294967295');

  const k = def.k;
  if (!Array.isArray(k) || k.length === 0 || !k.every((x) => isWhole(x, 1, STUDY_LIMITS.maxK))) {
    fail('k', `k must be whole numbers from 1 to ${STUDY_LIMITS.maxK} (at least one)`);
  } else if (new Set(k).size !== k.length) fail('k', 'each k value may be listed only once');

  const tasks = def.tasks;
  if (!Array.isArray(tasks) || tasks.length === 0 || !tasks.every((t) => TASK_IDS.includes(t as TaskId))) {
    fail('tasks', 'tasks must be task numbers from 1 to 7 (at least one)');
  } else if (new Set(tasks).size !== tasks.length) fail('tasks', 'each task may be listed only once');

  if (!isWhole(def.itemsPerK, 1, STUDY_LIMITS.maxItemsPerK)) {
    fail('itemsPerK', `items per k must be a whole number from 1 to ${STUDY_LIMITS.maxItemsPerK}`);
  }
  const total =
    Array.isArray(k) && Array.isArray(tasks) && typeof def.itemsPerK === 'number'
      ? k.length * tasks.length * def.itemsPerK
      : 0;
  if (total > STUDY_LIMITS.maxMainItems) {
    fail(
      'itemsPerK',
      `the study has ${total} main items (k values × tasks × items per k); at most ${STUDY_LIMITS.maxMainItems}`,
    );
  }
  if (typeof def.strict !== 'boolean') fail('strict', 'strict must be true or false');
  if (!TEMPLATE_SPLITS.includes(def.templateSplit as TemplateSplit)) {
    fail('templateSplit', `the template split must be one of ${TEMPLATE_SPLITS.join(', ')}`);
  }
  if (!isWhole(def.practice, 0, STUDY_LIMITS.maxPractice)) {
    fail('practice', `practice items must be a whole number from 0 to ${STUDY_LIMITS.maxPractice}`);
  }
  if (!isWhole(def.attentionChecks, 0, STUDY_LIMITS.maxAttentionChecks)) {
    fail('attentionChecks', `attention checks must be a whole number from 0 to ${STUDY_LIMITS.maxAttentionChecks}`);
  }

  checkOrder(def.order, total, fail);
  checkConditions(def.conditions, fail);
  if (!ASSIGNMENTS.includes(def.assignment as Assignment)) {
    fail('assignment', 'condition assignment must be "balanced" (a counter) or "url"');
  }
  for (const field of ['consentText', 'instructionsText', 'completionText'] as const) {
    const text = def[field];
    if (typeof text !== 'string' || text.length > STUDY_LIMITS.maxTextLength) {
      fail(field, `the text must be at most ${STUDY_LIMITS.maxTextLength} characters`);
    }
  }
  if (typeof def.consentText === 'string' && def.consentText.trim() === '') {
    fail('consentText', 'the consent text must not be empty');
  }
  if (!isWhole(def.breakEvery, 0, STUDY_LIMITS.maxMainItems)) {
    fail('breakEvery', 'breaks every N items must be a whole number (0 for no breaks)');
  }
  if (typeof def.completionCode !== 'string' || !CODE.test(def.completionCode)) {
    fail('completionCode', 'the completion code must be at most 64 letters, digits, "-" or "_"');
  }
  if (typeof def.redirectUrl !== 'string' || (def.redirectUrl !== '' && !isHttpUrl(def.redirectUrl))) {
    fail('redirectUrl', 'the redirect must be empty or an http(s) address');
  }
  if (!RESUME_POLICIES.includes(def.resumePolicy as ResumePolicy)) {
    fail('resumePolicy', `the resume policy must be one of ${RESUME_POLICIES.join(', ')}`);
  }
  if (!isWhole(def.maxAgeMinutes, 1, STUDY_LIMITS.maxMaxAgeMinutes)) {
    fail(
      'maxAgeMinutes',
      `the maximum age must be a whole number of minutes from 1 to ${STUDY_LIMITS.maxMaxAgeMinutes}`,
    );
  }
  checkSinks(def.sinks, STUDY_LIMITS.maxSinks, fail);
  return problems;
}

type Fail = (field: string, message: string) => void;

function checkOrder(value: unknown, total: number, fail: Fail): void {
  if (!isRecord(value)) return fail('order', 'the order must be "session" or "counterbalanced"');
  const order = ownFields(value);
  if (order.mode === 'session') {
    if (Object.keys(order).length !== 1) fail('order', 'a per-session order takes no other setting');
  } else if (order.mode === 'counterbalanced') {
    if (Object.keys(order).length !== 2) fail('order', 'a counterbalanced order takes only the number of lists');
    if (!isWhole(order.lists, 2, Math.max(2, total))) {
      fail('order.lists', 'counterbalanced lists must be a whole number from 2 to the number of main items');
    }
  } else fail('order', 'the order must be "session" or "counterbalanced"');
}

const CONDITION_KEYS = Object.keys(DEFAULT_CONDITION);

function checkConditions(conditions: unknown, fail: Fail): void {
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
    if (typeof c.id !== 'string' || !ID.test(c.id)) {
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
    if (typeof c.scratchpad !== 'boolean') fail(`${at}.scratchpad`, 'the scratchpad must be on (true) or off (false)');
  });
}

/** A definition with the defaults for every setting not given (nested values are replaced, not merged). */
export function withDefaults(partial: Partial<StudyDefinition>): StudyDefinition {
  return { ...DEFAULT_STUDY, ...partial, version: STUDY_FORMAT_VERSION };
}
