/**
 * Issued sessions, the balanced counter, close/open and quotas, short links and the per-client
 * limits, in-process through Hono's app.request() with a real SQLite file.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withDefaults, type StudyDefinition } from '../src/study/definition/definition';
import { encodeStudyLink } from '../src/study/definition/link';
import type { ResultRow, SessionInfo } from '../src/study/results/results';
import { scheduleParticipant } from '../src/study/schedule/schedule';
import type { SessionGrant } from '../src/study/delivery/serverApi';
import { DEFAULT_ACCESS_LIMITS, type AccessLimits } from './limits';
import { CLOSED_MESSAGE, FULL_MESSAGE, StudyAccess } from './sessions';
import { ResultStore } from './store';
import { crossedStudy, downgradeDatabase, makeRow, scheduledRow, tempDirs, testApp } from './testServer';

const tempDir = tempDirs('clutrr-sessions-');

const RESEARCHER = 'researcher-token-for-tests-0123456789';

/** A 2-condition × 2-list study: 4 cells for the balanced counter. */
const CROSSED: StudyDefinition = crossedStudy('crossed', 7);

function setup(options: { limits?: AccessLimits; logs?: Record<string, unknown>[] } = {}) {
  const store = ResultStore.open(path.join(tempDir(), 'results.sqlite'));
  const logs = options.logs ?? [];
  const app = testApp(store, RESEARCHER, (e) => logs.push(e), {
    trustProxy: true,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request(p, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const register = async (def: StudyDefinition, sessions?: 'issued' | 'browser') =>
    post(
      '/api/studies',
      { token: encodeStudyLink(def), ...(sessions ? { sessions } : {}) },
      { authorization: `Bearer ${RESEARCHER}` },
    );
  const start = async (body: Record<string, unknown>, address = '192.0.2.1', headers: Record<string, string> = {}) => {
    const res = await post('/api/sessions', body, { 'x-forwarded-for': address, ...headers });
    return { status: res.status, json: (await res.json()) as Record<string, unknown>, res };
  };
  return { store, app, post, register, start, access: new StudyAccess(store), logs };
}

/** The rows a participant's page records for the first `n` trials of an issued session. */
const rowsOf = (def: StudyDefinition, grant: SessionGrant, n: number, participantId = ''): ResultRow[] =>
  Array.from({ length: n }, (_, i) => scheduledRow(def, grant, i, { participant_id: participantId }));

const sessionOf = (def: StudyDefinition, grant: SessionGrant, condition: string): SessionInfo => ({
  study_id: def.studyId,
  session_id: grant.session_id,
  participant_id: '',
  condition,
  user_agent: 'test',
  screen: '1x1@1',
  started_at: '2026-11-27T00:00:00.000Z',
});

describe('POST /api/sessions', () => {
  it('balances 12 sessions of a 2-condition × 2-list study started without participant=: 3 per cell', async () => {
    const t = setup();
    expect((await t.register(CROSSED, 'issued')).status).toBe(201);
    const cells = new Map<string, number>();
    const numbers: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await t.start({ study_id: 'crossed' }, `192.0.2.${i + 1}`);
      expect(r.status).toBe(201);
      const grant = r.json as unknown as SessionGrant;
      numbers.push(grant.participant);
      const s = scheduleParticipant(CROSSED, { participantNumber: grant.participant, sessionSeed: grant.session_id });
      const cell = `${s.condition.id}/${s.list}`;
      cells.set(cell, (cells.get(cell) ?? 0) + 1);
    }
    expect(numbers).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect([...cells.entries()].sort()).toEqual([
      ['timed/0', 3],
      ['timed/1', 3],
      ['untimed/0', 3],
      ['untimed/1', 3],
    ]);
  });

  it('answers session id, secret and participant; the same Prolific id resumes without a new counter value', async () => {
    const t = setup();
    await t.register(CROSSED, 'issued');
    const a = await t.start({
      study_id: 'crossed',
      participant_id: 'PID-1',
      prolific_study_id: 'S',
      prolific_session_id: 'X',
    });
    expect(a.status).toBe(201);
    expect(a.json).toMatchObject({ study_id: 'crossed', participant: 0, condition: null, resumed: false });
    expect(a.json.session_id).toMatch(/^i[A-Za-z0-9_-]{22}$/);
    expect(a.json.secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const again = await t.start({
      study_id: 'crossed',
      participant_id: 'PID-1',
      prolific_study_id: 'S',
      prolific_session_id: 'X',
    });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ ...a.json, resumed: true, server_time: again.json.server_time });
    const other = await t.start({ token: `?study=${encodeStudyLink(CROSSED)}`, participant_id: 'PID-2' }, '192.0.2.2');
    expect(other.status).toBe(201);
    expect(other.json.participant).toBe(1);
    expect(other.json.session_id).not.toBe(a.json.session_id);
    // Anonymous browsers get a new session each time (the page keeps its own).
    const anon1 = await t.start({ study_id: 'crossed' }, '192.0.2.3');
    const anon2 = await t.start({ study_id: 'crossed' }, '192.0.2.4');
    expect([anon1.json.participant, anon2.json.participant]).toEqual([2, 3]);
    // participant= from the link, with the researcher's token (a preview, a test), is used as is
    // and takes no counter value.
    const numbered = await t.start({ study_id: 'crossed', participant: 40, condition: 'timed' }, '192.0.2.5', {
      authorization: `Bearer ${RESEARCHER}`,
    });
    expect(numbered.json).toMatchObject({ participant: 40, condition: 'timed' });
    expect((await t.start({ study_id: 'crossed' }, '192.0.2.6')).json.participant).toBe(4);
    expect(t.access.state('crossed')).toMatchObject({ issued: 6, next_participant: 5 });
  });

  it('requests arriving together (batched in one transaction) get distinct numbers; one participant id, one session', async () => {
    const t = setup();
    await t.register(CROSSED, 'issued');
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => t.start({ study_id: 'crossed' }, `192.0.2.${i + 1}`)),
      t.start({ study_id: 'crossed', participant_id: 'twice', prolific_session_id: 'X' }, '192.0.2.50'),
      t.start({ study_id: 'crossed', participant_id: 'twice', prolific_session_id: 'X' }, '192.0.2.51'),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([...Array<number>(11).fill(201), 200].sort());
    const numbers = answers.map((a) => a.json.participant as number);
    expect(new Set(numbers.slice(0, 11))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    expect(answers[10]!.json.session_id).toBe(answers[11]!.json.session_id);
    expect(t.access.state('crossed')).toMatchObject({ issued: 11, next_participant: 11 });
  });

  it('refuses with a message the participant understands: unknown, closed, full, bad requests', async () => {
    const t = setup();
    await t.register(CROSSED, 'issued');
    const unknown = await t.start({ study_id: 'nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({
      error: 'There is no study "nope" here. Please check the link you were given.',
      reason: 'unknown-study',
    });

    const running = await t.start({ study_id: 'crossed', participant_id: 'P-running', prolific_session_id: 'R' });
    t.access.update('crossed', { closed: true });
    const closed = await t.start({ study_id: 'crossed', participant_id: 'P-new' }, '192.0.2.2');
    expect(closed.status).toBe(403);
    expect(closed.json).toEqual({ error: CLOSED_MESSAGE, reason: 'closed' });
    // A running session finishes: its participant gets it again.
    const resumed = await t.start({ study_id: 'crossed', participant_id: 'P-running', prolific_session_id: 'R' });
    expect(resumed.status).toBe(200);
    expect(resumed.json.session_id).toBe(running.json.session_id);
    t.access.update('crossed', { closed: false, maxSessions: 2 });
    expect((await t.start({ study_id: 'crossed' }, '192.0.2.3')).status).toBe(201);
    const full = await t.start({ study_id: 'crossed' }, '192.0.2.4');
    expect(full.status).toBe(403);
    expect(full.json).toEqual({ error: FULL_MESSAGE, reason: 'full' });
    t.access.update('crossed', { maxSessions: null });

    for (const [body, status, pattern] of [
      ['{"study_id":', 400, /not JSON/],
      [{}, 400, /study_id.*token/],
      [{ study_id: 'crossed', token: 'x' }, 400, /one of the two/],
      [{ study_id: 'crossed', participant_id: 'x'.repeat(201) }, 400, /^participant_id: /],
      [{ study_id: 'crossed', participant: -1 }, 400, /^participant: /],
      [{ study_id: 'crossed', extra: 1 }, 400, /extra/],
      [{ study_id: 'crossed', condition: 'fast' }, 400, /condition "fast", which this study does not have/],
      [{ token: encodeStudyLink({ ...CROSSED, seed: 8 }) }, 409, /another version of the study/],
      [{ token: 's1.garbage' }, 400, /study link/],
    ] as const) {
      const r = await t.start(body as Record<string, unknown>, '192.0.2.9', { authorization: `Bearer ${RESEARCHER}` });
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(String(r.json.error), JSON.stringify(body)).toMatch(pattern);
    }
    const byUrl = withDefaults({ studyId: 'by-url', assignment: 'url' });
    await t.register(byUrl);
    expect((await t.start({ study_id: 'by-url' }, '192.0.2.10')).json.error).toMatch(/assigns conditions by link/);
    expect((await t.start({ study_id: 'by-url', condition: 'untimed' }, '192.0.2.10')).status).toBe(201);
  });

  it('is not behind the researcher token; GET /api/sessions still is', async () => {
    const t = setup();
    await t.register(CROSSED);
    expect((await t.start({ study_id: 'crossed' })).status).toBe(201);
    expect((await t.app.request('/api/sessions')).status).toBe(401);
  });
});

describe('GET /api/studies/<id>/link (short links)', () => {
  it('answers a registered study token without the researcher token; 404 otherwise', async () => {
    const t = setup();
    await t.register(CROSSED);
    const res = await t.app.request('/api/studies/crossed/link');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ study_id: 'crossed', token: encodeStudyLink(CROSSED) });
    const none = await t.app.request('/api/studies/nope/link');
    expect(none.status).toBe(404);
    expect(((await none.json()) as { error: string }).error).toMatch(/no study "nope"/);
    expect((await t.app.request('/api/studies/..%2F..%2Fx/link')).status).toBe(404);
    expect((await t.app.request('/api/studies')).status).toBe(401);
  });
});

