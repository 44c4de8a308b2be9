/**
 * Reading result files back: this app's CSV (`rowsToCsv`, formula cells escaped with a leading
 * `'`) and JSON (`rowsToJson`, format `clutrr-lab-study-results/1`), into `ResultRow`s, and
 * merging any number of them with one row per (session_id, trial_index).
 *
 * A bad file is refused whole with a `ResultsFileError` naming the file, the 1-based data row and
 * the column, so a researcher can open the file at the right place; no half-read file reaches
 * the figures.
 */
import { CsvRecordReader, CsvSyntaxError } from '../core/formats/csv';
import { isTaskId } from '../core/puzzle/tasks';
import { RESULT_COLUMNS, SESSION_COLUMNS, type EndedOn, type ResultRow, type SessionInfo } from './results';
import type { Phase } from './schedule';

export const RESULTS_JSON_FORMAT = 'clutrr-lab-study-results/1';

/** A file that cannot be read: where (row and column when known) and why. */
export class ResultsFileError extends Error {
  override name = 'ResultsFileError';
  constructor(
    readonly file: string,
    readonly detail: string,
    /** 1-based data row (the header is row 0 in a CSV; the first element of `rows` in JSON is 1). */
    readonly row: number | null = null,
    readonly column: string | null = null,
    /** The 1-based physical line of a CSV row, when known. */
    readonly line: number | null = null,
  ) {
    const at = [
      row !== null ? `row ${row}` : null,
      line !== null ? `line ${line}` : null,
      column !== null ? `column ${column}` : null,
    ].filter(Boolean);
    super(`${file}${at.length ? ` (${at.join(', ')})` : ''}: ${detail}`);
  }
}

export interface ResultsFile {
  readonly name: string;
  readonly format: 'csv' | 'json';
  readonly rows: readonly ResultRow[];
  readonly sessions: readonly SessionInfo[];
}

type Column = (typeof RESULT_COLUMNS)[number];
type Kind = 'text' | 'id' | 'count' | 'seed' | 'k' | 'task' | 'bool' | 'difficulty' | 'limit' | 'phase' | 'ended';

const KINDS: Record<Column, Kind> = {
  study_id: 'text',
  session_id: 'id',
  participant_id: 'text',
  condition: 'text',
  trial_index: 'count',
  phase: 'phase',
  puzzle_id: 'text',
  seed: 'seed',
  k: 'k',
  task: 'task',
  strict: 'bool',
  query_a: 'text',
  query_b: 'text',
  gold: 'text',
  response: 'text',
  correct: 'bool',
  difficulty: 'difficulty',
  rt_ms: 'count',
  ended_on: 'ended',
  time_limit_s: 'limit',
  answer_changes: 'count',
  hidden_ms: 'count',
  resumed: 'bool',
  started_at: 'text',
  answered_at: 'text',
  story: 'text',
  prolific_study_id: 'text',
  prolific_session_id: 'text',
};

const PHASES: readonly Phase[] = ['practice', 'main', 'check'];
const ENDINGS: readonly EndedOn[] = ['response', 'timeout', 'skipped'];

/** A value that is not what its column holds; the reader adds file, row and column. */
class BadValue extends Error {}

const show = (v: unknown) =>
  typeof v === 'string' ? `"${v.length > 40 ? `${v.slice(0, 39)}…` : v}"` : JSON.stringify(v);

/** Checks a typed value (from JSON, or converted from CSV text) against its column's kind. */
function checkValue(kind: Kind, v: unknown): ResultRow[Column] {
  switch (kind) {
    case 'text':
      if (typeof v !== 'string') throw new BadValue(`${show(v)} is not text`);
      return v;
    case 'id':
      if (typeof v !== 'string' || v === '') throw new BadValue(`${show(v)} is not a session id (empty)`);
      return v;
    case 'count':
    case 'seed':
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
        throw new BadValue(`${show(v)} is not a whole number ≥ 0`);
      return v;
    case 'k':
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) throw new BadValue(`${show(v)} is not a k ≥ 1`);
      return v;
    case 'task':
      if (typeof v !== 'number' || !isTaskId(v)) throw new BadValue(`${show(v)} is not a task 1–7`);
      return v;
    case 'bool':
      if (typeof v !== 'boolean') throw new BadValue(`${show(v)} is not true or false`);
      return v;
    case 'difficulty':
      if (v === null) return null;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 5)
        throw new BadValue(`${show(v)} is not a rating 1–5 (or empty)`);
      return v;
    case 'limit':
      if (v === null) return null;
      if (typeof v !== 'number' || !(v > 0)) throw new BadValue(`${show(v)} is not a time limit in seconds (or empty)`);
      return v;
    case 'phase':
      if (!PHASES.includes(v as Phase)) throw new BadValue(`${show(v)} is not one of ${PHASES.join(', ')}`);
      return v as Phase;
    case 'ended':
      if (!ENDINGS.includes(v as EndedOn)) throw new BadValue(`${show(v)} is not one of ${ENDINGS.join(', ')}`);
      return v as EndedOn;
  }
}

