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

/** How an entailed row is decided, as a filter: the sound rules, an assumption rule, or a label true in no family. */
export const BASES = ['sound', 'assumed', 'impossible'] as const;
export type BasisFilter = (typeof BASES)[number];

export interface AuditFilter {
  readonly file: string | null;
  readonly verdict: Verdict | null;
  readonly k: number | null;
  /** Entailed rows only: `assumed` includes the `impossible` ones. */
  readonly basis: BasisFilter | null;
}

export const NO_AUDIT_FILTER: AuditFilter = { file: null, verdict: null, k: null, basis: null };

/** Whether a row passes a basis filter. */
export function hasBasis(r: AuditedRow, basis: BasisFilter): boolean {
  const b = r.basis;
  if (r.verdict !== 'entailed' || !b) return false;
  if (basis === 'sound') return b.kind === 'sound';
  return b.kind === 'assumed' && (basis === 'assumed' || b.family === 'impossible');
}

/** Rows of a count with a basis: sound = entailed - assumed. */
const basisCount = (c: VerdictCounts, basis: BasisFilter): number =>
  basis === 'sound' ? c.entailed - c.assumed : basis === 'assumed' ? c.assumed : c.impossible;

/** The kept rows passing the filter, in order. */
export function filterAudited(rows: readonly AuditedRow[], f: AuditFilter): AuditedRow[] {
  if (f.file === null && f.verdict === null && f.k === null && f.basis === null) return rows.slice();
  return rows.filter(
    (r) =>
      (f.file === null || r.file === f.file) &&
      (f.verdict === null || r.verdict === f.verdict) &&
      (f.k === null || r.k === f.k) &&
      (f.basis === null || hasBasis(r, f.basis)),
  );
}

/** How many rows of the files, kept or not, pass the filter (from the per-file, per-k counts). */
export function countMatching(files: readonly AuditedFile[], f: AuditFilter): number {
  let n = 0;
  for (const file of files) {
    if (f.file !== null && file.name !== f.file) continue;
    for (const c of file.byK) {
      if (f.k !== null && c.k !== f.k) continue;
      if (f.basis !== null) n += f.verdict === null || f.verdict === 'entailed' ? basisCount(c, f.basis) : 0;
      else n += f.verdict === null ? c.rows : c[f.verdict];
    }
  }
  return n;
}

/** The share of entailed rows as a percentage with one decimal ("100.0%"), or "–" for none. */
export function entailedShare(c: VerdictCounts): string {
  return c.rows === 0 ? '–' : `${((100 * c.entailed) / c.rows).toFixed(1)}%`;
}
