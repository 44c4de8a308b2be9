import { describe, expect, it, vi } from 'vitest';
import { withDefaults, type StudyDefinition } from './definition';
import { leaseLock, type Timer } from './lock';
import { Outbox } from './outbox';
import { MemoryStorage } from './storage';
import {
  CONNECT_ATTEMPTS,
  CONNECT_PATIENCE,
  participantNumberOf,
  sessionIdFor,
  StudyRun,
  type RunIdentity,
  type SessionIssuer,
} from './run';
import { scheduleParticipant, type Trial } from './schedule';
import type { SessionAnswer, SessionRequest } from './serverSession';
import type { Transport } from './transports';
import type { TrialContent } from './trialContent';

const ANON: RunIdentity = {
  participantId: '',
  prolificStudyId: '',
  prolificSessionId: '',
  participantNumber: null,
  forcedCondition: null,
};

/** A clock the test moves by hand; timers never fire on their own. */
function fakeClock(start = Date.parse('2026-03-01T10:00:00.000Z')) {
  let now = start;
  const timer: Timer = { now: () => now, setTimeout: () => 0, clearTimeout: () => undefined };
  return { timer, now: () => now, advance: (ms: number) => (now += ms) };
}

const fakePerf = () => {
  const measures: string[] = [];
  let t = 0;
  return {
    measures,
    perf: {
      mark: () => undefined as unknown as PerformanceMark,
      measure: (name: string) => {
        measures.push(name);
        return undefined as unknown as PerformanceMeasure;
      },
      now: () => (t += 1),
    } as unknown as Pick<Performance, 'mark' | 'measure' | 'now'>,
  };
};

/** A trial's content without generating a puzzle: the gold word is "aunt" for every item. */
const content = (trial: Trial): TrialContent => ({
  puzzleId: trial.item.puzzleId,
  phase: trial.item.phase,
  story: `Story of ${trial.item.puzzleId}.`,
  question: 'How is Bea related to Al?',
  queryA: 'Al',
  queryB: 'Bea',
  gold: 'aunt',
});

interface Setup {
  def?: Partial<StudyDefinition>;
  identity?: Partial<RunIdentity>;
  storage?: MemoryStorage;
  clock?: ReturnType<typeof fakeClock>;
  owner?: string;
  /** Prefix of the anonymous session ids this run draws (two tabs draw different ones). */
  idPrefix?: string;
  declines?: Set<string>;
  issuer?: SessionIssuer;
  sleep?: (ms: number) => Promise<void>;
  transports?: Transport[];
}

async function makeRun(setup: Setup = {}) {
  const storage = setup.storage ?? new MemoryStorage();
  const clock = setup.clock ?? fakeClock();
  const def = withDefaults({ k: [2], itemsPerK: 3, practice: 1, attentionChecks: 1, ...setup.def });
  const outbox = await Outbox.open({
    storage,
    transports: setup.transports ?? [],
    lock: leaseLock(storage, setup.owner ?? 'tab-1', clock.timer),
    timer: clock.timer,
  });
  const { perf, measures } = fakePerf();
  let ids = 0;
  const run = new StudyRun({
    def,
    token: 's1.token',
    identity: { ...ANON, ...setup.identity },
    outbox,
    storage,
    now: clock.now,
    newId: () => `${setup.idPrefix ?? 'anon'}-${++ids}`,
    device: { userAgent: 'test-agent', screen: '390x844@3' },
    makeTrial: async (t) => content(t),
    perf,
    declines: setup.declines,
    ...(setup.issuer ? { issuer: setup.issuer } : {}),
    ...(setup.sleep ? { sleep: setup.sleep } : {}),
  });
  return { run, storage, clock, outbox, measures, def };
}

/** Answers the trial on screen with `word` and rating 3. */
async function answer(run: StudyRun, word: 'aunt' | 'son' = 'aunt') {
  run.pick(word);
  run.rate(3);
  await run.submit();
}

/** Opens, prepares and passes consent and instructions. */
async function begin(run: StudyRun) {
  expect(await run.open()).toBe(true);
  await run.prepare();
  expect(run.state.kind).toBe('consent');
  await run.acceptConsent();
  expect(run.state.kind).toBe('instructions');
  await run.continue();
}

