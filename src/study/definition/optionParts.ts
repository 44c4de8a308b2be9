/**
 * The parts the study options table (studyOptions.ts) is built from: what an option is
 * (`StudyOption`), how typed values are read (`readNumber`, `readList`), the builders of its common
 * entries (`text`, `whole`, `choice`, `markdown`, `count`) and the checks several entries share.
 */
import type { Fail, StudyDefinition } from './types';
import { STORY_ID_PATTERN, CLAUSE_ID_PATTERN, STUDY_LIMITS, type StudyKind } from './vocabulary';

/** The settings this table declares: all but the format version, the conditions and the sinks. */
export type StudyOptionField = Exclude<keyof StudyDefinition, 'version' | 'conditions' | 'sinks'>;

/**
 * How an input shows a setting; `switch` is a checkbox and a `--flag` / `--no-flag` pair; `stories`
 * is a file (the CLI's flag names a file, the designer loads one).
 */
export type StudyInput = 'text' | 'number' | 'list' | 'choice' | 'markdown' | 'order' | 'switch' | 'stories';

export interface StudyOption<F extends StudyOptionField> {
  /** The `study link` flag, without `--`. */
  readonly flag: string;
  readonly input: StudyInput;
  /** The designer's label. */
  readonly label: string;
  /** What the setting means: the CLI's `--help` line and the designer's hint. */
  readonly help: string;
  /** The default of format version 1 (links leave out values equal to it: frozen with the version). */
  readonly default: StudyDefinition[F];
  /**
   * The kinds of study the setting belongs to; absent: every kind. A study of another kind must
   * leave it at its default (checkOption says so).
   */
  readonly kinds?: readonly StudyKind[];
  /** The default for a kind other than `solve`, where it differs (the texts say what each kind asks). */
  readonly kindDefaults?: { readonly [K in StudyKind]?: StudyDefinition[F] };
  /** The values a `choice` takes. */
  readonly choices?: readonly string[];
  /** A value as typed (a flag's value, an input's text) → the setting, unchecked (a bad number is NaN). */
  read(text: string): unknown;
  /** The setting as typed (the designer's input, the generated command line). */
  write(value: StudyDefinition[F]): string;
  /** Reports every problem of the value; `def` holds the other (unchecked) settings. */
  check(value: unknown, def: Readonly<Record<string, unknown>>, fail: Fail): void;
}

/** A completion code: at most 64 letters, digits, `-` and `_` (may be empty). */
export const CODE = /^[A-Za-z0-9_-]{0,64}$/;

