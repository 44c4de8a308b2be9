import type { Verdict } from '../../core/reasoning/solver';
import type { AuditedFile, AuditedRow, FormatProblem } from '../../worker/datasetProtocol';

/** Pure summaries of audited rows: counts per file and per k, and the table's filters. */

/**
 * 12345 → "12,345". Not toLocaleString: its first call loads ICU data and each call builds a
 * formatter, which cost tens of milliseconds per render of a table.
 */
export const formatCount = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

export const VERDICTS: readonly Verdict[] = ['entailed', 'ambiguous', 'unsupported'];

export interface VerdictCounts {
  readonly rows: number;
  readonly entailed: number;
  readonly ambiguous: number;
  readonly unsupported: number;
}

const ZERO: VerdictCounts = { rows: 0, entailed: 0, ambiguous: 0, unsupported: 0 };

const add = (c: VerdictCounts, v: Verdict): VerdictCounts => ({ ...c, rows: c.rows + 1, [v]: c[v] + 1 });

export interface FileSummary extends VerdictCounts {
  readonly file: string;
  readonly error?: FormatProblem;
}

/** One line per file, in import order (files with an error have no rows), and the total. */
export function summariseByFile(
  files: readonly AuditedFile[],
  rows: readonly AuditedRow[],
): { files: FileSummary[]; total: VerdictCounts } {
  const byFile = new Map<string, VerdictCounts>();
  let total = ZERO;
  for (const r of rows) {
    byFile.set(r.file, add(byFile.get(r.file) ?? ZERO, r.verdict));
    total = add(total, r.verdict);
  }
  return {
    files: files.map((f) => ({
      file: f.name,
      ...(byFile.get(f.name) ?? ZERO),
      ...(f.error ? { error: f.error } : {}),
    })),
    total,
  };
}

export interface KSummary extends VerdictCounts {
  readonly k: number;
}

/** One line per story length k (the worker's rowK), k ascending. */
export function summariseByK(rows: readonly AuditedRow[]): KSummary[] {
  const byK = new Map<number, VerdictCounts>();
  for (const r of rows) byK.set(r.k, add(byK.get(r.k) ?? ZERO, r.verdict));
  return [...byK.entries()].sort((a, b) => a[0] - b[0]).map(([k, c]) => ({ k, ...c }));
}

export interface AuditFilter {
  readonly file: string | null;
  readonly verdict: Verdict | null;
  readonly k: number | null;
}

export const NO_AUDIT_FILTER: AuditFilter = { file: null, verdict: null, k: null };

export function filterAudited(rows: readonly AuditedRow[], f: AuditFilter): AuditedRow[] {
  if (f.file === null && f.verdict === null && f.k === null) return rows.slice();
  return rows.filter(
    (r) =>
      (f.file === null || r.file === f.file) &&
      (f.verdict === null || r.verdict === f.verdict) &&
      (f.k === null || r.k === f.k),
  );
}

/** The share of entailed rows as a percentage with one decimal ("100.0%"), or "–" for none. */
export function entailedShare(c: VerdictCounts): string {
  return c.rows === 0 ? '–' : `${((100 * c.entailed) / c.rows).toFixed(1)}%`;
}