describe('StudyRun', () => {
  it('goes consent → instructions → practice with feedback → trials → completion, one full row each', async () => {
    const { run, measures, outbox } = await makeRun({ identity: { prolificStudyId: 'PS', prolificSessionId: 'PSS' } });
    await begin(run);
    expect(run.state).toMatchObject({ kind: 'trial', trial: { item: { phase: 'practice' } } });
    await answer(run, 'son');
    expect(run.state).toMatchObject({ kind: 'feedback', correct: false, response: 'son' });
    await run.continue();
    for (let i = 0; i < 4; i++) {
      expect(run.state.kind).toBe('trial');
      await answer(run);
    }
    expect(run.state.kind).toBe('complete');
    const rows = await outbox.rows(run.sessionId);
    expect(rows.map((r) => r.phase)).toEqual(['practice', 'main', 'check', 'main', 'main']);
    expect(measures.filter((m) => m === 'study:put')).toHaveLength(5);
    const last = rows[4]!;
    expect(last).toMatchObject({
      study_id: 'study',
      session_id: run.sessionId,
      participant_id: '',
      condition: 'untimed',
      trial_index: 4,
      gold: 'aunt',
      response: 'aunt',
      correct: true,
      difficulty: 3,
      ended_on: 'response',
      time_limit_s: null,
      answer_changes: 0,
      hidden_ms: 0,
      resumed: false,
      strict: true,
      story: expect.stringMatching(/^Story of main-/),
      prolific_study_id: 'PS',
      prolific_session_id: 'PSS',
    });
    expect(Object.keys(last).sort()).toEqual(Object.keys(rows[0]!).sort());
    expect(await outbox.getSession(run.sessionId)).toMatchObject({ user_agent: 'test-agent', screen: '390x844@3' });
  });

  it('does not submit without an answer and a rating, and counts answer changes and hidden time', async () => {
    const { run, clock, outbox } = await makeRun({ def: { practice: 0 } });
    await begin(run);
    run.pick('son');
    await run.submit();
    expect(run.state).toMatchObject({ kind: 'trial', trial: { trialIndex: 0 } });
    run.pick('aunt');
    run.pick('son');
    run.rate(9);
    await run.submit();
    expect(run.state).toMatchObject({ kind: 'trial', trial: { trialIndex: 0 } });
    run.visibility(true);
    clock.advance(1500);
    run.visibility(false);
    clock.advance(500);
    run.rate(2);
    await run.submit();
    const [row] = await outbox.rows(run.sessionId);
    expect(row).toMatchObject({ response: 'son', answer_changes: 2, hidden_ms: 1500, rt_ms: 2000, difficulty: 2 });
  });

  it('shows a break after every breakEvery main trials, with the progress so far', async () => {
    const { run } = await makeRun({ def: { practice: 0, breakEvery: 2 } });
    await begin(run);
    await answer(run);
    await answer(run);
    expect(run.state).toMatchObject({ kind: 'break', done: 2, total: 4 });
    await run.continue();
    expect(run.state).toMatchObject({ kind: 'trial', trial: { trialIndex: 2 } });
  });

  it('resumes after a reload at the first unanswered trial, the interrupted one with resumed=true', async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const first = await makeRun({ storage, clock, def: { practice: 0 } });
    await begin(first.run);
    await answer(first.run);
    const interrupted = first.run.state as { trial: Trial };
    const order = first.run.schedule!.trials.map((t) => t.item.puzzleId);
    await first.outbox.release(first.run.sessionId); // the tab closed
    clock.advance(60_000);

    const second = await makeRun({ storage, clock, def: { practice: 0 }, owner: 'tab-2' });
    expect(await second.run.open()).toBe(true);
    expect(second.run.sessionId).toBe(first.run.sessionId);
    expect(second.run.schedule!.trials.map((t) => t.item.puzzleId)).toEqual(order);
    await second.run.prepare();
    expect(second.run.state).toMatchObject({ kind: 'trial', resumed: true, trial: interrupted.trial });
    await answer(second.run);
    const rows = await second.outbox.rows(second.run.sessionId);
    expect(rows.map((r) => [r.trial_index, r.resumed])).toEqual([
      [0, false],
      [1, true],
    ]);
    // started_at is the first showing, before the reload.
    expect(Date.parse(rows[1]!.answered_at) - Date.parse(rows[1]!.started_at)).toBe(60_000);
  });

  it('blocks a second tab of the same session', async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const first = await makeRun({ storage, clock });
    await begin(first.run);
    const second = await makeRun({ storage, clock, owner: 'tab-2' });
    expect(await second.run.open()).toBe(false);
    expect(second.run.state).toMatchObject({ kind: 'blocked', reason: expect.stringContaining('another tab') });
  });

  it.each([
    ['refuse', 0, 'cannot be taken again'],
    ['resume', 25 * 60 * 60_000, 'can no longer be continued'],
  ] as const)('applies resume policy %s (after %d ms)', async (resumePolicy, later, reason) => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const first = await makeRun({ storage, clock, def: { resumePolicy } });
    await begin(first.run);
    await first.outbox.release(first.run.sessionId);
    clock.advance(later);
    const second = await makeRun({ storage, clock, def: { resumePolicy }, owner: 'tab-2' });
    expect(await second.run.open()).toBe(false);
    expect(second.run.state).toMatchObject({ kind: 'blocked', reason: expect.stringContaining(reason) });
  });

  it('restart policy: a reopened session starts a new one from consent', async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const first = await makeRun({ storage, clock, def: { resumePolicy: 'restart' } });
    await begin(first.run);
    await first.outbox.release(first.run.sessionId);
    const second = await makeRun({ storage, clock, def: { resumePolicy: 'restart' }, owner: 'tab-2' });
    expect(await second.run.open()).toBe(true);
    expect(second.run.sessionId).toBe(`${first.run.sessionId}-r1`);
    await second.run.prepare();
    expect(second.run.state.kind).toBe('consent');
  });

  it('writes nothing before consent; a decline records nothing and is remembered only in the decline memo', async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const declines = new Set<string>();
    const first = await makeRun({ storage, clock, declines, identity: { participantId: 'P9' } });
    expect(await first.run.open()).toBe(true);
    await first.run.prepare();
    expect(first.run.state.kind).toBe('consent');
    // Only the lease lock (browsers without Web Locks) may be in storage before consent.
    const stored = async () => (await storage.list('')).map(([k]) => k).filter((k) => !k.startsWith('lock/'));
    expect(await stored()).toEqual([]);
    await first.run.decline();
    expect(first.run.state.kind).toBe('declined');
    expect(await stored()).toEqual([]);
    expect([...declines]).toEqual([first.run.declineKey]);
    // Declining again, accepting or continuing from the declined page does nothing.
    await first.run.acceptConsent();
    await first.run.continue();
    expect(first.run.state.kind).toBe('declined');
    expect(await stored()).toEqual([]);

    // A reload: the declined page again, no puzzles prepared, still nothing stored; the lock was let go.
    const again = await makeRun({ storage, clock, declines, identity: { participantId: 'P9' }, owner: 'tab-2' });
    expect(await again.run.open()).toBe(false);
    expect(again.run.state.kind).toBe('declined');
    expect(await stored()).toEqual([]);

    // Changing one's mind: the memo is forgotten, and a new page asks for consent again.
    again.run.forgetDecline();
    expect(declines.size).toBe(0);
    const third = await makeRun({ storage, clock, declines, identity: { participantId: 'P9' }, owner: 'tab-3' });
    await begin(third.run);
    expect((await stored()).some((k) => k.startsWith('pointer/'))).toBe(true);
    expect(await third.outbox.getSession(third.run.sessionId)).toBeDefined();
  });

  it('two tabs of an anonymous browser before consent: the second to agree is blocked, not a second session', async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const first = await makeRun({ storage, clock, idPrefix: 'one' });
    const second = await makeRun({ storage, clock, idPrefix: 'two', owner: 'tab-2' });
    for (const r of [first.run, second.run]) {
      expect(await r.open()).toBe(true);
      await r.prepare();
    }
    expect(first.run.sessionId).not.toBe(second.run.sessionId);
    await first.run.acceptConsent();
    expect(first.run.state.kind).toBe('instructions');
    await second.run.acceptConsent();
    expect(second.run.state).toMatchObject({ kind: 'blocked', reason: expect.stringContaining('another tab') });
    // A reload of the second tab finds the first tab's session (still open there): blocked.
    const third = await makeRun({ storage, clock, idPrefix: 'three', owner: 'tab-3' });
    expect(await third.run.open()).toBe(false);
    expect(third.run.sessionId).toBe('');
  });

  it('a study whose rows go nowhere: no sink state; the download mark survives a reopen', async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const def = {
      practice: 0,
      attentionChecks: 0,
      itemsPerK: 1,
      sinks: [{ kind: 'download', instructions: 'Mail it to a@b.c' }],
    } as const;
    const first = await makeRun({ storage, clock, def });
    expect(first.run.downloadOnly).toBe(true);
    await begin(first.run);
    await answer(first.run);
    expect(first.run.state).toMatchObject({ kind: 'complete', downloaded: false });
    // The outbox has no transport for the download sink: that is not "sent".
    expect(first.run.sinkState(clock.now())).toBe('none');
    await first.run.markDownloaded();
    expect(first.run.state).toMatchObject({ kind: 'complete', downloaded: true });
    await first.outbox.release(first.run.sessionId);
    const again = await makeRun({ storage, clock, def, owner: 'tab-2' });
    expect(await again.run.open()).toBe(true);
    await again.run.prepare();
    expect(again.run.state).toMatchObject({ kind: 'complete', downloaded: true });
    // A study with an HTTP sink is not download-only.
    const sending = await makeRun({ def: { sinks: [{ kind: 'http', url: 'https://example.org/rows' }] } });
    expect(sending.run.downloadOnly).toBe(false);
  });

  it('continue pressed twice at once (a click and Enter) moves on one step only', async () => {
    const { run } = await makeRun({ def: { practice: 1 } });
    await begin(run);
    await answer(run, 'son');
    expect(run.state.kind).toBe('feedback');
    await Promise.all([run.continue(), run.continue()]);
    expect(run.state).toMatchObject({ kind: 'trial', trial: { trialIndex: 1 } });
  });

  it('a per-puzzle limit records a timeout with no response and moves on', async () => {
    const { run, clock, outbox } = await makeRun({
      def: {
        practice: 0,
        conditions: [{ id: 'fast', perPuzzleLimitS: 10, overallLimitS: null, display: 'text', scratchpad: false }],
      },
    });
    await begin(run);
    expect(run.state).toMatchObject({ kind: 'trial', deadline: clock.now() + 10_000 });
    run.pick('son');
    clock.advance(9_999);
    await run.tick();
    expect(run.state).toMatchObject({ kind: 'trial', trial: { trialIndex: 0 } });
    clock.advance(1);
    await run.tick();
    expect(run.state).toMatchObject({ kind: 'trial', trial: { trialIndex: 1 } });
    const [row] = await outbox.rows(run.sessionId);
    expect(row).toMatchObject({
      ended_on: 'timeout',
      response: '',
      correct: false,
      difficulty: null,
      time_limit_s: 10,
      rt_ms: 10_000,
    });
  });

  it('the overall limit times out the trial on screen and records the rest as skipped', async () => {
    const { run, clock, outbox } = await makeRun({
      def: {
        practice: 1,
        conditions: [{ id: 'overall', perPuzzleLimitS: null, overallLimitS: 60, display: 'text', scratchpad: false }],
      },
    });
    await begin(run);
    clock.advance(100_000); // practice is not counted
    await run.tick();
    await answer(run);
    await run.continue();
    await answer(run);
    clock.advance(60_000);
    await run.tick();
    expect(run.state).toMatchObject({ kind: 'complete', timedOut: true });
    const rows = await outbox.rows(run.sessionId);
    expect(rows.map((r) => r.ended_on)).toEqual(['response', 'response', 'timeout', 'skipped', 'skipped']);
    expect(rows[4]).toMatchObject({ response: '', difficulty: null, rt_ms: 0, resumed: false });
  });

  it('reports an unknown condition in the URL as an error', async () => {
    const { run } = await makeRun({ identity: { forcedCondition: 'nope' } });
    expect(await run.open()).toBe(false);
    expect(run.state).toMatchObject({ kind: 'error', message: expect.stringContaining('"nope"') });
  });

  it('a reopened complete session shows completion again', async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const def = { practice: 0, attentionChecks: 0, itemsPerK: 1 };
    const first = await makeRun({ storage, clock, def });
    await begin(first.run);
    await answer(first.run);
    expect(first.run.state.kind).toBe('complete');
    await first.outbox.release(first.run.sessionId);
    const second = await makeRun({ storage, clock, def: { ...def, resumePolicy: 'refuse' }, owner: 'tab-2' });
    expect(await second.run.open()).toBe(true);
    await second.run.prepare();
    expect(second.run.state).toMatchObject({ kind: 'complete', rows: [expect.objectContaining({ trial_index: 0 })] });
  });
});

