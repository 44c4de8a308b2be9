/**
 * Every status of the API, the static files and the headers, in-process through Hono's
 * `app.request()` with a real SQLite file in a temporary folder. What needs a process of its own
 * (starting and refusing to start, SIGKILL, durability) is in server.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withDefaults } from '../src/study/definition/definition';
import { encodeStudyLink } from '../src/study/definition/link';
import { rowsToCsv, rowsToJson, type ResultRow, type SessionInfo } from '../src/study/results/results';
import { createApp, DEFAULT_MAX_BODY_BYTES, type AppOptions } from './app';
import { GroupCommit } from './groupCommit';
import { CONTENT_SECURITY_POLICY, dataInsideDist } from './static';
import { ResultStore, type IngestOutcome } from './store';
import { makeRow, makeSession } from './testServer';

const TOKEN = 'researcher-token-0123456789abcdef';
const STUDY = 'lab-a';
const OTHER = 'lab-b';
const tokenA = encodeStudyLink(withDefaults({ studyId: STUDY }));
const tokenB = encodeStudyLink(withDefaults({ studyId: OTHER, seed: 9 }));

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'clutrr-app-'));
  dirs.push(d);
  return d;
};
const stores: ResultStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

type Init = RequestInit & { token?: string | null; body?: string };

function setup(options: Partial<AppOptions> = {}) {
  const dir = tempDir();
  const data = path.join(dir, 'data');
  const store = ResultStore.open(path.join(data, 'results.sqlite'));
  stores.push(store);
  const events: Record<string, unknown>[] = [];
  const app = createApp({
    store,
    token: TOKEN,
    distDir: null,
    allowedOrigins: [],
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
    rate: { perSecond: 1000, burst: 1000 },
    log: (e) => events.push(e),
    // These tests post rows of sessions they make up (browser-made); issued sessions are sessions.test.ts's.
    newStudySessions: 'browser',
    ...options,
  });
  const request = (p: string, init: Init = {}) => {
    const { token = TOKEN, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (token !== null) headers.set('authorization', `Bearer ${token}`);
    return app.request(p, { ...rest, headers });
  };
  const post = (p: string, body: unknown, init: Init = {}) =>
    request(p, {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      ...init,
    });
  const rows = async (
    body: { sessions: readonly SessionInfo[]; rows: readonly unknown[] } | string,
    init: Init = {},
  ) => {
    const res = await post('/api/rows', body, { token: null, ...init });
    return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
  };
  const register = (token: string, researcher: string | null = TOKEN) =>
    post('/api/studies', { token }, { token: researcher });
  const exported = async () =>
    (await (await request('/api/results.json')).json()) as { rows: ResultRow[]; sessions: SessionInfo[] };
  return { app, store, events, data, dir, request, post, rows, register, exported };
}

describe('the API', () => {
  it('refuses a wrong or missing token (401 with WWW-Authenticate) on every researcher endpoint, and registers nothing', async () => {
    const t = setup();
    for (const p of ['/api/studies', '/api/sessions', '/api/results.csv', '/api/results.json']) {
      for (const token of [`${TOKEN}x`, null]) {
        const res = await t.request(p, { token });
        expect(res.status, p).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    }
    expect((await t.register(tokenA, 'not-the-token')).status).toBe(401);
    expect(t.store.studies()).toEqual([]);
    expect(t.events.filter((e) => e.event === 'refused-token').length).toBeGreaterThan(0);
  });

  it('registers a study: 201 added, 200 unchanged, 200 replaced while it has no results, 409 once it has, 400 not a study', async () => {
    const t = setup();
    expect((await t.register(tokenA)).status).toBe(201);
    const again = await t.register(`https://lab.example/?study=${tokenA}`);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ study_id: STUDY, outcome: 'unchanged' });
    const changed = withDefaults({ studyId: STUDY, seed: 77 });
    const replaced = await t.post('/api/studies', { definition: changed });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ outcome: 'replaced' });
    expect((await t.rows({ sessions: [], rows: [makeRow(STUDY, 's', 0)] })).status).toBe(200);
    expect((await t.register(tokenA)).status).toBe(409);
    expect((await t.post('/api/studies', 'not json')).status).toBe(400);
    expect((await t.post('/api/studies', { nothing: 1 })).status).toBe(400);
    const bad = await t.post('/api/studies', { definition: { ...changed, studyId: 'bad id' } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: expect.stringMatching(/^studyId: /) });
    const big = await t.post('/api/studies', { token: 'x'.repeat(1024 * 1024 + 1) });
    expect(big.status).toBe(413);
  });

  it.each(['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'])(
    'refuses the key %s anywhere in a POST api/studies body, and in sessions and rows',
    async (key) => {
      const t = setup();
      const definition = JSON.stringify(withDefaults({ studyId: 'keys' }));
      // Put the key inside the first condition, and at the top.
      const inner = definition.replace('"conditions":[{', `"conditions":[{"${key}":{"x":1},`);
      expect(inner).not.toBe(definition);
      for (const body of [`{"definition":${inner}}`, `{"${key}":1,"token":${JSON.stringify(tokenA)}}`]) {
        const res = await t.post('/api/studies', body);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: string }).error).toContain(`the key "${key}" is not allowed`);
      }
      expect(t.store.studies()).toEqual([]);
      expect((await t.register(tokenA)).status).toBe(201);
      const session = await t.post('/api/sessions', `{"study_id":"${STUDY}","${key}":1}`, { token: null });
      expect(session.status).toBe(400);
      expect(((await session.json()) as { error: string }).error).toContain(`the key "${key}" is not allowed`);
      const row = JSON.stringify(makeRow(STUDY, 'k', 0)).replace('{', `{"${key}":1,`);
      const res = await t.rows(`{"sessions":[],"rows":[${row}]}`);
      expect(res.status).toBe(400);
      expect(res.json.error).toMatch(/^rows\.0\./);
    },
  );

  it('stores a row once: an identical retry is 200 and adds nothing; a changed one is 409, logged, the first stands', async () => {
    const t = setup();
    await t.register(tokenA);
    const body = { sessions: [makeSession(STUDY, 'dup')], rows: [makeRow(STUDY, 'dup', 0), makeRow(STUDY, 'dup', 1)] };
    expect(await t.rows(body)).toMatchObject({ status: 200, json: { stored: 2, unchanged: 0 } });
    expect(await t.rows(body)).toMatchObject({ status: 200, json: { stored: 0, unchanged: 2 } });
    const changed = { ...body.rows[0]!, response: 'aunt', correct: false };
    const res = await t.rows({ sessions: [], rows: [makeRow(STUDY, 'dup', 5), changed] });
    expect(res.status).toBe(409);
    expect(res.json.conflicts).toEqual([expect.objectContaining({ session_id: 'dup', trial_index: 0 })]);
    expect(t.events).toContainEqual(expect.objectContaining({ event: 'conflict', session_id: 'dup' }));
    expect((await t.exported()).rows).toEqual(body.rows);
  });

  it('takes an identical retry of a row with a lone surrogate as the same row (stored as U+FFFD)', async () => {
    const t = setup();
    await t.register(tokenA);
    const row = makeRow(STUDY, 'surrogate', 0, { story: 'broken \ud83d emoji', response: 'x\udc00' });
    // JSON.stringify escapes lone surrogates as \ud83d: exactly what a browser sends.
    const body = JSON.stringify({ sessions: [], rows: [row] });
    expect(body).toContain('\\ud83d');
    expect(await t.rows(body)).toMatchObject({ status: 200, json: { stored: 1 } });
    expect(await t.rows(body)).toMatchObject({ status: 200, json: { stored: 0, unchanged: 1 } });
    expect((await t.exported()).rows[0]).toMatchObject({ story: 'broken \ufffd emoji', response: 'x\ufffd' });
  });

  it('refuses rows of an unregistered study (403) and a session moved to another study (409)', async () => {
    const t = setup();
    await t.register(tokenA);
    const unknown = await t.rows({ sessions: [], rows: [makeRow(OTHER, 'stranger', 0)] });
    expect(unknown.status).toBe(403);
    expect(unknown.json.error).toMatch(/not registered/);
    await t.register(tokenB);
    expect((await t.rows({ sessions: [], rows: [makeRow(STUDY, 'moved', 0)] })).status).toBe(200);
    expect((await t.rows({ sessions: [], rows: [makeRow(OTHER, 'moved', 1)] })).status).toBe(409);
    expect((await t.exported()).rows).toEqual([makeRow(STUDY, 'moved', 0)]);
  });

  it('refuses an oversized body (413), bad JSON and bad rows (400, one short line), storing nothing', async () => {
    const t = setup();
    await t.register(tokenA);
    const big = await t.rows({ sessions: [], rows: [makeRow(STUDY, 'big', 0, { story: 'x'.repeat(600_000) })] });
    expect(big.status).toBe(413);
    expect(await t.rows('{"sessions": [], "rows": [')).toMatchObject({
      status: 400,
      json: { error: 'the body is not JSON' },
    });
    const wrong = await t.rows({
      sessions: [],
      rows: [makeRow(STUDY, 'bad', 0), { ...makeRow(STUDY, 'bad', 1), k: 2.5 }],
    });
    expect(wrong.status).toBe(400);
    expect(String(wrong.json.error)).toMatch(/^rows\.1\.k: [^\n]*$/);
    expect((await t.rows({ sessions: [], rows: [{ ...makeRow(STUDY, 'bad', 2), extra: 1 }] })).status).toBe(400);
    const condition = await t.rows({ sessions: [], rows: [makeRow(STUDY, 'bad', 3, { condition: 'nope' })] });
    expect(condition.status).toBe(400);
    expect((await t.exported()).rows).toEqual([]);
  });

  it('accepts same-origin and origin-less requests, refuses other origins (403), answers a configured one with CORS', async () => {
    const t = setup({ allowedOrigins: ['https://lab.example.org'] });
    await t.register(tokenA);
    const body = { sessions: [], rows: [makeRow(STUDY, 'origin', 0)] };
    const own = { origin: 'http://localhost', host: 'localhost' };
    expect((await t.rows(body, { headers: own })).status).toBe(200);
    const foreign = await t.rows(body, { headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(t.events).toContainEqual(expect.objectContaining({ event: 'refused-origin' }));
    const pre = await t.request('/api/rows', {
      method: 'OPTIONS',
      token: null,
      headers: { origin: 'https://lab.example.org', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://lab.example.org');
    const cors = await t.rows(body, { headers: { origin: 'https://lab.example.org' } });
    expect(cors.status).toBe(200);
    expect(cors.headers.get('access-control-allow-origin')).toBe('https://lab.example.org');
  });

  it('limits requests per session: 429 with Retry-After; other sessions go on', async () => {
    const t = setup({ rate: { perSecond: 0.01, burst: 3 } });
    await t.register(tokenA);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 5; i++) {
      const r = await t.rows({ sessions: [], rows: [makeRow(STUDY, 'eager', i)] });
      statuses.push(r.status);
      if (r.status === 429) retryAfter = r.headers.get('retry-after');
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect((await t.rows({ sessions: [], rows: [makeRow(STUDY, 'calm', 0)] })).status).toBe(200);
  });

  it('lists studies and sessions (404 for an unknown study) and exports CSV and JSON equal to rowsToCsv / rowsToJson', async () => {
    const t = setup();
    await t.register(tokenA);
    await t.register(tokenB);
    const sent = [makeRow(STUDY, 'b', 1), makeRow(STUDY, 'b', 0), makeRow(STUDY, 'a', 0)];
    expect((await t.rows({ sessions: [makeSession(STUDY, 'b')], rows: sent })).status).toBe(200);
    expect((await t.rows({ sessions: [], rows: [makeRow(OTHER, 'o', 0)] })).status).toBe(200);
    const studies = (await (await t.request('/api/studies')).json()) as {
      studies: { study_id: string; rows: number }[];
    };
    expect(studies.studies.map((s) => [s.study_id, s.rows])).toEqual([
      [STUDY, 3],
      [OTHER, 1],
    ]);
    const sessions = (await (await t.request(`/api/sessions?study=${STUDY}`)).json()) as { sessions: unknown[] };
    expect(sessions.sessions).toHaveLength(2);
    expect((await t.request('/api/sessions?study=nope')).status).toBe(404);
    for (const study of [STUDY, undefined]) {
      const q = study ? `?study=${study}` : '';
      const csv = await t.request(`/api/results.csv${q}`);
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="results-${study ?? 'all'}.csv"`);
      expect(await csv.text()).toBe(rowsToCsv(t.store.rows(study), t.store.sessionInfos(study)));
      const json = await t.request(`/api/results.json${q}`);
      expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await json.text()).toBe(rowsToJson(t.store.rows(study), t.store.sessionInfos(study)));
    }
    expect((await t.request('/api/results.csv?study=nope')).status).toBe(404);
  });

  it('answers unknown API paths with 404 JSON', async () => {
    const t = setup();
    const res = await t.request('/api/nothing');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'no such endpoint: GET /api/nothing' });
  });
});

describe('failures said truly', () => {
  it('health is ok while writes work, 503 with the reason when the data folder cannot be written', async () => {
    const t = setup();
    await t.register(tokenA);
    const ok = await t.request('/api/health', { token: null });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ ok: true });
    // The data folder gone: the probe file cannot be written (the probe's answer is kept 5 s).
    rmSync(t.data, { recursive: true, force: true });
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 6_000);
    const gone = await t.request('/api/health', { token: null });
    vi.useRealTimers();
    expect(gone.status).toBe(503);
    expect(await gone.json()).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^cannot write in the data folder/),
    });
  });

  it('a full database gives 503 with Retry-After, nothing stored, health says so until a write succeeds', async () => {
    const t = setup();
    await t.register(tokenA);
    expect((await t.rows({ sessions: [], rows: [makeRow(STUDY, 'before', 0)] })).status).toBe(200);
    // An honest "full": SQLite refuses to grow the file past max_page_count (SQLITE_FULL).
    const pages = t.store.handleForTests().pragma('page_count', { simple: true }) as number;
    t.store.handleForTests().pragma(`max_page_count = ${pages + 8}`);
    const big = {
      sessions: [],
      rows: Array.from({ length: 20 }, (_, i) => makeRow(STUDY, 'big', i, { story: 'x'.repeat(19_000) })),
    };
    const full = await t.rows(big);
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(full.json.error).toMatch(/disk is full/);
    expect(t.events).toContainEqual(expect.objectContaining({ event: 'disk-full' }));
    const health = await t.request('/api/health', { token: null });
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ ok: false, error: expect.stringMatching(/full/) });
    expect(t.store.rows().map((r) => r.session_id)).toEqual(['before']);
    // A small request still fits, and health is ok again.
    expect((await t.rows({ sessions: [], rows: [makeRow(STUDY, 'small', 0)] })).status).toBe(200);
    expect((await t.request('/api/health', { token: null })).status).toBe(200);
  });

  it('one request failing in a group commit does not fail the others committed beside it', async () => {
    const t = setup();
    t.store.registerStudy({ token: tokenA });
    const pages = t.store.handleForTests().pragma('page_count', { simple: true }) as number;
    t.store.handleForTests().pragma(`max_page_count = ${pages + 8}`);
    const committer = new GroupCommit(t.store);
    const big = {
      sessions: [],
      rows: Array.from({ length: 20 }, (_, i) => makeRow(STUDY, 'big', i, { story: 'x'.repeat(19_000) })),
    };
    // Queued in the same turn: one shared transaction.
    const outcomes = await Promise.allSettled([
      committer.ingest({ sessions: [], rows: [makeRow(STUDY, 'left', 0)] }),
      committer.ingest(big),
      committer.ingest({ sessions: [], rows: [makeRow(STUDY, 'right', 0)] }),
    ]);
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: { status: 'stored', added: 1, unchanged: 0 } });
    expect(outcomes[1]).toMatchObject({ status: 'rejected', reason: { code: 'SQLITE_FULL' } });
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: { status: 'stored', added: 1, unchanged: 0 } });
    expect(t.store.rows().map((r) => r.session_id)).toEqual(['left', 'right']);
  });

  it('a group commit whose shared transaction fails is retried request by request', async () => {
    const calls: number[] = [];
    const store = {
      ingestBatch(bodies: readonly { rows: readonly ResultRow[] }[]): IngestOutcome[] {
        calls.push(bodies.length);
        if (bodies.some((b) => b.rows[0]!.session_id === 'boom')) throw new Error('boom');
        return bodies.map(() => ({ status: 'stored', added: 1, unchanged: 0 }));
      },
    } as unknown as ResultStore;
    const committer = new GroupCommit(store);
    const results = await Promise.allSettled(
      ['a', 'boom', 'c'].map((s) => committer.ingest({ sessions: [], rows: [makeRow(STUDY, s, 0)] })),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(calls).toEqual([3, 1, 1, 1]);
  });
});

describe('static files and headers', () => {
  function withDist() {
    const dir = tempDir();
    const dist = path.join(dir, 'dist');
    mkdirSync(path.join(dist, 'assets'), { recursive: true });
    mkdirSync(path.join(dist, 'sub'));
    mkdirSync(path.join(dist, '.git'));
    writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>app</title>');
    writeFileSync(path.join(dist, 'assets', 'app-1234.js'), 'console.log(1);');
    writeFileSync(path.join(dist, 'sub', 'index.html'), 'sub');
    writeFileSync(path.join(dist, '.env'), 'SECRET=1');
    writeFileSync(path.join(dist, '.git', 'config'), '[core]');
    const outside = path.join(dir, 'outside');
    mkdirSync(outside);
    writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    symlinkSync('/etc/passwd', path.join(dist, 'passwd'));
    symlinkSync(outside, path.join(dist, 'out'));
    symlinkSync(path.join(outside, 'secret.txt'), path.join(dist, 'assets', 'secret.txt'));
    // A link that stays inside the build is fine.
    symlinkSync(path.join(dist, 'index.html'), path.join(dist, 'home.html'));
    return { dist, ...setup({ distDir: dist }) };
  }

  it('serves the build: index for /, types, caching of hashed assets', async () => {
    const t = withDist();
    const page = await t.request('/', { token: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(await page.text()).toContain('<title>app</title>');
    const js = await t.request('/assets/app-1234.js', { token: null });
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await js.text()).toBe('console.log(1);');
    expect(await (await t.request('/sub/', { token: null })).text()).toBe('sub');
    expect(await (await t.request('/home.html', { token: null })).text()).toContain('<title>app</title>');
    const head = await t.request('/index.html', { method: 'HEAD', token: null });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String('<!doctype html><title>app</title>'.length));
  });

  it.each([
    '/.env',
    '/.git/config',
    '/%2eenv',
    '/sub/../.env',
    '/%2e%2e/outside/secret.txt',
    '/..%2f..%2fetc/passwd',
    '/passwd',
    '/out/secret.txt',
    '/assets/secret.txt',
    '/nothing.js',
    '/assets/',
  ])('answers %s with 404 and never the file', async (p) => {
    const t = withDist();
    const res = await t.request(p, { token: null });
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text).not.toMatch(/SECRET|secret|root:|\[core\]/);
  });

  it('puts the security headers on every response: pages, API answers, errors', async () => {
    const t = withDist();
    for (const [p, token] of [
      ['/', null],
      ['/.env', null],
      ['/api/health', null],
      ['/api/studies', null],
      ['/api/studies', TOKEN],
      ['/api/nothing', TOKEN],
    ] as const) {
      const res = await t.request(p, { token });
      expect(res.headers.get('content-security-policy'), p).toBe(CONTENT_SECURITY_POLICY);
      expect(res.headers.get('x-frame-options'), p).toBe('SAMEORIGIN');
      expect(res.headers.get('x-content-type-options'), p).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), p).toBe('no-referrer');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("default-src 'self'");
  });

  it('knows when the data folder is inside the served folder, also through a symlink or before it exists', () => {
    const dir = tempDir();
    const dist = path.join(dir, 'dist');
    mkdirSync(dist);
    expect(dataInsideDist(path.join(dist, 'data'), dist)).toMatch(/inside the served folder/);
    expect(dataInsideDist(dist, dist)).toMatch(/inside the served folder/);
    expect(dataInsideDist(path.join(dir, 'data'), dist)).toBeUndefined();
    expect(dataInsideDist(path.join(dir, 'dist-other'), dist)).toBeUndefined();
    symlinkSync(dist, path.join(dir, 'link'));
    expect(dataInsideDist(path.join(dir, 'link', 'a', 'b'), dist)).toMatch(/inside the served folder/);
    expect(dataInsideDist(path.join(dir, 'data'), path.join(dir, 'no-dist'))).toBeUndefined();
  });
});
