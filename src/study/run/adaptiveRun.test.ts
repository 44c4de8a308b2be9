/**
 * The run of an adaptive study: each placeholder trial shows the item the earlier answers decide
 * (made when it comes), the run ends when the procedure stops, and a reopened session that has
 * stopped shows the completion rather than asking again.
 */
import { describe, expect, it } from 'vitest';
import type { RelationWord } from '../../core/kinship/relations';
import { withDefaults, type StudyDefinition } from '../definition/definition';
import { leaseLock } from '../delivery/lock';
import { readSessionAnswer, type SessionAnswer } from '../delivery/serverApi';
import { Outbox } from '../delivery/outbox';
import { MemoryStorage } from '../delivery/storage';
import { adaptiveAnswers, adaptiveItem, adaptiveStateOf, storedEstimate } from '../kinds/adaptive';
import { studyTrialContent } from '../schedule/trialFacts';
import { StudyRun, type RunIdentity, type RunScreen, type SessionIssuer } from './run';

const ANON: RunIdentity = {
  participantId: '',
  prolificStudyId: '',
  prolificSessionId: '',
  participantNumber: null,
  forcedCondition: null,
};
const perf = { mark: () => undefined, measure: () => undefined, now: () => 0 } as unknown as Pick<
  Performance,
  'mark' | 'measure' | 'now'
>;

async function makeRun(def: StudyDefinition, storage: MemoryStorage, made: string[], issuer?: SessionIssuer) {
  let now = Date.parse('2026-03-01T10:00:00.000Z');
  const timer = {
    now: () => now,
    setTimeout: () => 0,
    clearTimeout: () => undefined,
  };
  const outbox = await Outbox.open({ storage, transports: [], lock: leaseLock(storage, 'tab', timer), timer });
  return new StudyRun({
    def,
    token: 's1.adaptive',
    identity: ANON,
    outbox,
    storage,
    now: () => (now += 1500),
    newId: () => 'anon-1',
    device: { userAgent: 'test-agent', screen: '390x844@3' },
    makeTrial: async (t) => {
      made.push(t.item.puzzleId);
      return studyTrialContent(def, t.item);
    },
    perf,
    timer,
    sleep: async () => undefined,
    ...(issuer ? { issuer } : {}),
  });
}

/** Answers like a person whose threshold is `threshold` (4 unless told): right up to it, a wrong word beyond. */
function answer(run: StudyRun, threshold = 4) {
  const s = run.state;
  if (s.kind !== 'trial') throw new Error(`on ${s.kind}, not a trial`);
  const gold = s.content.gold as RelationWord;
  run.pick(s.trial.item.k <= threshold ? gold : ((gold === 'father' ? 'mother' : 'father') as RelationWord));
  run.rate(3);
  return run.submit();
}

