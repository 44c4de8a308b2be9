import { describe, expect, it } from 'vitest';
import { withDefaults, type StudyDefinition } from './definition';
import { leaseLock, type Timer } from './lock';
import { Outbox } from './outbox';
import { MemoryStorage } from './storage';
import { participantNumberOf, sessionIdFor, StudyRun, type RunIdentity } from './run';
import type { Trial } from './schedule';
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
}

async function makeRun(setup: Setup = {}) {
  const storage = setup.storage ?? new MemoryStorage();
  const clock = setup.clock ?? fakeClock();
  const def = withDefaults({ k: [2], itemsPerK: 3, practice: 1, attentionChecks: 1, ...setup.def });
  const outbox = await Outbox.open({
    storage,
    transports: [],
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
