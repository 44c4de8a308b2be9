import { describe, expect, it, vi } from 'vitest';
import { withDefaults, type StudyDefinition } from '../definition/definition';
import { leaseLock, type Timer } from '../delivery/lock';
import { Outbox } from '../delivery/outbox';
import { MemoryStorage } from '../delivery/storage';
import {
  CONNECT_ATTEMPTS,
  CONNECT_PATIENCE,
  participantNumberOf,
  sessionIdFor,
  SPENT_HEARTBEAT_MS,
  spentKey,
  StudyRun,
  type RunIdentity,
  type SessionIssuer,
} from './run';
import { scheduleParticipant, type Trial } from '../schedule/schedule';
import type { SessionAnswer, SessionRequest } from '../delivery/serverApi';
import { SinkRefusedError, type Transport } from '../delivery/transports';
import type { TrialContent } from '../schedule/trialContent';

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
 * participant id (resumed), a random-looking id and secret, a resume code per session; `answers`
 * are given first, in order, before it grants (to play a server that is down, busy or refusing).
 * With `codes`, a participant id that has a session (or a request naming one by its code) must
 * send the session's code to continue it, as the server does for a second device.
 */
function fakeServer(study: SessionIssuer['study'] = { studyId: 'study' }, options: { serverNow?: () => number } = {}) {
  const requests: SessionRequest[] = [];
  type Issued = { session_id: string; secret: string; participant: number; resume_code: string };
  const byParticipant = new Map<string, Issued>();
  const byCode = new Map<string, Issued>();
  let next = 0;
  const server = {
    requests,
    answers: [] as SessionAnswer[],
    /** The trial indexes the server stores per session (what a resumed grant's `answered` lists). */
    stored: new Map<string, number[]>(),
    /** Continuing a session needs its code. */
    codes: false,
    issuer: {
      study,
      request: async (request: SessionRequest): Promise<SessionAnswer> => {
        requests.push(request);
        const canned = server.answers.shift();
        if (canned) return canned;
        const known =
          request.resume_code !== undefined
            ? byCode.get(request.resume_code)
            : request.participant_id
              ? byParticipant.get(request.participant_id)
              : undefined;
        if (server.codes && request.resume_code !== undefined && known === undefined) {
          return {
            ok: false,
            kind: 'refused',
            reason: 'resume-code',
            message: 'That code does not continue a session.',
          };
        }
        if (server.codes && known !== undefined && request.resume_code === undefined) {
          return { ok: false, kind: 'refused', reason: 'resume-code', message: 'Type the code of your session.' };
        }
        const n = next;
        const grant = known ?? {
          session_id: `srv-${n + 1}`,
          secret: `secret-${n + 1}`,
          participant: next++,
          resume_code: `K7QM-4TZ${n + 1}`,
        };
        if (request.participant_id) byParticipant.set(request.participant_id, grant);
        byCode.set(grant.resume_code, grant);
        const resumed = known !== undefined;
        return {
          ok: true,
          grant: {
            study_id: 'study',
            ...grant,
            condition: request.condition ?? null,
            resumed,
            answered: resumed ? (server.stored.get(grant.session_id) ?? []) : [],
            server_time: options.serverNow ? new Date(options.serverNow()).toISOString() : '',
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

    // The laptop's page is reloaded: no request to the server, and the phone's trials stay done.
    await laptop.outbox.release(session);
    const asked = server.requests.length;
    const reloaded = await makeRun({
      storage: laptop.storage,
      clock: laptop.clock,
      identity,
      def: TWO_CONDITIONS,
      issuer: server.issuer,
      owner: 'laptop-2',
    });
    expect(await reloaded.run.open()).toBe(true);
    await reloaded.run.prepare();
    expect(reloaded.run.sessionId).toBe(session);
    expect(reloaded.run.state).toMatchObject({ kind: 'trial', trial: { trialIndex: 3 } });
    expect(server.requests.length).toBe(asked);
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

describe('resume codes', () => {
  it('keeps the grant’s code in the session pointer and shows it, also after a reload; none without an issuer', async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const server = fakeServer();
    const first = await makeRun({ storage, clock, issuer: server.issuer });
    expect(await first.run.open()).toBe(true);
    await first.run.prepare();
    expect(first.run.takesResumeCode).toBe(true);
    expect(first.run.resumeCode).toBeNull();
    await first.run.acceptConsent();
    expect(first.run.state.kind).toBe('instructions');
    expect(first.run.resumeCode).toBe('K7QM-4TZ1');
    expect(first.run.takesResumeCode).toBe(false);
    await first.run.continue();
    await first.outbox.release(first.run.sessionId);
    const again = await makeRun({ storage, clock, issuer: server.issuer, owner: 'tab-2' });
    expect(await again.run.open()).toBe(true);
    expect(again.run.resumeCode).toBe('K7QM-4TZ1');
    expect(again.run.takesResumeCode).toBe(false);
    const browserMade = await makeRun();
    await begin(browserMade.run);
    expect(browserMade.run.resumeCode).toBeNull();
    expect(browserMade.run.takesResumeCode).toBe(false);
  });

  it('a code given with consent continues that session at its first unanswered trial', async () => {
    const server = fakeServer();
    server.codes = true;
    const phone = await makeRun({ def: TWO_CONDITIONS, issuer: server.issuer });
    await begin(phone.run);
    await answer(phone.run);
    await phone.run.continue();
    await answer(phone.run);
    const session = phone.run.sessionId;
    server.stored.set(session, [0, 1]);
    const code = phone.run.resumeCode!;

    const laptop = await makeRun({ def: TWO_CONDITIONS, issuer: server.issuer, owner: 'laptop', idPrefix: 'lap' });
    expect(await laptop.run.open()).toBe(true);
    await laptop.run.prepare();
    // Typed as a person might: lower case, a space instead of the hyphen.
    await laptop.run.acceptConsent(` ${code.toLowerCase().replace('-', ' ')} `);
    expect(server.requests.at(-1)).toEqual({ study_id: 'study', resume_code: code });
    expect(laptop.run.state.kind).toBe('instructions');
    expect(laptop.run.sessionId).toBe(session);
    expect(laptop.run.schedule!.condition.id).toBe(phone.run.schedule!.condition.id);
    await laptop.run.continue();
    expect(laptop.run.state).toMatchObject({ kind: 'trial', trial: { trialIndex: 2 } });
    expect(laptop.outbox.secretOf(session)).toBe('secret-1');
  });

  it('the server asks for the code: the resume screen; a text that is no code is said without a request; back to consent', async () => {
    const server = fakeServer();
    server.codes = true;
    const identity = { participantId: 'WORKER-3' };
    const first = await makeRun({ identity, issuer: server.issuer });
    await begin(first.run);
    const code = first.run.resumeCode!;

    const other = await makeRun({ identity, issuer: server.issuer, owner: 'other-device' });
    expect(await other.run.open()).toBe(true);
    await other.run.prepare();
    await other.run.acceptConsent();
    expect(other.run.state).toEqual({ kind: 'resume', problem: 'Type the code of your session.' });
    const asked = server.requests.length;
    await other.run.resume('K7QM');
    expect(other.run.state).toMatchObject({ kind: 'resume', problem: expect.stringContaining('is not a resume code') });
    await other.run.resume('   ');
    expect(other.run.state).toMatchObject({ kind: 'resume', problem: expect.stringContaining('Please type the code') });
    expect(server.requests.length).toBe(asked);
    // A wrong code: the server's sentence.
    await other.run.resume('AAAA-BBBB');
    expect(other.run.state).toEqual({ kind: 'resume', problem: 'That code does not continue a session.' });
    other.run.leaveResume();
    expect(other.run.state.kind).toBe('consent');
    await other.run.acceptConsent();
    expect(other.run.state.kind).toBe('resume');
    await other.run.resume(code.replace('-', ''));
    expect(other.run.state.kind).toBe('instructions');
    expect(other.run.sessionId).toBe(first.run.sessionId);
    expect(server.requests.at(-1)).toEqual({ study_id: 'study', participant_id: 'WORKER-3', resume_code: code });
  });

  it('too many wrong codes (429 with Retry-After): the resume screen says how long to wait, no automatic retries', async () => {
    const server = fakeServer();
    server.answers.push({ ok: false, kind: 'unavailable', message: 'Too many wrong codes.', retryAfterS: 600 });
    const delays: number[] = [];
    const { run } = await makeRun({ issuer: server.issuer, sleep: async (ms) => void delays.push(ms) });
    expect(await run.open()).toBe(true);
    await run.prepare();
    await run.acceptConsent('K7QM-4TZ9');
    expect(run.state).toEqual({
      kind: 'resume',
      problem: 'Too many wrong codes. Please wait 10 minutes before you try again.',
    });
    expect(delays).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('resume-refused ends the run as a refusal, recording nothing', async () => {
    const server = fakeServer();
    server.answers.push({ ok: false, kind: 'refused', reason: 'resume-refused', message: 'Another Prolific session.' });
    const { run, storage } = await makeRun({ issuer: server.issuer, identity: { participantId: 'P' } });
    expect(await run.open()).toBe(true);
    await run.prepare();
    await run.acceptConsent();
    expect(run.state).toEqual({ kind: 'refused', message: 'Another Prolific session.' });
    expect((await storage.list('')).filter(([k]) => !k.startsWith('lock/'))).toEqual([]);
  });
});

describe('refusals told while the study goes on', () => {
  it('a row the server refuses for good sets `refusal` at once and tells the listeners; a reload still knows', async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const refusing: Transport = {
      id: 'server',
      send: async (rows) => {
        if (rows.some((r) => r.trial_index === 1))
          throw new SinkRefusedError(400, 'rows.0.rt_ms: longer than the trial');
      },
    };
    const def = { practice: 0, sinks: [{ kind: 'server' }] } as const;
    const { run, outbox } = await makeRun({ storage, clock, def, transports: [refusing] });
    let heard = 0;
    run.subscribe(() => heard++);
    await begin(run);
    await answer(run);
    await outbox.idle();
    expect(run.refusal).toBeNull();
    heard = 0;
    await answer(run);
    await outbox.idle();
    expect(run.refusal).toEqual({ sink: 'server', count: 1, said: 'rows.0.rt_ms: longer than the trial' });
    expect(heard).toBeGreaterThan(0);
    // Acknowledgements of later rows do not change it (nor tell the listeners of a refusal again).
    const before = run.refusal;
    await answer(run);
    await outbox.idle();
    expect(run.refusal).toBe(before);
    outbox.stop();
    await outbox.release(run.sessionId);

    const again = await makeRun({ storage, clock, def, transports: [refusing], owner: 'tab-2' });
    expect(await again.run.open()).toBe(true);
    expect(again.run.refusal).toMatchObject({ sink: 'server', count: 1 });
    again.outbox.stop();
  });
});

describe('time on screen across reloads', () => {
  it('rt_ms sums the trial’s spells before and after a reload (heartbeat every 5 s, and on hide); started_at stays the first showing', async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const def = { practice: 0 };
    const first = await makeRun({ storage, clock, def });
    await begin(first.run);
    const index = (first.run.state as { trial: Trial }).trial.trialIndex;
    const key = spentKey(first.run.sessionId, index);
    clock.advance(3_000);
    await first.run.tick();
    expect(await storage.get(key)).toBeUndefined(); // throttled: not yet
    clock.advance(SPENT_HEARTBEAT_MS - 3_000);
    await first.run.tick();
    expect(await storage.get(key)).toEqual({ ms: 5_000, hidden_ms: 0 });
    clock.advance(1_000);
    await first.run.tick(); // throttled again
    clock.advance(1_000);
    first.run.visibility(true); // hidden: written at once
    await first.run.leave();
    expect(await storage.get(key)).toEqual({ ms: 7_000, hidden_ms: 0 });
    // The tab is killed while hidden; the page comes back much later.
    await first.outbox.release(first.run.sessionId);
    clock.advance(120_000);
    const second = await makeRun({ storage, clock, def, owner: 'tab-2' });
    expect(await second.run.open()).toBe(true);
    await second.run.prepare();
    expect(second.run.state).toMatchObject({ kind: 'trial', resumed: true, trial: { trialIndex: index } });
    clock.advance(4_000);
    await answer(second.run);
    const [row] = await second.outbox.rows(second.run.sessionId);
    expect(row!.rt_ms).toBe(11_000);
    expect(row!.rt_ms).toBeLessThanOrEqual(Date.parse(row!.answered_at) - Date.parse(row!.started_at));
    expect(Date.parse(row!.answered_at) - Date.parse(row!.started_at)).toBe(131_000);
    // The record goes with the committed row.
    expect(await storage.get(key)).toBeUndefined();
  });

  it('hidden time before a reload is kept in hidden_ms; a page left (pagehide) writes its time', async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const def = { practice: 0 };
    const first = await makeRun({ storage, clock, def });
    await begin(first.run);
    clock.advance(1_000);
    first.run.visibility(true);
    clock.advance(2_000);
    first.run.visibility(false);
    clock.advance(500);
    await first.run.leave();
    await first.outbox.release(first.run.sessionId);
    clock.advance(10_000);
    const second = await makeRun({ storage, clock, def, owner: 'tab-2' });
    expect(await second.run.open()).toBe(true);
    await second.run.prepare();
    clock.advance(1_500);
    await answer(second.run);
    const [row] = await second.outbox.rows(second.run.sessionId);
    expect(row).toMatchObject({ rt_ms: 5_000, hidden_ms: 2_000, resumed: true });
  });

  it('a trial first shown and answered in one page load: as before', async () => {
    const { run, clock, outbox, storage } = await makeRun({ def: { practice: 0 } });
    await begin(run);
    for (let i = 0; i < 4; i++) {
      clock.advance(SPENT_HEARTBEAT_MS);
      await run.tick();
    }
    clock.advance(700);
    await answer(run);
    const [row] = await outbox.rows(run.sessionId);
    expect(row!.rt_ms).toBe(4 * SPENT_HEARTBEAT_MS + 700);
    expect(await storage.list('spent/')).toEqual([]);
  });
});

describe("the server's clock", () => {
  it('every time written for an issued session is on the server’s clock, also after a reload', async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    // This phone's clock is 3 days and 5 s behind the server's.
    const skew = 3 * 86_400_000 + 5_000;
    const server = fakeServer({ studyId: 'study' }, { serverNow: () => clock.now() + skew });
    const def = {
      practice: 0,
      conditions: [{ id: 'fast', perPuzzleLimitS: 30, overallLimitS: null, display: 'text', scratchpad: false }],
    } as const;
    const first = await makeRun({ storage, clock, def, issuer: server.issuer });
    await begin(first.run);
    const serverNow = () => clock.now() + skew;
    expect(first.run.now()).toBe(serverNow());
    expect(first.run.state).toMatchObject({ kind: 'trial', deadline: serverNow() + 30_000 });
    expect((await first.outbox.getSession(first.run.sessionId))!.started_at).toBe(new Date(serverNow()).toISOString());
    const shownAt = serverNow();
    clock.advance(2_000);
    await answer(first.run);
    const [row] = await first.outbox.rows(first.run.sessionId);
    expect(row).toMatchObject({
      started_at: new Date(shownAt).toISOString(),
      answered_at: new Date(shownAt + 2_000).toISOString(),
      rt_ms: 2_000,
    });
    await first.outbox.release(first.run.sessionId);

    // A reload: no new grant; the offset comes from the pointer.
    clock.advance(1_000);
    const second = await makeRun({ storage, clock, def, issuer: server.issuer, owner: 'tab-2' });
    expect(await second.run.open()).toBe(true);
    await second.run.prepare();
    expect(second.run.now()).toBe(serverNow());
    clock.advance(1_000);
    await answer(second.run);
    const rows = await second.outbox.rows(second.run.sessionId);
    expect(rows[1]!.answered_at).toBe(new Date(serverNow()).toISOString());
  });

  it('a grant without the server’s time leaves the clock as it is', async () => {
    const server = fakeServer();
    const { run, clock } = await makeRun({ issuer: server.issuer });
    await begin(run);
    expect(run.now()).toBe(clock.now());
  });
});

describe('time is up', () => {
  it('the screen after a main trial that ran out says so; the one after an answer does not; practice has its feedback', async () => {
    const { run, clock } = await makeRun({
      def: {
        practice: 1,
        breakEvery: 2,
        conditions: [{ id: 'fast', perPuzzleLimitS: 10, overallLimitS: null, display: 'text', scratchpad: false }],
      },
    });
    await begin(run);
    clock.advance(10_000);
    await run.tick();
    expect(run.state).toMatchObject({ kind: 'feedback', timedOut: true });
    await run.continue();
    expect(run.state).toMatchObject({ kind: 'trial', trial: { trialIndex: 1 } });
    expect('timeUp' in run.state).toBe(false);
    clock.advance(10_000);
    await run.tick();
    expect(run.state).toMatchObject({ kind: 'trial', trial: { trialIndex: 2 }, timeUp: true });
    // Picking a word keeps the notice on this screen.
    run.pick('son');
    expect(run.state).toMatchObject({ timeUp: true });
    clock.advance(10_000);
    await run.tick();
    // A break follows the second main trial: it says so too.
    expect(run.state).toMatchObject({ kind: 'break', timeUp: true });
    await run.continue();
    expect('timeUp' in run.state).toBe(false);
    await answer(run);
    expect(run.state.kind).toBe('trial');
    expect('timeUp' in run.state).toBe(false);
    clock.advance(10_000);
    await run.tick();
    expect(run.state).toMatchObject({ kind: 'complete', timedOut: false, timeUp: true });
  });
});

describe('a resume code while connecting', () => {
  it('a server that limits new sessions from this network says so at once; "I have a resume code" opens the resume screen', async () => {
    const server = fakeServer();
    server.codes = true;
    const first = await makeRun({ issuer: server.issuer });
    await begin(first.run);
    const code = first.run.resumeCode!;
    server.answers.push({
      ok: false,
      kind: 'unavailable',
      message: 'At most 3 new participants an hour.',
      retryAfterS: 1800,
    });
    let release: () => void = () => undefined;
    const { run } = await makeRun({
      issuer: server.issuer,
      owner: 'tab-2',
      idPrefix: 'two',
      sleep: () => new Promise<void>((resolve) => (release = resolve)),
    });
    expect(await run.open()).toBe(true);
    await run.prepare();
    const accepted = run.acceptConsent();
    await vi.waitFor(() =>
      expect(run.state).toMatchObject({ kind: 'connecting', problem: 'At most 3 new participants an hour.' }),
    );
    run.enterResumeCode();
    await accepted;
    expect(run.state).toEqual({ kind: 'resume', problem: null });
    release();
    await run.resume(code);
    expect(run.state.kind).toBe('instructions');
    expect(run.sessionId).toBe(first.run.sessionId);
  });
});
