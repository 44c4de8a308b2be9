/**
 * Limits that hold against one client: token buckets per client address and per study
 * on new sessions and on bytes received for storage. The per-session limiter (rateLimit.ts) is
 * keyed by a session id the client may choose, so alone it bounds nothing; these keys are not
 * the client's to choose (the address) or are few and registered (the study).
 *
 * A bucket holds up to `burst` units and refills at `perSecond`; a request costing more than is
 * there is refused with the seconds until it would fit (the Retry-After). Memory is bounded: idle
 * buckets (full again) are dropped, and past `maxKeys` the least recently used. The buckets that
 * are not full are saved in the database (`limit_buckets`) and read back at start, so a restart
 * does not hand everyone a full bucket.
 */
import type { Context } from 'hono';
import { BlockList, isIP } from 'node:net';
import type { BucketRow, LimitBucketTable } from './db/limitBuckets';

export interface BucketOptions {
  readonly perSecond: number;
  readonly burst: number;
}

/** A saved bucket: its level `tokens` at wall-clock time `at` (ms since the epoch). */
export interface BucketEntry {
  readonly key: string;
  readonly tokens: number;
  readonly at: number;
}

export class TokenBuckets {
  /** Insertion order is last-use order. */
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  /** Has a bucket been taken from since the last snapshot? */
  changed = false;

  /**
   * @param now the clock the buckets refill by (ms; monotonic by default)
   * @param wall the wall clock (ms since the epoch) of saved buckets, which must outlive the process
   */
  constructor(
    readonly options: BucketOptions,
    private readonly now: () => number = () => performance.now(),
    private readonly maxKeys = 100_000,
    private readonly wall: () => number = () => Date.now(),
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
    this.changed = true;
    this.prune(now);
  }

  /** The buckets that are not full now, least recently used first, their times on the wall clock. */
  snapshot(): BucketEntry[] {
    const now = this.now();
    const wall = this.wall();
    this.changed = false;
    const entries: BucketEntry[] = [];
    for (const [key, b] of this.buckets) {
      const tokens = this.level(key, now);
      if (tokens < this.options.burst) entries.push({ key, tokens, at: wall - (now - b.at) });
    }
    return entries;
  }

  /**
   * Sets the buckets of `entries` (a snapshot, perhaps of an earlier process): each refills for
   * the wall-clock time since it was taken; a time in the future (a clock set back) counts as now.
   */
  restore(entries: readonly BucketEntry[]): void {
    const now = this.now();
    const wall = this.wall();
    for (const e of [...entries].sort((a, b) => a.at - b.at)) {
      if (!Number.isFinite(e.tokens) || !Number.isFinite(e.at)) continue;
      const tokens = Math.min(this.options.burst, e.tokens);
      const at = now - Math.max(0, wall - e.at);
      this.buckets.delete(e.key);
      this.buckets.set(e.key, { tokens, at });
    }
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
  /** Wrong resume codes per client address (`POST api/sessions` with a code that fits no session). */
  readonly addressResumeCodes?: BucketOptions;
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
  // A participant may mistype a code a few times; 10 at once, then one every 6 minutes keeps a
  // code's 40 bits out of a guesser's reach.
  addressResumeCodes: { perSecond: 10 / 3600, burst: 10 },
};

/** What a refusal says: which limit, and the seconds to wait. */
export interface LimitHit {
  readonly limit: keyof AccessLimits;
  readonly retryAfterS: number;
}

export class AccessLimiter {
  private readonly buckets: { readonly [K in keyof AccessLimits]-?: TokenBuckets };

  /**
   * @param now the clock the buckets refill by (ms; monotonic by default)
   * @param wall the wall clock of saved buckets (ms since the epoch)
   */
  constructor(
    readonly limits: AccessLimits = DEFAULT_ACCESS_LIMITS,
    now?: () => number,
    wall?: () => number,
  ) {
    const bucket = (o: BucketOptions) => new TokenBuckets(o, now, undefined, wall);
    this.buckets = {
      addressSessions: bucket(limits.addressSessions),
      studySessions: bucket(limits.studySessions),
      addressBytes: bucket(limits.addressBytes),
      studyBytes: bucket(limits.studyBytes),
      addressQueue: bucket(limits.addressQueue),
      addressResumeCodes: bucket(limits.addressResumeCodes ?? DEFAULT_ACCESS_LIMITS.addressResumeCodes!),
    };
  }

