/**
 * `--trust-proxy` and the saved limit buckets through the real server process (loopback, a few
 * seconds). The per-address limit used is the review queue's (`GET api/studies/<id>/coverage`
 * takes one token before anything is looked up, so a study that does not exist answers 404 while
 * there is a token and 429 after), made tiny by its flags.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, startServer, tempDirs, type RunningServer } from './testServer';

const tempDir = tempDirs('clutrr-proxy-');
/** Two review-queue requests per address, then one a quarter of an hour. */
const TINY_QUEUE = ['--address-queue-burst', '2', '--address-queue-rate', '0.001'];

/** The status of one coverage request sent with `forwarded` as its X-Forwarded-For (none when undefined). */
async function ask(server: RunningServer, forwarded?: string): Promise<number> {
  const res = await fetch(`${server.url}/api/studies/nothing-here/coverage`, {
    headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
    signal: AbortSignal.timeout(10_000),
  });
  await res.body?.cancel();
  return res.status;
}

const statuses = async (server: RunningServer, forwarded: readonly (string | undefined)[]) => {
  const out: number[] = [];
  for (const f of forwarded) out.push(await ask(server, f));
  return out;
};

describe('--trust-proxy, the real process', () => {
  it('refuses the bare flag, an empty one and a host name at start (exit 2) with what to write', () => {
    const data = path.join(tempDir(), 'data');
    for (const args of [
      ['--trust-proxy'],
      ['--trust-proxy', '--port', '0'],
      ['--trust-proxy='],
      ['--trust-proxy', 'localhost'],
    ]) {
      const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'serve.mjs'), '--data', data, ...args], {
        cwd: ROOT,
        env: { ...process.env, INIT_CWD: ROOT },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(
        '--trust-proxy 127.0.0.1 (or loopback, or a list like 10.0.0.5,10.0.0.6)',
      );
      if (args[1] !== 'localhost') {
        expect(r.stderr).toContain("--trust-proxy needs the proxy's address");
      }
    }
  }, 60_000);

  it('a client forging X-Forwarded-For, not from a trusted proxy, is counted as itself', async () => {
    // A proxy is trusted, but not the loopback peer these requests come from.
    const server = await startServer(tempDir(), [...TINY_QUEUE, '--trust-proxy', '10.0.0.5']);
    try {
      expect(await statuses(server, ['198.51.100.1', '198.51.100.2', '198.51.100.3', undefined])).toEqual([
        404, 404, 429, 429,
      ]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 60_000);

  it('behind a trusted proxy each client has its own limit, keyed by the right-most address that is not a proxy', async () => {
    const server = await startServer(tempDir(), [...TINY_QUEUE, '--trust-proxy', 'loopback,10.0.0.0/8']);
    try {
      expect(await statuses(server, ['198.51.100.1', '198.51.100.2', '198.51.100.3'])).toEqual([404, 404, 404]);
      // What the client wrote before the proxy's entry changes nothing; proxies after it are skipped.
      expect(await statuses(server, ['203.0.113.1, 198.51.100.1', '198.51.100.1, 10.0.0.6'])).toEqual([404, 429]);
      // An IPv6 client by its /64.
      expect(await statuses(server, ['2001:db8:1:2::1', '2001:db8:1:2::ffff', '2001:db8:1:2:aaaa::1'])).toEqual([
        404, 404, 429,
      ]);
      expect(server.output()).toContain('X-Forwarded-For read from: loopback, 10.0.0.0/8');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 60_000);
});

describe('saved limit buckets, the real process', () => {
  it('a bucket drained before SIGTERM is still drained after the restart; the others are full', async () => {
    const data = tempDir();
    const args = [...TINY_QUEUE, '--trust-proxy', 'loopback'];
    const first = await startServer(data, args);
    try {
      expect(await statuses(first, ['198.51.100.1', '198.51.100.1', '198.51.100.1', '198.51.100.2'])).toEqual([
        404, 404, 429, 404,
      ]);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const second = await startServer(data, args);
    try {
      expect(second.output()).not.toContain('limit_buckets');
      expect(await statuses(second, ['198.51.100.1', '198.51.100.2', '198.51.100.2', '198.51.100.3'])).toEqual([
        429, 404, 429, 404,
      ]);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, 90_000);
});