describe('POST /api/rows with issued sessions', () => {
  it('refuses rows of a session not issued here (403), a missing or wrong secret (403), and logs them', async () => {
    const t = setup();
    await t.register(CROSSED, 'issued');
    const browserMade = await t.post('/api/rows', { sessions: [], rows: [makeRow('crossed', 'made-by-browser', 0)] });
    expect(browserMade.status).toBe(403);
    expect(await browserMade.json()).toMatchObject({
      reason: 'not-issued',
      error: expect.stringMatching(/was not issued by this server/),
    });
    const grant = (await t.start({ study_id: 'crossed' })).json as unknown as SessionGrant;
    const rows = rowsOf(CROSSED, grant, 2);
    const missing = await t.post('/api/rows', { sessions: [], rows });
    expect(missing.status).toBe(403);
    expect(((await missing.json()) as { error: string }).error).toMatch(/secret .* is missing/);
    const wrong = await t.post('/api/rows', {
      sessions: [],
      rows,
      secrets: [{ session_id: grant.session_id, secret: 'x'.repeat(32) }],
    });
    expect(wrong.status).toBe(403);
    expect(((await wrong.json()) as { error: string }).error).toMatch(/is wrong/);
    expect(t.logs.filter((l) => l.event === 'refused-rows').map((l) => l.reason)).toEqual([
      'not-issued',
      'secret',
      'secret',
    ]);
    expect(t.store.rows('crossed')).toEqual([]);
  });

  it('stores the rows of an issued session with its secret, and refuses rows that disagree with its schedule (400)', async () => {
    const t = setup();
    await t.register(CROSSED, 'issued');
    // Participant 1 of the crossed study: a timed cell in some lists, untimed in others; whatever it is, the rows follow it.
    const grant = (await t.start({ study_id: 'crossed', participant_id: 'PID-9' })).json as unknown as SessionGrant;
    const rows = rowsOf(CROSSED, grant, 6, 'PID-9');
    const secrets = [{ session_id: grant.session_id, secret: grant.secret }];
    const schedule = scheduleParticipant(CROSSED, {
      participantNumber: grant.participant,
      sessionSeed: grant.session_id,
    });
    const session = { ...sessionOf(CROSSED, grant, schedule.condition.id), participant_id: 'PID-9' };
    const ok = await t.post('/api/rows', { sessions: [session], rows: rows.slice(0, 3), secrets });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ stored: 3, unchanged: 0 });
    // The same participant again (another device, with the resume code): the resumed grant lists what is stored.
    const again = (
      await t.start({ study_id: 'crossed', participant_id: 'PID-9', resume_code: grant.resume_code }, '203.0.113.77')
    ).json as unknown as SessionGrant;
    expect(again).toEqual({
      ...grant,
      resumed: true,
      answered: rows.slice(0, 3).map((x) => x.trial_index),
      server_time: again.server_time,
    });
    const other = schedule.condition.id === 'timed' ? 'untimed' : 'timed';
    const r = rows[3]!;
    for (const [change, pattern] of [
      [{ k: 9 }, /^rows\.0\.k: 9 is not what trial 3/],
      [{ task: 2 }, /^rows\.0\.task/],
      [{ puzzle_id: 'main-k9-t1-0' }, /^rows\.0\.puzzle_id/],
      [{ seed: r.seed + 1 }, /^rows\.0\.seed/],
      [{ time_limit_s: r.time_limit_s === null ? 5 : null }, /^rows\.0\.time_limit_s/],
      [{ condition: other }, /^rows\.0\.condition/],
      [{ participant_id: 'PID-other' }, /^rows\.0\.participant_id/],
      [{ strict: false }, /^rows\.0\.strict/],
      [{ trial_index: 99 }, /^rows\.0\.trial_index: 99 is past the session's last trial \(5\)/],
    ] as const) {
      const res = await t.post('/api/rows', { sessions: [], rows: [{ ...r, ...change }], secrets });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(((await res.json()) as { error: string }).error, JSON.stringify(change)).toMatch(pattern);
    }
    const badSession = await t.post('/api/rows', { sessions: [{ ...session, condition: other }], rows: [r], secrets });
    expect(badSession.status).toBe(400);
    expect(t.store.rows('crossed')).toHaveLength(3);
    expect((await t.post('/api/rows', { sessions: [], rows: rows.slice(3), secrets })).status).toBe(200);
    expect(t.store.rows('crossed')).toHaveLength(6);
  });

  it('a browser-mode study (registered before issue 20) still takes browser-made sessions; issued ones are checked there too', async () => {
    const t = setup();
    await t.register(withDefaults({ studyId: 'old' }), 'browser');
    const made = await t.post('/api/rows', { sessions: [], rows: [makeRow('old', 'browser-1', 0)] });
    expect(made.status).toBe(200);
    const grant = (await t.start({ study_id: 'old' })).json as unknown as SessionGrant;
    const noSecret = await t.post('/api/rows', {
      sessions: [],
      rows: rowsOf(withDefaults({ studyId: 'old' }), grant, 1),
    });
    expect(noSecret.status).toBe(403);
    // What the definition alone fixes is checked for browser-made sessions too.
    for (const [change, pattern] of [
      [{ k: 9 }, /^rows\.0\.k: 9 is not a k of study "old" \(2, 3, 4\)$/],
      [{ task: 3 }, /^rows\.0\.task: 3 is not a task/],
      [{ time_limit_s: 20 }, /^rows\.0\.time_limit_s: 20 is not the time limit of condition "untimed" \(null\)$/],
      [{ strict: false }, /^rows\.0\.strict/],
    ] as const) {
      const res = await t.post('/api/rows', { sessions: [], rows: [makeRow('old', 'browser-1', 2, change)] });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(pattern);
    }
    // Closed: sessions under way finish, a new browser-made session is refused with the participant's message.
    t.access.update('old', { closed: true });
    expect((await t.post('/api/rows', { sessions: [], rows: [makeRow('old', 'browser-1', 1)] })).status).toBe(200);
    const late = await t.post('/api/rows', { sessions: [], rows: [makeRow('old', 'browser-2', 0)] });
    expect(late.status).toBe(403);
    expect(await late.json()).toEqual({ error: CLOSED_MESSAGE, reason: 'closed' });
    // Quota: 2 sessions (browser-1 and the issued one count once they have sent something; browser-1 has).
    t.access.update('old', { closed: false, maxSessions: 2 });
    expect((await t.post('/api/rows', { sessions: [], rows: [makeRow('old', 'browser-2', 0)] })).status).toBe(200);
    const over = await t.post('/api/rows', { sessions: [], rows: [makeRow('old', 'browser-3', 0)] });
    expect(over.status).toBe(403);
    expect(((await over.json()) as { reason: string }).reason).toBe('full');
  });

  it('studies registered before the schema step take browser-made sessions; new ones take the mode they are given', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'results.sqlite');
    {
      // A version-1 database with one registered study, as made before issue 20.
      const old = ResultStore.open(file);
      old.registerStudy({ token: encodeStudyLink(withDefaults({ studyId: 'before' })) });
      downgradeDatabase(old.handleForTests(), 1);
      old.close();
      const db = new Database(file);
      expect(db.pragma('user_version', { simple: true })).toBe(1);
      db.close();
    }
    const store = ResultStore.open(file);
    const access = new StudyAccess(store);
    expect(access.state('before')).toMatchObject({ sessions: 'browser', closed: false, max_sessions: null });
    expect(access.register({ token: encodeStudyLink(CROSSED) }, 'issued').sessions).toBe('issued');
    // Registering the same study again without a mode keeps its mode.
    expect(access.register({ token: encodeStudyLink(CROSSED) }).sessions).toBe('issued');
    expect(access.update('before', { sessions: 'issued' }).sessions).toBe('issued');
    expect(() => access.update('nope', { closed: true })).toThrow(/no study "nope"/);
    store.close();
  });

  it('does not replace a study that has issued sessions by another definition', async () => {
    const t = setup();
    await t.register(CROSSED, 'issued');
    await t.start({ study_id: 'crossed' });
    const res = await t.register({ ...CROSSED, seed: 99 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/already has issued sessions/);
    const bad = await t.post(
      '/api/studies',
      { token: encodeStudyLink(CROSSED), sessions: 'maybe' },
      { authorization: `Bearer ${RESEARCHER}` },
    );
    expect(bad.status).toBe(400);
  });
});