  /**
   * Writes the buckets that are not full to the database's `limit_buckets` in one transaction
   * (the rows there before are replaced). The number of buckets written; 0 without writing when
   * nothing was taken since the last save; undefined when the database has no such table.
   */
  save(table: LimitBucketTable): number | undefined {
    if (!table.exists()) return undefined;
    const names = Object.keys(this.buckets) as (keyof AccessLimits)[];
    if (!names.some((n) => this.buckets[n].changed)) return 0;
    const buckets = this.buckets;
    let written = 0;
    // Read lazily, inside the table's transaction, as the buckets are marked saved one by one.
    table.replace(
      (function* (): Generator<BucketRow> {
        for (const name of names) {
          for (const e of buckets[name].snapshot()) {
            written++;
            yield { name, key: e.key, tokens: e.tokens, at_ms: Math.round(e.at) };
          }
        }
      })(),
    );
    return written;
  }

  /**
   * Reads the buckets `save` wrote (of this limiter's bucket names; others are ignored). The
   * number of rows read; undefined when the database has no such table.
   */
  load(table: LimitBucketTable): number | undefined {
    if (!table.exists()) return undefined;
    const rows = table.all();
    const byName = new Map<string, BucketEntry[]>();
    for (const r of rows) {
      if (!Object.hasOwn(this.buckets, r.name)) continue;
      const list = byName.get(r.name) ?? [];
      list.push({ key: r.key, tokens: r.tokens, at: r.at_ms });
      byName.set(r.name, list);
    }
    for (const [name, entries] of byName) this.buckets[name as keyof AccessLimits].restore(entries);
    return rows.length;
  }

  /** One read of the review queue (`review-items`, `coverage`) from `address`. */
  queue(address: string): LimitHit | undefined {
    const wait = this.buckets.addressQueue.wait(address, 1);
    if (wait > 0) return { limit: 'addressQueue', retryAfterS: wait };
    this.buckets.addressQueue.take(address, 1);
    return undefined;
  }

  /** One wrong resume code from `address` (kept across restarts with the other buckets). */
  wrongResumeCode(address: string): LimitHit | undefined {
    const wait = this.buckets.addressResumeCodes.wait(address, 1);
    if (wait > 0) return { limit: 'addressResumeCodes', retryAfterS: wait };
    this.buckets.addressResumeCodes.take(address, 1);
    return undefined;
  }

  /** One new session for `address` in `study`; both buckets must allow it, else nothing is taken. */
  newSession(address: string, study: string): LimitHit | undefined {
    return this.takeBoth('addressSessions', address, 'studySessions', study, 1);
  }

