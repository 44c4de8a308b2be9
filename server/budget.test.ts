/**
 * The storage budget (`--max-db-mb`): the measure and its refresh, the default and the flag, and
 * in-process (`app.request()`, a real SQLite file in a temporary folder) what a used-up budget
 * answers: 507 for new sessions and rows, 503 from health saying by how much, exports as before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withDefaults } from '../src/study/definition/definition';
import { encodeStudyLink } from '../src/study/definition/link';
import { budgetRefusal, defaultBudgetMb, MAX_DEFAULT_BUDGET_MB, parseBudgetMb, StorageBudget } from './budget';
import { databaseBytes } from './db/connection';
import { ResultStore } from './store';
import { makeRow, makeSession, testApp } from './testServer';

const TOKEN = 'researcher-token-0123456789abcdef';
const MB = 1024 * 1024;

const dirs: string[] = [];
const stores: ResultStore[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'clutrr-budget-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('StorageBudget', () => {
  it('measures at most once a second unless something was committed; says how far over', () => {
    let size = 5 * MB;
    let measures = 0;
    let now = 0;
    const budget = new StorageBudget(
      10 * MB,
      () => {
        measures++;
        return size;
      },
      () => now,
    );
    expect(budget.over()).toBeUndefined();
    size = 12.5 * MB;
    now = 500;
    // The measure of 500 ms ago still stands.
    expect(budget.over()).toBeUndefined();
    expect(measures).toBe(1);
    budget.changed();
    expect(budget.over()).toBe(
      'the database uses 12.5 MB, 2.5 MB over its storage budget of 10 MB: new sessions and rows are refused until --max-db-mb is raised or space is freed',
    );
    expect(measures).toBe(2);
    size = 9 * MB;
    now = 1_400;
    expect(budget.over()).toBeDefined();
    now = 1_500;
    expect(budget.over()).toBeUndefined();
    expect(measures).toBe(3);
  });

  it('measures a database as its pages and its WAL file, which grow with what is stored', () => {
    const store = ResultStore.open(path.join(tempDir(), 'results.sqlite'));
    stores.push(store);
    const before = databaseBytes(store.handleForTests());
    expect(before).toBeGreaterThan(0);
    store.registerStudy({ token: encodeStudyLink(withDefaults({ studyId: 'lab' })) });
    const rows = Array.from({ length: 20 }, (_, i) => makeRow('lab', 's', i, { story: 'x'.repeat(19_000) }));
    store.ingestBatch([{ sessions: [makeSession('lab', 's')], rows }]);
    expect(databaseBytes(store.handleForTests())).toBeGreaterThan(before + 20 * 19_000);
  });

  it('defaults to what is used plus 90% of the free space, at most 10 GB; the flag takes megabytes above 0', () => {
    const d = defaultBudgetMb(tempDir(), 3 * MB);
    // freeMb is rounded down: the budget lies within a megabyte of 3 MB + 90% of it.
    expect(d.mb).toBeGreaterThanOrEqual(Math.min(MAX_DEFAULT_BUDGET_MB, Math.floor(3 + 0.9 * d.freeMb)));
    expect(d.mb).toBeLessThanOrEqual(Math.min(MAX_DEFAULT_BUDGET_MB, 4 + 0.9 * d.freeMb));
    expect(parseBudgetMb('2048')).toBe(2048);
    expect(parseBudgetMb('0.5')).toBe(0.5);
    for (const bad of ['0', '', 'lots', '-5', '1e3', '10GB']) {
      expect(() => parseBudgetMb(bad), bad).toThrow(/--max-db-mb must be a number of megabytes above 0/);
    }
  });
});

describe('a used-up budget, in-process', () => {
  function setup() {
    const store = ResultStore.open(path.join(tempDir(), 'data', 'results.sqlite'));
    stores.push(store);
    let size = 0;
    const budget = new StorageBudget(1 * MB, () => size);
    const events: Record<string, unknown>[] = [];
    const app = testApp(store, TOKEN, (e) => events.push(e), { budget });
    const post = (p: string, body: unknown, researcher = false) =>
      app.request(p, {
        method: 'POST',
        headers: {
          'content-type': 'text/plain;charset=UTF-8',
          ...(researcher ? { authorization: `Bearer ${TOKEN}` } : {}),
        },
        body: JSON.stringify(body),
      });
    const get = (p: string) => app.request(p, { headers: { authorization: `Bearer ${TOKEN}` } });
    const fill = (bytes: number) => {
      size = bytes;
      budget.changed();
    };
    return { store, app, post, get, fill, events };
  }

  it('refuses new sessions and rows with 507, health says why with 503, exports still work', async () => {
    const t = setup();
    // Browser-made sessions, so rows need no issued session here (sessions.test.ts covers those).
    const study = withDefaults({ studyId: 'lab' });
    expect((await t.post('/api/studies', { token: encodeStudyLink(study), sessions: 'browser' }, true)).status).toBe(
      201,
    );
    const row = (session: string) => ({ sessions: [makeSession('lab', session)], rows: [makeRow('lab', session, 0)] });
    expect((await t.post('/api/rows', row('before'))).status).toBe(200);
    expect((await t.app.request('/api/health')).status).toBe(200);

    t.fill(1.5 * MB);
    const rows = await t.post('/api/rows', row('after'));
    expect(rows.status).toBe(507);
    expect(await rows.json()).toEqual({
      error:
        'the results server has used its storage budget (1 MB); the researcher must raise --max-db-mb or free space',
      reason: 'storage',
    });
    expect(budgetRefusal(1)).toMatchObject({ reason: 'storage' });
    const session = await t.post('/api/sessions', { study_id: 'lab', participant_id: 'P-1' });
    expect(session.status).toBe(507);
    expect(await session.json()).toMatchObject({ reason: 'storage' });
    const health = await t.app.request('/api/health');
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^the database uses 1\.5 MB, 0\.5 MB over its storage budget of 1 MB/),
    });
    // Logged once while it lasts, not once per request.
    expect(t.events.filter((e) => e.event === 'storage-budget')).toHaveLength(1);

    // The researcher still reads everything out.
    const csv = await t.get('/api/results.csv');
    expect(csv.status).toBe(200);
    expect(await csv.text()).toContain('before');
    expect((await t.get('/api/results.json')).status).toBe(200);
    const listed = await t.get('/api/sessions');
    expect(listed.status).toBe(200);
    expect(t.store.rows().map((r) => r.session_id)).toEqual(['before']);

    // Room again (the researcher raised it or freed space): stored as before.
    t.fill(0.5 * MB);
    expect((await t.post('/api/rows', row('after'))).status).toBe(200);
    expect((await t.app.request('/api/health')).status).toBe(200);
  });
});
