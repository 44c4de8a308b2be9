/**
 * Sessions that hold across devices and against one hostile participant, in-process through
 * Hono's app.request() with a real SQLite file: each request comes from a TCP peer address the
 * test names, and the sessions' clock is the test's.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StudyDefinition } from '../src/study/definition/definition';
import { encodeStudyLink } from '../src/study/definition/link';
import { rowsToCsv, type ResultRow, type SessionInfo } from '../src/study/results/results';
import { scheduleParticipant } from '../src/study/schedule/schedule';
import type { SessionGrant } from '../src/study/delivery/serverApi';
import { ResultStore } from './store';
import { crossedStudy, scheduledRow, tempDirs, testApp } from './testServer';

const tempDir = tempDirs('clutrr-session-rules-');
const RESEARCHER = 'researcher-token-for-tests-0123456789';

/** Two conditions × two lists: four cells for the balanced counter. */
const STUDY: StudyDefinition = crossedStudy('rules', 11);

function setup() {
  const store = ResultStore.open(path.join(tempDir(), 'results.sqlite'));
  const logs: Record<string, unknown>[] = [];
  const clock = { now: new Date() };
  const app = testApp(store, RESEARCHER, (e) => logs.push(e), { now: () => clock.now });
  /** A request from the TCP peer `address` (as @hono/node-server passes the socket). */
  const send = (p: string, init: RequestInit, address: string) =>
    app.request(p, init, { incoming: { socket: { remoteAddress: address } } });
  const post = (p: string, body: unknown, address = '192.0.2.1', headers: Record<string, string> = {}) =>
    send(
      p,
      {
        method: 'POST',
        headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      },
      address,
    );
  const register = async (def: StudyDefinition) => {
    const res = await post('/api/studies', { token: encodeStudyLink(def) }, '127.0.0.1', {
      authorization: `Bearer ${RESEARCHER}`,
    });
    expect(res.status).toBe(201);
  };
  const start = async (body: Record<string, unknown>, address: string, headers: Record<string, string> = {}) => {
    const res = await post('/api/sessions', body, address, headers);
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const rows = (body: { sessions: SessionInfo[]; rows: ResultRow[]; secrets?: unknown[] }, address = '192.0.2.1') =>
    post('/api/rows', body, address);
  return { store, app, logs, clock, post, register, start, rows };
}

const secretsOf = (g: SessionGrant) => [{ session_id: g.session_id, secret: g.secret }];
const conditionOf = (g: SessionGrant) =>
  scheduleParticipant(STUDY, {
    participantNumber: g.participant,
    sessionSeed: g.session_id,
    forcedCondition: g.condition ?? undefined,
  }).condition.id;
const device = (g: SessionGrant, who: Partial<SessionInfo>): SessionInfo => ({
  study_id: STUDY.studyId,
  session_id: g.session_id,
  participant_id: '',
  condition: conditionOf(g),
  user_agent: 'Phone',
  screen: '390x844@3',
  started_at: new Date().toISOString(),
  ...who,
});

describe('a session across devices', () => {
  it('stores every answer of a second device, and the export says which device answered each trial', async () => {
    const t = setup();
    await t.register(STUDY);
    const who = { participant_id: 'p1', prolific_study_id: 's1', prolific_session_id: 'x1' };
    const phone = (await t.start({ study_id: 'rules', ...who }, '198.51.100.20')).json as unknown as SessionGrant;
    // Each trial's row made once, as the page records it (a retry sends the same bytes).
    const made = new Map<number, ResultRow>();
    const row = (i: number) => made.get(i) ?? made.set(i, scheduledRow(STUDY, phone, i, who)).get(i)!;
    const phoneInfo = device(phone, { participant_id: 'p1' });
    expect((await t.rows({ sessions: [phoneInfo], rows: [0, 1, 2].map(row), secrets: secretsOf(phone) })).status).toBe(
      200,
    );
    // The same link on a desktop: the same session, its answered trials listed.
    const desk = await t.start({ study_id: 'rules', ...who }, '203.0.113.9');
    expect(desk.status).toBe(200);
    const again = desk.json as unknown as SessionGrant;
    expect(again.session_id).toBe(phone.session_id);
    expect(again.answered).toEqual([0, 1, 2]);
    const deskInfo = device(again, {
      participant_id: 'p1',
      user_agent: 'Desktop',
      screen: '1280x800@1',
      started_at: new Date(Date.now() + 1000).toISOString(),
    });
    const rest = scheduleParticipant(STUDY, { participantNumber: again.participant, sessionSeed: again.session_id })
      .trials.length;
    const later = Array.from({ length: rest - 3 }, (_, i) => row(3 + i));
    const res = await t.rows({ sessions: [deskInfo], rows: later, secrets: secretsOf(again) }, '203.0.113.9');
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ stored: later.length, unchanged: 0 });
    // A late retry of the phone's rows is acknowledged, not a conflict.
    expect((await t.rows({ sessions: [phoneInfo], rows: [row(1)], secrets: secretsOf(phone) })).status).toBe(200);
    expect(t.store.rows('rules')).toHaveLength(rest);
    const csv = await (
      await t.app.request('/api/results.csv?study=rules', { headers: { authorization: `Bearer ${RESEARCHER}` } })
    ).text();
    const lines = csv.trim().split('\r\n').slice(1);
    expect(lines.slice(0, 3).every((l) => l.endsWith(',Phone,390x844@3'))).toBe(true);
    expect(lines.slice(3).every((l) => l.endsWith(',Desktop,1280x800@1'))).toBe(true);
    // With one device, the export is the page's own CSV, byte for byte.
    expect(rowsToCsv(t.store.rows('rules').slice(0, 3), [phoneInfo])).toBe(
      `${csv.split('\r\n').slice(0, 4).join('\r\n')}\r\n`,
    );
  });

  it('a session keeps its fixed facts: another condition or participant for it is still refused', async () => {
    const t = setup();
    await t.register(STUDY);
    const g = (await t.start({ study_id: 'rules' }, '198.51.100.21')).json as unknown as SessionGrant;
    const other = conditionOf(g) === 'timed' ? 'untimed' : 'timed';
    const res = await t.rows({
      sessions: [device(g, { condition: other })],
      rows: [scheduledRow(STUDY, g, 0)],
      secrets: secretsOf(g),
    });
    expect(res.status).toBe(400);
    expect(t.store.rows('rules')).toEqual([]);
  });
});

