/**
 * The run of the collection kinds (issue 24): paraphrase trials (live checks, drafts kept across a
 * reload, rows in the collection mapping), review trials (embedded stories, or the live queue's
 * after the session is issued), and what a reload resumes. The puzzle-solving run is run.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { clauseCells, clauseFromId, factSentences, type Clause } from '../collect/clause';
import { withDefaults, type StudyDefinition } from '../definition/definition';
import { leaseLock, type Timer } from '../delivery/lock';
import { Outbox } from '../delivery/outbox';
import type { ReviewItem, ReviewItemsAnswer } from '../delivery/serverApi';
import { draftKey, DRAFT_DELAY_MS, StudyRun, type RunIdentity, type SessionIssuer } from './run';
import { MemoryStorage } from '../delivery/storage';

const ANON: RunIdentity = {
  participantId: '',
  prolificStudyId: '',
  prolificSessionId: '',
  participantNumber: null,
  forcedCondition: null,
};

/** A clock moved by hand, whose timers fire only when the test says (`fire`). */
function fakeClock(start = Date.parse('2026-03-01T10:00:00.000Z')) {
  let now = start;
  let next = 1;
  const pending = new Map<number, { at: number; run: () => void }>();
  const timer: Timer = {
    now: () => now,
    setTimeout: (run, ms) => {
      pending.set(next, { at: now + ms, run });
      return next++;
    },
    clearTimeout: (h) => void pending.delete(h as number),
  };
  return {
    timer,
    now: () => now,
    advance: (ms: number) => (now += ms),
    /** Runs the timers due by now. */
    fire: () => {
      for (const [h, t] of [...pending]) {
        if (t.at > now) continue;
        pending.delete(h);
        t.run();
      }
    },
  };
}

const perf = { mark: () => undefined, measure: () => undefined, now: () => 0 } as unknown as Pick<
  Performance,
  'mark' | 'measure' | 'now'
>;

interface Setup {
  def: Partial<StudyDefinition>;
  identity?: Partial<RunIdentity>;
  storage?: MemoryStorage;
  clock?: ReturnType<typeof fakeClock>;
  issuer?: SessionIssuer;
  reviewItems?: (sessionId: string, secret: string | undefined) => Promise<ReviewItemsAnswer>;
  coverage?: Record<string, number>;
}

async function makeRun(setup: Setup) {
  const storage = setup.storage ?? new MemoryStorage();
  const clock = setup.clock ?? fakeClock();
  const def = withDefaults(setup.def);
  const outbox = await Outbox.open({
    storage,
    transports: [],
    lock: leaseLock(storage, 'tab', clock.timer),
    timer: clock.timer,
  });
  const run = new StudyRun({
    def,
    token: 's1.collect',
    identity: { ...ANON, ...setup.identity },
    outbox,
    storage,
    now: clock.now,
    newId: () => 'anon-1',
    device: { userAgent: 'test-agent', screen: '390x844@3' },
    makeTrial: () => Promise.reject(new Error('a collection study generates no puzzles')),
    perf,
    timer: clock.timer,
    sleep: async () => undefined,
    ...(setup.issuer ? { issuer: setup.issuer } : {}),
    ...(setup.reviewItems ? { reviewItems: setup.reviewItems } : {}),
    ...(setup.coverage ? { coverage: async () => ({ ok: true as const, coverage: setup.coverage! }) } : {}),
  });
  return { run, storage, clock, outbox, def };
}

/** Opens, prepares, consents and starts: the first trial on screen. */
async function begin(run: StudyRun) {
  expect(await run.open()).toBe(true);
  await run.prepare();
  expect(run.state.kind).toBe('consent');
  await run.acceptConsent();
  expect(run.state.kind).toBe('instructions');
  await run.continue();
}

/** The facts as shown, one sentence each, joined: always a story the checks pass. */
const factsStory = (clause: Clause) => factSentences(clause).join(' ');