export const isWhole = (v: unknown, lo: number, hi: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi;

/**
 * A number as typed, or NaN: checks then name the setting. `Number()` alone would read "" as 0
 * and "0x10" as 16.
 */
export const readNumber = (text: string): number => (/^\s*-?\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN);
/** Comma-separated numbers; an empty text is an empty list. */
export const readList = (text: string): number[] => (text.trim() === '' ? [] : text.split(',').map(readNumber));

export const mainItems = (def: Readonly<Record<string, unknown>>): number =>
  Array.isArray(def.k) && Array.isArray(def.tasks) && typeof def.itemsPerK === 'number'
    ? def.k.length * def.tasks.length * def.itemsPerK
    : 0;

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const text = (flag: string, label: string, help: string, def: string, check: StudyOption<never>['check']) => ({
  flag,
  input: 'text' as const,
  label,
  help,
  default: def,
  read: (t: string) => t.trim(),
  write: (v: string) => v,
  check,
});

export const whole = (
  flag: string,
  label: string,
  help: string,
  def: number,
  range: readonly [number, number],
  message: string,
) => ({
  flag,
  input: 'number' as const,
  label,
  help,
  default: def,
  read: readNumber,
  write: (v: number) => String(v),
  check: (v: unknown, _def: unknown, fail: Fail) => {
    if (!isWhole(v, range[0], range[1])) fail('', message);
  },
});

export const choice = <C extends string>(
  flag: string,
  label: string,
  help: string,
  def: C,
  choices: readonly C[],
  message: string,
) => ({
  flag,
  input: 'choice' as const,
  label,
  help,
  default: def,
  choices,
  read: (t: string) => t.trim(),
  write: (v: C) => v,
  check: (v: unknown, _def: unknown, fail: Fail) => {
    if (!choices.includes(v as C)) fail('', message);
  },
});

export const markdown = (flag: string, label: string, help: string, def: string) => ({
  flag,
  input: 'markdown' as const,
  label,
  help,
  default: def,
  read: (t: string) => t,
  write: (v: string) => v,
  check: (v: unknown, _def: unknown, fail: Fail) => {
    if (typeof v !== 'string' || v.length > STUDY_LIMITS.maxTextLength) {
      fail('', `the text must be at most ${STUDY_LIMITS.maxTextLength} characters`);
    }
  },
});

/** A whole number setting of some kinds only, from `min` (1 unless said) to `max`. */
export const count = (
  flag: string,
  label: string,
  help: string,
  def: number,
  kinds: readonly StudyKind[],
  max: number,
  what: string,
  min = 1,
) => ({ kinds, ...whole(flag, label, help, def, [min, max], `${what} must be a whole number from ${min} to ${max}`) });

export const sinksOf = (def: Readonly<Record<string, unknown>>): unknown[] =>
  Array.isArray(def.sinks) ? def.sinks : [];
/** The (unchecked) study sends to the results server. */
export const sendsToServer = (def: Readonly<Record<string, unknown>>) =>
  sinksOf(def).some((s) => isRecord(s) && s.kind === 'server');
export const storiesOf = (def: Readonly<Record<string, unknown>>): unknown[] =>
  Array.isArray(def.reviewStories) ? def.reviewStories : [];

const AUTHOR_TAG = /^[0-9a-f]{8}$/;
const STORY_KEYS = ['id', 'clause', 'seed', 'story', 'author'];

/** Every problem of an embedded story list, reported under `reviewStories.<i>`. */
export function checkStories(v: unknown, fail: Fail): void {
  if (!Array.isArray(v) || v.length > STUDY_LIMITS.maxEmbeddedStories) {
    return fail('', `the embedded stories must be a list of at most ${STUDY_LIMITS.maxEmbeddedStories}`);
  }
  const ids = new Set<string>();
  v.forEach((value: unknown, i) => {
    const at = `reviewStories.${i}`;
    if (!isRecord(value)) return fail(at, 'an embedded story must be an object');
    const story = Object.fromEntries(Object.entries(value)) as Record<string, unknown>;
    const extra = Object.keys(story).find((k) => !STORY_KEYS.includes(k));
    if (extra !== undefined) return fail(at, `"${extra}" is not a field of an embedded story`);
    if (typeof story.id !== 'string' || !STORY_ID_PATTERN.test(story.id)) {
      return fail(`${at}.id`, 'a story id must be <session_id>/<trial_index> of its paraphrase row');
    }
    if (ids.has(story.id)) return fail(`${at}.id`, `the story "${story.id}" is embedded twice`);
    ids.add(story.id);
    if (typeof story.clause !== 'string' || !CLAUSE_ID_PATTERN.test(story.clause)) {
      fail(
        `${at}.clause`,
        `story "${story.id}": the clause must be a clause id such as c1.mother-brother.female-female-male`,
      );
    }
    if (!isWhole(story.seed, 0, 0xffffffff))
      fail(`${at}.seed`, `story "${story.id}": the seed must be a whole number from 0 to 4294967295`);
    if (
      typeof story.story !== 'string' ||
      story.story.trim() === '' ||
      story.story.length > STUDY_LIMITS.maxStoryLength
    ) {
      fail(`${at}.story`, `story "${story.id}": the text must be 1 to ${STUDY_LIMITS.maxStoryLength} characters`);
    }
    if (story.author !== undefined && (typeof story.author !== 'string' || !AUTHOR_TAG.test(story.author))) {
      fail(`${at}.author`, `story "${story.id}": the author tag must be 8 hexadecimal digits`);
    }
  });
}