  /**
   * One new session in `study` counted against the study's bucket only: for a study taken in a
   * room, where one address is a whole class and the study's own limit per address applies.
   */
  newRoomSession(study: string): LimitHit | undefined {
    const wait = this.buckets.studySessions.wait(study, 1);
    if (wait > 0) return { limit: 'studySessions', retryAfterS: wait };
    this.buckets.studySessions.take(study, 1);
    return undefined;
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

const TRUST_PROXY_EXAMPLE = '--trust-proxy 127.0.0.1 (or loopback, or a list like 10.0.0.5,10.0.0.6)';
/** What to write instead of a bare or empty `--trust-proxy`. */
export const TRUST_PROXY_NEEDS_ADDRESS = `--trust-proxy needs the proxy's address: ${TRUST_PROXY_EXAMPLE}`;

/**
 * The proxies in front of the server (`--trust-proxy`): addresses, CIDR ranges (`10.0.0.0/8`,
 * `fd00::/8`) and `loopback` (127.0.0.0/8 and ::1). Only a request whose TCP peer is one of them
 * has its X-Forwarded-For read, since anyone else can write that header.
 */
export class TrustedProxies {
  /** No proxy: X-Forwarded-For is never read. */
  static readonly none = new TrustedProxies([]);
  /**
   * Every peer, even a missing one, with X-Forwarded-For's right-most entry as the client: for
   * in-process tests (`app.request()` has no socket) that give each request its own address.
   */
  static readonly anyPeer = new TrustedProxies([], true);

  private readonly list = new BlockList();

  /** Throws an Error saying what to write for an entry that is not an address, a range or `loopback`. */
  constructor(
    readonly entries: readonly string[],
    private readonly everyPeer = false,
  ) {
    for (const entry of entries) {
      if (entry === 'loopback') {
        this.list.addSubnet('127.0.0.0', 8, 'ipv4');
        this.list.addAddress('::1', 'ipv6');
        continue;
      }
      const [text = '', prefix, ...rest] = entry.split('/');
      const address = plainAddress(text);
      const family = address === undefined ? 0 : isIP(address);
      const bits = family === 4 ? 32 : 128;
      if (address === undefined || rest.length > 0 || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) {
        throw new Error(
          `--trust-proxy: "${entry}" is not an IP address, a range like 10.0.0.0/8 or "loopback"; give the proxy's address: ${TRUST_PROXY_EXAMPLE}`,
        );
      }
      if (prefix !== undefined && Number(prefix) > bits) {
        throw new Error(`--trust-proxy: the range "${entry}" has a prefix over ${bits}`);
      }
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) this.list.addAddress(address, type);
      else this.list.addSubnet(address, Number(prefix), type);
    }
  }

  /** The flag's value: a comma-separated list; throws an Error with what to write for an empty or bad one. */
  static parse(text: string): TrustedProxies {
    const entries = text
      .split(',')
      .map((e) => e.trim())
      .filter((e) => e !== '');
    if (entries.length === 0) throw new Error(TRUST_PROXY_NEEDS_ADDRESS);
    return new TrustedProxies(entries.map((e) => (e.toLowerCase() === 'loopback' ? 'loopback' : e)));
  }

  /** Is `address` (plain: no port, no brackets, IPv4-mapped as IPv4) one of the proxies? */
  has(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }

  /**
   * The client behind `peer` (the socket's address, plain): X-Forwarded-For is read only when the
   * peer is a proxy; then, walking from the right, the first entry that is not a proxy (each proxy
   * appends the address it was called from); the left-most when all are proxies. An entry that is
   * no address stops the walk at the hop that passed it on, so a forged value cannot pick a key.
   */
  client(peer: string | undefined, forwarded: string | undefined): string | undefined {
    if (!(this.everyPeer || (peer !== undefined && this.has(peer))) || forwarded === undefined) return peer;
    let nearest = peer;
    for (const part of forwarded.split(',').reverse()) {
      const address = plainAddress(part);
      if (address === undefined) return nearest;
      if (this.everyPeer || !this.has(address)) return address;
      nearest = address;
    }
    return nearest;
  }
}

/** `text` as a bare IP address (brackets, an IPv4 port and the IPv4-mapped prefix removed), or undefined. */
function plainAddress(text: string): string | undefined {
  let s = text.trim().toLowerCase();
  if (s.startsWith('[')) s = s.slice(1, s.indexOf(']') < 0 ? 1 : s.indexOf(']'));
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(':'));
  if (s.startsWith('::ffff:') && isIP(s.slice(7)) === 4) s = s.slice(7);
  return isIP(s) === 0 ? undefined : s;
}

/**
 * The key of a client: its address (TrustedProxies.client: X-Forwarded-For only from a trusted
 * proxy), an IPv6 address by its /64 (one household or machine is given a whole /64). `unknown`
 * when there is no socket (in-process tests).
 */
export function clientAddress(c: Context, proxies: TrustedProxies): string {
  // As @hono/node-server's getConnInfo reads it (the bindings may sit under `server`).
  type Bindings = { incoming?: { socket?: { remoteAddress?: string } } };
  const env = c.env as (Bindings & { server?: Bindings }) | undefined;
  const remote = (env?.server ?? env)?.incoming?.socket?.remoteAddress;
  const peer = remote === undefined ? undefined : (plainAddress(remote) ?? remote);
  const address = proxies.client(peer, c.req.header('x-forwarded-for'));
  if (address === undefined || address === '') return 'unknown';
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
  'trust-proxy': { type: 'string', multiple: true },
  'new-study-sessions': { type: 'string' },
} as const;

/** The usage lines of these flags. */
export const ACCESS_USAGE = [
  ...Object.entries(LIMIT_FLAGS).map(
    ([flag, [limit, field, help]]) =>
      `  --${`${flag} <n>`.padEnd(28)}${help} (default ${DEFAULT_ACCESS_LIMITS[limit][field]})`,
  ),
  `  --${'trust-proxy <addresses>'.padEnd(28)}the proxies in front (addresses, ranges like 10.0.0.0/8, loopback;`,
  `  ${''.padEnd(30)}comma-separated or repeated): X-Forwarded-For is read from them only (default none)`,
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
): { limits: AccessLimits; trustProxy: TrustedProxies; newStudySessions?: 'issued' | 'browser' } {
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
  const proxies = values['trust-proxy'];
  const trustProxy =
    proxies === undefined
      ? TrustedProxies.none
      : TrustedProxies.parse(Array.isArray(proxies) ? proxies.join(',') : String(proxies));
  return {
    limits,
    trustProxy,
    ...(mode === undefined ? {} : { newStudySessions: mode }),
  };
}

/**
 * The message for `--trust-proxy` given without a value (last, or followed by another flag), which
 * node:util parseArgs would only call a missing argument; undefined when every one has a value.
 */
export function bareTrustProxy(argv: readonly string[]): string | undefined {
  const bare = argv.some((a, i) => a === '--trust-proxy' && (i === argv.length - 1 || argv[i + 1]!.startsWith('-')));
  return bare ? TRUST_PROXY_NEEDS_ADDRESS : undefined;
}
