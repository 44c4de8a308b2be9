import { checkRow } from '../reasoning/checkRow';
import type { EntailmentBasis } from '../reasoning/assumptions';
import type { Verdict } from '../reasoning/solver';
import { ClutrrRowReader } from './clutrrCsv';
import { CsvFormatError, type ClutrrRow } from './clutrrRow';
import { rowK } from './toPuzzle';

/**
 * Auditing CLUTRR CSV files: each row is parsed and solved from its symbolic columns
 * (checkRow), streaming, so that a file of any size is audited in the memory of one batch.
 * Used by `npm run cli -- check` and the audit view's worker.
 */

export const VERDICTS: readonly Verdict[] = ['entailed', 'ambiguous', 'unsupported'];

export interface VerdictCounts {
  readonly rows: number;
  readonly entailed: number;
  readonly ambiguous: number;
  readonly unsupported: number;
  /** Entailed rows decided only through an assumption rule (see EntailmentBasis). */
  readonly assumed: number;
  /** Of the assumed rows, those whose label is true in no family of CLUTRR's family model. */
  readonly impossible: number;
}

export const NO_ROWS: VerdictCounts = { rows: 0, entailed: 0, ambiguous: 0, unsupported: 0, assumed: 0, impossible: 0 };

/** The sum of two counts. */
export const addCounts = (a: VerdictCounts, b: VerdictCounts): VerdictCounts => ({
  rows: a.rows + b.rows,
  entailed: a.entailed + b.entailed,
  ambiguous: a.ambiguous + b.ambiguous,
  unsupported: a.unsupported + b.unsupported,
  assumed: a.assumed + b.assumed,
  impossible: a.impossible + b.impossible,
});

/** `check`'s counts line: `rows=<n> entailed=<n> ambiguous=<n> unsupported=<n> assumed=<n> impossible=<n>`. */
export const countsLine = (c: VerdictCounts): string =>
  `rows=${c.rows} entailed=${c.entailed} ambiguous=${c.ambiguous} unsupported=${c.unsupported} assumed=${c.assumed} impossible=${c.impossible}`;

export interface KCounts extends VerdictCounts {
  readonly k: number;
}

/** One row with its verdict. */
export interface AuditedRow {
  /** File the row comes from (`data.zip/1.2_test.csv` for a zip entry). */
  readonly file: string;
  /** 1-based data row within the file (blank lines counted, as in error messages). */
  readonly n: number;
  readonly row: ClutrrRow;
  /** Story length (rowK: f_comb words, else task_name's k). */
  readonly k: number;
  readonly verdict: Verdict;
  /** Every answer the rule base derives from the row's typed facts. */
  readonly derived: readonly string[];
  readonly truncated: boolean;
  /** Entailed rows: by the sound rules or through an assumption rule (null otherwise). */
  readonly basis: EntailmentBasis | null;
}

/** A whole file's verdict counts, in all and per story length k (k ascending). */
export interface FileAudit extends VerdictCounts {
  readonly file: string;
  readonly byK: readonly KCounts[];
}

export interface AuditOptions {
  /** Names the file in rows and errors. */
  readonly file: string;
  /** Receives the audited rows in batches, in file order; a caller keeps what it needs. */
  readonly onRows?: (rows: AuditedRow[]) => void;
  /** Rows per `onRows` call (the last may be shorter); 250 unless given. */
  readonly batchRows?: number;
}

/**
 * A push-style audit of one CSV file: `push` text chunks of any size, then `end` for the file's
 * counts. Throws CsvFormatError (file, data row, column) at the first problem in file order:
 * malformed CSV, a bad symbolic column, or a relation word the rule base does not know. Rows
 * before the problem have reached `onRows`; a caller rejecting the file whole drops them.
 */
export class CsvAudit {
  private readonly reader: ClutrrRowReader;
  private readonly batchRows: number;
  private batch: AuditedRow[] = [];
  // Counted in place: a fresh object per row was a visible share of the time on big files.
  private readonly total = { ...NO_ROWS };
  private readonly byK = new Map<number, { -readonly [C in keyof VerdictCounts]: number }>();

  constructor(private readonly options: AuditOptions) {
    this.batchRows = Math.max(1, options.batchRows ?? 250);
    this.reader = new ClutrrRowReader((row, n) => this.audit(row, n), options.file);
  }

  push(text: string): void {
    this.reader.push(text);
  }

  end(): FileAudit {
    this.reader.end();
    this.flush();
    const byK = [...this.byK.entries()].sort((a, b) => a[0] - b[0]).map(([k, c]) => ({ k, ...c }));
    return { file: this.options.file, ...this.total, byK };
  }

  private audit(row: ClutrrRow, n: number): void {
    let check: ReturnType<typeof checkRow>;
    try {
      check = checkRow(row);
    } catch (e) {
      // checkRow knows the column; the place in the file is ours.
      if (e instanceof CsvFormatError)
        throw new CsvFormatError(e.detail, { ...e.where, file: this.options.file, row: n });
      throw e;
    }
    const k = rowK(row);
    let perK = this.byK.get(k);
    if (!perK) this.byK.set(k, (perK = { ...NO_ROWS }));
    const assumed = check.basis?.kind === 'assumed';
    const impossible = check.basis?.kind === 'assumed' && check.basis.family === 'impossible';
    for (const c of [this.total, perK]) {
      c.rows++;
      c[check.verdict]++;
      if (assumed) c.assumed++;
      if (impossible) c.impossible++;
    }
    if (!this.options.onRows) return;
    this.batch.push({ file: this.options.file, n, row, k, ...check });
    if (this.batch.length >= this.batchRows) this.flush();
  }

  private flush(): void {
    if (this.batch.length === 0) return;
    const rows = this.batch;
    this.batch = [];
    this.options.onRows?.(rows);
  }
}

/**
 * Audits one CLUTRR CSV file read as text chunks (a decoded `Blob.stream()`, a Node read
 * stream with an encoding, or an array of strings): every row is parsed and checked, rows go to
 * `options.onRows` in batches, and the file's counts come back. Rejects with CsvFormatError
 * naming the file, the 1-based data row and the column of the first problem.
 */
export async function auditCsv(
  chunks: AsyncIterable<string> | Iterable<string>,
  options: AuditOptions,
): Promise<FileAudit> {
  const audit = new CsvAudit(options);
  for await (const chunk of chunks) audit.push(chunk);
  return audit.end();
}
