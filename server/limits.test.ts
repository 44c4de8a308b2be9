import Database from 'better-sqlite3';
import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import { LimitBucketTable } from './db/limitBuckets';
import {
  AccessLimiter,
  accessOptionsFrom,
  bareTrustProxy,
  clientAddress,
  DEFAULT_ACCESS_LIMITS,
  TokenBuckets,
  TRUST_PROXY_NEEDS_ADDRESS,
  TrustedProxies,
} from './limits';

/** The table of the schema step that persists the buckets, made here while tests run on a bare database. */
const BUCKET_TABLE = `CREATE TABLE limit_buckets (name TEXT NOT NULL, key TEXT NOT NULL, tokens REAL NOT NULL,
  at_ms INTEGER NOT NULL, PRIMARY KEY (name, key)) STRICT, WITHOUT ROWID`;

/** A context with only what clientAddress reads. */
const ctx = (remote: string | undefined, forwarded?: string) =>
  ({
    env: { incoming: { socket: { remoteAddress: remote } } },
    req: { header: (name: string) => (name === 'x-forwarded-for' ? forwarded : undefined) },
  }) as unknown as Context;

describe('TokenBuckets', () => {
  it('allows the burst, then refills at the rate; says how long to wait; never fits a cost over the burst', () => {
    let now = 0;
    const b = new TokenBuckets({ perSecond: 2, burst: 3 }, () => now);
    for (let i = 0; i < 3; i++) {
      expect(b.wait('a', 1)).toBe(0);
      b.take('a', 1);
    }
    expect(b.wait('a', 1)).toBe(1);
    expect(b.wait('b', 1)).toBe(0);
    now = 500;
    expect(b.wait('a', 1)).toBe(0);
    expect(b.wait('a', 2)).toBe(1);
    expect(b.wait('a', 4)).toBe(Number.POSITIVE_INFINITY);
  });

  it('drops idle buckets, so memory stays bounded', () => {
    let now = 0;
    const b = new TokenBuckets({ perSecond: 1, burst: 1 }, () => now, 10);
    for (let i = 0; i < 50; i++) b.take(`k${i}`, 1);
    expect(b.size).toBeLessThanOrEqual(11);
    now = 5000;
    b.take('late', 1);
    expect(b.size).toBe(1);
  });
});

describe('AccessLimiter', () => {
  it('takes a new session from both buckets or from neither', () => {
    const now = 0;
    const limiter = new AccessLimiter(
      {
        ...DEFAULT_ACCESS_LIMITS,
        addressSessions: { perSecond: 0.001, burst: 5 },
        studySessions: { perSecond: 0.001, burst: 2 },
      },
      () => now,
    );
    expect(limiter.newSession('a', 's')).toBeUndefined();
    expect(limiter.newSession('a', 's')).toBeUndefined();
    expect(limiter.newSession('a', 's')).toMatchObject({ limit: 'studySessions' });
    // The study refused: the address bucket was not charged, so another study still gets 3 more.
    for (let i = 0; i < 3; i++) expect(limiter.newSession('a', `t${i}`)).toBeUndefined();
    expect(limiter.newSession('a', 'u')).toMatchObject({ limit: 'addressSessions' });
  });
});

