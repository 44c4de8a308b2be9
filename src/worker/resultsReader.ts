import { collectionSummary, DEFAULT_COLLECT, type CollectionSummary } from '../study/collect/collect';
import { readCollectedRows } from '../study/collect/rows';
import { aggregate, answeredItems, items, mainRows, participants, type ParticipantRow } from '../study/results/figures';
import { type ParticipantThreshold, storedThresholds } from '../study/results/thresholds';
import {
  mergeResults,
  ResultsFileError,
  ResultsFileReader,
  type MergedResults,
  type ResultsFile,
} from '../study/results/resultsFile';
import type {
  DashboardFigures,
  DashboardView,
  FileOutcome,
  FileProblem,
  ReadResultsBody,
  ReadResultsResult,
  ResultsSource,
} from './resultsProtocol';
import type { ServeContext } from './rpc';

/**
 * What the results worker does, as plain functions (the worker file only installs them; the
 * tests run them in Node): each file streamed from its Blob through `ResultsFileReader` (so a
 * CSV is never one string, and no file's text is held whole but a JSON file's), the good files
 * merged, and the dashboard's figures computed from the merged rows (`src/study/results/figures.ts`).
 */

type Read = { readonly ok: true; readonly file: ResultsFile } | { readonly ok: false; readonly problem: FileProblem };

const problemOf = (e: ResultsFileError): FileProblem => ({
  file: e.file,
  row: e.row,
  column: e.column,
  line: e.line,
  message: e.message,
});

/**
 * Reads one file from its bytes. Never throws: a file that cannot be read, for whatever reason
 * (bad content, a stream error, a file removed from disk meanwhile), is a problem naming it.
 */
export async function readSource(source: ResultsSource, onBytes: (bytes: number) => void): Promise<Read> {
  const { name, data } = source;
  const reader = new ResultsFileReader(name, { bytes: data.size });
  const decoder = new TextDecoder('utf-8');
  let stream: ReadableStreamDefaultReader<Uint8Array> | null = null;
  try {
    stream = data.stream().getReader();
    let bytes = 0;
    for (;;) {
      const { done, value } = await stream.read();
      if (done) break;
      bytes += value.byteLength;
      reader.push(decoder.decode(value, { stream: true }));
      onBytes(bytes);
    }
    reader.push(decoder.decode());
    return { ok: true, file: reader.end() };
  } catch (e) {
    await stream?.cancel().catch(() => {});
    const error =
      e instanceof ResultsFileError
        ? e
        : new ResultsFileError(name, `could not be read: ${e instanceof Error ? e.message : String(e)}`);
    return { ok: false, problem: problemOf(error) };
  }
}

const outcome = (name: string, read: Read): FileOutcome =>
  read.ok
    ? { name, ok: true, format: read.file.format, rows: read.file.rows.length, sessions: read.file.sessions.length }
    : { name, ok: false, problem: read.problem };

/** How many conflicting rows are sent to the page to show (it shows the first; all are counted). */
const FIRST_CONFLICTS = 10;

/** The figures of one view of merged rows: by grouping, flagged participants left out or not. */
export function dashboardFigures(
  rows: MergedResults['rows'],
  people: readonly ParticipantRow[],
  view: DashboardView,
): DashboardFigures {
  const flagged = view.excludeFlagged
    ? new Set(people.flatMap((p) => (p.flags.length ? [p.session_id] : [])))
    : undefined;
  return {
    view,
    groups: aggregate(rows, view.by, flagged),
    items: items(rows, flagged),
    answered: answeredItems(mainRows(rows, flagged)),
  };
}

/** A file read or being read: its outcome to come, and its bytes read so far for progress. */
interface Entry {
  readonly stamp: number;
  readonly size: number;
  bytes: number;
  settled: boolean;
  readonly read: Promise<Read>;
  readonly watchers: Set<() => void>;
}

/**
 * The `read` command with its memory of files read or being read (by name and stamp) and of the
 * last merge: reads the new files, forgets those no longer listed, merges the good ones in the
 * listed order (again only when the list changed), and computes the figures of the requested
 * view. Files are read one at a time, in the order asked; a request made while a file is still
 * being read (a regrouping during a long read) waits for that reading instead of starting another,
 * so a big file is never held twice.
 */
