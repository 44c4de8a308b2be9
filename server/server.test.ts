/**
 * The results server as a real process on loopback with a real SQLite file: what needs a process
 * of its own (file modes, refusing to start, SIGKILL and durability). Every status of the API is
 * tested in-process in app.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withDefaults } from '../src/study/definition/definition';
import { encodeStudyLink } from '../src/study/definition/link';
import { rowsToCsv, sortRows, type ResultRow, type SessionInfo } from '../src/study/results/results';
import { makeRow, makeSession, postRows, ROOT, startServer, type RunningServer } from './testServer';

const STUDY = 'lab-a';
const tokenA = encodeStudyLink(withDefaults({ studyId: STUDY }));

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'clutrr-server-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const api = async (s: RunningServer, p: string, init: RequestInit & { token?: string | null } = {}) => {
  const { token = s.token, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token !== null) headers.set('authorization', `Bearer ${token}`);
  return fetch(`${s.url}${p}`, { ...rest, headers, signal: AbortSignal.timeout(10_000) });
};
// Browser-made sessions: these tests post rows of sessions they make up (issued ones: sessions.test.ts, diskFill.test.ts).
const register = (s: RunningServer, token: string, researcher = s.token) =>
  api(s, '/api/studies', { method: 'POST', body: JSON.stringify({ token, sessions: 'browser' }), token: researcher });
const exported = async (s: RunningServer) =>
  (await (await api(s, '/api/results.json')).json()) as { rows: ResultRow[]; sessions: SessionInfo[] };

/** The mode bits of a file or folder. */
const mode = (p: string) => statSync(p).mode & 0o777;

/** `node scripts/cli.mjs …`, bounded. */
const cli = (args: string[]) =>
  spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'cli.mjs'), ...args], {
    cwd: ROOT,
    env: { ...process.env, INIT_CWD: ROOT },
    encoding: 'utf8',
    timeout: 60_000,
  });

/** `node scripts/serve.mjs …` expected to refuse to start: its exit status and output. */
const refusedStart = (args: string[]) => {
  const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'serve.mjs'), '--port', '0', ...args], {
    cwd: ROOT,
    env: { ...process.env, INIT_CWD: ROOT },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
};

// Every status of the API is tested in-process (app.test.ts); here what needs the real process.
describe('results server process', () => {
  it('makes its files private whatever the umask: data folder 700; token, database, -wal, -shm 600', async () => {
    const data = path.join(tempDir(), 'data');
    const umask = process.umask(0o022);
    let server: RunningServer;
    try {
      server = await startServer(data);
    } finally {
      process.umask(umask);
    }
    try {
      expect((await register(server, tokenA)).status).toBe(201);
      expect((await postRows(server.url, { sessions: [], rows: [makeRow(STUDY, 's', 0)] })).status).toBe(200);
      expect(server.output()).toContain(`researcher token created in ${path.join(data, 'token')}`);
      expect(mode(data)).toBe(0o700);
      for (const f of ['token', 'results.sqlite', 'results.sqlite-wal', 'results.sqlite-shm']) {
        expect(mode(path.join(data, f)), f).toBe(0o600);
      }
    } finally {
      await server.stop();
    }
  }, 90_000);

  it('tightens a database left readable by others, and so do the CLI commands that make files', () => {
    const dir = tempDir();
    const data = path.join(dir, 'made-by-cli');
    const umask = process.umask(0o022);
    try {
      const run = cli(['study', 'register', '--data', data, '--link', tokenA]);
      expect(run.status, run.stderr).toBe(0);
      expect(mode(data)).toBe(0o700);
      expect(mode(path.join(data, 'results.sqlite'))).toBe(0o600);
      chmodSync(path.join(data, 'results.sqlite'), 0o644);
      const out = path.join(dir, 'export.json');
      const written = cli(['results', 'export', '--data', data, '--out', out]);
      expect(written.status, written.stderr).toBe(0);
      expect(mode(out)).toBe(0o600);
      expect(mode(path.join(data, 'results.sqlite'))).toBe(0o600);
    } finally {
      process.umask(umask);
    }
  }, 90_000);

  it('serves the build with the security headers, never a dotfile', async () => {
    const data = tempDir();
    const dist = tempDir();
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>app</title>');
    writeFileSync(path.join(dist, '.env'), 'SECRET=1');
    const server = await startServer(data, ['--dist', dist]);
    try {
      const page = await fetch(`${server.url}/`, { signal: AbortSignal.timeout(10_000) });
      expect(await page.text()).toContain('<title>app</title>');
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
      expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      expect((await fetch(`${server.url}/.env`, { signal: AbortSignal.timeout(10_000) })).status).toBe(404);
    } finally {
      await server.stop();
    }
  }, 90_000);

  it('refuses to start with --data inside --dist (exit 2, nothing made), and with a token no header can carry', () => {
    const dist = tempDir();
    writeFileSync(path.join(dist, 'index.html'), 'app');
    const inside = refusedStart(['--dist', dist, '--data', path.join(dist, 'data')]);
    expect(inside.status).toBe(2);
    expect(inside.output).toMatch(/inside the served folder .*choose a --data folder outside --dist/);
    expect(existsSync(path.join(dist, 'data'))).toBe(false);
    const data = tempDir();
    writeFileSync(path.join(data, 'token'), 'a token with spaces in it\n', { mode: 0o600 });
    const spaced = refusedStart(['--data', data]);
    expect(spaced.status).toBe(1);
    expect(spaced.output).toMatch(/holds a token with a space, which no Authorization header can match/);
  }, 90_000);
});

