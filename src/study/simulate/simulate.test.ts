import { describe, expect, it } from 'vitest';
import { withDefaults, type StudyDefinition } from '../definition/definition';
import { adaptiveStateOf } from '../kinds/adaptive';
import { pairedComparison } from './compare';
import { readRespondent, thresholdRespondent } from './respondent';
import { simulateStudy } from './simulate';

const adaptive = (over: Partial<StudyDefinition>) =>
  withDefaults({ kind: 'adaptive', studyId: 'sim', seed: 3, practice: 0, adaptiveTrials: 30, ...over });

const STEEP_4 = { threshold: 4, slope: 10, lapse: 0.05 };

describe('study simulate', () => {
  for (const procedure of ['staircase', 'quest'] as const) {
    it(`recovers threshold 4 (slope 10, lapse .05) within ±0.5 over 50 participants with the ${procedure}`, async () => {
      const def = adaptive({ adaptive: procedure });
      const result = await simulateStudy(def, thresholdRespondent(STEEP_4), { participants: 50, seed: 11 });
      expect(result.participants).toHaveLength(50);
      expect(result.rows).toHaveLength(50 * 30);
      expect(Math.abs(result.meanThreshold! - 4)).toBeLessThanOrEqual(0.5);
    });

    it(`recovers threshold 5 (slope 2) within ±1 on average over 40 participants with the ${procedure}`, async () => {
      const def = adaptive({ adaptive: procedure, seed: 8 });
      const result = await simulateStudy(def, thresholdRespondent({ threshold: 5, slope: 2, lapse: 0.05 }), {
        participants: 40,
        seed: 5,
      });
      expect(Math.abs(result.meanThreshold! - 5)).toBeLessThanOrEqual(1);
      // And a respondent two hops better is estimated higher.
      const better = await simulateStudy(def, thresholdRespondent({ threshold: 7, slope: 2, lapse: 0.05 }), {
        participants: 40,
        seed: 5,
      });
      expect(better.meanThreshold!).toBeGreaterThan(result.meanThreshold! + 1);
    });
  }

  it('is deterministic for a seed, and a different seed gives other answers', async () => {
    const def = adaptive({ adaptive: 'quest', adaptiveTrials: 12 });
    const respondent = thresholdRespondent({ threshold: 5, slope: 2, lapse: 0.05 });
    const a = await simulateStudy(def, respondent, { participants: 5, seed: 1 });
    const b = await simulateStudy(def, respondent, { participants: 5, seed: 1 });
    const c = await simulateStudy(def, respondent, { participants: 5, seed: 2 });
    expect(b).toEqual(a);
    expect(c.rows.map((r) => r.correct)).not.toEqual(a.rows.map((r) => r.correct));
  });

  it('each adaptive row is the item the procedure picks after the rows before it', async () => {
    const def = adaptive({ adaptive: 'staircase', adaptiveTrials: 15 });
    const { participants } = await simulateStudy(def, thresholdRespondent(STEEP_4), { participants: 3, seed: 4 });
    for (const p of participants) {
      expect(p.estimate).toEqual(adaptiveStateOf(def, p.rows).estimate);
      expect(
        p.rows.every(
          (r) =>
            r.puzzle_id ===
            `adaptive-k${r.k}-t1-${p.rows.filter((x) => x.k === r.k && x.trial_index < r.trial_index).length}`,
        ),
      ).toBe(true);
    }
  });

  it('runs a fixed-item study and estimates each threshold from its answers', async () => {
    const def = withDefaults({
      studyId: 'fixed',
      seed: 2,
      k: [2, 3, 4, 5, 6, 7],
      itemsPerK: 4,
      practice: 1,
      attentionChecks: 1,
    });
    const result = await simulateStudy(def, thresholdRespondent(STEEP_4), { participants: 10, seed: 3 });
    expect(result.rows).toHaveLength(10 * (24 + 2));
    expect(Math.abs(result.meanThreshold! - 4)).toBeLessThanOrEqual(0.75);
  });

  it('compares the trials each procedure needs to reach a 2-hop interval (paired over the same participants)', async () => {
    const needed = async (procedure: 'staircase' | 'quest') => {
      const def = adaptive({ adaptive: procedure, adaptiveTrials: 80, ciWidth: 2 });
      const r = await simulateStudy(def, thresholdRespondent({ threshold: 5, slope: 2, lapse: 0.05 }), {
        participants: 30,
        seed: 9,
      });
      return r.participants.map((p) => p.rows.length);
    };
    const staircase = await needed('staircase');
    const quest = await needed('quest');
    const cmp = pairedComparison(staircase, quest);
    expect(cmp.n).toBe(30);
    expect(cmp.meanDifference).toBeCloseTo(cmp.meanA - cmp.meanB, 10);
    expect(cmp.p).toBeGreaterThanOrEqual(0);
    expect(cmp.p).toBeLessThanOrEqual(1);
    // Both stop before the 80-trial cap on average.
    expect(cmp.meanA).toBeLessThan(80);
    expect(cmp.meanB).toBeLessThan(80);
  });

  it('reads --respondent and names what is wrong', () => {
    expect(readRespondent('threshold=4,slope=10,lapse=0.05')).toEqual({
      kind: 'threshold',
      params: STEEP_4,
    });
    expect(readRespondent('threshold=3')).toEqual({
      kind: 'threshold',
      params: { threshold: 3, slope: 2, lapse: 0.05 },
    });
    expect(readRespondent('model=gat')).toEqual({ kind: 'model', model: 'gat' });
    expect(readRespondent('slope=2')).toMatch(/threshold=K is required/);
    expect(readRespondent('threshold=4,lapse=0.9')).toMatch(/lapse=0.9 must be a number from 0 to 0.5/);
    expect(readRespondent('threshold=4,speed=3')).toMatch(/"speed" is not a respondent setting/);
    expect(readRespondent('model=gat,threshold=3')).toMatch(/takes no other setting/);
  });

  it('refuses a collection study', async () => {
    const def = withDefaults({ kind: 'paraphrase', studyId: 'p' });
    await expect(simulateStudy(def, thresholdRespondent(STEEP_4), { participants: 1, seed: 1 })).rejects.toThrow(
      /a paraphrase study cannot be simulated/,
    );
  });
});