const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;

/** CSV text to the typed value its column holds (then checked like a JSON value). */
function fromText(kind: Kind, text: string): unknown {
  switch (kind) {
    case 'text':
    case 'id':
    case 'phase':
    case 'ended':
      return text;
    case 'bool':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'difficulty':
    case 'limit':
      if (text === '') return null;
      return NUMBER_TEXT.test(text) ? Number(text) : text;
    default:
      return NUMBER_TEXT.test(text) ? Number(text) : text;
  }
}

/**
 * Undoes `spreadsheetSafe`: a leading `'` before `=`, `+`, `-`, `@`, tab or CR was added on
 * export. (A value that itself began with `'=`… reads back without its quote: the export does not
 * mark the difference, and no column of ours starts that way.)
 */
export function unescapeCell(cell: string): string {
  return cell.length > 1 && cell.charCodeAt(0) === 39 && /[=+\-@\t\r]/.test(cell[1]!) ? cell.slice(1) : cell;
}

/** Reads one result file; JSON when its first non-blank character is `{`, CSV otherwise. */
export function readResultsFile(name: string, text: string): ResultsFile {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.trim() === '') throw new ResultsFileError(name, 'the file is empty');
  return /^\s*\{/.test(body) ? readJson(name, body) : readCsv(name, body);
}

function readCsv(name: string, text: string): ResultsFile {
  let index: Map<string, number> | null = null;
  let width = 0;
  const rows: ResultRow[] = [];
  const extra = new Map<string, { user_agent: string; screen: string }>();
  const reader = new CsvRecordReader((fields, place) => {
    if (index === null) {
      index = new Map(fields.map((f, i) => [f.trim(), i]));
      width = fields.length;
      const missing = RESULT_COLUMNS.filter((c) => !index!.has(c));
      if (missing.length > 0) {
        throw new ResultsFileError(
          name,
          `the header lacks ${missing.length === 1 ? 'the column' : 'the columns'} ${missing.join(', ')}: not a results file of this app`,
          0,
          missing[0],
          place.line,
        );
      }
      return;
    }
    if (fields.length === 0) return; // a blank line
    const n = place.index;
    if (fields.length !== width) {
      throw new ResultsFileError(
        name,
        `the row has ${fields.length} fields, the header has ${width}`,
        n,
        null,
        place.line,
      );
    }
    const at = index;
    const row: Record<string, unknown> = {};
    for (const c of RESULT_COLUMNS) {
      const cell = unescapeCell(fields[at.get(c)!]!);
      try {
        row[c] = checkValue(KINDS[c], fromText(KINDS[c], cell));
      } catch (e) {
        if (e instanceof BadValue) throw new ResultsFileError(name, e.message, n, c, place.line);
        throw e;
      }
    }
    const r = row as unknown as ResultRow;
    rows.push(r);
    if (!extra.has(r.session_id)) {
      const get = (c: string) => (at.has(c) ? unescapeCell(fields[at.get(c)!]!) : '');
      extra.set(r.session_id, { user_agent: get(SESSION_COLUMNS[0]), screen: get(SESSION_COLUMNS[1]) });
    }
  });
  try {
    reader.push(text);
    reader.end();
  } catch (e) {
    if (e instanceof CsvSyntaxError)
      throw new ResultsFileError(name, `not valid CSV: ${e.detail}`, e.record, null, e.line);
    throw e;
  }
  if (rows.length === 0) throw new ResultsFileError(name, 'the file has a header but no rows');
  const sessions = sessionsOf(rows).map((s) => ({ ...s, ...extra.get(s.session_id)! }));
  return { name, format: 'csv', rows, sessions };
}

