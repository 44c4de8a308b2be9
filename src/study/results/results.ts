/**
 * Result rows: one per trial, with exactly the column names issue 9 lists (analysis scripts
 * depend on them), and their CSV and JSON exports. Session-level facts (user agent, screen) are
 * recorded once per session in `SessionInfo`; the CSV repeats them on each row so a file can be
 * analysed without a join.
 */
import { writeCsv } from '../../core/formats/csv';
import { RESULT_FIELDS, type ResultColumn, type ResultRow } from './resultFields';

export type { EndedOn, ResultRow } from './resultFields';

/**
 * The columns in export order: the list, then the Prolific ids (the order of the
 * column table, `RESULT_FIELDS`, which has one entry per key of ResultRow).
 */
export const RESULT_COLUMNS = Object.keys(RESULT_FIELDS) as readonly ResultColumn[];

/** Facts recorded once per session. */
export interface SessionInfo {
  readonly study_id: string;
  readonly session_id: string;
  readonly participant_id: string;
  readonly condition: string;
  readonly user_agent: string;
  /** `widthxheight@devicePixelRatio` of the screen, e.g. `390x844@3`. */
  readonly screen: string;
  readonly started_at: string;
}

/** The session columns the CSV adds to every row. */
export const SESSION_COLUMNS = ['user_agent', 'screen'] as const;

/**
 * The start of a cell a spreadsheet may run as a formula: `=`, `+`, `-`, `@`, their full-width
 * forms (＝ ＋ － ＠, which some spreadsheets fold to ASCII), or a character some spreadsheets
 * skip before them (tab, CR, LF, no-break space, zero-width space / joiners, word joiner, BOM),
 * after any run of single quotes (so that a value really starting with `'=` is escaped too, and
 * reads back with its quote: unescapeCell in resultsFile.ts removes exactly one `'`).
 */
export const FORMULA_START = /^'*[=+\-@\t\r\n\u00a0\u200b-\u200d\u2060\ufeff\uff0b\uff0d\uff1d\uff20]/;

/**
 * Makes a cell safe to open in a spreadsheet. A cell that could be run as a formula (CSV
 * injection; FORMULA_START) gets a leading single quote `'`, which spreadsheets show as text.
 * The JSON export keeps values unchanged; only the CSV is for spreadsheets.
 */
export function spreadsheetSafe(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

function cellText(value: string | number | boolean | null): string {
  if (value === null) return '';
  return typeof value === 'string' ? value : String(value);
}

/**
 * The rows as CSV (RFC 4180: CRLF line ends, fields with commas, quotes or line breaks quoted),
 * one header line, the columns then `user_agent` and `screen` from each row's session
 * (empty when `sessions` lacks it). Every cell goes through spreadsheetSafe.
 */
export function rowsToCsv(rows: readonly ResultRow[], sessions: readonly SessionInfo[] = []): string {
  const bySession = new Map(sessions.map((s) => [s.session_id, s]));
  const records: string[][] = [[...RESULT_COLUMNS, ...SESSION_COLUMNS]];
  for (const row of rows) {
    const session = bySession.get(row.session_id);
    records.push(
      [...RESULT_COLUMNS.map((c) => cellText(row[c])), ...SESSION_COLUMNS.map((c) => (session ? session[c] : ''))].map(
        spreadsheetSafe,
      ),
    );
  }
  return writeCsv(records, { lineEnding: '\r\n' });
}

/** The JSON export: `{ format, sessions, rows }`, values as recorded (no spreadsheet escaping). */
export interface ResultsJson {
  readonly format: 'clutrr-lab-study-results/1';
  readonly sessions: readonly SessionInfo[];
  readonly rows: readonly ResultRow[];
}

/** The rows and sessions as pretty-printed JSON; each row's keys in RESULT_COLUMNS order. */
export function rowsToJson(rows: readonly ResultRow[], sessions: readonly SessionInfo[] = []): string {
  const ordered = rows.map((row) => Object.fromEntries(RESULT_COLUMNS.map((c) => [c, row[c]])) as unknown as ResultRow);
  const doc: ResultsJson = { format: 'clutrr-lab-study-results/1', sessions, rows: ordered };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** Rows sorted for export: by session, then trial index (the outbox lists them by key already). */
export function sortRows(rows: readonly ResultRow[]): ResultRow[] {
  return [...rows].sort((a, b) =>
    a.session_id === b.session_id ? a.trial_index - b.trial_index : a.session_id < b.session_id ? -1 : 1,
  );
}