describe('resuming needs what only the participant has', () => {
  it('a Prolific id alone gets no secret; another SESSION_ID is refused; the same one resumes', async () => {
    const t = setup();
    await t.register(STUDY);
    const first = await t.start(
      { study_id: 'rules', participant_id: 'victim', prolific_session_id: 'S-1' },
      '192.0.2.30',
    );
    expect(first.status).toBe(201);
    const bare = await t.start({ study_id: 'rules', participant_id: 'victim' }, '203.0.113.66');
    expect(bare.status).toBe(403);
    expect(bare.json).toMatchObject({ reason: 'resume-code' });
    expect(bare.json.secret).toBeUndefined();
    const forged = await t.start(
      { study_id: 'rules', participant_id: 'victim', prolific_session_id: 'S-2' },
      '203.0.113.66',
    );
    expect(forged.status).toBe(403);
    expect(forged.json).toMatchObject({
      reason: 'resume-refused',
      error: expect.stringMatching(/another Prolific session/),
    });
    expect(forged.json.secret).toBeUndefined();
    const same = await t.start(
      { study_id: 'rules', participant_id: 'victim', prolific_session_id: 'S-1' },
      '203.0.113.7',
    );
    expect(same.status).toBe(200);
    expect(same.json.secret).toBe(first.json.secret);
    expect(t.logs.filter((l) => l.event === 'refused-resume').map((l) => l.reason)).toEqual([
      'resume-code',
      'resume-refused',
    ]);
  });

  it('without Prolific ids, the resume code continues the session on another device; wrong codes are limited', async () => {
    const t = setup();
    await t.register(STUDY);
    const g = (await t.start({ study_id: 'rules' }, '192.0.2.40')).json as unknown as SessionGrant;
    expect(g.resume_code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    // Typed in lower case, without the hyphen, with an O for a zero: the same code.
    const typed = g.resume_code.toLowerCase().replace('-', ' ').replace(/0/g, 'o');
    const other = await t.start({ study_id: 'rules', resume_code: typed }, '203.0.113.50');
    expect(other.status).toBe(200);
    expect(other.json).toMatchObject({ session_id: g.session_id, secret: g.secret, resumed: true });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      statuses.push(
        (await t.start({ study_id: 'rules', resume_code: `ZZZZ-ZZ${String(i).padStart(2, '0')}` }, '203.0.113.51'))
          .status,
      );
    }
    expect(statuses.slice(0, 10)).toEqual(Array<number>(10).fill(403));
    expect(statuses.slice(10)).toEqual([429, 429]);
  });
});

