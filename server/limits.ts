/**
 * Limits that hold against one client (issue 20): token buckets per client address and per study
 * on new sessions and on bytes received for storage. The per-session limiter (rateLimit.ts) is
 * keyed by a session id the client may choose, so alone it bounds nothing; these keys are not
 * the client's to choose (the address) or are few and registered (the study).
 *
 * A bucket holds up to `burst` units and refills at `perSecond`; a request costing more than is
 * there is refused with the seconds until it would fit (the Retry-After). Memory is bounded: idle
 * buckets (full again) are dropped, and past `maxKeys` the least recently used.
 */
import type { Context } from 'hono';

export interface BucketOptions {
  readonly perSecond: number;
  readonly burst: number;
}

export class TokenBuckets {
  /** Insertion order is last-use order. */
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly options: BucketOptions,
    private readonly now: () => number = () => performance.now(),
    private readonly maxKeys = 100_000,
  ) {}

  /** Seconds until `cost` units are there for `key` (0: now); takes nothing. Infinity if it can never fit. */
  wait(key: string, cost: number): number {
    const tokens = this.level(key, this.now());
    if (tokens >= cost) return 0;
    if (cost > this.options.burst) return Number.POSITIVE_INFINITY;
    return Math.max(1, Math.ceil((cost - tokens) / this.options.perSecond));
  }

  /** Takes `cost` units from `key` (call after `wait` said 0). */
  take(key: string, cost: number): void {
    const now = this.now();
    const tokens = this.level(key, now) - cost;
    this.buckets.delete(key);
    this.buckets.set(key, { tokens, at: now });
    this.prune(now);
  }

  private level(key: string, now: number): number {
    const b = this.buckets.get(key);
    if (!b) return this.options.burst;
    return Math.min(this.options.burst, b.tokens + ((now - b.at) / 1000) * this.options.perSecond);
  }

  private prune(now: number): void {
    const full = (this.options.burst / this.options.perSecond) * 1000;
    for (const [key, b] of this.buckets) {
      if (this.buckets.size > this.maxKeys || now - b.at >= full) this.buckets.delete(key);
      else break;
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}

/**
 * The limits, each a bucket: new sessions and stored bytes, per client address and per study; and
 * the review queue's reads (`review-items`, `coverage`: each runs a query over a study's stories)
 * per client address.
 */
export interface AccessLimits {
  readonly addressSessions: BucketOptions;
  readonly studySessions: BucketOptions;
  readonly addressBytes: BucketOptions;
  readonly studyBytes: BucketOptions;
  readonly addressQueue: BucketOptions;
}

/**
 * Defaults for a study on the open internet. A participant starts one session and sends about
 * 1–3 KB per trial (up to ~25 KB with the longest stories); a lab or a campus behind one address
 * may start a few dozen at once. A Prolific launch brings hundreds of participants a minute to one
 * study, so the per-study limits are wide; they bound what a flood can add per hour.
 */
export const DEFAULT_ACCESS_LIMITS: AccessLimits = {
  // 30 sessions at once from one address, then one every 10 s (360 an hour).
  addressSessions: { perSecond: 0.1, burst: 30 },
  // 300 at once for one study, then 2 a second.
  studySessions: { perSecond: 2, burst: 300 },
  // 8 MiB at once from one address, then 64 KiB/s (a participant needs well under 1 KiB/s).
  addressBytes: { perSecond: 64 * 1024, burst: 8 * 1024 * 1024 },
  // 64 MiB at once for one study, then 1 MiB/s.
  studyBytes: { perSecond: 1024 * 1024, burst: 64 * 1024 * 1024 },
  // A reviewer's page asks for its items once (again after a reload), a writer's page for the
  // coverage once: 120 at once from one address, then one a second.
  addressQueue: { perSecond: 1, burst: 120 },
};

/** What a refusal says: which limit, and the seconds to wait. */
export interface LimitHit {
  readonly limit: keyof AccessLimits;
  readonly retryAfterS: number;
}

export class AccessLimiter {
  private readonly buckets: { readonly [K in keyof AccessLimits]: TokenBuckets };

  constructor(
    readonly limits: AccessLimits = DEFAULT_ACCESS_LIMITS,
    now?: () => number,
  ) {
    this.buckets = {
      addressSessions: new TokenBuckets(limits.addressSessions, now),
      studySessions: new TokenBuckets(limits.studySessions, now),
      addressBytes: new TokenBuckets(limits.addressBytes, now),
      studyBytes: new TokenBuckets(limits.studyBytes, now),
      addressQueue: new TokenBuckets(limits.addressQueue, now),
    };
  }

  /** One read of the review queue (`review-items`, `coverage`) from `address`. */
  queue(address: string): LimitHit | undefined {
    const wait = this.buckets.addressQueue.wait(address, 1);
    if (wait > 0) return { limit: 'addressQueue', retryAfterS: wait };
    this.buckets.addressQueue.take(address, 1);
    return undefined;
  }

  /** One new session for `address` in `study`; both buckets must allow it, else nothing is taken. */
  newSession(address: string, study: string): LimitHit | undefined {
    return this.takeBoth('addressSessions', address, 'studySessions', study, 1);
  }

  /** `bytes` received for storage from `address` for each of `studies` (every study must allow them). */
  bytes(address: string, studies: readonly string[], bytes: number): LimitHit | undefined {
    const a = this.buckets.addressBytes.wait(address, bytes);
    if (a > 0) return { limit: 'addressBytes', retryAfterS: a };
    for (const s of studies) {
      const w = this.buckets.studyBytes.wait(s, bytes);
      if (w > 0) return { limit: 'studyBytes', retryAfterS: w };
    }
    this.buckets.addressBytes.take(address, bytes);
    for (const s of studies) this.buckets.studyBytes.take(s, bytes);
    return undefined;
  }

  private takeBoth(
    first: keyof AccessLimits,
    firstKey: string,
    second: keyof AccessLimits,
    secondKey: string,
    cost: number,
  ): LimitHit | undefined {
    const a = this.buckets[first].wait(firstKey, cost);
    if (a > 0) return { limit: first, retryAfterS: a };
    const b = this.buckets[second].wait(secondKey, cost);
    if (b > 0) return { limit: second, retryAfterS: b };
    this.buckets[first].take(firstKey, cost);
    this.buckets[second].take(secondKey, cost);
    return undefined;
  }
}

/**
 * The key of a client: its address, an IPv6 address by its /64 (one household or machine is
 * given a whole /64). With `trustProxy`, the last address of X-Forwarded-For (the one the proxy
 * in front added), for a server behind nginx; otherwise that header is ignored, since any client
 * can send it. `unknown` when there is no socket (in-process tests).
 */
export function clientAddress(c: Context, trustProxy: boolean): string {
  let address: string | undefined;
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for');
    address = forwarded?.split(',').at(-1)?.trim() || undefined;
  }
  if (address === undefined) {
    // As @hono/node-server's getConnInfo reads it (the bindings may sit under `server`).
    type Bindings = { incoming?: { socket?: { remoteAddress?: string } } };
    const env = c.env as (Bindings & { server?: Bindings }) | undefined;
    address = (env?.server ?? env)?.incoming?.socket?.remoteAddress;
  }
  if (address === undefined || address === '') return 'unknown';
  if (address.startsWith('::ffff:')) return address.slice(7);
  if (address.includes(':')) return `${ipv6Groups(address).slice(0, 4).join(':')}::/64`;
  return address;
}