describe('limits that hold against one client', () => {
  const tight: AccessLimits = {
    addressSessions: { perSecond: 0.01, burst: 3 },
    studySessions: { perSecond: 0.01, burst: 5 },
    addressBytes: { perSecond: 1, burst: 600 * 1024 },
    studyBytes: { perSecond: 1, burst: 1024 * 1024 },
    addressQueue: { perSecond: 1, burst: 120 },
  };

  it('new sessions: per address, then per study; 429 with Retry-After; resumes are not limited', async () => {
    const t = setup({ limits: tight });
    await t.register(CROSSED);
    for (let i = 0; i < 3; i++)
      expect(
        (await t.start({ study_id: 'crossed', participant_id: `A${i}`, prolific_session_id: 'X' }, '198.51.100.7'))
          .status,
      ).toBe(201);
    const limited = await t.start({ study_id: 'crossed' }, '198.51.100.7');
    expect(limited.status).toBe(429);
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.json.error).toMatch(/too many new sessions from your network/);
    expect(
      (await t.start({ study_id: 'crossed', participant_id: 'A0', prolific_session_id: 'X' }, '198.51.100.7')).status,
    ).toBe(200);
    // Another address may start two more, then the study's own limit (5) holds for every address.
    expect((await t.start({ study_id: 'crossed' }, '198.51.100.8')).status).toBe(201);
    expect((await t.start({ study_id: 'crossed' }, '198.51.100.9')).status).toBe(201);
    const study = await t.start({ study_id: 'crossed' }, '198.51.100.10');
    expect(study.status).toBe(429);
    expect(study.json.error).toMatch(/too many new sessions for this study/);
    expect(t.access.state('crossed')!.issued).toBe(5);
  });

  it('bytes: per address across session ids the client makes up; 429 with Retry-After and nothing stored', async () => {
    const t = setup({ limits: { ...tight, addressBytes: { perSecond: 1, burst: 300 * 1024 } } });
    await t.register(withDefaults({ studyId: 'old' }), 'browser');
    const story = 'x'.repeat(20_000);
    const body = (n: number) => ({
      sessions: [],
      rows: Array.from({ length: 5 }, (_, i) => makeRow('old', `made-${n}-${i}`, 0, { story })),
    });
    let stored = 0;
    let limited: Response | undefined;
    for (let n = 0; n < 10 && !limited; n++) {
      const res = await t.post('/api/rows', body(n), { 'x-forwarded-for': '203.0.113.5' });
      if (res.status === 200) stored++;
      else limited = res;
    }
    expect(limited?.status).toBe(429);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // About 100 KB per request: 300 KB lets two through (the third would pass the burst).
    expect(stored).toBe(2);
    expect(t.store.rows('old')).toHaveLength(10);
    // Another address is not held back by the first.
    expect((await t.post('/api/rows', body(99), { 'x-forwarded-for': '203.0.113.6' })).status).toBe(200);
  });

  it('keeps the defaults wide enough for one request of the largest size', () => {
    expect(DEFAULT_ACCESS_LIMITS.addressBytes.burst).toBeGreaterThanOrEqual(8 * 512 * 1024);
  });
});
