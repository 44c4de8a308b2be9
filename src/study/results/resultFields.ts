/**
 * The columns of a result row, declared once: one entry per field of `ResultRow`, in export
 * order, with how the column is stored and read back (`kind`), what the results server accepts
 * (its bounds) and what it means (psych-DS). Everything else derives from this table:
 * `RESULT_COLUMNS` (results.ts), the file reader's checks (resultsFile.ts), the psych-DS
 * description (psychDs.ts), the server's ingest schema (server/schema.ts), its SQLite columns
 * (server/store.ts) and its exports (server/export.ts). A new column is one field of `ResultRow`
 * and one entry here (the `satisfies` asks for it), plus a migration step for the database.
 */
import type { TaskId } from '../../core/puzzle/tasks';
import type { Phase } from '../definition/vocabulary';

/** How a trial ended. */
export type EndedOn = 'response' | 'timeout' | 'skipped';

/** One trial's row. Times are ISO 8601 (UTC) texts; durations whole milliseconds. */
export interface ResultRow {
  readonly study_id: string;
  readonly session_id: string;
  /** Prolific's PROLIFIC_PID (or the JATOS worker id); empty when none was given. */
  readonly participant_id: string;
  readonly condition: string;
  readonly trial_index: number;
  readonly phase: Phase;
  readonly puzzle_id: string;
  readonly seed: number;
  readonly k: number;
  readonly task: TaskId;
  readonly strict: boolean;
  readonly query_a: string;
  readonly query_b: string;
  readonly gold: string;
  /** The relation word chosen; empty after a timeout or a skip. */
  readonly response: string;
  readonly correct: boolean;
  /** The rating 1–5; null when the trial ended without one (timeout, skip). */
  readonly difficulty: number | null;
  readonly rt_ms: number;
  readonly ended_on: EndedOn;
  /** The per-puzzle limit in force, or null when untimed. */
  readonly time_limit_s: number | null;
  readonly answer_changes: number;
  /** Time the tab was hidden during the trial. */
  readonly hidden_ms: number;
  /** The trial was interrupted (reload, crash, closed tab) and shown again. */
  readonly resumed: boolean;
  readonly started_at: string;
  readonly answered_at: string;
  readonly story: string;
  /** Prolific's STUDY_ID (not ours), empty outside Prolific. */
  readonly prolific_study_id: string;
  /** Prolific's SESSION_ID (not ours), empty outside Prolific. */
  readonly prolific_session_id: string;
  /**
   * An adaptive study's main trial: the participant's threshold k after this trial's answer (the
   * procedure's estimate over the session's answers so far), with its 95% interval; null otherwise.
   */
  readonly threshold_k: number | null;
  readonly threshold_low: number | null;
  readonly threshold_high: number | null;
  /** The adaptive procedure that chose the trial's k; empty for other kinds and phases. */
  readonly adaptive_procedure: '' | 'staircase' | 'quest';
  /** Why the adaptive run stopped after this trial (`trials`, `interval`); empty while it goes on. */
  readonly adaptive_stop: '' | 'trials' | 'interval';
}

/** The estimate columns of a row (src/study/kinds/adaptive.ts computes them). */
export type EstimateColumns = Pick<
  ResultRow,
  'threshold_k' | 'threshold_low' | 'threshold_high' | 'adaptive_procedure' | 'adaptive_stop'
>;

/** The estimate columns of a row that has none (other kinds, practice). */
export const NO_ESTIMATE: EstimateColumns = Object.freeze({
  threshold_k: null,
  threshold_low: null,
  threshold_high: null,
  adaptive_procedure: '',
  adaptive_stop: '',
});

export type ResultColumn = keyof ResultRow;

interface Described {
  /** The psych-DS description (`variableMeasured` of dataset_description.json). */
  readonly meaning: string;
  /** The psych-DS `unitText`, for a column with a unit. */
  readonly unit?: string;
  /**
   * The column came after the first release: a file written (or a page loaded) before it lacks
   * it, and reads as empty (null, or '' for an enum that has ''). The results server fills it in
   * itself whatever a page sends.
   */
  readonly later?: true;
}

/**
 * A column's kind, with the bounds the results server checks (a file read back is checked more
 * loosely, so that files written before a bound existed still open):
 * - `text`: any text; the server takes at most `max` characters, or text matching `pattern`
 *   (which bounds the length itself), refused with `mismatch`.
 * - `id`: text that is not empty, at most `max` characters.
 * - `integer`: a whole number; the server takes `min`–`max`, a file any safe integer ≥ `min`.
 * - `integer?`: null (an empty cell) or a whole number `min`–`max`.
 * - `number?`: null or, in the server, a whole number `min`–`max`; a file may hold any number > 0.
 * - `decimal?`: null or any number `min`–`max` (fractions too; stored as SQLite REAL).
 * - `boolean`: true or false (stored as 0 or 1).
 * - `enum`: one of `values`, texts or numbers.
 *
 * `noun` is what the file reader's messages call a value ("not a k ≥ 1"), where the kind alone
 * does not say it.
 */