const paraphraseOnScreen = (run: StudyRun) => {
  if (run.state.kind !== 'paraphrase') throw new Error(`on ${run.state.kind}, not a paraphrase`);
  return run.state;
};
const reviewOnScreen = (run: StudyRun) => {
  if (run.state.kind !== 'review') throw new Error(`on ${run.state.kind}, not a review`);
  return run.state;
};

const PARAPHRASE: Partial<StudyDefinition> = { kind: 'paraphrase', studyId: 'para', seed: 4, clauseKs: [1, 2, 3] };

describe('a paraphrase run', () => {
  it('shows each clause, refuses a story the live checks refuse, and records the story written', async () => {
    const { run, outbox } = await makeRun({ def: PARAPHRASE, identity: { participantId: 'PID-1' } });
    await begin(run);
    const first = paraphraseOnScreen(run);
    expect(first.trial.trialIndex).toBe(0);
    expect(first.problems.length).toBeGreaterThan(0);
    expect(run.ready).toBe(false);

    // A story that leaves a person out cannot be submitted: nothing is recorded.
    const clause = first.clause;
    run.write(`${clause.people[0]!.name} went for a long walk in the park today.`);
    expect(paraphraseOnScreen(run).problems.map((p) => p.code)).toContain('missing-person');
    await run.submit();
    expect(await outbox.rows(run.sessionId)).toEqual([]);
    expect(paraphraseOnScreen(run).trial.trialIndex).toBe(0);

    const stories: string[] = [];
    for (let i = 0; i < 3; i++) {
      const s = paraphraseOnScreen(run);
      const text = `${factsStory(s.clause)}  `;
      run.write(text);
      expect(paraphraseOnScreen(run).problems).toEqual([]);
      expect(run.ready).toBe(true);
      stories.push(text);
      await run.submit();
      // Committed before the next screen shows.
      expect(await outbox.rows(run.sessionId)).toHaveLength(i + 1);
    }
    expect(run.state.kind).toBe('complete');
    const rows = await outbox.rows(run.sessionId);
    for (const [i, row] of rows.entries()) {
      const c = clauseFromId(row.puzzle_id, row.seed);
      if ('error' in c) throw new Error(c.error);
      expect(c.k).toBe(row.k);
      // The implied fact (the single fact for k = 1) as the query and gold.
      const q = c.implied ?? { a: c.facts[0]!.from, b: c.facts[0]!.to, word: c.facts[0]!.word };
      expect(row).toMatchObject({
        study_id: 'para',
        participant_id: 'PID-1',
        trial_index: i,
        phase: 'main',
        task: 1,
        query_a: c.people[q.a]!.name,
        query_b: c.people[q.b]!.name,
        gold: q.word,
        response: '',
        correct: true,
        difficulty: null,
        ended_on: 'response',
        story: stories[i],
      });
    }
    expect(new Set(rows.map((r) => r.k)).size).toBe(3);
  });

  it('keeps the draft across a reload (written once typing pauses), and drops it once the row is committed', async () => {
    const storage = new MemoryStorage();
    const clock = fakeClock();
    const a = await makeRun({ def: PARAPHRASE, storage, clock });
    await begin(a.run);
    const s = paraphraseOnScreen(a.run);
    const key = draftKey(a.run.sessionId, s.trial.trialIndex);
    a.run.write('Half a story about');
    a.run.write('Half a story about the family');
    expect(await storage.get(key)).toBeUndefined();
    clock.advance(DRAFT_DELAY_MS);
    clock.fire();
    await new Promise((r) => setTimeout(r, 0));
    expect(await storage.get(key)).toMatchObject({ text: 'Half a story about the family' });

    // The tab is hidden: what was typed since is written at once.
    a.run.write('Half a story about the family, and more');
    a.run.visibility(true);
    await new Promise((r) => setTimeout(r, 0));
    expect(await storage.get(key)).toMatchObject({ text: 'Half a story about the family, and more' });
    a.run.visibility(false);

    // A reload: the same trial, its draft in the box, its checks run on it.
    await a.outbox.release(a.run.sessionId);
    const b = await makeRun({ def: PARAPHRASE, storage, clock });
    expect(await b.run.open()).toBe(true);
    await b.run.prepare();
    const again = paraphraseOnScreen(b.run);
    expect(again).toMatchObject({
      resumed: true,
      text: 'Half a story about the family, and more',
      trial: { trialIndex: s.trial.trialIndex },
    });
    expect(again.clause).toEqual(s.clause);
    expect(again.problems.length).toBeGreaterThan(0);
    b.run.write(factsStory(again.clause));
    await b.run.submit();
    expect(await storage.get(key)).toBeUndefined();
    const [row] = await b.outbox.rows(b.run.sessionId);
    expect(row).toMatchObject({ resumed: true, story: factsStory(again.clause), correct: true });
    // The next trial starts empty.
    expect(paraphraseOnScreen(b.run).text).toBe('');
  });

  it('records a timed-out paraphrase with an empty story, not as passing its checks', async () => {
    const { run, outbox, clock, storage } = await makeRun({
      def: {
        ...PARAPHRASE,
        conditions: [{ id: 'timed', perPuzzleLimitS: 60, overallLimitS: null, display: 'text', scratchpad: false }],
      },
    });
    await begin(run);
    const s = paraphraseOnScreen(run);
    run.write(factsStory(s.clause));
    clock.advance(60_000);
    await run.tick();
    const [row] = await outbox.rows(run.sessionId);
    expect(row).toMatchObject({ ended_on: 'timeout', story: '', correct: false, response: '', time_limit_s: 60 });
    expect(await storage.get(draftKey(run.sessionId, 0))).toBeUndefined();
    expect(paraphraseOnScreen(run).trial.trialIndex).toBe(1);
  });

  it('favours the clauses with fewest stories when the server counts them, and keeps them across a reload', async () => {
    const def = {
      ...PARAPHRASE,
      clauseKs: [1],
      clausesPerParticipant: 2,
      favourUncovered: true,
      sinks: [{ kind: 'server' as const }],
    };
    // Every one-fact cell covered once, but two: those are drawn.
    const cells = ['c1.son.female-male', 'c1.sister.male-female'];
    const coverage: Record<string, number> = {};
    for (const c of clauseCells([1])) coverage[c.id] = cells.includes(c.id) ? 0 : 1;
    const storage = new MemoryStorage();
    const a = await makeRun({ def, storage, coverage });
    await begin(a.run);
    const first = paraphraseOnScreen(a.run).clause.id;
    expect(cells).toContain(first);
    a.run.write(factsStory(paraphraseOnScreen(a.run).clause));
    await a.run.submit();
    expect(cells.filter((c) => c !== first)).toContain(paraphraseOnScreen(a.run).clause.id);
    // After a reload the same clause is on screen, whatever the coverage says now.
    await a.outbox.release(a.run.sessionId);
    const b = await makeRun({ def, storage, coverage: {} });
    expect(await b.run.open()).toBe(true);
    await b.run.prepare();
    expect(paraphraseOnScreen(b.run).clause.id).toBe(cells.find((c) => c !== first));
  });
});

