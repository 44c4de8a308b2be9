/**
 * Reading result files back: this app's CSV (`rowsToCsv`, formula cells escaped with a leading
 * `'`) and JSON (`rowsToJson`, format `clutrr-lab-study-results/1`), into `ResultRow`s, and
 * merging any number of them with one row per (session_id, trial_index).
 *
 * A bad file is refused whole with a `ResultsFileError` naming the file, the 1-based data row and
 * the column, so a researcher can open the file at the right place; no half-read file reaches
 * the figures.
 */
import { CsvRecordReader, CsvSyntaxError, type CsvRecordPlace } from '../../core/formats/csv';
import {
  emptyValue,
  LATER_COLUMNS,
  RESULT_FIELDS,
  storedAs,
  type ResultColumn,
  type ResultField,
} from './resultFields';
import { FORMULA_START, RESULT_COLUMNS, SESSION_COLUMNS, type ResultRow, type SessionInfo } from './results';

export const RESULTS_JSON_FORMAT = 'clutrr-lab-study-results/1';

/** A file that cannot be read: where (row and column or field when known) and why. */
export class ResultsFileError extends Error {
  override name = 'ResultsFileError';
  constructor(
    readonly file: string,
    readonly detail: string,
    /** 1-based data row (the header is row 0 in a CSV; the first element of `rows` in JSON is 1). */
    readonly row: number | null = null,
    /** The CSV column or JSON field. */
    readonly column: string | null = null,
    /** The 1-based physical line of a CSV row, when known. */
    readonly line: number | null = null,
    /** What `column` is called in the message: a CSV's column, a JSON row's field. */
    readonly columnWord: 'column' | 'field' = 'column',
  ) {
    const at = [
      row !== null ? `row ${row}` : null,
      line !== null ? `line ${line}` : null,
      column !== null ? `${columnWord} ${column}` : null,
    ].filter(Boolean);
    super(`${file}${at.length ? ` (${at.join(', ')})` : ''}: ${detail}`);
  }
}

/**
 * The longest JSON result file read, in characters (about bytes): a JSON document is parsed
 * whole, from one string, and browsers cap a string near 2^29 characters (V8: 536,870,888), so
 * a bigger JSON file cannot be read at all. CSV is read a chunk at a time and has no such cap.
 */
export const MAX_JSON_CHARS = 500 * 2 ** 20;

export interface ResultsFile {
  readonly name: string;
  readonly format: 'csv' | 'json';
  readonly rows: readonly ResultRow[];
  readonly sessions: readonly SessionInfo[];
}

/** A value that is not what its column holds; the reader adds file, row and column. */
class BadValue extends Error {}

const clip = (t: string) => (t.length > 40 ? `${t.slice(0, 39)}…` : t);

/** A value as the message quotes it (JSON values only come here, so stringify cannot throw). */
const show = (v: unknown) => (typeof v === 'string' ? `"${clip(v)}"` : clip(JSON.stringify(v) ?? String(v)));

/** What a non-text value is, in words. */
const what = (v: unknown) =>
  v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/** Checks a typed value (from JSON, or converted from CSV text) against its column's kind. */
function checkValue(field: ResultField, v: unknown): ResultRow[ResultColumn] {
  switch (field.kind) {
    case 'text':
      if (typeof v !== 'string') throw new BadValue(`${show(v)} is ${what(v)}, not text`);
      return v;
    case 'id':
      if (typeof v !== 'string') throw new BadValue(`${show(v)} is ${what(v)}, not a ${field.noun} (text)`);
      if (v === '') throw new BadValue(`the ${field.noun} is empty`);
      return v;
    case 'integer':
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < field.min)
        throw new BadValue(`${show(v)} is not a ${field.noun ?? 'whole number'} ≥ ${field.min}`);
      return v;
    case 'boolean':
      if (typeof v !== 'boolean') throw new BadValue(`${show(v)} is not true or false`);
      return v;
    case 'integer?':
      if (v === null) return null;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < field.min || v > field.max)
        throw new BadValue(`${show(v)} is not a ${field.noun} ${field.min}–${field.max} (or empty)`);
      return v;
    case 'number?':
      if (v === null) return null;
      if (typeof v !== 'number' || !(v > 0)) throw new BadValue(`${show(v)} is not a ${field.noun} (or empty)`);
      return v;
    case 'decimal?':
      if (v === null) return null;
      if (typeof v !== 'number' || !Number.isFinite(v))
        throw new BadValue(`${show(v)} is not a ${field.noun} (or empty)`);
      return v;
    case 'enum': {
      const values: readonly unknown[] = field.values;
      if ('noun' in field) {
        if (typeof v !== 'number' || !values.includes(v))
          throw new BadValue(`${show(v)} is not a ${field.noun} ${field.values[0]}–${field.values.at(-1)}`);
      } else if (!values.includes(v))
        throw new BadValue(`${show(v)} is not one of ${field.values.map((x) => x || '(empty)').join(', ')}`);
      // The table's values are exactly the column's type (checked in resultFields.ts).
      return v as ResultRow[ResultColumn];
    }
  }
}

