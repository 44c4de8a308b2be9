import { addCounts, type AuditedRow, type KCounts, NO_ROWS, type VerdictCounts } from '../../core/formats/audit';
import type { Verdict } from '../../core/reasoning/solver';
import type { AuditedFile, FormatProblem } from '../../worker/auditProtocol';

/**
 * Pure summaries of an audit. Counts come from the worker's per-file counts, which cover every
 * row; the table's rows are only those the page keeps (see store.ts), so filters count both.
 */

export interface FileSummary extends VerdictCounts {
  readonly file: string;
  readonly error?: FormatProblem;
}

const countsOf = (c: VerdictCounts): VerdictCounts => ({
  rows: c.rows,
  entailed: c.entailed,
  ambiguous: c.ambiguous,
  unsupported: c.unsupported,
  assumed: c.assumed,
  impossible: c.impossible,
});

/** One line per file, in import order (files with an error count no rows), and the total. */
export function summariseByFile(files: readonly AuditedFile[]): { files: FileSummary[]; total: VerdictCounts } {
  return {
    files: files.map((f) => ({ file: f.name, ...countsOf(f), ...(f.error ? { error: f.error } : {}) })),
    total: files.reduce<VerdictCounts>((t, f) => addCounts(t, f), NO_ROWS),
  };
}

/** One line per story length k over all files, k ascending. */
export function summariseByK(files: readonly AuditedFile[]): KCounts[] {
  const byK = new Map<number, VerdictCounts>();
  for (const f of files) for (const c of f.byK) byK.set(c.k, addCounts(byK.get(c.k) ?? NO_ROWS, c));
  return [...byK.entries()].sort((a, b) => a[0] - b[0]).map(([k, c]) => ({ k, ...c }));
}

export interface AuditFilter {
  readonly file: string | null;
  readonly verdict: Verdict | null;
  readonly k: number | null;
}

export const NO_AUDIT_FILTER: AuditFilter = { file: null, verdict: null, k: null };

/** The kept rows passing the filter, in order. */
export function filterAudited(rows: readonly AuditedRow[], f: AuditFilter): AuditedRow[] {
  if (f.file === null && f.verdict === null && f.k === null) return rows.slice();
  return rows.filter(
    (r) =>
      (f.file === null || r.file === f.file) &&
      (f.verdict === null || r.verdict === f.verdict) &&
      (f.k === null || r.k === f.k),
  );
}

/** How many rows of the files, kept or not, pass the filter (from the per-file, per-k counts). */
export function countMatching(files: readonly AuditedFile[], f: AuditFilter): number {
  let n = 0;
  for (const file of files) {
    if (f.file !== null && file.name !== f.file) continue;
    for (const c of file.byK) if (f.k === null || c.k === f.k) n += f.verdict === null ? c.rows : c[f.verdict];
  }
  return n;
}

/** The share of entailed rows as a percentage with one decimal ("100.0%"), or "–" for none. */
export function entailedShare(c: VerdictCounts): string {
  return c.rows === 0 ? '–' : `${((100 * c.entailed) / c.rows).toFixed(1)}%`;
}
