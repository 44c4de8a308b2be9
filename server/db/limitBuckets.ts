/**
 * The SQL of the per-client limits' buckets kept across restarts (`limit_buckets`, schema step
 * 4; limits.ts saves and loads them). A database from before that step has no such table.
 */
import type { Connection } from './connection';

/** One saved bucket. */
export interface BucketRow {
  readonly name: string;
  readonly key: string;
  readonly tokens: number;
  readonly at_ms: number;
}

export class LimitBucketTable {
  constructor(private readonly db: Connection) {}

  /** Does the database have the table? */
  exists(): boolean {
    return (
      this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'limit_buckets'").get() !== undefined
    );
  }

  /** Replaces every saved bucket with `rows`, in one transaction. */
  replace(rows: Iterable<BucketRow>): void {
    const insert = this.db.prepare('INSERT INTO limit_buckets (name, key, tokens, at_ms) VALUES (?, ?, ?, ?)');
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM limit_buckets').run();
      for (const r of rows) insert.run(r.name, r.key, r.tokens, r.at_ms);
    })();
  }

  all(): BucketRow[] {
    return this.db.prepare('SELECT name, key, tokens, at_ms FROM limit_buckets').all() as BucketRow[];
  }
}
