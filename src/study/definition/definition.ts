/**
 * The study definition: every setting a researcher chooses in the designer, as one plain JSON-able
 * value (its shape is in types.ts, re-exported here). The participant link carries it (link.ts),
 * the scheduler reads it (schedule.ts). `checkStudyDefinition` is the one place that says what a
 * valid study is; it takes `unknown` because a definition also arrives from a link, where nothing
 * can be trusted.
 */
import { checkSinks } from './sinks';
import { checkOption, STUDY_OPTION_FIELDS, STUDY_OPTIONS, optionDefault } from './studyOptions';
import { STUDY_FORMAT_VERSION, type Fail, type StudyCondition, type StudyDefinition, type StudyProblem } from './types';
import {
  DISPLAYS,
  KIND_NAMES,
  KIND_TRAITS,
  kindOf,
  STUDY_ID_PATTERN,
  STUDY_LIMITS,
  type Display,
  type StudyKind,
} from './vocabulary';
import { isWhole } from './optionParts';

export {
  STUDY_FORMAT_VERSION,
  type EmbeddedStory,
  type StudyCondition,
  type StudyDefinition,
  type StudyOrder,
  type StudyProblem,
  type StudySink,
} from './types';
export {
  ASSIGNMENTS,
  DISPLAYS,
  RESUME_POLICIES,
  PARTICIPATION,
  ONLINE_SESSIONS_PER_ADDRESS,
  STUDY_LIMITS,
  TEMPLATE_SPLITS,
  KIND_WORDS,
  CLAUSE_GENDERS,
  REVIEW_REASONS,
  type ClauseGenders,
  type ReviewReason,
  type StudyKind,
  type Assignment,
  type Display,
  type Participation,
  type ResumePolicy,
  type TemplateSplit,
} from './vocabulary';

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
  // The default study is its own kind's defaults, kept as the one frozen value.
  if (kind === DEFAULT_STUDY.kind) return DEFAULT_STUDY;
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
    else if (!KIND_TRAITS[kind].drawing && c.display !== 'text') {
      fail(`${at}.display`, `a ${KIND_NAMES[kind]} study shows no drawing; its conditions' display is "text"`);
    }
    if (typeof c.scratchpad !== 'boolean') fail(`${at}.scratchpad`, 'the scratchpad must be on (true) or off (false)');
    else if (!KIND_TRAITS[kind].scratchpad && c.scratchpad) {
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