const STORIES = [0, 1, 2, 3].map((i) => ({
  id: `writer-${i}/${i}`,
  clause: 'c1.father-sister.female-male-female',
  seed: 50 + i,
  story: `Story ${i} of a father and his sister.`,
}));

describe('a review run', () => {
  it('records good, and bad with its reasons in order; bad needs a reason', async () => {
    const { run, outbox } = await makeRun({
      def: { kind: 'review', reviewStories: STORIES, reviewsPerParticipant: 2 },
      identity: { participantNumber: 1 },
    });
    await begin(run);
    const first = reviewOnScreen(run);
    expect(first.task.item.story).toMatch(/^Story \d of a father/);
    run.judge('bad');
    expect(run.ready).toBe(false);
    run.toggleReason('reveals-implied');
    run.toggleReason('ungrammatical');
    run.toggleReason('other');
    run.toggleReason('other');
    expect(reviewOnScreen(run).reasons).toEqual(['ungrammatical', 'reveals-implied']);
    expect(run.ready).toBe(true);
    await run.submit();
    run.judge('bad');
    run.judge('good');
    await run.submit();
    expect(run.state.kind).toBe('complete');
    const rows = await outbox.rows(run.sessionId);
    const clause = clauseFromId(STORIES[0]!.clause, rows[0]!.seed);
    if ('error' in clause) throw new Error(clause.error);
    expect(rows[0]).toMatchObject({
      puzzle_id: first.task.item.story_id,
      k: 2,
      query_a: clause.people[0]!.name,
      query_b: clause.people[2]!.name,
      gold: 'aunt',
      response: 'bad:ungrammatical,reveals-implied',
      correct: false,
      story: first.task.item.story,
      answer_changes: 0,
      difficulty: null,
    });
    expect(rows[1]).toMatchObject({ response: 'good', correct: true, answer_changes: 1 });
    // Participant 1 of a study of 4 stories, 2 each: the second pair of the seeded order.
    expect(new Set(rows.map((r) => r.puzzle_id)).size).toBe(2);
  });

  it('records the rest as skipped when the overall limit ends the run', async () => {
    const { run, outbox, clock } = await makeRun({
      def: {
        kind: 'review',
        reviewStories: STORIES,
        conditions: [{ id: 'all', perPuzzleLimitS: null, overallLimitS: 30, display: 'text', scratchpad: false }],
      },
    });
    await begin(run);
    run.judge('good');
    clock.advance(31_000);
    await run.tick();
    expect(run.state).toMatchObject({ kind: 'complete', timedOut: true });
    const rows = await outbox.rows(run.sessionId);
    expect(rows.map((r) => [r.ended_on, r.response])).toEqual([
      ['timeout', ''],
      ['skipped', ''],
      ['skipped', ''],
    ]);
    expect(rows.every((r) => r.story.startsWith('Story '))).toBe(true);
  });
});