describe('an adaptive run', () => {
  for (const procedure of ['staircase', 'quest'] as const) {
    it(`shows the ${procedure}'s items one by one and stops at its stopping rule`, async () => {
      const def = withDefaults({
        kind: 'adaptive',
        studyId: 'adapt',
        seed: 9,
        adaptive: procedure,
        adaptiveTrials: 14,
        practice: 1,
      });
      const storage = new MemoryStorage();
      const made: string[] = [];
      const run = await makeRun(def, storage, made);
      expect(await run.open()).toBe(true);
      await run.prepare();
      // Only the practice item is made up front.
      expect(made).toEqual(['practice-0']);
      await run.acceptConsent();
      await run.continue();
      let guard = 0;
      while (run.state.kind === 'trial' || run.state.kind === 'feedback') {
        if (run.state.kind === 'feedback') await run.continue();
        else await answer(run);
        if (guard++ > 40) throw new Error('the run did not stop');
      }
      expect(run.state.kind).toBe('complete');
      const rows = await run.deps.outbox.rows(run.sessionId);
      const main = rows.filter((r) => r.phase === 'main').sort((a, b) => a.trial_index - b.trial_index);
      expect(main).toHaveLength(14);
      // Every row is the item the answers before it decide.
      main.forEach((row, n) => {
        const item = adaptiveItem(def, adaptiveAnswers(main.slice(0, n)))!;
        expect([row.puzzle_id, row.seed, row.k, row.task]).toEqual([item.puzzleId, item.seed, item.k, item.task]);
        expect(row.gold).toBe(studyTrialContent(def, item).gold);
      });
      expect(new Set(main.map((r) => r.k)).size).toBeGreaterThan(1);
      const estimate = adaptiveStateOf(def, rows).estimate;
      expect(Math.abs(estimate.threshold - 4)).toBeLessThanOrEqual(1);
      // Each main row carries the estimate after its answer, as the results server recomputes it;
      // the practice row none.
      main.forEach((row, n) => {
        const state = adaptiveStateOf(def, main.slice(0, n + 1));
        expect([
          row.threshold_k,
          row.threshold_low,
          row.threshold_high,
          row.adaptive_procedure,
          row.adaptive_stop,
        ]).toEqual([
          storedEstimate(state.estimate.threshold),
          storedEstimate(state.estimate.low),
          storedEstimate(state.estimate.high),
          procedure,
          n === 13 ? 'trials' : '',
        ]);
      });
      expect(rows.find((r) => r.phase === 'practice')!.threshold_k).toBeNull();

      // Reopened: it has stopped, so the completion shows again and nothing more is asked.
      await run.deps.outbox.release(run.sessionId);
      const again = await makeRun(def, storage, []);
      expect(await again.open()).toBe(true);
      await again.prepare();
      expect(again.state.kind).toBe('complete');
    });
  }

  it('stops early once the interval is narrow enough', async () => {
    const def = withDefaults({
      kind: 'adaptive',
      studyId: 'adapt',
      seed: 9,
      adaptive: 'quest',
      adaptiveTrials: 60,
      ciWidth: 1.5,
      practice: 0,
    });
    const run = await makeRun(def, new MemoryStorage(), []);
    await run.open();
    await run.prepare();
    await run.acceptConsent();
    await run.continue();
    while (run.state.kind === 'trial') await answer(run);
    expect(run.state.kind).toBe('complete');
    const rows = await run.deps.outbox.rows(run.sessionId);
    expect(rows.length).toBeLessThan(60);
    const { estimate, stopped } = adaptiveStateOf(def, rows);
    expect(stopped).toBe('interval');
    expect(estimate.high - estimate.low).toBeLessThanOrEqual(1.5);
  });

  describe('continued on another device', () => {
    const def = withDefaults({
      kind: 'adaptive',
      studyId: 'adapt',
      seed: 9,
      adaptive: 'staircase',
      adaptiveTrials: 14,
      practice: 1,
      sinks: [{ kind: 'server' }],
    });
    const CODE = 'K7QM-4TZP';
    /** The results server's answer as it goes over the wire: read by the page's own parser. */
    const wire = (body: Record<string, unknown>): SessionAnswer =>
      readSessionAnswer(body.resumed === true ? 200 : 201, {
        study_id: 'adapt',
        session_id: 'srv-1',
        secret: 'sec-1',
        participant: 0,
        condition: null,
        resume_code: CODE,
        server_time: '2026-03-01T10:00:00.000Z',
        answered: [],
        resumed: false,
        ...body,
      });
    const issuing = (body: Record<string, unknown>): SessionIssuer => ({
      study: { studyId: 'adapt' },
      request: async () => wire(body),
    });

    /** Device A: the practice trial and seven main trials (threshold 3, so some are wrong); A's rows and its next item. */
    async function deviceA() {
      const run = await makeRun(def, new MemoryStorage(), [], issuing({}));
      expect(await run.open()).toBe(true);
      await run.prepare();
      await run.acceptConsent();
      await run.continue();
      let main = 0;
      while (main < 7) {
        if (run.state.kind === 'feedback') await run.continue();
        else {
          if (run.state.kind === 'trial' && run.state.trial.item.phase === 'main') main++;
          await answer(run, 3);
        }
      }
      if (run.state.kind !== 'trial') throw new Error(`A is on ${run.state.kind}`);
      const rows = await run.deps.outbox.rows(run.sessionId);
      expect(rows).toHaveLength(8);
      expect(rows.some((r) => r.phase === 'main' && !r.correct)).toBe(true);
      // What the server sends of them: main rows only, what the next item follows.
      const facts = rows
        .filter((r) => r.phase === 'main')
        .map(({ trial_index, phase, k, correct, ended_on }) => ({ trial_index, phase, k, correct, ended_on }));
      return { next: run.state.trial, rows, facts };
    }

    it('picks the next item the first device would have, from the server’s facts, also after a reload', async () => {
      const a = await deviceA();
      const storage = new MemoryStorage();
      // A malformed fact and a second fact for a stored index are left out, not an error.
      const earlier = [...a.facts, { trial_index: 'x', k: 2 }, { ...a.facts[0]!, correct: !a.facts[0]!.correct }, 7];
      const issuer = issuing({ resumed: true, answered: a.rows.map((r) => r.trial_index), earlier });
      const b = await makeRun(def, storage, [], issuer);
      expect(await b.open()).toBe(true);
      await b.prepare();
      await b.acceptConsent(CODE);
      expect(b.state.kind).toBe('instructions');
      await b.continue();
      if (b.state.kind !== 'trial') throw new Error(`B is on ${b.state.kind}`);
      expect(b.state.trial).toEqual(a.next);
      expect(b.state.trial.item.puzzleId).toMatch(/^adaptive-k\d-t/);

      // B answers it; its row is the one A would have written there, and the next item follows all rows.
      await answer(b, 3);
      const bRows = await b.deps.outbox.rows(b.sessionId);
      expect(bRows.map((r) => [r.trial_index, r.puzzle_id, r.k])).toEqual([
        [a.next.trialIndex, a.next.item.puzzleId, a.next.item.k],
      ]);
      // Its estimate counts A's answers too (the server's facts), as the server's recomputation does.
      const bState = adaptiveStateOf(def, [...a.facts, ...bRows]);
      expect(bRows[0]!.threshold_k).toBe(storedEstimate(bState.estimate.threshold));
      const want = adaptiveItem(def, adaptiveAnswers([...a.facts, ...bRows]))!;
      const after = b.state as RunScreen;
      if (after.kind !== 'trial') throw new Error(`B is on ${after.kind}`);
      expect(after.trial.item).toEqual(want);

      // A reload on B (no new request to the server): the same item again, from the kept facts.
      await b.deps.outbox.release(b.sessionId);
      const reloaded = await makeRun(def, storage, [], {
        study: { studyId: 'adapt' },
        request: () => Promise.reject(new Error('not asked')),
      });
      expect(await reloaded.open()).toBe(true);
      await reloaded.prepare();
      if (reloaded.state.kind !== 'trial') throw new Error(`the reload is on ${reloaded.state.kind}`);
      expect(reloaded.state.trial.item).toEqual(want);
    });

    it('carries on at the first trial the server does not store (a row still in the first device’s outbox)', async () => {
      const a = await deviceA();
      // The server stores the practice row and six of the seven main rows (the last is still in A's outbox).
      const stored = a.rows.filter((r) => r.trial_index !== a.facts.at(-1)!.trial_index);
      const issuer = issuing({
        resumed: true,
        answered: stored.map((r) => r.trial_index),
        earlier: a.facts.slice(0, -1).map((f) => ({ ...f })),
      });
      const b = await makeRun(def, new MemoryStorage(), [], issuer);
      await b.open();
      await b.prepare();
      await b.acceptConsent(CODE);
      await b.continue();
      // Its first unanswered trial is A's last unsent one, decided here from the six facts before it.
      if (b.state.kind !== 'trial') throw new Error(`B is on ${b.state.kind}`);
      expect(b.state.trial.trialIndex).toBe(a.facts.at(-1)!.trial_index);
    });

    it('shows the error screen only when the facts before the next trial are truly missing', async () => {
      const a = await deviceA();
      // The server lists every trial as stored but sends facts of only the first five main rows.
      const issuer = issuing({
        resumed: true,
        answered: a.rows.map((r) => r.trial_index),
        earlier: a.facts.slice(0, 5),
      });
      const b = await makeRun(def, new MemoryStorage(), [], issuer);
      await b.open();
      await b.prepare();
      await b.acceptConsent(CODE);
      await b.continue();
      expect(b.state.kind).toBe('error');
      if (b.state.kind === 'error') expect(b.state.message).toMatch(/have not reached the results server yet/);
    });
  });
});
