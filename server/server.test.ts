/**
 * The results server as a real process on loopback with a real SQLite file: what participants
 * and strangers may and may not do, and that every acknowledged row survives SIGKILL.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDefaults } from '../src/study/definition';
import { encodeStudyLink } from '../src/study/link';
import { rowsToCsv, sortRows, type ResultRow, type SessionInfo } from '../src/study/results';
import { makeRow, makeSession, postRows, ROOT, startServer, type RunningServer } from './testServer';

const STUDY = 'lab-a';
const OTHER = 'lab-b';
const tokenA = encodeStudyLink(withDefaults({ studyId: STUDY }));
const tokenB = encodeStudyLink(withDefaults({ studyId: OTHER, seed: 9 }));

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
const register = (s: RunningServer, token: string, researcher = s.token) =>
  api(s, '/api/studies', { method: 'POST', body: JSON.stringify({ token }), token: researcher });
const exported = async (s: RunningServer) =>
  (await (await api(s, '/api/results.json')).json()) as { rows: ResultRow[]; sessions: SessionInfo[] };

describe('results server', () => {
  let data: string;
  let server: RunningServer;
  beforeAll(async () => {
    data = tempDir();
    writeFileSync(path.join(data, 'placeholder'), '');
    server = await startServer(data);
    expect((await register(server, tokenA)).status).toBe(201);
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('makes the token file with mode 600 and says where it is', () => {
    expect(statSync(path.join(data, 'token')).mode & 0o777).toBe(0o600);
    expect(server.output()).toContain(`researcher token created in ${path.join(data, 'token')}`);
  });

  it('registers a study once: the same study again is unchanged', async () => {
    const again = await register(server, `?study=${tokenA}`);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ study_id: STUDY, outcome: 'unchanged' });
  });

  it('refuses a wrong token (401) on every researcher endpoint, and registers nothing', async () => {
    for (const [p, method] of [
      ['/api/studies', 'GET'],
      ['/api/sessions', 'GET'],
      ['/api/results.csv', 'GET'],
      ['/api/results.json', 'GET'],
    ] as const) {
      const res = await api(server, p, { method, token: `${server.token}x` });
      expect(res.status, p).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
    expect((await api(server, '/api/studies', { token: null })).status).toBe(401);
    expect((await register(server, tokenB, 'not-the-token')).status).toBe(401);
    const { studies } = (await (await api(server, '/api/studies')).json()) as { studies: { study_id: string }[] };
    expect(studies.map((s) => s.study_id)).toEqual([STUDY]);
  });

  it('stores a row once: an identical retry is acknowledged and adds nothing', async () => {
    const body = { sessions: [makeSession(STUDY, 'dup')], rows: [makeRow(STUDY, 'dup', 0), makeRow(STUDY, 'dup', 1)] };
    expect(await postRows(server.url, body)).toEqual({ status: 200, json: { stored: 2, unchanged: 0 } });
    expect(await postRows(server.url, body)).toEqual({ status: 200, json: { stored: 0, unchanged: 2 } });
    const rows = (await exported(server)).rows.filter((r) => r.session_id === 'dup');
    expect(rows).toEqual(body.rows);
  });

  it('refuses a changed duplicate (409, logged) and keeps the first row; nothing of that request is stored', async () => {
    const first = makeRow(STUDY, 'conflict', 3);
    expect((await postRows(server.url, { sessions: [], rows: [first] })).status).toBe(200);
    const changed = { ...first, response: 'aunt', correct: false };
    const res = await postRows(server.url, { sessions: [], rows: [makeRow(STUDY, 'conflict', 4), changed] });
    expect(res.status).toBe(409);
    expect(res.json.conflicts).toEqual([expect.objectContaining({ session_id: 'conflict', trial_index: 3 })]);
    expect(server.output()).toMatch(/"event":"conflict".*"session_id":"conflict"/);
    const rows = (await exported(server)).rows.filter((r) => r.session_id === 'conflict');
    expect(rows).toEqual([first]);
  });

  it("refuses rows for a study it does not know, and a session moved to another study's id", async () => {
    const before = await exported(server);
    const unknown = await postRows(server.url, { sessions: [], rows: [makeRow(OTHER, 'stranger', 0)] });
    expect(unknown.status).toBe(403);
    expect(unknown.json.error).toMatch(/not registered/);
    // lab-b registered now; a session recorded under lab-a cannot take lab-b's rows.
    expect((await register(server, tokenB)).status).toBe(201);
    expect((await postRows(server.url, { sessions: [], rows: [makeRow(STUDY, 'moved', 0)] })).status).toBe(200);
    const moved = await postRows(server.url, { sessions: [], rows: [makeRow(OTHER, 'moved', 1)] });
    expect(moved.status).toBe(409);
    const after = await exported(server);
    expect(after.rows).toEqual(sortRows([...before.rows, makeRow(STUDY, 'moved', 0)]));
  });

  it('refuses an oversized body (413), bad JSON and bad rows (400, a short message, no stack)', async () => {
    const before = await exported(server);
    const big = { sessions: [], rows: [makeRow(STUDY, 'big', 0, { story: 'x'.repeat(600_000) })] };
    expect((await postRows(server.url, big)).status).toBe(413);
    const bad = await postRows(server.url, '{"sessions": [], "rows": [');
    expect(bad).toEqual({ status: 400, json: { error: 'the body is not JSON' } });
    const wrong = await postRows(server.url, {
      sessions: [],
      rows: [makeRow(STUDY, 'bad', 0), { ...makeRow(STUDY, 'bad', 1), k: 2.5 }],
    });
    expect(wrong.status).toBe(400);
    expect(String(wrong.json.error)).toMatch(/^rows\.1\.k: /);
    expect(String(wrong.json.error)).not.toMatch(/\n|at .*\(/);
    const extra = await postRows(server.url, {
      sessions: [],
      rows: [{ ...makeRow(STUDY, 'bad', 2), extra: 1 }],
    } as never);
    expect(extra.status).toBe(400);
    const condition = await postRows(server.url, {
      sessions: [],
      rows: [makeRow(STUDY, 'bad', 3, { condition: 'nope' })],
    });
    expect(condition.status).toBe(400);
    expect(await exported(server)).toEqual(before);
  });

  it('accepts same-origin and origin-less requests, refuses other origins', async () => {
    const row = makeRow(STUDY, 'origin', 0);
    const host = new URL(server.url).host;
    expect((await postRows(server.url, { sessions: [], rows: [row] }, { origin: `https://${host}` })).status).toBe(200);
    const foreign = await postRows(server.url, { sessions: [], rows: [row] }, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
  });

  it('lists studies and sessions, and exports CSV equal to rowsToCsv of what was sent', async () => {
    const sessions = (await (await api(server, `/api/sessions?study=${STUDY}`)).json()) as {
      sessions: { session_id: string; rows: number }[];
    };
    expect(sessions.sessions.find((s) => s.session_id === 'dup')).toMatchObject({ rows: 2 });
    expect((await api(server, '/api/sessions?study=nope')).status).toBe(404);
    const { rows, sessions: infos } = await exported(server);
    const csv = await (await api(server, '/api/results.csv')).text();
    expect(csv).toBe(rowsToCsv(rows, infos));
    expect(csv).toContain(`"'=HYPERLINK(""x"")`);
  });

  it('answers unknown API paths with 404 JSON', async () => {
    const res = await api(server, '/api/nothing');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'no such endpoint: GET /api/nothing' });
  });
});

describe('results server limits and lifecycle', () => {
  it('limits requests per session (429 with Retry-After), other sessions go on', async () => {
    const data = tempDir();
    const server = await startServer(data, ['--session-burst', '3', '--session-rate', '0.01']);
    try {
      expect((await register(server, tokenA)).status).toBe(201);
      const statuses = [];
      for (let i = 0; i < 5; i++) {
        statuses.push((await postRows(server.url, { sessions: [], rows: [makeRow(STUDY, 'eager', i)] })).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect((await postRows(server.url, { sessions: [], rows: [makeRow(STUDY, 'calm', 0)] })).status).toBe(200);
      expect((await exported(server)).rows).toHaveLength(4);
    } finally {
      await server.stop();
    }
  }, 90_000);

  it('serves the app build; allows a configured origin with CORS headers', async () => {
    const data = tempDir();
    const dist = tempDir();
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>app</title>');
    const server = await startServer(data, ['--dist', dist, '--origin', 'https://lab.example.org']);
    try {
      const page = await fetch(`${server.url}/`, { signal: AbortSignal.timeout(10_000) });
      expect(await page.text()).toContain('<title>app</title>');
      const pre = await fetch(`${server.url}/api/rows`, {
        method: 'OPTIONS',
        headers: { origin: 'https://lab.example.org', 'access-control-request-method': 'POST' },
        signal: AbortSignal.timeout(10_000),
      });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('https://lab.example.org');
    } finally {
      await server.stop();
    }
  }, 90_000);

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
    const cli = spawnSync(
      process.execPath,
      [path.join(ROOT, 'scripts', 'cli.mjs'), 'results', 'export', '--data', data, '--out', out],
      { cwd: ROOT, env: { ...process.env, INIT_CWD: ROOT }, encoding: 'utf8', timeout: 60_000 },
    );
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stdout.trimEnd().split('\n').at(-1)).toBe(`sessions=${senders} rows=${sent.length}`);
    expect(readFileSync(out, 'utf8')).toBe(rowsToCsv(sortRows(sent), sessions));
  }, 120_000);
});