/** The eight groups of an IPv6 address (`::` expanded), for keying by prefix. */
function ipv6Groups(address: string): string[] {
  const [head = '', tail] = address.split('::', 2);
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array.from({ length: Math.max(0, 8 - h.length - t.length) }, () => '0');
  return [...h, ...zeros, ...t].map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''));
}

// ---- the server's flags for these limits (main.ts) ----

const LIMIT_FLAGS = {
  'address-session-rate': ['addressSessions', 'perSecond', 'new sessions per second per client address, sustained'],
  'address-session-burst': ['addressSessions', 'burst', 'new sessions per client address at once'],
  'study-session-rate': ['studySessions', 'perSecond', 'new sessions per second per study, sustained'],
  'study-session-burst': ['studySessions', 'burst', 'new sessions per study at once'],
  'address-byte-rate': ['addressBytes', 'perSecond', 'bytes of rows per second per client address, sustained'],
  'address-byte-burst': ['addressBytes', 'burst', 'bytes of rows per client address at once'],
  'study-byte-rate': ['studyBytes', 'perSecond', 'bytes of rows per second per study, sustained'],
  'study-byte-burst': ['studyBytes', 'burst', 'bytes of rows per study at once'],
  'address-queue-rate': ['addressQueue', 'perSecond', 'review-queue requests per second per client address'],
  'address-queue-burst': ['addressQueue', 'burst', 'review-queue requests per client address at once'],
} as const satisfies Record<string, readonly [keyof AccessLimits, keyof BucketOptions, string]>;