describe('clientAddress', () => {
  const none = TrustedProxies.none;
  it('is the socket address; an IPv6 address by its /64; IPv4-mapped addresses as IPv4', () => {
    expect(clientAddress(ctx('203.0.113.9'), none)).toBe('203.0.113.9');
    expect(clientAddress(ctx('::ffff:203.0.113.9'), none)).toBe('203.0.113.9');
    expect(clientAddress(ctx('2001:db8:1:2:aaaa::1'), none)).toBe('2001:db8:1:2::/64');
    expect(clientAddress(ctx('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee'), none)).toBe('2001:db8:1:2::/64');
    expect(clientAddress(ctx('::1'), none)).toBe('0:0:0:0::/64');
    expect(clientAddress(ctx(undefined), none)).toBe('unknown');
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy: a forged header counts as the peer', () => {
    const proxies = TrustedProxies.parse('10.0.0.5');
    expect(clientAddress(ctx('203.0.113.9', '198.51.100.1'), proxies)).toBe('203.0.113.9');
    expect(clientAddress(ctx('203.0.113.9', '198.51.100.1, 10.0.0.5'), proxies)).toBe('203.0.113.9');
    expect(clientAddress(ctx('127.0.0.1', '198.51.100.1'), none)).toBe('127.0.0.1');
    // No socket (in-process): no peer to trust.
    expect(clientAddress(ctx(undefined, '198.51.100.1'), proxies)).toBe('unknown');
  });

  it('from a trusted proxy, takes the right-most entry that is not a proxy; the left-most when all are', () => {
    const proxies = TrustedProxies.parse('loopback,10.0.0.0/8');
    // The client forged the first entry; the proxy appended the address it really came from.
    expect(clientAddress(ctx('127.0.0.1', '198.51.100.1, 203.0.113.7'), proxies)).toBe('203.0.113.7');
    expect(clientAddress(ctx('::ffff:127.0.0.1', '203.0.113.7, 10.1.2.3'), proxies)).toBe('203.0.113.7');
    expect(clientAddress(ctx('::1', '198.51.100.1,203.0.113.7 , 10.0.0.6,10.9.9.9'), proxies)).toBe('203.0.113.7');
    expect(clientAddress(ctx('127.0.0.1', '10.0.0.6, 10.0.0.7'), proxies)).toBe('10.0.0.6');
    // Ports and brackets as some proxies write them; IPv4-mapped entries as IPv4.
    expect(clientAddress(ctx('127.0.0.1', '203.0.113.7:51234'), proxies)).toBe('203.0.113.7');
    expect(clientAddress(ctx('127.0.0.1', '::ffff:203.0.113.7'), proxies)).toBe('203.0.113.7');
    expect(clientAddress(ctx('127.0.0.1', '[2001:db8:5:6::1]:443'), proxies)).toBe('2001:db8:5:6::/64');
    // An entry that is no address stops the walk at the hop that passed it on: no key of the client's choosing.
    expect(clientAddress(ctx('127.0.0.1', 'made-up-1, 10.0.0.6'), proxies)).toBe('10.0.0.6');
    expect(clientAddress(ctx('127.0.0.1', 'made-up-2'), proxies)).toBe('127.0.0.1');
    expect(clientAddress(ctx('127.0.0.1', ''), proxies)).toBe('127.0.0.1');
    expect(clientAddress(ctx('127.0.0.1'), proxies)).toBe('127.0.0.1');
  });

  it('keys an IPv6 client behind a proxy by its /64; IPv6 proxies and ranges are trusted too', () => {
    const proxies = TrustedProxies.parse('fd00::/8, 2001:db8:ffff::1');
    const a = clientAddress(ctx('fd00::17', '2001:db8:1:2:aaaa::1'), proxies);
    const b = clientAddress(ctx('2001:db8:ffff::1', '2001:db8:1:2:bbbb:cccc:dddd:eeee, fd12::1'), proxies);
    expect(a).toBe('2001:db8:1:2::/64');
    expect(b).toBe(a);
    expect(clientAddress(ctx('fe00::17', '2001:db8:1:2::1'), proxies)).toBe('fe00:0:0:0::/64');
  });

  it('anyPeer reads the right-most entry even without a socket, for in-process tests', () => {
    expect(clientAddress(ctx(undefined, '198.51.100.1, 192.0.2.1'), TrustedProxies.anyPeer)).toBe('192.0.2.1');
    expect(clientAddress(ctx('127.0.0.1', '192.0.2.1'), TrustedProxies.anyPeer)).toBe('192.0.2.1');
  });
});

