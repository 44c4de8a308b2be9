/**
 * The exports, streamed: the rows come from a SQLite cursor (better-sqlite3's `iterate()`) and
 * go out in chunks of about 64 KB, so memory stays bounded whatever the size of the database.
 * The bytes are exactly those of `rowsToCsv` / `rowsToJson` (src/study/results/results.ts) over the same
 * rows and sessions: the CSV record by record through the same cell escaping and quoting, the
 * JSON as `JSON.stringify(doc, null, 2)` lays it out, one element at a time.
 *
 * An export reads through its own read-only connection inside one read transaction: it sees one
 * snapshot of the database (WAL lets the server keep committing meanwhile), and the server's own
 * connection stays free for ingest while a cursor is open (a better-sqlite3 connection cannot run
 * other statements while one of its iterators is open).
 */
import { csvField } from '../src/core/formats/csv';
import { storedAs } from '../src/study/results/resultFields';
import { RESULT_COLUMNS, SESSION_COLUMNS, spreadsheetSafe, type ResultRow } from '../src/study/results/results';
import type { Snapshot } from './db/snapshot';
import type { ResultStore } from './store';

export type ExportFormat = 'csv' | 'json';

/** About this much text per chunk: big enough to amortise a write, small enough to keep the event loop turning. */
const CHUNK_CHARS = 64 * 1024;

/** The columns stored as 0/1 that the row type holds as booleans. */
const BOOLEAN_COLUMNS = new Set<string>(RESULT_COLUMNS.filter((c) => storedAs(c) === 'boolean'));

/** A read-only snapshot of the results database, for one export; close it when done. */
export class ExportReader {
  private constructor(private readonly snapshot: Snapshot) {}

  /** A second, read-only connection to the store's file (the store's own connection for an in-memory database). */
  static open(store: ResultStore): ExportReader {
    return new ExportReader(store.snapshot());
  }

  /** Sessions as `results.ts`' sessions listing counts them: ids from sessions and from rows. */
  sessionCount(studyId?: string): number {
    return this.snapshot.sessionCount(studyId);
  }

  /** The export's text in chunks of about 64 KB; `counted.rows` grows as rows go out. */
  *chunks(format: ExportFormat, studyId: string | undefined, counted = { rows: 0 }): Generator<string, void, void> {
    const pieces = format === 'csv' ? this.csvPieces(studyId, counted) : this.jsonPieces(studyId, counted);
    let buffer = '';
    for (const piece of pieces) {
      buffer += piece;
      if (buffer.length >= CHUNK_CHARS) {
        yield buffer;
        buffer = '';
      }
    }
    if (buffer !== '') yield buffer;
  }

  close(): void {
    this.snapshot.close();
  }

  private *csvPieces(studyId: string | undefined, counted: { rows: number }): Generator<string> {
    yield csvLine([...RESULT_COLUMNS, ...SESSION_COLUMNS]);
    for (const r of this.snapshot.rowCursor(studyId, true)) {
      const cells: string[] = RESULT_COLUMNS.map((c) => {
        const v = r[c]!;
        if (v === null) return '';
        if (BOOLEAN_COLUMNS.has(c)) return v === 1 ? 'true' : 'false';
        return typeof v === 'string' ? v : String(v);
      });
      const found = r.s_found === 1;
      cells.push(found ? String(r.s_user_agent) : '', found ? String(r.s_screen) : '');
      counted.rows++;
      yield csvLine(cells);
    }
  }

  private *jsonPieces(studyId: string | undefined, counted: { rows: number }): Generator<string> {
    yield '{\n  "format": "clutrr-lab-study-results/1",\n  "sessions": [';
    const sessions = this.snapshot.sessionCursor(studyId);
    yield* arrayElements(sessions);
    yield ',\n  "rows": [';
    const rows = this.snapshot.rowCursor(studyId, false);
    yield* arrayElements(
      (function* () {
        for (const r of rows) {
          counted.rows++;
          yield Object.fromEntries(
            RESULT_COLUMNS.map((c) => [c, BOOLEAN_COLUMNS.has(c) ? r[c] === 1 : r[c]]),
          ) as unknown as ResultRow;
        }
      })(),
    );
    yield '\n}\n';
  }
}

/** One CSV record as rowsToCsv writes it: every cell spreadsheet-safe, RFC 4180 quoting, CRLF. */
function csvLine(cells: readonly string[]): string {
  const fields = cells.map(spreadsheetSafe);
  // writeCsv's rule for a record of one empty field; never true of the export's 30 columns.
  if (fields.length === 1 && fields[0] === '') return '""\r\n';
  return `${fields.map(csvField).join(',')}\r\n`;
}

/** The elements of an array at depth 1 of a document indented by 2, then its closing bracket. */
function* arrayElements(items: Iterable<object>): Generator<string> {
  let first = true;
  for (const item of items) {
    // Nested two levels deep: every line of the element is indented by four more spaces.
    // JSON.stringify escapes line breaks inside strings, so each '\n' here is a layout line break.
    yield `${first ? '' : ','}\n    ${JSON.stringify(item, null, 2).replaceAll('\n', '\n    ')}`;
    first = false;
  }
  yield first ? ']' : '\n  ]';
}

/**
 * The export as a web stream of UTF-8 bytes for an HTTP response: one chunk per pull, so a slow
 * client slows the reading (backpressure), and the event loop turns before every chunk, so
 * participants' requests are answered while an export runs. The reader is closed at the end, on
 * an error and when the client goes away.
 */
export function exportStream(
  store: ResultStore,
  format: ExportFormat,
  studyId: string | undefined,
): ReadableStream<Uint8Array> {
  const reader = ExportReader.open(store);
  const chunks = reader.chunks(format, studyId);
  const encoder = new TextEncoder();
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // A turn of the event loop before each chunk: on loopback a socket takes every write at
        // once (no 'drain' to wait for), so without this the whole export would run as one chain
        // of microtasks and hold every other request until it ends.
        await new Promise((resolve) => setImmediate(resolve));
        if (cancelled) return;
        try {
          const next = chunks.next();
          if (next.done) {
            reader.close();
            controller.close();
          } else controller.enqueue(encoder.encode(next.value));
        } catch (e) {
          chunks.return();
          reader.close();
          controller.error(e);
        }
      },
      cancel() {
        cancelled = true;
        chunks.return();
        reader.close();
      },
    },
    { highWaterMark: 1 },
  );
}
