import { describe, expect, it } from 'vitest';
import { withDefaults } from '../../study/definition/definition';
import type { PowerAnswer } from '../../study/simulate/power';
import { planAdaptivePower } from '../../study/simulate/adaptivePower';
import {
  adaptiveInputsFor,
  adaptivePlanFromInputs,
  adaptivePlannedHow,
  paperAccuracy,
  planFromInputs,
  plannedHow,
  powerInputsFor,
} from './powerPlan';
import { DEFAULT_FORM, definitionFromForm, withKind } from './form';

describe("the power planner's inputs", () => {
  it("start from the study's k with Table 3's accuracy (its nearest k beyond it) and its items per k", () => {
    const inputs = powerInputsFor(withDefaults({ k: [2, 4, 8], itemsPerK: 3, tasks: [1, 2] }));
    expect(inputs.accuracy).toBe('2:0.848, 4:0.477, 8:0.406');
    expect(inputs.itemsPerK).toBe('6');
    expect(paperAccuracy(10)).toBe(0.406);
  });

  it('read into a plan, or name what is wrong', () => {
    const ok = planFromInputs(powerInputsFor(withDefaults({ k: [2, 6] })));
    expect(ok).toEqual({
      ok: true,
      plan: {
        accuracy: [
          { k: 2, accuracy: 0.848 },
          { k: 6, accuracy: 0.406 },
        ],
        participants: 40,
        itemsPerK: 5,
        spread: 1,
        conditionEffect: 0.5,
        simulations: 1000,
        seed: 1,
      },
    });
    const base = powerInputsFor(withDefaults({}));
    expect(planFromInputs({ ...base, accuracy: '2:0.8, three' })).toEqual({
      ok: false,
      message: 'Expected accuracy: “three” is not k:accuracy (like 2:0.848)',
    });
    expect(planFromInputs({ ...base, accuracy: '2:0.8, 2:0.7' })).toMatchObject({ ok: false });
    expect(planFromInputs({ ...base, participants: 'ten' })).toMatchObject({ ok: false, message: /participants/ });
  });

  it('say how a planned N was chosen', () => {
    const read = planFromInputs(powerInputsFor(withDefaults({ k: [2, 6] })));
    if (!read.ok) throw new Error(read.message);
    const answer: PowerAnswer = {
      power: { decline: 1, contrast: 0.99, conditions: 0.3 },
      needed: { decline: 6, contrast: 7, conditions: 160 },
      studies: 5000,
    };
    const how = plannedHow(read.plan, answer, 160);
    expect(how).toMatch(/^160 participants: 80% power \(α = \.05, two-sided\)/);
    expect(how).toMatch(/1,000 simulated studies/);
    expect(how).toMatch(/85% at k = 2 to 41% at k = 6/);
  });
});

describe('the adaptive kind in the form', () => {
  it("takes the adaptive study's own k (2..10) when the kind is switched, and back", () => {
    const adaptive = withKind(DEFAULT_FORM, 'adaptive');
    expect(adaptive.k).toBe('2,3,4,5,6,7,8,9,10');
    const def = definitionFromForm({ ...adaptive, adaptive: 'quest', showEstimate: true });
    expect(def).toMatchObject({ kind: 'adaptive', adaptive: 'quest', showEstimate: true, itemsPerK: 5 });
    expect(withKind(adaptive, 'solve').k).toBe('2,3,4');
  });
});

describe("an adaptive study's planner", () => {
  const def = withDefaults({ kind: 'adaptive', adaptive: 'staircase', adaptiveTrials: 20, ciWidth: 0 });

  it("reads the design's procedure and the inputs into a plan, or names what is wrong", () => {
    const inputs = adaptiveInputsFor(def);
    const read = adaptivePlanFromInputs(def, inputs);
    expect(read).toMatchObject({
      ok: true,
      plan: {
        settings: { procedure: 'staircase', levels: [2, 3, 4, 5, 6, 7, 8, 9, 10], maxTrials: 20, ciWidth: 0 },
        meanThreshold: 3.5,
        conditions: false,
        halfWidth: 0.25,
        pool: 300,
      },
    });
    expect(adaptiveInputsFor(withDefaults({ kind: 'adaptive', adaptive: 'quest' })).pool).toBe('100');
    expect(adaptivePlanFromInputs(def, { ...inputs, halfWidth: 'narrow' })).toMatchObject({
      ok: false,
      message: /half-width/,
    });
  });

  it('answers for a small design, and says how its N was chosen', () => {
    const read = adaptivePlanFromInputs(def, { ...adaptiveInputsFor(def), pool: '60', simulations: '200' });
    if (!read.ok) throw new Error(read.message);
    const answer = planAdaptivePower(read.plan);
    // Thresholds SD 1 plus the staircase's error: about (1.96 · 1.1 / 0.25)² ≈ 75 for ±0.25 in 80% of studies.
    expect(answer.needed.halfWidth).toBeGreaterThan(50);
    expect(answer.needed.halfWidth).toBeLessThan(130);
    expect(answer.needed.power).toBeNull();
    const how = adaptivePlannedHow(read.plan, answer, answer.needed.halfWidth!);
    expect(how).toMatch(
      /^\d+ participants: a 95% interval on the mean threshold no wider than ±0\.25 hops in 80% of simulated studies/,
    );
    expect(how).toMatch(/2-down-1-up staircase over k = 2–10, at most 20 trials/);
  });
});