export function createResultsReader() {
  const known = new Map<string, Entry>();
  let queue: Promise<unknown> = Promise.resolve();
  let last: {
    key: string;
    merged: MergedResults;
    people: ParticipantRow[];
    thresholds: ParticipantThreshold[];
    /** Collection trials among the rows: none, some, or every row. */
    collection: 'none' | 'some' | 'only';
    /** The last collection summary, by the judging options it was computed with. */
    summary?: { options: string; value: CollectionSummary };
  } | null = null;

  function start(source: ResultsSource): Entry {
    const entry: Entry = {
      stamp: source.stamp,
      size: source.data.size,
      bytes: 0,
      settled: false,
      watchers: new Set(),
      read: (queue = queue.then(() =>
        readSource(source, (bytes) => {
          entry.bytes = bytes;
          for (const w of entry.watchers) w();
        }),
      )) as Promise<Read>,
    };
    void entry.read.then(() => {
      entry.settled = true;
      entry.bytes = entry.size;
    });
    return entry;
  }

  const read = async function read(body: ReadResultsBody, ctx: ServeContext<never>): Promise<ReadResultsResult> {
    const listed = new Set(body.sources.map((s) => s.name));
    for (const name of [...known.keys()]) if (!listed.has(name)) known.delete(name);
    const entries = body.sources.map((s) => {
      let e = known.get(s.name);
      if (e?.stamp !== s.stamp) known.set(s.name, (e = start(s)));
      return e!;
    });
    // Progress over the files not read yet, whoever started them.
    const pending = entries.filter((e) => !e.settled);
    const total = Math.max(
      1,
      pending.reduce((n, e) => n + e.size, 0),
    );
    const watch = () =>
      ctx.progress(
        Math.min(
          total - 1,
          pending.reduce((n, e) => n + e.bytes, 0),
        ),
        total,
      );
    for (const e of pending) e.watchers.add(watch);
    let reads: Read[];
    try {
      reads = await Promise.all(entries.map((e) => e.read));
    } finally {
      for (const e of pending) e.watchers.delete(watch);
    }
    ctx.progress(total, total);
    const key = body.sources.map((s) => s.stamp).join(',');
    if (last?.key !== key) {
      const merged = mergeResults(reads.flatMap((r) => (r.ok ? [r.file] : [])));
      const collected = readCollectedRows(merged.rows);
      const trials =
        collected.stories.length + collected.reviews.length + collected.unanswered + collected.problems.length;
      last = {
        key,
        merged,
        people: participants(merged.rows),
        thresholds: storedThresholds(merged.rows),
        collection: trials === 0 ? 'none' : collected.other === 0 ? 'only' : 'some',
      };
    }
    let collection: CollectionSummary | null = null;
    if (last.collection !== 'none') {
      const judge = body.view.collect ?? { minReviews: DEFAULT_COLLECT.minReviews, agree: DEFAULT_COLLECT.agree };
      const options = `${judge.minReviews}/${judge.agree}`;
      if (last.summary?.options !== options)
        last.summary = { options, value: collectionSummary(last.merged.rows, judge) };
      collection = last.summary.value;
    }
    const { merged, people } = last;
    return {
      files: body.sources.map((s, i) => outcome(s.name, reads[i]!)),
      key,
      summary: {
        rows: merged.rows.length,
        sessions: new Set(merged.rows.map((r) => r.session_id)).size,
        duplicates: merged.duplicates,
        conflicts: merged.conflicts.length,
        firstConflicts: merged.conflicts.slice(0, FIRST_CONFLICTS),
      },
      participants: body.have !== key ? people : null,
      figures: dashboardFigures(last.merged.rows, last.people, body.view),
      collection,
      collectionOnly: last.collection === 'only',
      thresholds: last.thresholds,
    };
  };
  /** The last merge's rows and participants (for the worker's other commands: IRT), null before one. */
  const merged = () => (last ? { key: last.key, rows: last.merged.rows, people: last.people } : null);
  return Object.assign(read, { merged });
}