export type ResultField = Described &
  (
    | { readonly kind: 'text'; readonly max: number }
    | { readonly kind: 'text'; readonly pattern: RegExp; readonly mismatch: string }
    | { readonly kind: 'id'; readonly max: number; readonly noun: string }
    | { readonly kind: 'integer'; readonly min: number; readonly max: number; readonly noun?: string }
    | { readonly kind: 'integer?'; readonly min: number; readonly max: number; readonly noun: string }
    | { readonly kind: 'number?'; readonly min: number; readonly max: number; readonly noun: string }
    | { readonly kind: 'decimal?'; readonly min: number; readonly max: number; readonly noun: string }
    | { readonly kind: 'boolean' }
    | { readonly kind: 'enum'; readonly values: readonly [string, ...string[]] }
    | { readonly kind: 'enum'; readonly values: readonly [number, ...number[]]; readonly noun: string }
  );

/** The longest ISO 8601 time the server takes. */
const TIME = 40;

export const RESULT_FIELDS = {
  study_id: {
    kind: 'text',
    pattern: /^[A-Za-z0-9_-]{1,64}$/,
    mismatch: 'not a study id',
    meaning: 'The study id of the CLUTRR Lab study definition (materials/).',
  },
  session_id: {
    kind: 'id',
    max: 200,
    noun: 'session id',
    meaning: "One participant's run of the study, made by the participant's browser.",
  },
  participant_id: {
    kind: 'text',
    max: 200,
    meaning: "Prolific's PROLIFIC_PID or the JATOS worker id; empty when none was given.",
  },
  condition: { kind: 'text', max: 64, meaning: 'The id of the condition the session was assigned to.' },
  trial_index: {
    kind: 'integer',
    min: 0,
    max: 100_000,
    meaning: 'The position of the trial in the session, from 0.',
  },
  phase: {
    kind: 'enum',
    values: ['practice', 'main', 'check'],
    meaning: 'practice (with feedback), main, or attention (an attention check).',
  },
  puzzle_id: { kind: 'text', max: 200, meaning: 'The id of the generated puzzle (stable for a study seed).' },
  seed: {
    kind: 'integer',
    min: 0,
    max: 0xffff_ffff,
    meaning: "The puzzle generator's seed (32-bit unsigned integer): the same seed gives the same puzzle.",
  },
  k: {
    kind: 'integer',
    min: 1,
    max: 20,
    noun: 'k',
    meaning: 'The number of kinship hops in the story (story length).',
    unit: 'hops',
  },
  task: {
    kind: 'enum',
    values: [1, 2, 3, 4, 5, 6, 7],
    noun: 'task',
    meaning: 'The CLUTRR task id (which noise facts the story holds).',
  },
  strict: { kind: 'boolean', meaning: 'true when only strictly solvable puzzles were used (sound rules).' },
  query_a: { kind: 'text', max: 200, meaning: 'The first person named in the question.' },
  query_b: { kind: 'text', max: 200, meaning: 'The second person named in the question.' },
  gold: { kind: 'text', max: 100, meaning: 'The correct relation word: query_b is the gold of query_a.' },
  response: {
    kind: 'text',
    max: 100,
    meaning: 'The relation word the participant chose; empty after a timeout or a skip.',
  },
  correct: { kind: 'boolean', meaning: 'true when response equals gold.' },
  difficulty: {
    kind: 'integer?',
    min: 1,
    max: 5,
    noun: 'rating',
    meaning: 'The difficulty rating the participant gave, 1 (easy) to 5 (hard); empty when none.',
  },
  rt_ms: {
    kind: 'integer',
    min: 0,
    max: 1e10,
    meaning: 'Time from the story being shown to the answer being submitted.',
    unit: 'ms',
  },
  ended_on: {
    kind: 'enum',
    values: ['response', 'timeout', 'skipped'],
    meaning: 'How the trial ended: response, timeout or skipped.',
  },
  time_limit_s: {
    kind: 'number?',
    min: 1,
    max: 1e7,
    noun: 'time limit in seconds',
    meaning: 'The time limit per puzzle in force; empty when untimed.',
    unit: 's',
  },
  answer_changes: {
    kind: 'integer',
    min: 0,
    max: 1e6,
    meaning: 'How often the participant changed the chosen answer before submitting.',
  },
  hidden_ms: {
    kind: 'integer',
    min: 0,
    max: 1e10,
    meaning: 'Time the browser tab was hidden during the trial.',
    unit: 'ms',
  },
  resumed: {
    kind: 'boolean',
    meaning: 'true when the trial was interrupted (reload, closed tab) and shown again.',
  },
  started_at: { kind: 'text', max: TIME, meaning: 'When the trial was shown, ISO 8601 UTC.' },
  answered_at: { kind: 'text', max: TIME, meaning: 'When the trial ended, ISO 8601 UTC.' },
  story: { kind: 'text', max: 20_000, meaning: 'The story text exactly as shown.' },
  prolific_study_id: { kind: 'text', max: 200, meaning: "Prolific's STUDY_ID; empty outside Prolific." },
  prolific_session_id: { kind: 'text', max: 200, meaning: "Prolific's SESSION_ID; empty outside Prolific." },
  threshold_k: {
    kind: 'decimal?',
    min: -10,
    max: 40,
    noun: 'threshold k',
    later: true,
    meaning:
      "Adaptive studies, main trials: the participant's estimated threshold k after this trial's answer (the longest story length answered mostly right; the staircase's mean reversal k − 0.5, or QUEST+'s posterior mean), recomputed by the results server from the session's answers; empty otherwise.",
    unit: 'hops',
  },
  threshold_low: {
    kind: 'decimal?',
    min: -10,
    max: 40,
    noun: 'threshold k',
    later: true,
    meaning:
      "The lower end of threshold_k's 95% interval (staircase: normal approximation; QUEST+: credible interval).",
    unit: 'hops',
  },
  threshold_high: {
    kind: 'decimal?',
    min: -10,
    max: 40,
    noun: 'threshold k',
    later: true,
    meaning: "The upper end of threshold_k's 95% interval.",
    unit: 'hops',
  },
  adaptive_procedure: {
    kind: 'enum',
    values: ['', 'staircase', 'quest'],
    later: true,
    meaning:
      'Adaptive studies, main trials: the procedure that chose k (staircase: 2-down-1-up; quest: QUEST+); empty otherwise.',
  },
  adaptive_stop: {
    kind: 'enum',
    values: ['', 'trials', 'interval'],
    later: true,
    meaning:
      "Adaptive studies: on the main trial after which the run stopped, why (trials: the most trials; interval: the threshold's 95% interval was narrow enough); empty before.",
  },
} as const satisfies Record<ResultColumn, ResultField>;