describe('assignment the server decides', () => {
  it('ten requests asking for "timed" in a balanced study split 5 / 5, with distinct numbers', async () => {
    const t = setup();
    await t.register(STUDY);
    const grants: SessionGrant[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await t.start({ study_id: 'rules', condition: 'timed', participant: 1 }, `198.51.100.${100 + i}`);
      expect(r.status).toBe(201);
      grants.push(r.json as unknown as SessionGrant);
    }
    expect(grants.map((g) => g.participant)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(grants.every((g) => g.condition === null)).toBe(true);
    const timed = grants.filter((g) => conditionOf(g) === 'timed').length;
    expect(timed).toBe(5);
    // With the researcher's token (a preview, a test) the request may choose.
    const chosen = await t.start({ study_id: 'rules', condition: 'timed', participant: 77 }, '198.51.100.99', {
      authorization: `Bearer ${RESEARCHER}`,
    });
    expect(chosen.json).toMatchObject({ condition: 'timed', participant: 77 });
  });
});

describe('limits by where participants are, and slots that return', () => {
  it('an online study: one address starts at most 5 sessions an hour, so a quota of 6 is not its to fill', async () => {
    const t = setup();
    await t.register(STUDY);
    await t.post('/api/studies', {}, '127.0.0.1'); // nothing: just the token check path
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await t.start({ study_id: 'rules' }, '203.0.113.200')).status);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429, 429]);
    // An honest participant from elsewhere still gets the sixth place of a quota of 6.
    const { StudyAccess } = await import('./sessions');
    new StudyAccess(t.store).update('rules', { maxSessions: 6 });
    expect((await t.start({ study_id: 'rules' }, '192.0.2.77')).status).toBe(201);
    expect((await t.start({ study_id: 'rules' }, '192.0.2.78')).status).toBe(403);
    // An hour later the address may start more (the window slides).
    t.clock.now = new Date(t.clock.now.getTime() + 61 * 60_000);
    new StudyAccess(t.store).update('rules', { maxSessions: null });
    expect((await t.start({ study_id: 'rules' }, '203.0.113.200')).status).toBe(201);
  });

  it('a room study: a class of 40 behind one address runs', async () => {
    const t = setup();
    await t.register({ ...STUDY, studyId: 'class', participation: 'room', roomSessions: 40 });
    const statuses = [];
    for (let i = 0; i < 41; i++) statuses.push((await t.start({ study_id: 'class' }, '10.1.2.3')).status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(40);
    expect(statuses.at(-1)).toBe(429);
  });

  it('a session that stores no answer within claimMinutes gives back its quota place and its counter cell', async () => {
    const t = setup();
    await t.register({ ...STUDY, claimMinutes: 15 });
    const { StudyAccess } = await import('./sessions');
    new StudyAccess(t.store).update('rules', { maxSessions: 3 });
    const g = async (address: string) =>
      (await t.start({ study_id: 'rules' }, address)).json as unknown as SessionGrant;
    const a = await g('192.0.2.1');
    const b = await g('192.0.2.2');
    const c = await g('192.0.2.3');
    expect([a, b, c].map((x) => x.participant)).toEqual([0, 1, 2]);
    // a answers; b and c never do.
    expect(
      (await t.rows({ sessions: [device(a, {})], rows: [scheduledRow(STUDY, a, 0)], secrets: secretsOf(a) })).status,
    ).toBe(200);
    expect((await t.start({ study_id: 'rules' }, '192.0.2.4')).status).toBe(403);
    t.clock.now = new Date(t.clock.now.getTime() + 16 * 60_000);
    // Their places and cells (1 and 2) go to the next two, lowest first; the counter moves on after.
    const d = await g('192.0.2.5');
    const e = await g('192.0.2.6');
    expect([d.participant, e.participant]).toEqual([1, 2]);
    expect((await t.start({ study_id: 'rules' }, '192.0.2.7')).status).toBe(403);
    // b comes back after all: its answer is stored (never lost); it shares cell 1 with d (logged).
    const late = scheduledRow(STUDY, b, 0, {
      started_at: new Date(t.clock.now.getTime() - 5000).toISOString(),
      answered_at: new Date(t.clock.now.getTime() - 1000).toISOString(),
    });
    expect((await t.rows({ sessions: [device(b, {})], rows: [late], secrets: secretsOf(b) })).status).toBe(200);
    expect(t.logs.some((l) => l.event === 'reclaimed-shares-cell' && l.session_id === b.session_id)).toBe(true);
  });
});