describe('a live review run', () => {
  const item = (i: number): ReviewItem => ({
    story_id: `para-sess-${i}/0`,
    seed: 70 + i,
    k: 2,
    clause_id: 'c1.father-sister.female-male-female',
    query_a: 'A',
    query_b: 'B',
    gold: 'aunt',
    story: `Live story ${i}.`,
  });
  const LIVE: Partial<StudyDefinition> = {
    kind: 'review',
    studyId: 'rev',
    sourceStudy: 'para',
    reviewsPerParticipant: 2,
    sinks: [{ kind: 'server' }],
  };
  const issuer: SessionIssuer = {
    study: { studyId: 'rev' },
    request: async () => ({
      ok: true,
      grant: {
        study_id: 'rev',
        session_id: 'srv-1',
        secret: 'sec-1',
        participant: 0,
        condition: null,
        resumed: false,
        answered: [],
        resume_code: 'K7QM-4TZP',
        server_time: '2026-03-01T10:00:00.000Z',
      },
    }),
  };

  it('asks the queue after the session is issued, with its secret, and keeps the items across a reload', async () => {
    const asked: [string, string | undefined][] = [];
    let failures = 2;
    const reviewItems = async (session: string, secret: string | undefined): Promise<ReviewItemsAnswer> => {
      asked.push([session, secret]);
      if (failures-- > 0) return { ok: false, kind: 'unavailable', message: 'the results server cannot be reached' };
      return { ok: true, items: [item(1), item(2)] };
    };
    const storage = new MemoryStorage();
    const a = await makeRun({ def: LIVE, storage, issuer, reviewItems });
    expect(await a.run.open()).toBe(true);
    await a.run.prepare();
    await a.run.acceptConsent();
    expect(asked).toEqual([
      ['srv-1', 'sec-1'],
      ['srv-1', 'sec-1'],
      ['srv-1', 'sec-1'],
    ]);
    expect(a.run.state.kind).toBe('instructions');
    await a.run.continue();
    expect(reviewOnScreen(a.run).task.item.story).toBe('Live story 1.');
    a.run.judge('good');
    await a.run.submit();
    const [row] = await a.outbox.rows('srv-1');
    expect(row).toMatchObject({ puzzle_id: 'para-sess-1/0', seed: 71, k: 2, gold: 'aunt', story: 'Live story 1.' });

    await a.outbox.release('srv-1');
    const b = await makeRun({ def: LIVE, storage, issuer, reviewItems: () => Promise.reject(new Error('not asked')) });
    expect(await b.run.open()).toBe(true);
    await b.run.prepare();
    expect(reviewOnScreen(b.run).task.item.story).toBe('Live story 2.');
  });

  it('says so and records nothing when the queue refuses or has no story', async () => {
    const refused = await makeRun({
      def: LIVE,
      issuer,
      reviewItems: async () => ({ ok: false, kind: 'refused', message: 'the session was not issued here' }),
    });
    expect(await refused.run.open()).toBe(true);
    await refused.run.prepare();
    await refused.run.acceptConsent();
    expect(refused.run.state).toEqual({ kind: 'refused', message: 'the session was not issued here' });
    expect(await refused.outbox.rows('srv-1')).toEqual([]);

    const empty = await makeRun({ def: LIVE, issuer, reviewItems: async () => ({ ok: true, items: [] }) });
    expect(await empty.run.open()).toBe(true);
    await empty.run.prepare();
    await empty.run.acceptConsent();
    expect(empty.run.state).toEqual({ kind: 'no-items' });
  });

  it('cannot run where no results server can be asked (a preview, inside JATOS)', async () => {
    const { run } = await makeRun({ def: LIVE });
    expect(await run.open()).toBe(false);
    expect(run.state.kind).toBe('error');
    expect(run.state.kind === 'error' && run.state.message).toMatch(
      /gets the stories to review from the results server/,
    );
  });
});

