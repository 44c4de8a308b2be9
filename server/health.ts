/**
 * Failures said truly. `GET /api/health` answers ok only when the server can write: the last
 * commit did not fail (a failed commit is remembered until a later one succeeds), and a small
 * probe file in the data folder can be written, synced and removed (at most one probe every few
 * seconds; a disk that is full or read-only fails it), and the storage budget (budget.ts) is not
 * used up. A full disk or database is a 503 with `Retry-After`: the participant's outbox keeps the
 * rows and sends them again later.
 */
import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Seconds a client is asked to wait after a full disk. */
export const FULL_RETRY_AFTER_S = 30;

/** Is this error a full disk, or a database at its size limit? */
export function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT';
}

export interface HealthReport {
  readonly ok: boolean;
  /** Why not ok: one sentence. */
  readonly error?: string;
}

export class WriteHealth {
  private lastFailure: { message: string; at: number } | undefined;
  private probed: { at: number; error?: string } | undefined;

  /**
   * @param dataDir where the probe file is written, or null to skip the probe (an in-memory store)
   * @param probeEveryMs the probe's result is reused for this long
   * @param budget the storage budget (StorageBudget), whose `over()` says why writes are refused
   */
  constructor(
    private readonly dataDir: string | null,
    private readonly probeEveryMs = 5_000,
    private readonly now = () => Date.now(),
    private readonly budget?: { over(): string | undefined },
  ) {}

  /** A commit succeeded: earlier failures are over. */
  succeeded(): void {
    this.lastFailure = undefined;
  }

  /** A commit failed with `e`. */
  failed(e: unknown): void {
    const message = e instanceof Error ? e.message : String(e);
    this.lastFailure = {
      message: isDiskFull(e) ? `the disk or database is full (${message})` : message,
      at: this.now(),
    };
  }

  report(): HealthReport {
    if (this.lastFailure) {
      const ago = Math.round((this.now() - this.lastFailure.at) / 1000);
      return { ok: false, error: `the last write failed ${ago} s ago: ${this.lastFailure.message}` };
    }
    const over = this.budget?.over();
    if (over !== undefined) return { ok: false, error: over };
    const probe = this.probe();
    return probe === undefined ? { ok: true } : { ok: false, error: `cannot write in the data folder: ${probe}` };
  }

  /** Writes, syncs and removes a small file in the data folder; the error message, or undefined. */
  private probe(): string | undefined {
    if (this.dataDir === null) return undefined;
    const at = this.now();
    if (this.probed && at - this.probed.at < this.probeEveryMs) return this.probed.error;
    const file = path.join(this.dataDir, `.health-probe-${process.pid}`);
    let error: string | undefined;
    let fd: number | undefined;
    try {
      fd = openSync(file, 'w', 0o600);
      writeSync(fd, Buffer.alloc(4096, 0x2e));
      fsyncSync(fd);
    } catch (e) {
      error = (e as Error).message;
    } finally {
      if (fd !== undefined) closeSync(fd);
      try {
        unlinkSync(file);
      } catch {
        // never made
      }
    }
    this.probed = error === undefined ? { at } : { at, error };
    return error;
  }
}