describe('sessionIdFor', () => {
  it('derives a Prolific participant’s session from the token and id, the same in any browser', async () => {
    const a = await sessionIdFor({
      storage: new MemoryStorage(),
      token: 't',
      identity: { ...ANON, participantId: 'P1' },
      newId: () => 'x',
    });
    const b = await sessionIdFor({
      storage: new MemoryStorage(),
      token: 't',
      identity: { ...ANON, participantId: 'P1' },
      newId: () => 'y',
    });
    const other = await sessionIdFor({
      storage: new MemoryStorage(),
      token: 't',
      identity: { ...ANON, participantId: 'P2' },
      newId: () => 'x',
    });
    expect(a).toBe(b);
    expect(a).not.toBe(other);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
  });
  it('keeps an anonymous browser’s random id per link', async () => {
    const storage = new MemoryStorage();
    let n = 0;
    const get = (token: string) => sessionIdFor({ storage, token, identity: ANON, newId: () => `id-${++n}` });
    expect(await get('t1')).toBe('id-1');
    expect(await get('t1')).toBe('id-1');
    expect(await get('t2')).toBe('id-2');
  });
});

describe('participantNumberOf', () => {
  it('is a stable whole number below 10⁹', () => {
    expect(participantNumberOf('abc')).toBe(participantNumberOf('abc'));
    expect(participantNumberOf('abc')).not.toBe(participantNumberOf('abd'));
    expect(Number.isInteger(participantNumberOf('x'))).toBe(true);
  });
});