describe('facts recomputed, not believed', () => {
  it('refuses a row whose puzzle, answer or times are made up, or with a control character; stores nothing of it', async () => {
    const t = setup();
    await t.register(STUDY);
    const g = (await t.start({ study_id: 'rules' }, '192.0.2.60')).json as unknown as SessionGrant;
    const good = scheduledRow(STUDY, g, 1);
    const wrong = good.gold === 'aunt' ? 'uncle' : 'aunt';
    const cases: [Partial<ResultRow>, RegExp][] = [
      [{ gold: '@SUM(1+1)' }, /^rows\.0\.gold: .* is not the puzzle of trial 1/],
      [{ story: 'Anna is the mother of Ben.' }, /^rows\.0\.story: /],
      [{ query_a: 'Mallory' }, /^rows\.0\.query_a: /],
      [{ response: wrong, correct: true }, /^rows\.0\.correct: true is not what the response/],
      [{ response: 'king', correct: false }, /^rows\.0\.response: "king" is not one of the relation words/],
      [{ story: `${good.story}\u0000` }, /^rows\.0\.story: control characters/],
      [{ started_at: '2020-01-01T00:00:00.000Z' }, /^rows\.0\.started_at: .* before the session was issued/],
      [{ answered_at: '2099-01-01T00:00:00.000Z' }, /^rows\.0\.answered_at: .* later than the server's time/],
      [{ rt_ms: 60_000 }, /^rows\.0\.rt_ms: 60000 is longer than the time/],
      [{ started_at: 'yesterday' }, /^rows\.0\.started_at: "yesterday" is not a time/],
    ];
    for (const [change, pattern] of cases) {
      const res = await t.rows({ sessions: [device(g, {})], rows: [{ ...good, ...change }], secrets: secretsOf(g) });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(((await res.json()) as { error: string }).error, JSON.stringify(change)).toMatch(pattern);
    }
    expect(t.store.rows('rules')).toEqual([]);
    expect(t.store.sessionInfos('rules')).toEqual([]);
    // A session request's ids are held to the same rule.
    const badId = await t.start({ study_id: 'rules', participant_id: 'p\u0007' }, '192.0.2.61');
    expect(badId).toMatchObject({ status: 400, json: { error: 'participant_id: control characters are not allowed' } });
    const ok = await t.rows({ sessions: [device(g, {})], rows: [good], secrets: secretsOf(g) });
    expect(ok.status).toBe(200);
  });
});

describe('studies registered by an earlier version', () => {
  it('lack the settings added since and take their defaults (online, 15 minutes to the first answer)', async () => {
    const t = setup();
    await t.register(STUDY);
    // As an earlier server stored it: the definition without the fields added since.
    const stored = JSON.parse(
      (
        t.store.handleForTests().prepare("SELECT definition FROM studies WHERE study_id = 'rules'").get() as {
          definition: string;
        }
      ).definition,
    ) as Record<string, unknown>;
    for (const field of ['participation', 'roomSessions', 'claimMinutes']) delete stored[field];
    t.store
      .handleForTests()
      .prepare("UPDATE studies SET definition = ? WHERE study_id = 'rules'")
      .run(JSON.stringify(stored));
    // A server started on that database (a fresh StudyAccess reads the stored definition).
    const { StudyAccess } = await import('./sessions');
    const access = new StudyAccess(t.store, { now: () => t.clock.now });
    const start = (address: string) => access.issue({ study_id: 'rules' }, { address });
    const statuses = Array.from({ length: 6 }, () => start('203.0.113.80')).map((o) => (o.ok ? o.status : o.status));
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
    t.clock.now = new Date(t.clock.now.getTime() + 16 * 60_000);
    const next = start('192.0.2.81');
    if (!next.ok) throw new Error(next.message);
    // The idle sessions gave their numbers back: the lowest goes first.
    expect(next.grant.participant).toBe(0);
  });
});
