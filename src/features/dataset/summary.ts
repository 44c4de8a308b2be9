import { type FactsTold, factsToldLine } from '../../core/text/datasetText';
import type { DatasetPlan, PlannedJob } from '../../core/formats/datasetFolder';
import type { PreviewRow } from '../../worker/datasetProtocol';

/** Pure views of a generation in progress or done: counts per k, pattern counts, filters. */

export interface JobProgress {
  readonly done: number;
  readonly total: number;
}

/** Rows a job has, judging by its progress (in rows; half of it is choosing rows with `equal`); exact once finished. */
export function jobRowsDone(job: PlannedJob, progress: JobProgress | undefined, finished: boolean): number {
  if (finished) return job.rows;
  if (!progress || progress.total <= 0) return 0;
  return Math.min(job.rows, Math.floor((job.rows * progress.done) / progress.total));
}

export interface KCount {
  readonly k: number;
  readonly done: number;
  readonly planned: number;
}

/** The live count per k: rows made so far and rows planned, k ascending. */
export function countsPerK(
  plan: DatasetPlan,
  progress: Readonly<Record<string, JobProgress>>,
  finished: Readonly<Record<string, boolean>>,
): KCount[] {
  const byK = new Map<number, { done: number; planned: number }>();
  for (const job of plan.jobs) {
    const c = byK.get(job.task.k) ?? { done: 0, planned: 0 };
    c.done += jobRowsDone(job, progress[job.key], Boolean(finished[job.key]));
    c.planned += job.rows;
    byK.set(job.task.k, c);
  }
  return [...byK.entries()].sort((a, b) => a[0] - b[0]).map(([k, c]) => ({ k, ...c }));
}

/** Rows made so far over all jobs. */
export function totalDone(
  plan: DatasetPlan,
  progress: Readonly<Record<string, JobProgress>>,
  finished: Readonly<Record<string, boolean>>,
): number {
  return plan.jobs.reduce((s, j) => s + jobRowsDone(j, progress[j.key], Boolean(finished[j.key])), 0);
}

export interface PatternCount {
  readonly pattern: string;
  readonly count: number;
}

/** Pattern counts per k (k ascending), each list by count descending, then pattern. */
export function patternCountsPerK(rows: readonly PreviewRow[]): Map<number, PatternCount[]> {
  const byK = new Map<number, Map<string, number>>();
  for (const r of rows) {
    let m = byK.get(r.k);
    if (!m) byK.set(r.k, (m = new Map()));
    m.set(r.pattern, (m.get(r.pattern) ?? 0) + 1);
  }
  return sortCounts(byK);
}

/**
 * The same from the per-job counts the workers send with each finished job: the work is per
 * pattern, not per row, so the page stays quick however many rows there are.
 */
export function mergePatternCounts(
  plan: DatasetPlan,
  patternsByJob: Readonly<Record<string, readonly (readonly [string, number])[]>>,
): Map<number, PatternCount[]> {
  const byK = new Map<number, Map<string, number>>();
  for (const job of plan.jobs) {
    const counts = patternsByJob[job.key];
    if (!counts) continue;
    let m = byK.get(job.task.k);
    if (!m) byK.set(job.task.k, (m = new Map()));
    for (const [pattern, n] of counts) m.set(pattern, (m.get(pattern) ?? 0) + n);
  }
  return sortCounts(byK);
}

function sortCounts(byK: Map<number, Map<string, number>>): Map<number, PatternCount[]> {
  const out = new Map<number, PatternCount[]>();
  for (const k of [...byK.keys()].sort((a, b) => a - b)) {
    const list = [...byK.get(k)!.entries()].map(([pattern, count]) => ({ pattern, count }));
    list.sort((a, b) => b.count - a.count || (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0));
    out.set(k, list);
  }
  return out;
}

export interface PreviewFilter {
  /** A k, or null for any. */
  readonly k: number | null;
  readonly task: number | null;
  readonly split: 'train' | 'test' | null;
  /** Substring of f_comb; `*` matches any run of characters. Case-insensitive. */
  readonly pattern: string;
}

export const NO_FILTER: PreviewFilter = { k: null, task: null, split: null, pattern: '' };

/** Rows passing the filter, in order. */
export function filterPreview<R extends PreviewRow>(rows: readonly R[], f: PreviewFilter): R[] {
  const p = f.pattern.trim().toLowerCase();
  const re = p.includes('*')
    ? new RegExp(
        p
          .split('*')
          .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*'),
      )
    : null;
  return rows.filter(
    (r) =>
      (f.k === null || r.k === f.k) &&
      (f.task === null || r.task === f.task) &&
      (f.split === null || r.split === f.split) &&
      (p === '' || (re ? re.test(r.pattern) : r.pattern.includes(p))),
  );
}

/** Whether a filter lets every row through. */
export const isNoFilter = (f: PreviewFilter): boolean =>
  f.k === null && f.task === null && f.split === null && f.pattern.trim() === '';

/** Rows received so far, over all jobs. */
export const countRows = (plan: DatasetPlan, rowsByJob: Readonly<Record<string, readonly PreviewRow[]>>): number =>
  plan.jobs.reduce((s, j) => s + (rowsByJob[j.key]?.length ?? 0), 0);

/** All rows in file order (train tasks, then each test task). */
export const orderedRows = (
  plan: DatasetPlan,
  rowsByJob: Readonly<Record<string, readonly PreviewRow[]>>,
): PreviewRow[] => plan.jobs.flatMap((j) => rowsByJob[j.key] ?? []);

/** `count` rows from position `start` in file order, without building the whole list. */
export function sliceInOrder(
  plan: DatasetPlan,
  rowsByJob: Readonly<Record<string, readonly PreviewRow[]>>,
  start: number,
  count: number,
): PreviewRow[] {
  const out: PreviewRow[] = [];
  let skip = start;
  for (const j of plan.jobs) {
    const rows = rowsByJob[j.key] ?? [];
    if (skip >= rows.length) {
      skip -= rows.length;
      continue;
    }
    out.push(...rows.slice(skip, skip + count - out.length));
    skip = 0;
    if (out.length >= count) break;
  }
  return out;
}

/**
 * Where a finished run's facts were told from, in one sentence for the run panel:
 * `Facts told: 410 by the template file (82.0%), 0 by the bank, 90 by plain sentences (18.0%).`
 * The same counts as the CLI's stderr line and config.json's `facts_told`.
 */
export function factsToldSummary(told: FactsTold): string {
  const line = factsToldLine(told);
  return `${line.charAt(0).toUpperCase()}${line.slice(1)}.`;
}

/** Whether some facts fell back to plain sentences while paraphrases were asked for (worth a warning). */
export const fellBackToPlain = (told: FactsTold): boolean => told.plain > 0 && told.file + told.bank > 0;