/**
 * A results server's session endpoint as the run sees it: a counter per study, one session per
 * participant id (resumed), a random-looking id and secret; `answers` are given first, in order,
 * before it grants (to play a server that is down, busy or refusing).
 */
function fakeServer(study: SessionIssuer['study'] = { studyId: 'study' }) {
  const requests: SessionRequest[] = [];
  const byParticipant = new Map<string, { session_id: string; secret: string; participant: number }>();
  let next = 0;
  const server = {
    requests,
    answers: [] as SessionAnswer[],
    /** The trial indexes the server stores per session (what a resumed grant's `answered` lists). */
    stored: new Map<string, number[]>(),
    issuer: {
      study,
      request: async (request: SessionRequest): Promise<SessionAnswer> => {
        requests.push(request);
        const canned = server.answers.shift();
        if (canned) return canned;
        const known = request.participant_id ? byParticipant.get(request.participant_id) : undefined;
        const grant = known ?? { session_id: `srv-${next + 1}`, secret: `secret-${next + 1}`, participant: next++ };
        if (request.participant_id) byParticipant.set(request.participant_id, grant);
        const resumed = known !== undefined;
        return {
          ok: true,
          grant: {
            study_id: 'study',
            ...grant,
            condition: request.condition ?? null,
            resumed,
            answered: resumed ? (server.stored.get(grant.session_id) ?? []) : [],
          },
        };
      },
    } satisfies SessionIssuer,
  };
  return server;
}