/** The value a field of this kind holds, as `ResultRow` types it. */
export type FieldValue<F> = F extends { readonly kind: 'text' | 'id' }
  ? string
  : F extends { readonly kind: 'integer' }
    ? number
    : F extends { readonly kind: 'integer?' | 'number?' | 'decimal?' }
      ? number | null
      : F extends { readonly kind: 'boolean' }
        ? boolean
        : F extends { readonly kind: 'enum'; readonly values: readonly (infer V)[] }
          ? V
          : never;

/** A row as the table describes it: must be `ResultRow`, or this file fails to compile. */
type TableRow = { -readonly [K in ResultColumn]: FieldValue<(typeof RESULT_FIELDS)[K]> };
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const _tableMatchesRow: Same<TableRow, { -readonly [K in ResultColumn]: ResultRow[K] }> = true;

/** How SQLite stores a column: it has no booleans (0/1), and only the nullable numbers may be NULL. */
export type StoredAs = 'text' | 'integer' | 'boolean' | 'integer?' | 'real?';

export function storedAs(column: ResultColumn): StoredAs {
  const field: ResultField = RESULT_FIELDS[column];
  switch (field.kind) {
    case 'text':
    case 'id':
      return 'text';
    case 'integer':
      return 'integer';
    case 'integer?':
    case 'number?':
      return 'integer?';
    case 'decimal?':
      return 'real?';
    case 'boolean':
      return 'boolean';
    case 'enum':
      return typeof field.values[0] === 'string' ? 'text' : 'integer';
  }
}

/** What a column added later reads as when a file or a page lacks it (`later`). */
export function emptyValue(column: ResultColumn): null | '' {
  const field: ResultField = RESULT_FIELDS[column];
  return field.kind === 'enum' && (field.values as readonly unknown[]).includes('') ? '' : null;
}

/** The columns added after the first release (`later`), in export order. */
export const LATER_COLUMNS = (Object.keys(RESULT_FIELDS) as ResultColumn[]).filter(
  (c) => (RESULT_FIELDS[c] as ResultField).later === true,
);
