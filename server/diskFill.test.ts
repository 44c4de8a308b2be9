/**
 * The disk-fill attack of issue 20 against the real server process, on loopback, bounded in time:
 * 8 connections, no token, each request 25 rows with 20,000-character stories.
 *
 *   1. A fresh made-up session id per row (what filled 370 MB in 15 s before): nothing is stored.
 *   2. The attacker asks for sessions as a participant's page does and sends rows of them with the
 *      secrets, as fast as it can: the sessions it gets are bounded by the study's sessions per
 *      address an hour; its long stories are refused (the server rebuilds each trial's story),
 *      and what is stored is at most the study's trials of those sessions, with their real stories.
 *   3. The export still works and holds exactly what was stored.
 *   4. Restarted with a storage budget below what the database uses: new sessions and rows get
 *      507, health 503 says why, the exports still work; a bad `--max-db-mb` is refused at start.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withDefaults } from '../src/study/definition/definition';
import { encodeStudyLink } from '../src/study/definition/link';
import type { ResultRow } from '../src/study/results/results';
import { scheduleParticipant } from '../src/study/schedule/schedule';
import type { SessionGrant } from '../src/study/delivery/serverApi';
import { ONLINE_SESSIONS_PER_ADDRESS } from '../src/study/definition/vocabulary';
import { makeRow, ROOT, scheduledRow, startServer, type RunningServer } from './testServer';

const STUDY = withDefaults({ studyId: 'fill' });
const TRIALS = scheduleParticipant(STUDY, { participantNumber: 0, sessionSeed: 'x' }).trials.length;
const STORY = 'x'.repeat(20_000);
const CONNECTIONS = 8;
const ROWS_PER_REQUEST = 25;
const PHASE_MS = 3000;

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Runs `attack` on CONNECTIONS loops until PHASE_MS have passed; counts the statuses. */
async function flood(attack: (n: number) => Promise<number>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  const until = Date.now() + PHASE_MS;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, c) => {
      for (let n = 0; Date.now() < until; n++) {
        const status = await attack(c * 1_000_000 + n);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

const post = (server: RunningServer, p: string, body: unknown) =>
  fetch(`${server.url}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });

/** Bytes of the database and its WAL. */
const databaseBytes = (data: string) =>
  ['results.sqlite', 'results.sqlite-wal'].reduce((sum, f) => {
    try {
      return sum + statSync(path.join(data, f)).size;
    } catch {
      return sum;
    }
  }, 0);

describe('disk fill (issue 20)', () => {
  it('stores nothing without an issued session, a bounded amount with them, still exports, and stops at the storage budget', async () => {
    const data = mkdtempSync(path.join(tmpdir(), 'clutrr-fill-'));
    dirs.push(data);
    const server = await startServer(data);
    let stored: ResultRow[] | undefined;
    try {
      const registered = await fetch(`${server.url}/api/studies`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}` },
        body: JSON.stringify({ token: encodeStudyLink(STUDY), sessions: 'issued' }),
      });
      expect(registered.status).toBe(201);
      const before = databaseBytes(data);

      // 1. Made-up session ids, one per row.
      const made = await flood(async (n) => {
        const rows = Array.from({ length: ROWS_PER_REQUEST }, (_, i) =>
          makeRow('fill', `made-${n}-${i}`, 0, { story: STORY }),
        );
        const res = await post(server, '/api/rows', { sessions: [], rows });
        await res.body?.cancel();
        return res.status;
      });
      expect([...made.keys()]).toEqual([403]);
      expect(made.get(403)).toBeGreaterThan(CONNECTIONS);
      const afterMade = await exportJson(server);
      expect(afterMade.rows).toHaveLength(0);
      expect(databaseBytes(data) - before).toBeLessThan(1024 * 1024);
      expect(server.output()).toContain('"event":"refused-rows"');

      // 2. Issued sessions, asked for as a participant's page does, then filled: every other
      // request with the longest stories, the others with the trials' real rows.
      const started = Date.now();
      const grants: SessionGrant[] = [];
      const sessionStatuses = new Map<number, number>();
      const longStatuses = new Map<number, number>();
      let next = 0;
      const issued = await flood(async (n) => {
        const s = await post(server, '/api/sessions', { study_id: 'fill' });
        sessionStatuses.set(s.status, (sessionStatuses.get(s.status) ?? 0) + 1);
        if (s.status === 201) grants.push((await s.json()) as SessionGrant);
        else await s.body?.cancel();
        if (grants.length === 0) return s.status;
        // 25 rows: the next trials of the sessions granted so far.
        const long = n % 2 === 0;
        const rows: ResultRow[] = [];
        const secrets = new Map<string, string>();
        while (rows.length < ROWS_PER_REQUEST) {
          const slot = next++ % (grants.length * TRIALS);
          const grant = grants[Math.floor(slot / TRIALS)]!;
          rows.push(rowOf(grant, slot % TRIALS, long));
          secrets.set(grant.session_id, grant.secret);
        }
        const body = {
          sessions: [],
          rows,
          secrets: [...secrets].map(([session_id, secret]) => ({ session_id, secret })),
        };
        const res = await post(server, '/api/rows', body);
        await res.body?.cancel();
        if (long) longStatuses.set(res.status, (longStatuses.get(res.status) ?? 0) + 1);
        return res.status;
      });
      const elapsedS = (Date.now() - started) / 1000;
      // From one address: at most the study's new sessions an hour, however fast it asks.
      expect(grants.length).toBeGreaterThan(0);
      expect(grants.length).toBeLessThanOrEqual(ONLINE_SESSIONS_PER_ADDRESS);
      expect(sessionStatuses.get(429) ?? 0).toBeGreaterThan(0);
      // A story that is not the trial's is refused, whatever the limits would allow.
      expect([...longStatuses.keys()].filter((status) => status !== 429)).toEqual([400]);
      expect(server.output()).toContain('is not the puzzle of trial');

      // 3. The export works, and holds at most the study's trials for each issued session, real stories only.
      const exported = await exportJson(server);
      stored = exported.rows;
      expect(exported.rows.length).toBeGreaterThan(0);
      expect(exported.rows.length).toBeLessThanOrEqual(grants.length * TRIALS);
      const sessions = new Set(exported.rows.map((r) => r.session_id));
      expect([...sessions].every((s) => grants.some((g) => g.session_id === s))).toBe(true);
      expect(Math.max(...exported.rows.map((r) => r.story.length))).toBeLessThan(STORY.length / 4);
      const csv = await fetch(`${server.url}/api/results.csv`, {
        headers: { authorization: `Bearer ${server.token}` },
      });
      expect(csv.status).toBe(200);
      expect((await csv.text()).split('\r\n').length).toBeGreaterThan(exported.rows.length);
      // Bytes: each stored row is a real trial's, a few KB at most.
      const bound = grants.length * TRIALS * 8 * 1024 + 4 * 1024 * 1024;
      expect(databaseBytes(data)).toBeLessThan(before + bound);
      console.log(
        `disk fill: made-up ids ${JSON.stringify(Object.fromEntries(made))}; issued ${grants.length} sessions in ${elapsedS.toFixed(1)} s ` +
          `(session requests ${JSON.stringify(Object.fromEntries(sessionStatuses))}), ` +
          `row requests ${JSON.stringify(Object.fromEntries(issued))} (long stories ${JSON.stringify(Object.fromEntries(longStatuses))}); ` +
          `stored ${exported.rows.length} rows; database ${(databaseBytes(data) / 1e6).toFixed(1)} MB (bound ${((before + bound) / 1e6).toFixed(1)} MB)`,
      );
    } finally {
      expect(await server.stop()).toBe(0);
    }

    // 4. The same data with a storage budget it is already over.
    const tight = await startServer(data, ['--max-db-mb', '0.01']);
    try {
      expect(tight.output()).toContain('storage budget: 0.01 MB (--max-db-mb)');
      const grant = await post(tight, '/api/sessions', { study_id: 'fill' });
      expect(grant.status).toBe(507);
      expect(await grant.json()).toEqual({
        error:
          'the results server has used its storage budget (0.01 MB); the researcher must raise --max-db-mb or free space',
        reason: 'storage',
      });
      const rows = await post(tight, '/api/rows', { sessions: [], rows: [makeRow('fill', 'late', 0)] });
      expect(rows.status).toBe(507);
      const health = await fetch(`${tight.url}/api/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({
        ok: false,
        error: expect.stringMatching(/^the database uses [\d.]+ MB, [\d.]+ MB over its storage budget of 0\.01 MB/),
      });
      expect((await exportJson(tight)).rows).toEqual(stored);
      expect(tight.output()).toContain('"event":"storage-budget"');
    } finally {
      expect(await tight.stop()).toBe(0);
    }
    for (const bad of ['0', 'ten', '-1']) {
      const r = spawnSync(
        process.execPath,
        [path.join(ROOT, 'scripts', 'serve.mjs'), '--data', data, '--port', '0', `--max-db-mb=${bad}`],
        { cwd: ROOT, env: { ...process.env, INIT_CWD: ROOT }, encoding: 'utf8', timeout: 60_000 },
      );
      expect(r.status, bad).toBe(2);
      expect(r.stderr).toContain('--max-db-mb must be a number of megabytes above 0');
    }
  }, 120_000);
});

/** The row a participant's page would record for trial `i` of an issued session; with `long`, the longest story instead of the trial's. */
const rowOf = (grant: SessionGrant, i: number, long: boolean): ResultRow =>
  scheduledRow(STUDY, grant, i, long ? { story: STORY } : {});

async function exportJson(server: RunningServer): Promise<{ rows: ResultRow[] }> {
  const res = await fetch(`${server.url}/api/results.json`, { headers: { authorization: `Bearer ${server.token}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as { rows: ResultRow[] };
}