const TWO_CONDITIONS: Partial<StudyDefinition> = {
  conditions: [
    { id: 'untimed', perPuzzleLimitS: null, overallLimitS: null, display: 'text', scratchpad: false },
    { id: 'timed', perPuzzleLimitS: 30, overallLimitS: null, display: 'text', scratchpad: false },
  ],
};

describe('StudyRun with sessions the results server issues', () => {
  it('asks nothing before consent and nothing on a decline; the decline writes nothing', async () => {
    const server = fakeServer();
    const { run, storage } = await makeRun({ issuer: server.issuer, declines: new Set() });
    expect(await run.open()).toBe(true);
    await run.prepare();
    expect(run.state.kind).toBe('consent');
    expect(server.requests).toEqual([]);
    await run.decline();
    expect(run.state.kind).toBe('declined');
    expect(server.requests).toEqual([]);
    expect((await storage.list('')).filter(([k]) => !k.startsWith('lock/'))).toEqual([]);
  });

  it("after consent takes the server's session id, participant number and secret; rows carry them; a reload resumes without asking", async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const server = fakeServer();
    // Two participants before this one: the counter gives this one number 2.
    await server.issuer.request({ study_id: 'study' });
    await server.issuer.request({ study_id: 'study' });
    const identity = { prolificStudyId: 'PS', prolificSessionId: 'PSS', participantId: 'PID-7' };
    const first = await makeRun({ storage, clock, identity, def: TWO_CONDITIONS, issuer: server.issuer });
    await begin(first.run);
    expect(server.requests.at(-1)).toEqual({
      study_id: 'study',
      participant_id: 'PID-7',
      prolific_study_id: 'PS',
      prolific_session_id: 'PSS',
    });
    expect(first.run.sessionId).toBe('srv-3');
    expect(first.outbox.secretOf('srv-3')).toBe('secret-3');
    const expected = scheduleParticipant(first.def, { participantNumber: 2, sessionSeed: 'srv-3' });
    expect(first.run.schedule!.condition.id).toBe(expected.condition.id);
    expect(first.run.schedule!.trials.map((t) => t.item.puzzleId)).toEqual(expected.trials.map((t) => t.item.puzzleId));
    // The practice trial, then one main trial, answered; the rows name the issued session.
    await answer(first.run);
    await first.run.continue();
    await answer(first.run);
    const rows = await first.outbox.rows('srv-3');
    expect(rows.map((r) => [r.session_id, r.trial_index, r.condition])).toEqual([
      ['srv-3', 0, expected.condition.id],
      ['srv-3', 1, expected.condition.id],
    ]);
    expect((await first.outbox.getSession('srv-3'))?.participant_id).toBe('PID-7');
    await first.outbox.release('srv-3');

    // A reload: the same session and secret from storage, no request, on at trial 2.
    const asked = server.requests.length;
    const again = await makeRun({
      storage,
      clock,
      identity,
      def: TWO_CONDITIONS,
      issuer: server.issuer,
      owner: 'tab-2',
    });
    expect(await again.run.open()).toBe(true);
    await again.run.prepare();
    expect(again.run.sessionId).toBe('srv-3');
    expect(again.outbox.secretOf('srv-3')).toBe('secret-3');
    expect(again.run.state).toMatchObject({ kind: 'trial', trial: { trialIndex: 2 } });
    expect(server.requests.length).toBe(asked);
  });

  it('the same participant on another device carries on after the trials the server already has', async () => {
    const server = fakeServer();
    const identity = { prolificStudyId: 'PS', prolificSessionId: 'PSS', participantId: 'PID-8' };
    const phone = await makeRun({ identity, def: TWO_CONDITIONS, issuer: server.issuer });
    await begin(phone.run);
    await answer(phone.run);
    await phone.run.continue(); // the practice feedback
    await answer(phone.run);
    const session = phone.run.sessionId;
    const sent = (await phone.outbox.rows(session)).map((r) => r.trial_index);
    expect(sent).toEqual([0, 1]);
    server.stored.set(session, sent);

    // A new browser (its own storage): same session from the server, trials 0 and 1 not shown again.
    const laptop = await makeRun({ identity, def: TWO_CONDITIONS, issuer: server.issuer, owner: 'laptop' });
    await begin(laptop.run);
    expect(laptop.run.sessionId).toBe(session);
    expect(laptop.run.state).toMatchObject({ kind: 'trial', trial: { trialIndex: 2 } });
    await answer(laptop.run);
    expect((await laptop.outbox.rows(session)).map((r) => r.trial_index)).toEqual([2]);
  });

  it("a refusal shows the server's message and records nothing", async () => {
    const server = fakeServer();
    server.answers.push({
      ok: false,
      kind: 'refused',
      reason: 'closed',
      message: 'This study is closed and does not take new participants.',
    });
    const { run, storage } = await makeRun({ issuer: server.issuer });
    expect(await run.open()).toBe(true);
    await run.prepare();
    await run.acceptConsent();
    expect(run.state).toEqual({ kind: 'refused', message: 'This study is closed and does not take new participants.' });
    expect((await storage.list('')).filter(([k]) => !k.startsWith('lock/'))).toEqual([]);
    await run.continue();
    expect(run.state.kind).toBe('refused');
  });

  it('a server that cannot be reached: tries with backoff, then says so and waits for "Try again"', async () => {
    const server = fakeServer();
    for (let i = 0; i < CONNECT_ATTEMPTS; i++) {
      server.answers.push({ ok: false, kind: 'unavailable', message: 'the results server cannot be reached' });
    }
    const delays: number[] = [];
    const seen: { attempt: number; problem: string | null; waiting: boolean }[] = [];
    const { run, outbox } = await makeRun({
      issuer: server.issuer,
      sleep: async (ms) => {
        delays.push(ms);
        if (run.state.kind === 'connecting') seen.push({ ...run.state });
      },
    });
    run.subscribe(() => {
      if (run.state.kind === 'connecting' && !run.state.waiting) seen.push({ ...run.state });
    });
    expect(await run.open()).toBe(true);
    await run.prepare();
    const accepted = run.acceptConsent();
    await vi.waitFor(() => expect(run.state).toMatchObject({ kind: 'connecting', waiting: false }));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 15000]);
    // Quiet for the first tries, then the problem is said.
    expect(seen.slice(0, CONNECT_PATIENCE - 1).every((s) => s.problem === null)).toBe(true);
    expect(seen.at(-1)).toMatchObject({ problem: 'the results server cannot be reached', waiting: false });
    expect(server.requests).toHaveLength(CONNECT_ATTEMPTS);
    // "Try again": the server answers now.
    run.retryConnection();
    await accepted;
    expect(run.state.kind).toBe('instructions');
    expect(run.sessionId).toBe('srv-1');
    expect(outbox.secretOf('srv-1')).toBe('secret-1');
  });

  it("waits as long as a 429's Retry-After says (bounded)", async () => {
    const server = fakeServer();
    server.answers.push({ ok: false, kind: 'unavailable', message: 'busy', retryAfterS: 3 });
    server.answers.push({ ok: false, kind: 'unavailable', message: 'busy', retryAfterS: 3600 });
    const delays: number[] = [];
    const { run } = await makeRun({ issuer: server.issuer, sleep: async (ms) => void delays.push(ms) });
    await begin(run);
    expect(delays).toEqual([3000, 15000]);
  });

  it('ids over the server limits are refused at the start, before consent and without a request', async () => {
    const server = fakeServer();
    const { run, storage } = await makeRun({ issuer: server.issuer, identity: { participantId: 'x'.repeat(201) } });
    expect(await run.open()).toBe(false);
    expect(run.state.kind).toBe('error');
    expect(run.state.kind === 'error' && run.state.message).toMatch(/PROLIFIC_PID.*201 characters.*at most 200/);
    expect(server.requests).toEqual([]);
    expect(await storage.list('')).toEqual([]);
  });

  it('a full link names the study by its token; the forced condition goes with the request and the schedule', async () => {
    const server = fakeServer({ token: 's1.token' });
    const { run } = await makeRun({
      issuer: server.issuer,
      def: TWO_CONDITIONS,
      identity: { forcedCondition: 'timed' },
    });
    await begin(run);
    expect(server.requests).toEqual([{ token: 's1.token', condition: 'timed' }]);
    expect(run.condition?.id).toBe('timed');
  });

  it('the redirect waits for the primary destination only; another sink that refuses or stays silent does not hold it', async () => {
    const primary: Transport = { id: 'server', send: async () => undefined };
    const silent: Transport = {
      id: 'http:https://elsewhere.example/rows',
      send: async () => {
        throw new TypeError('Failed to fetch');
      },
    };
    const { run, outbox } = await makeRun({
      def: {
        practice: 0,
        attentionChecks: 0,
        sinks: [{ kind: 'server' }, { kind: 'http', url: 'https://elsewhere.example/rows' }],
      },
      transports: [silent, primary],
    });
    await begin(run);
    for (let i = 0; i < 3; i++) await answer(run);
    expect(run.state.kind).toBe('complete');
    await outbox.idle();
    expect(run.primarySink).toBe('server');
    expect(outbox.allAcknowledged()).toBe(false);
    expect(run.primaryHasAll()).toBe(true);
    expect(run.sinkState(Date.now())).toBe('partly-sent');
    outbox.stop();
  });
});