describe('TrustedProxies', () => {
  it('takes addresses, ranges and loopback; refuses anything else with what to write', () => {
    const p = TrustedProxies.parse('Loopback, 10.0.0.0/8,192.0.2.7,2001:db8::/32');
    for (const a of ['127.0.0.1', '127.200.0.9', '::1', '10.255.0.1', '192.0.2.7', '2001:db8:ab::1']) {
      expect(p.has(a), a).toBe(true);
    }
    for (const a of ['128.0.0.1', '192.0.2.8', '11.0.0.1', '2001:db9::1', '::2', 'nonsense']) {
      expect(p.has(a), a).toBe(false);
    }
    expect(() => TrustedProxies.parse('')).toThrow(TRUST_PROXY_NEEDS_ADDRESS);
    expect(() => TrustedProxies.parse(' , ')).toThrow(TRUST_PROXY_NEEDS_ADDRESS);
    expect(() => TrustedProxies.parse('localhost')).toThrow(
      /"localhost" is not an IP address.*--trust-proxy 127\.0\.0\.1/,
    );
    expect(() => TrustedProxies.parse('10.0.0.0/33')).toThrow(/prefix over 32/);
    expect(() => TrustedProxies.parse('10.0.0.0/8/8')).toThrow(/not an IP address/);
    expect(() => TrustedProxies.parse('true')).toThrow(/not an IP address/);
  });

  it('refuses the bare flag (last, or followed by another flag) with what to write', () => {
    expect(TRUST_PROXY_NEEDS_ADDRESS).toBe(
      "--trust-proxy needs the proxy's address: --trust-proxy 127.0.0.1 (or loopback, or a list like 10.0.0.5,10.0.0.6)",
    );
    expect(bareTrustProxy(['--port', '0', '--trust-proxy'])).toBe(TRUST_PROXY_NEEDS_ADDRESS);
    expect(bareTrustProxy(['--trust-proxy', '--port', '0'])).toBe(TRUST_PROXY_NEEDS_ADDRESS);
    expect(bareTrustProxy(['--trust-proxy', 'loopback', '--port', '0'])).toBeUndefined();
    expect(bareTrustProxy(['--trust-proxy=10.0.0.5'])).toBeUndefined();
    expect(() => accessOptionsFrom({ 'trust-proxy': [''] }, 1024)).toThrow(TRUST_PROXY_NEEDS_ADDRESS);
  });
});

