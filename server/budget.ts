/**
 * A storage budget (`--max-db-mb`): past it, new sessions and rows are refused with 507 and
 * `/api/health` answers 503, so one flood cannot fill the disk the database (and everything else
 * on it) lives on; exports keep working. The size is the database's pages plus its WAL file,
 * measured at most once a second (or again after a commit), which costs two pragmas and a stat.
 */
import { statfsSync } from 'node:fs';
import path from 'node:path';

const MB = 1024 * 1024;

/** The default budget's ceiling, in MB (10 GB). */
export const MAX_DEFAULT_BUDGET_MB = 10 * 1024;

/** The 507's answer: written for whoever reads it in the participant's page or a log. */
export const budgetRefusal = (limitMb: number) => ({
  error: `the results server has used its storage budget (${limitMb} MB); the researcher must raise --max-db-mb or free space`,
  reason: 'storage' as const,
});

export class StorageBudget {
  private measured: { at: number; bytes: number } | undefined;

  /**
   * @param limitBytes the budget
   * @param measure the bytes used now (the database and its WAL; injected in tests)
   * @param now a monotonic clock in ms
   * @param everyMs a measure is reused for this long unless `changed` was called
   */
  constructor(
    readonly limitBytes: number,
    private readonly measure: () => number,
    private readonly now: () => number = () => performance.now(),
    private readonly everyMs = 1000,
  ) {}

  /** The budget in MB, as the flag says it. */
  get limitMb(): number {
    return Math.round((this.limitBytes / MB) * 100) / 100;
  }

  /** Something was committed: the next question measures again. */
  changed(): void {
    this.measured = undefined;
  }

  /** The bytes used, measured at most every `everyMs`. */
  used(): number {
    const at = this.now();
    if (this.measured === undefined || at - this.measured.at >= this.everyMs) {
      this.measured = { at, bytes: this.measure() };
    }
    return this.measured.bytes;
  }

  /** Why the budget is used up (how much over, in one sentence), or undefined while there is room. */
  over(): string | undefined {
    const used = this.used();
    if (used < this.limitBytes) return undefined;
    const mb = (n: number) => (n / MB).toFixed(1);
    return (
      `the database uses ${mb(used)} MB, ${mb(used - this.limitBytes)} MB over its storage budget of ` +
      `${this.limitMb} MB: new sessions and rows are refused until --max-db-mb is raised or space is freed`
    );
  }
}

/**
 * The budget without `--max-db-mb`: what the database uses now plus 90% of the space free for this
 * user on the data folder's file system, at most MAX_DEFAULT_BUDGET_MB; `free` is said for the
 * start-up line. Counting what is used keeps a restart from shrinking the room below what is free.
 */
export function defaultBudgetMb(dataDir: string, usedBytes: number): { mb: number; freeMb: number } {
  const fs = statfsSync(path.resolve(dataDir));
  const free = Number(fs.bavail) * Number(fs.bsize);
  const mb = Math.min(MAX_DEFAULT_BUDGET_MB, Math.floor((usedBytes + 0.9 * free) / MB));
  return { mb: Math.max(1, mb), freeMb: Math.floor(free / MB) };
}

/** `--max-db-mb`'s value in MB; throws an Error saying what to write for a bad one. */
export function parseBudgetMb(text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(n > 0)) {
    throw new Error(`--max-db-mb must be a number of megabytes above 0, e.g. --max-db-mb 2048 (got "${text}")`);
  }
  return n;
}