/** Columns a file written before they existed lacks (read as empty). */
const LATER: ReadonlySet<ResultColumn> = new Set(LATER_COLUMNS);

const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;

/** CSV text to the typed value its column holds (then checked like a JSON value). */
function fromText(column: ResultColumn, text: string): unknown {
  switch (storedAs(column)) {
    case 'text':
      return text;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'integer?':
    case 'real?':
      if (text === '') return null;
      return NUMBER_TEXT.test(text) ? Number(text) : text;
    case 'integer':
      return NUMBER_TEXT.test(text) ? Number(text) : text;
  }
}

/**
 * Undoes `spreadsheetSafe` exactly: it prefixed one `'` to every cell matching FORMULA_START
 * (quotes, then a formula character), so a `'` followed by such a cell was added and goes. A
 * value that really began with `'=` was written `''=` and reads back as `'=`.
 */
export function unescapeCell(cell: string): string {
  return cell.charCodeAt(0) === 39 && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}

/** Reads one result file whose text is at hand; JSON when its first non-blank character is `{`, CSV otherwise. */
export function readResultsFile(name: string, text: string): ResultsFile {
  const reader = new ResultsFileReader(name);
  reader.push(text);
  return reader.end();
}

/**
 * Reads one result file a piece of text at a time (a file streamed from disk in a worker): CSV
 * rows are checked as their line ends arrive, so a CSV of any length is read; JSON is gathered
 * up to MAX_JSON_CHARS and parsed at the end. The format is decided by the first non-blank
 * character. Anything unexpected thrown while reading becomes a ResultsFileError naming the file,
 * so a caller never meets another error class.
 */
export class ResultsFileReader {
  private format: 'csv' | 'json' | null = null;
  /** Text before the format is known (a BOM, blank space), then the JSON text. */
  private pieces: string[] = [];
  private chars = 0;
  private csv: CsvResults | null = null;

  private readonly bytes: number | null;
  private readonly maxJsonChars: number;

  /** `bytes`: the file's size, for the message when a JSON file is too long; `maxJsonChars` for tests. */
  constructor(
    readonly name: string,
    options: { readonly bytes?: number; readonly maxJsonChars?: number } = {},
  ) {
    this.bytes = options.bytes ?? null;
    this.maxJsonChars = options.maxJsonChars ?? MAX_JSON_CHARS;
  }

  push(text: string): void {
    this.guard(() => {
      if (text === '') return;
      if (this.format === null) {
        const head = (this.pieces.join('') + text).replace(/^\uFEFF/, '');
        const first = head.search(/\S/);
        if (first < 0) {
          this.pieces = [head];
          return;
        }
        this.pieces = [];
        this.format = head[first] === '{' ? 'json' : 'csv';
        if (this.format === 'csv') this.csv = new CsvResults(this.name);
        text = head;
      }
      if (this.csv) {
        this.csv.push(text);
        return;
      }
      this.chars += text.length;
      if (this.chars > this.maxJsonChars) throw this.tooLong();
      this.pieces.push(text);
    });
  }

  end(): ResultsFile {
    return this.guard(() => {
      if (this.format === null) throw new ResultsFileError(this.name, 'the file is empty');
      if (this.csv) return this.csv.end();
      let text: string;
      try {
        text = this.pieces.join('');
      } catch (e) {
        // A string longer than the browser allows (RangeError: Invalid string length).
        if (e instanceof RangeError) throw this.tooLong();
        throw e;
      }
      this.pieces = [];
      return readJson(this.name, text);
    });
  }

  private tooLong(): ResultsFileError {
    const size = this.bytes ?? this.chars;
    return new ResultsFileError(
      this.name,
      `a JSON result file can be read up to ${mb(this.maxJsonChars)} (a JSON document is read whole, as one ` +
        `string, and browsers cap a string's length); this one is ${mb(size)}${this.bytes === null ? ' or more' : ''}. ` +
        'Export the results as CSV (read piece by piece, no such limit) or in several files.',
    );
  }

