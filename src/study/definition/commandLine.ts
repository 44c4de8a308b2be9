/**
 * The study on the command line: the flags of conditions with their syntax (`CONDITION_FLAGS`,
 * `readConditionArg`, `singleCondition`, `conditionArgs`), which `study link` reads and the
 * designer writes, and `optionArgs`, the `study link` words of a definition's settings.
 */
import { kindOf, type Display, type StudyKind } from './vocabulary';
import type { StudyCondition, StudyDefinition } from './types';
import {
  optionDefault,
  optionFits,
  readNumber,
  sameValue,
  STUDY_OPTION_FIELDS,
  studyOption,
  type StudyOptionField,
} from './studyOptions';

/**
 * The flags of conditions: `--condition` (repeatable, one condition each) or the four flags of a
 * single condition. Declared here with their syntax, which the CLI reads and the designer writes.
 */
export const CONDITION_FLAGS = {
  condition:
    'a condition, repeatable: ID[,limit=S][,overall=S][,display=text|text+drawing][,scratchpad] (replaces the single condition the next four flags describe)',
  'time-limit': 'one timed condition ("timed") with this many seconds per puzzle',
  'overall-limit': 'seconds for all main trials together (the single condition)',
  display: 'what the single condition shows: text or text+drawing',
  scratchpad: 'give the single condition a scratchpad',
} as const;

/** The id of the single condition the four flags describe: "timed" with a limit, else the default's. */
const singleId = (c: Pick<StudyCondition, 'perPuzzleLimitS' | 'overallLimitS'>, untimedId: string) =>
  c.perPuzzleLimitS === null && c.overallLimitS === null ? untimedId : 'timed';

/** The single condition the flags `--time-limit`, `--overall-limit`, `--display`, `--scratchpad` describe. */
export function singleCondition(
  values: { timeLimit?: string; overallLimit?: string; display: string; scratchpad: boolean },
  untimed: StudyCondition,
): StudyCondition {
  const perPuzzleLimitS = values.timeLimit === undefined ? null : readNumber(values.timeLimit);
  const overallLimitS = values.overallLimit === undefined ? null : readNumber(values.overallLimit);
  return {
    id: singleId({ perPuzzleLimitS, overallLimitS }, untimed.id),
    perPuzzleLimitS,
    overallLimitS,
    display: values.display as Display,
    scratchpad: values.scratchpad,
  };
}

/**
 * `ID[,limit=S][,overall=S][,display=…][,scratchpad]` → a condition (checked later with the
 * rest), or the message for a part that is not a condition setting.
 */
export function readConditionArg(arg: string, untimed: StudyCondition): StudyCondition | { problem: string } {
  const [id = '', ...parts] = arg.split(',');
  const c: Record<string, unknown> = { ...untimed, id: id.trim() };
  for (const part of parts) {
    const [key = '', value] = part.split('=', 2).map((s) => s.trim());
    if (key === 'limit' && value !== undefined) c.perPuzzleLimitS = value === 'none' ? null : readNumber(value);
    else if (key === 'overall' && value !== undefined) c.overallLimitS = value === 'none' ? null : readNumber(value);
    else if (key === 'display' && value !== undefined) c.display = value;
    else if (key === 'scratchpad' && value === undefined) c.scratchpad = true;
    else {
      return {
        problem: `"${part}" is not a condition setting (limit=S, overall=S, display=text|text+drawing, scratchpad)`,
      };
    }
  }
  return c as unknown as StudyCondition;
}

/**
 * The `study link` words for a study's conditions, given the default condition: none when they are
 * the default, the single-condition flags when they describe it, else one `--condition` each.
 */
export function conditionArgs(conditions: readonly StudyCondition[], untimed: StudyCondition): string[] {
  const [only] = conditions;
  if (conditions.length === 1 && only && JSON.stringify(only) === JSON.stringify(untimed)) return [];
  if (conditions.length === 1 && only && only.id === singleId(only, untimed.id)) {
    const args: string[] = [];
    if (only.perPuzzleLimitS !== null) args.push('--time-limit', String(only.perPuzzleLimitS));
    if (only.overallLimitS !== null) args.push('--overall-limit', String(only.overallLimitS));
    if (only.display !== untimed.display) args.push('--display', only.display);
    if (only.scratchpad) args.push('--scratchpad');
    return args;
  }
  return conditions.flatMap((c) => {
    const parts = [c.id];
    if (c.perPuzzleLimitS !== null) parts.push(`limit=${c.perPuzzleLimitS}`);
    if (c.overallLimitS !== null) parts.push(`overall=${c.overallLimitS}`);
    if (c.display !== untimed.display) parts.push(`display=${c.display}`);
    if (c.scratchpad) parts.push('scratchpad');
    return ['--condition', parts.join(',')];
  });
}

/**
 * The `study link` words for every option that differs from its default (k, per-k and seed
 * always, so the line says what the study is), in the table's order.
 */
export function optionArgs(def: StudyDefinition): string[] {
  const kind = kindOf(def as unknown as Record<string, unknown>);
  const always = ALWAYS_SAID[kind];
  return STUDY_OPTION_FIELDS.flatMap(<F extends StudyOptionField>(field: F): string[] => {
    const o = studyOption(field);
    const value = def[field];
    const same = sameValue(value, optionDefault(field, kind));
    if (!optionFits(field, kind) || (same && !always.includes(field))) return [];
    if (o.input === 'switch') return [value ? `--${o.flag}` : `--no-${o.flag}`];
    // An embedded story list is too long for a command line: it goes in a file beside it.
    if (o.input === 'stories') return [`--${o.flag}`, storiesFileName(def.studyId)];
    return [`--${o.flag}`, o.write(value)];
  });
}

/** The settings `optionArgs` always writes, per kind, so the command line says what the study is. */
const ALWAYS_SAID: { readonly [K in StudyKind]: readonly StudyOptionField[] } = {
  solve: ['k', 'itemsPerK', 'seed'],
  paraphrase: ['seed', 'clauseKs', 'clausesPerParticipant'],
  review: ['seed', 'reviewsPerParticipant'],
  adaptive: ['seed', 'k', 'adaptive', 'adaptiveTrials'],
};

/** The file the designer saves a review study's embedded stories in, which its command line names. */
export const storiesFileName = (studyId: string) => `${studyId}.stories.json`;
