/**
 * The run of an adaptive study: each placeholder trial shows the item the earlier answers decide
 * (made when it comes), the run ends when the procedure stops, and a reopened session that has
 * stopped shows the completion rather than asking again.
 */
import { describe, expect, it } from 'vitest';
import type { RelationWord } from '../../core/kinship/relations';
import { withDefaults, type StudyDefinition } from '../definition/definition';
import { leaseLock } from '../delivery/lock';
import { Outbox } from '../delivery/outbox';
import { MemoryStorage } from '../delivery/storage';
import { adaptiveAnswers, adaptiveItem, adaptiveStateOf } from '../kinds/adaptive';
import { studyTrialContent } from '../schedule/trialFacts';
import { StudyRun, type RunIdentity } from './run';

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

async function makeRun(def: StudyDefinition, storage: MemoryStorage, made: string[]) {
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
  });
}

/** Answers like a person whose threshold is 4: right up to k = 4, a wrong word beyond. */
function answer(run: StudyRun) {
  const s = run.state;
  if (s.kind !== 'trial') throw new Error(`on ${s.kind}, not a trial`);
  const gold = s.content.gold as RelationWord;
  run.pick(s.trial.item.k <= 4 ? gold : ((gold === 'father' ? 'mother' : 'father') as RelationWord));
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
});