/** Session facts rebuilt from rows (a CSV carries them on every row): the first row of each session, its earliest start. */
function sessionsOf(rows: readonly ResultRow[]): SessionInfo[] {
  const by = new Map<string, SessionInfo>();
  for (const r of rows) {
    const s = by.get(r.session_id);
    if (!s) {
      by.set(r.session_id, {
        study_id: r.study_id,
        session_id: r.session_id,
        participant_id: r.participant_id,
        condition: r.condition,
        user_agent: '',
        screen: '',
        started_at: r.started_at,
      });
    } else if (r.started_at < s.started_at) by.set(r.session_id, { ...s, started_at: r.started_at });
  }
  return [...by.values()];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readJson(name: string, text: string): ResultsFile {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ResultsFileError(name, `not valid JSON: ${(e as Error).message}`);
  }
  if (!isRecord(doc)) throw new ResultsFileError(name, 'the JSON is not an object');
  if (doc.format !== RESULTS_JSON_FORMAT) {
    throw new ResultsFileError(
      name,
      `the "format" is ${show(doc.format ?? null)}, expected "${RESULTS_JSON_FORMAT}": not a results file of this app`,
    );
  }
  if (!Array.isArray(doc.rows)) throw new ResultsFileError(name, '"rows" is not a list');
  const rows: ResultRow[] = doc.rows.map((raw: unknown, i: number) => {
    if (!isRecord(raw)) throw new ResultsFileError(name, 'the row is not an object', i + 1);
    const row: Record<string, unknown> = {};
    for (const c of RESULT_COLUMNS) {
      if (!(c in raw)) throw new ResultsFileError(name, 'the row has no such field', i + 1, c);
      try {
        row[c] = checkValue(KINDS[c], raw[c]);
      } catch (e) {
        if (e instanceof BadValue) throw new ResultsFileError(name, e.message, i + 1, c);
        throw e;
      }
    }
    return row as unknown as ResultRow;
  });
  if (rows.length === 0) throw new ResultsFileError(name, 'the file has no rows');
  const given = Array.isArray(doc.sessions) ? doc.sessions.filter(isRecord) : [];
  const byId = new Map(given.map((s) => [String(s.session_id), s]));
  const sessions = sessionsOf(rows).map((s) => {
    const g = byId.get(s.session_id);
    const text = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback);
    return g
      ? {
          ...s,
          user_agent: text(g.user_agent, ''),
          screen: text(g.screen, ''),
          started_at: text(g.started_at, s.started_at),
        }
      : s;
  });
  return { name, format: 'json', rows, sessions };
}

/** A (session_id, trial_index) met again with different content: the first file's row stands. */
export interface RowConflict {
  readonly session_id: string;
  readonly trial_index: number;
  /** The file whose row stands, and the one whose row was dropped. */
  readonly kept: string;
  readonly dropped: string;
  /** The first column that differs. */
  readonly column: string;
}

export interface MergedResults {
  readonly rows: readonly ResultRow[];
  readonly sessions: readonly SessionInfo[];
  /** Rows met again with the same content (e.g. the same session in two files). */
  readonly duplicates: number;
  readonly conflicts: readonly RowConflict[];
}

/**
 * One row per (session_id, trial_index) over the files in order; the first one read stands, as
 * the outbox and the server keep the first answer recorded. Rows sorted by session, then trial.
 */
export function mergeResults(files: readonly ResultsFile[]): MergedResults {
  const byKey = new Map<string, { row: ResultRow; file: string }>();
  const sessions = new Map<string, SessionInfo>();
  let duplicates = 0;
  const conflicts: RowConflict[] = [];
  for (const f of files) {
    for (const row of f.rows) {
      const key = `${row.session_id}\u0000${row.trial_index}`;
      const first = byKey.get(key);
      if (!first) {
        byKey.set(key, { row, file: f.name });
        continue;
      }
      const column = RESULT_COLUMNS.find((c) => first.row[c] !== row[c]);
      if (column === undefined) duplicates++;
      else
        conflicts.push({
          session_id: row.session_id,
          trial_index: row.trial_index,
          kept: first.file,
          dropped: f.name,
          column,
        });
    }
    for (const s of f.sessions) {
      const had = sessions.get(s.session_id);
      // Keep the fullest record: a JSON file's session facts over a CSV's blanks.
      if (!had || (!had.user_agent && s.user_agent)) sessions.set(s.session_id, s);
    }
  }
  const rows = [...byKey.values()]
    .map((e) => e.row)
    .sort((a, b) =>
      a.session_id === b.session_id ? a.trial_index - b.trial_index : a.session_id < b.session_id ? -1 : 1,
    );
  return { rows, sessions: [...sessions.values()], duplicates, conflicts };
}