describe('saved limit buckets', () => {
  const limits = {
    ...DEFAULT_ACCESS_LIMITS,
    addressSessions: { perSecond: 0.1, burst: 5 },
    studySessions: { perSecond: 1, burst: 100 },
  };

  it('a drained bucket saved and loaded by a new limiter is still drained, and refills for the time in between', () => {
    const db = new Database(':memory:');
    db.exec(BUCKET_TABLE);
    const clock = { mono: 1_000, wall: 1_700_000_000_000 };
    const first = new AccessLimiter(
      limits,
      () => clock.mono,
      () => clock.wall,
    );
    for (let i = 0; i < 5; i++) expect(first.newSession('203.0.113.9', 'lab')).toBeUndefined();
    expect(first.newSession('203.0.113.9', 'lab')).toMatchObject({ limit: 'addressSessions', retryAfterS: 10 });
    expect(first.newSession('198.51.100.1', 'lab')).toBeUndefined();
    // Two address buckets and the study's; full buckets (none here) are not written.
    expect(first.save(new LimitBucketTable(db))).toBe(3);
    // Nothing taken since: nothing written again.
    expect(first.save(new LimitBucketTable(db))).toBe(0);

    // A restart 5 s later (a new process: its monotonic clock starts again).
    clock.wall += 5_000;
    clock.mono = 42;
    const second = new AccessLimiter(
      limits,
      () => clock.mono,
      () => clock.wall,
    );
    expect(second.load(new LimitBucketTable(db))).toBe(3);
    expect(second.newSession('203.0.113.9', 'lab')).toMatchObject({ limit: 'addressSessions', retryAfterS: 5 });
    // 5 s more: one session's worth has come back, and only one.
    clock.mono += 5_000;
    clock.wall += 5_000;
    expect(second.newSession('203.0.113.9', 'lab')).toBeUndefined();
    expect(second.newSession('203.0.113.9', 'lab')).toMatchObject({ limit: 'addressSessions' });
    // A new limiter without the load starts full: what the saved table prevents.
    expect(new AccessLimiter(limits).newSession('203.0.113.9', 'lab')).toBeUndefined();
    db.close();
  });

  it('drops buckets that are full again; reads no other names; a wall clock set back counts as now', () => {
    const db = new Database(':memory:');
    db.exec(BUCKET_TABLE);
    const clock = { mono: 0, wall: 1_700_000_000_000 };
    const limiter = new AccessLimiter(
      limits,
      () => clock.mono,
      () => clock.wall,
    );
    limiter.newSession('a', 'lab');
    clock.mono += 60_000;
    clock.wall += 60_000;
    limiter.newSession('b', 'lab');
    // `a` and the study's first token have refilled: only `b` and the study are written.
    expect(limiter.save(new LimitBucketTable(db))).toBe(2);
    expect(db.prepare('SELECT name, key FROM limit_buckets ORDER BY name, key').all()).toEqual([
      { name: 'addressSessions', key: 'b' },
      { name: 'studySessions', key: 'lab' },
    ]);
    db.prepare("INSERT INTO limit_buckets VALUES ('retired', 'x', 0, 0)").run();
    // Saved "in the future" (the clock went back since): as if saved just now.
    db.prepare("UPDATE limit_buckets SET at_ms = at_ms + 3600000, tokens = 0 WHERE key = 'b'").run();
    const loaded = new AccessLimiter(
      limits,
      () => 0,
      () => clock.wall,
    );
    expect(loaded.load(new LimitBucketTable(db))).toBe(3);
    // Empty now and 10 s from one token, not an hour and 10 s.
    expect(loaded.newSession('b', 'lab')).toMatchObject({ limit: 'addressSessions', retryAfterS: 10 });
    expect(loaded.newSession('a', 'lab')).toBeUndefined();
    db.close();
  });

  it('says undefined, and touches nothing, on a database without the table', () => {
    const db = new Database(':memory:');
    const limiter = new AccessLimiter(limits);
    limiter.newSession('a', 'lab');
    expect(limiter.save(new LimitBucketTable(db))).toBeUndefined();
    expect(limiter.load(new LimitBucketTable(db))).toBeUndefined();
    db.close();
  });
});

describe('accessOptionsFrom', () => {
  it('takes the flags over the defaults and names a bad one', () => {
    const o = accessOptionsFrom(
      {
        'address-session-burst': '5',
        'trust-proxy': ['loopback', '10.0.0.5,10.0.0.6'],
        'new-study-sessions': 'issued',
      },
      1024,
    );
    expect(o.limits.addressSessions).toEqual({ perSecond: 0.1, burst: 5 });
    expect(o.limits.studyBytes).toEqual(DEFAULT_ACCESS_LIMITS.studyBytes);
    expect(o).toMatchObject({ newStudySessions: 'issued' });
    expect(o.trustProxy.entries).toEqual(['loopback', '10.0.0.5', '10.0.0.6']);
    expect(accessOptionsFrom({}, 1024).trustProxy).toBe(TrustedProxies.none);
    expect(() => accessOptionsFrom({ 'study-session-rate': 'fast' }, 1024)).toThrow(
      /--study-session-rate must be a number/,
    );
    expect(() => accessOptionsFrom({ 'address-byte-burst': '1000' }, 524288)).toThrow(/at least --max-body \(524288\)/);
    expect(() => accessOptionsFrom({ 'new-study-sessions': 'yes' }, 1024)).toThrow(/"issued" or "browser"/);
    // The defaults themselves are not changed by a call.
    expect(DEFAULT_ACCESS_LIMITS.addressSessions.burst).toBe(30);
  });
});