/** The flags of these limits, for node:util parseArgs. */
export const ACCESS_FLAGS = {
  ...(Object.fromEntries(Object.keys(LIMIT_FLAGS).map((f) => [f, { type: 'string' }])) as Record<
    keyof typeof LIMIT_FLAGS,
    { type: 'string' }
  >),
  'trust-proxy': { type: 'boolean' },
  'new-study-sessions': { type: 'string' },
} as const;

/** The usage lines of these flags. */
export const ACCESS_USAGE = [
  ...Object.entries(LIMIT_FLAGS).map(
    ([flag, [limit, field, help]]) =>
      `  --${`${flag} <n>`.padEnd(28)}${help} (default ${DEFAULT_ACCESS_LIMITS[limit][field]})`,
  ),
  `  --${'trust-proxy'.padEnd(28)}take the client address from X-Forwarded-For (only behind a proxy that sets it)`,
  `  --${'new-study-sessions <mode>'.padEnd(28)}issued: studies registered from now on take rows only of sessions`,
  `  ${''.padEnd(30)}this server issued; browser: also browser-made session ids (default issued)`,
].join('\n');

/**
 * The limits, proxy setting and session mode the flags give, over the defaults; throws an Error
 * naming the flag for a bad value (a byte burst must hold one body of `maxBody` bytes).
 */
export function accessOptionsFrom(
  values: Readonly<Record<string, unknown>>,
  maxBody: number,
): { limits: AccessLimits; trustProxy: boolean; newStudySessions?: 'issued' | 'browser' } {
  const limits = Object.fromEntries(
    Object.entries(DEFAULT_ACCESS_LIMITS).map(([k, v]) => [k, { ...v }]),
  ) as unknown as Record<keyof AccessLimits, { perSecond: number; burst: number }>;
  for (const [flag, [limit, field]] of Object.entries(LIMIT_FLAGS)) {
    const text = values[flag];
    if (text === undefined) continue;
    const n = Number(text);
    const min = field === 'burst' ? 1 : 0.001;
    if (typeof text !== 'string' || !/^\d+(\.\d+)?$/.test(text) || n < min) {
      throw new Error(`--${flag} must be a number of at least ${min} (got "${String(text)}")`);
    }
    limits[limit][field] = n;
  }
  for (const limit of ['addressBytes', 'studyBytes'] as const) {
    if (limits[limit].burst < maxBody) {
      const flag = limit === 'addressBytes' ? 'address-byte-burst' : 'study-byte-burst';
      throw new Error(`--${flag} must be at least --max-body (${maxBody}), or no request could ever be stored`);
    }
  }
  const mode = values['new-study-sessions'];
  if (mode !== undefined && mode !== 'issued' && mode !== 'browser') {
    throw new Error(`--new-study-sessions must be "issued" or "browser" (got "${String(mode)}")`);
  }
  return {
    limits,
    trustProxy: values['trust-proxy'] === true,
    ...(mode === undefined ? {} : { newStudySessions: mode }),
  };
}
