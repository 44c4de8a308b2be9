/**
 * A token bucket per key (a participant's session): `burst` requests at once, then `perSecond`.
 * A real participant sends about one request per trial, a few seconds apart, plus retries and
 * a beacon; a client far above that is broken or hostile, and slowing it protects the others.
 * Memory is bounded: idle buckets are dropped, and past `maxKeys` the oldest go first.
 */
export interface RateLimitOptions {
  readonly perSecond: number;
  readonly burst: number;
  readonly maxKeys?: number;
}

export class RateLimiter {
  /** Insertion order is last-use order (an entry is re-inserted when used). */
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly options: RateLimitOptions,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one token for `key`; returns 0 when allowed, else the seconds until the next token. */
  take(key: string): number {
    const now = this.now();
    const { perSecond, burst } = this.options;
    const old = this.buckets.get(key);
    let tokens = burst;
    if (old) {
      tokens = Math.min(burst, old.tokens + ((now - old.at) / 1000) * perSecond);
      this.buckets.delete(key);
    }
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    this.buckets.set(key, { tokens, at: now });
    this.prune(now);
    return allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / perSecond));
  }

  private prune(now: number): void {
    const full = (this.options.burst / this.options.perSecond) * 1000;
    const max = this.options.maxKeys ?? 100_000;
    for (const [key, b] of this.buckets) {
      // Oldest first: stop at the first bucket that is still needed.
      if (this.buckets.size > max || now - b.at >= full) this.buckets.delete(key);
      else break;
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}
