import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import { AccessLimiter, accessOptionsFrom, clientAddress, DEFAULT_ACCESS_LIMITS, TokenBuckets } from './limits';

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
  it('is the socket address; an IPv6 address by its /64; IPv4-mapped addresses as IPv4', () => {
    expect(clientAddress(ctx('203.0.113.9'), false)).toBe('203.0.113.9');
    expect(clientAddress(ctx('::ffff:203.0.113.9'), false)).toBe('203.0.113.9');
    expect(clientAddress(ctx('2001:db8:1:2:aaaa::1'), false)).toBe('2001:db8:1:2::/64');
    expect(clientAddress(ctx('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee'), false)).toBe('2001:db8:1:2::/64');
    expect(clientAddress(ctx('::1'), false)).toBe('0:0:0:0::/64');
    expect(clientAddress(ctx(undefined), false)).toBe('unknown');
  });

  it('reads X-Forwarded-For (its last address) only behind a trusted proxy', () => {
    expect(clientAddress(ctx('127.0.0.1', '198.51.100.1, 203.0.113.7'), true)).toBe('203.0.113.7');
    expect(clientAddress(ctx('127.0.0.1', '198.51.100.1'), false)).toBe('127.0.0.1');
    expect(clientAddress(ctx('127.0.0.1', ''), true)).toBe('127.0.0.1');
  });
});

describe('accessOptionsFrom', () => {
  it('takes the flags over the defaults and names a bad one', () => {
    const o = accessOptionsFrom(
      { 'address-session-burst': '5', 'trust-proxy': true, 'new-study-sessions': 'issued' },
      1024,
    );
    expect(o.limits.addressSessions).toEqual({ perSecond: 0.1, burst: 5 });
    expect(o.limits.studyBytes).toEqual(DEFAULT_ACCESS_LIMITS.studyBytes);
    expect(o).toMatchObject({ trustProxy: true, newStudySessions: 'issued' });
    expect(() => accessOptionsFrom({ 'study-session-rate': 'fast' }, 1024)).toThrow(
      /--study-session-rate must be a number/,
    );
    expect(() => accessOptionsFrom({ 'address-byte-burst': '1000' }, 524288)).toThrow(/at least --max-body \(524288\)/);
    expect(() => accessOptionsFrom({ 'new-study-sessions': 'yes' }, 1024)).toThrow(/"issued" or "browser"/);
    // The defaults themselves are not changed by a call.
    expect(DEFAULT_ACCESS_LIMITS.addressSessions.burst).toBe(30);
  });
});