describe('results server durability', () => {
  it('after SIGKILL mid-stream every acknowledged row is there exactly once; the export then equals what was sent', async () => {
    const data = tempDir();
    // The rate limit is not under test here: each participant sends as fast as it can.
    const args = ['--session-burst', '1000'];
    let server = await startServer(data, args);
    expect((await register(server, tokenA)).status).toBe(201);
    const senders = 8;
    const trials = 60;
    const sent: ResultRow[] = [];
    const sessions = Array.from({ length: senders }, (_, i) => makeSession(STUDY, `kill-${i}`));
    const acked = new Set<string>();
    const key = (r: ResultRow) => `${r.session_id}/${r.trial_index}`;
    let killed = false;
    // Each participant sends its trials one by one; the kill lands while all of them are sending.
    const participant = async (s: SessionInfo) => {
      for (let t = 0; t < trials; t++) {
        const row = makeRow(STUDY, s.session_id, t);
        sent.push(row);
        try {
          const res = await postRows(server.url, { sessions: [s], rows: [row] });
          if (res.status === 200) acked.add(key(row));
        } catch {
          if (killed) return; // the server is gone: this request was never acknowledged
          throw new Error('request failed before the kill');
        }
        if (!killed && acked.size >= 150) {
          killed = true;
          await server.kill();
        }
      }
    };
    const first = server;
    await Promise.all(sessions.map(participant));
    expect(killed).toBe(true);
    expect(first.child.signalCode).toBe('SIGKILL');

    server = await startServer(data, args);
    try {
      const after = await exported(server);
      const stored = after.rows.map(key);
      expect(new Set(stored).size).toBe(stored.length);
      for (const k of acked) expect(stored).toContain(k);
      // The participants' outboxes send everything again; nothing doubles, nothing is lost.
      for (const s of sessions) {
        const rows = sent.filter((r) => r.session_id === s.session_id);
        for (let i = 0; i < rows.length; i += 50) {
          expect((await postRows(server.url, { sessions: [s], rows: rows.slice(i, i + 50) })).status).toBe(200);
        }
      }
      const final = await exported(server);
      expect(final.rows).toEqual(sortRows(sent));
      expect(final.sessions).toEqual(sessions);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    // A clean stop closes the database: the WAL is checkpointed and removed.
    expect(server.output()).toContain('database closed');
    expect(existsSync(path.join(data, 'results.sqlite-wal'))).toBe(false);

    // The offline export reads the same file: the same CSV, and the closing line.
    const out = path.join(data, 'export.csv');
    const run = cli(['results', 'export', '--data', data, '--out', out]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(`sessions=${senders} rows=${sent.length}`);
    expect(readFileSync(out, 'utf8')).toBe(rowsToCsv(sortRows(sent), sessions));
  }, 120_000);
});