  private guard<T>(read: () => T): T {
    try {
      return read();
    } catch (e) {
      if (e instanceof ResultsFileError) throw e;
      const why = e instanceof RangeError ? 'the browser ran out of room' : 'it could not be read';
      throw new ResultsFileError(this.name, `${why}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

const mb = (n: number) => `${(n / 2 ** 20).toFixed(n < 10 * 2 ** 20 ? 1 : 0)} MB`;

/** The CSV side of ResultsFileReader: the header, then each row checked as it completes. */
class CsvResults {
  private index: Map<string, number> | null = null;
  private width = 0;
  private readonly rows: ResultRow[] = [];
  private readonly extra = new Map<string, { user_agent: string; screen: string }>();
  private readonly reader: CsvRecordReader;

  constructor(private readonly name: string) {
    this.reader = new CsvRecordReader((fields, place) => this.record(fields, place));
  }

  push(text: string): void {
    this.syntax(() => this.reader.push(text));
  }

  end(): ResultsFile {
    this.syntax(() => this.reader.end());
    const { name, rows, extra } = this;
    if (this.index === null) throw new ResultsFileError(name, 'the file is empty');
    if (rows.length === 0) throw new ResultsFileError(name, 'the file has a header but no rows');
    const sessions = sessionsOf(rows).map((s) => ({ ...s, ...extra.get(s.session_id)! }));
    return { name, format: 'csv', rows, sessions };
  }

  private syntax(read: () => void): void {
    try {
      read();
    } catch (e) {
      if (e instanceof CsvSyntaxError)
        throw new ResultsFileError(this.name, `not valid CSV: ${e.detail}`, e.record, null, e.line);
      throw e;
    }
  }

  private record(fields: string[], place: CsvRecordPlace): void {
    const name = this.name;
    if (this.index === null) {
      const index = new Map(fields.map((f, i) => [f.trim(), i]));
      this.index = index;
      this.width = fields.length;
      // A column added later (RESULT_FIELDS' `later`) may be missing: older files read it as empty.
      const missing = RESULT_COLUMNS.filter((c) => !index.has(c) && !LATER.has(c));
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
    if (fields.length !== this.width) {
      throw new ResultsFileError(
        name,
        `the row has ${fields.length} fields, the header has ${this.width}`,
        n,
        null,
        place.line,
      );
    }
    const at = this.index;
    const row: Record<string, unknown> = {};
    for (const c of RESULT_COLUMNS) {
      const column = at.get(c);
      if (column === undefined) {
        row[c] = emptyValue(c);
        continue;
      }
      const cell = unescapeCell(fields[column]!);
      try {
        row[c] = checkValue(RESULT_FIELDS[c], fromText(c, cell));
      } catch (e) {
        if (e instanceof BadValue) throw new ResultsFileError(name, e.message, n, c, place.line);
        throw e;
      }
    }
    const r = row as unknown as ResultRow;
    this.rows.push(r);
    if (!this.extra.has(r.session_id)) {
      const get = (c: string) => (at.has(c) ? unescapeCell(fields[at.get(c)!]!) : '');
      this.extra.set(r.session_id, { user_agent: get(SESSION_COLUMNS[0]), screen: get(SESSION_COLUMNS[1]) });
    }
  }
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
    if (!isRecord(raw)) throw new ResultsFileError(name, `the row is ${what(raw)}, not an object`, i + 1);
    const row: Record<string, unknown> = {};
    for (const c of RESULT_COLUMNS) {
      if (!Object.hasOwn(raw, c)) {
        if (LATER.has(c)) {
          row[c] = emptyValue(c);
          continue;
        }
        throw new ResultsFileError(name, 'the row has no such field', i + 1, c, null, 'field');
      }
      try {
        row[c] = checkValue(RESULT_FIELDS[c], raw[c]);
      } catch (e) {
        if (e instanceof BadValue) throw new ResultsFileError(name, e.message, i + 1, c, null, 'field');
        throw e;
      }
    }
    return row as unknown as ResultRow;
  });
  if (rows.length === 0) throw new ResultsFileError(name, 'the file has no rows');
  const given = Array.isArray(doc.sessions) ? doc.sessions : [];
  const byId = new Map<string, Record<string, unknown>>();
  given.forEach((s: unknown, i: number) => {
    if (!isRecord(s)) return; // session facts are extras; the rows carry what the figures need
    const id = s.session_id;
    if (typeof id !== 'string')
      throw new ResultsFileError(
        name,
        `"sessions" entry ${i + 1}: ${show(id ?? null)} is ${what(id ?? null)}, not a session id (text)`,
        null,
        'session_id',
        null,
        'field',
      );
    byId.set(id, s);
  });
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