describe('a reload before the first trial', () => {
  it('keeps the clauses picked with the coverage, rather than picking again', async () => {
    const def: Partial<StudyDefinition> = {
      ...PARAPHRASE,
      clauseKs: [1],
      clausesPerParticipant: 1,
      favourUncovered: true,
      sinks: [{ kind: 'server' }],
    };
    const issuer: SessionIssuer = {
      study: { studyId: 'para' },
      request: async () => ({
        ok: true,
        grant: {
          study_id: 'para',
          session_id: 'srv-9',
          secret: 's',
          participant: 0,
          condition: null,
          resumed: false,
          answered: [],
          resume_code: 'K7QM-4TZQ',
          server_time: '2026-03-01T10:00:00.000Z',
        },
      }),
    };
    const only = (id: string) => Object.fromEntries(clauseCells([1]).map((c) => [c.id, c.id === id ? 0 : 5]));
    const storage = new MemoryStorage();
    const a = await makeRun({ def, storage, issuer, coverage: only('c1.son.female-male') });
    expect(await a.run.open()).toBe(true);
    await a.run.prepare();
    await a.run.acceptConsent();
    expect(a.run.state.kind).toBe('instructions');
    // Reloaded on the instructions: consent again (nothing recorded yet), the same clause after it.
    await a.outbox.release('srv-9');
    const b = await makeRun({ def, storage, issuer, coverage: only('c1.daughter.male-female') });
    await begin(b.run);
    expect(paraphraseOnScreen(b.run).clause.id).toBe('c1.son.female-male');
  });
});
