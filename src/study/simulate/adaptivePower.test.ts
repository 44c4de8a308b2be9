import { describe, expect, it } from 'vitest';
import { adaptiveSettings } from '../kinds/adaptive';
import { withDefaults } from '../definition/definition';
import {
  adaptivePlanProblem,
  adaptiveStudiesAt,
  type AdaptivePowerPlan,
  planAdaptivePower,
  simulatePeople,
} from './adaptivePower';

const def = withDefaults({ kind: 'adaptive', adaptive: 'staircase', adaptiveTrials: 20, k: [2, 3, 4, 5, 6, 7, 8] });

const PLAN: AdaptivePowerPlan = {
  settings: adaptiveSettings(def),
  meanThreshold: 4,
  spread: 1,
  slope: 3,
  lapse: 0.05,
  conditions: true,
  conditionDifference: 1,
  halfWidth: 0.4,
  participants: 40,
  pool: 80,
  simulations: 300,
  seed: 1,
};

describe('the adaptive power planner', () => {
  it("runs simulated people through the study's own procedure: estimates near their true thresholds", () => {
    const { estimates, people } = simulatePeople(PLAN);
    expect(estimates).toHaveLength(2);
    expect(people.count).toBe(160);
    expect(people.meanTrials).toBe(20);
    // The staircase settles a little below the threshold for a shallow slope (src/study README).
    expect(Math.abs(people.bias)).toBeLessThan(0.6);
    expect(people.errorSd).toBeLessThan(1);
    // Between-person SD 1 plus measurement error.
    expect(people.estimateSd).toBeGreaterThan(0.9);
    expect(people.estimateSd).toBeLessThan(1.6);
    const mean = (xs: Float64Array) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(estimates[1]!) - mean(estimates[0]!)).toBeGreaterThan(0.6);
  });

  it('narrows the interval and gains power with more participants; no difference is found at about α', () => {
    const { estimates } = simulatePeople(PLAN);
    const small = adaptiveStudiesAt(PLAN, estimates, 10);
    const large = adaptiveStudiesAt(PLAN, estimates, 80);
    expect(large.halfWidth).toBeLessThan(small.halfWidth / 2);
    expect(large.power!).toBeGreaterThan(small.power! + 0.3);
    const nullPlan = { ...PLAN, conditionDifference: 0, simulations: 1000 };
    const nullPool = simulatePeople(nullPlan).estimates;
    const p = adaptiveStudiesAt(nullPlan, nullPool, 30).power!;
    expect(p).toBeGreaterThan(0.01);
    expect(p).toBeLessThan(0.12);
  });

  it('finds the participants each target needs, the same for the same seed', () => {
    const answer = planAdaptivePower(PLAN);
    const { estimates } = simulatePeople(PLAN);
    const group = { ...PLAN, conditions: false };
    const n = answer.needed.halfWidth!;
    expect(adaptiveStudiesAt(group, estimates, n).assurance).toBeGreaterThanOrEqual(0.8);
    expect(adaptiveStudiesAt(group, estimates, Math.floor(n * 0.85)).assurance).toBeLessThan(0.8);
    const m = answer.needed.power!;
    expect(adaptiveStudiesAt(PLAN, estimates, m).power!).toBeGreaterThanOrEqual(0.8);
    expect(adaptiveStudiesAt(PLAN, estimates, Math.floor(m * 0.85)).power!).toBeLessThan(0.8);
    expect(planAdaptivePower(PLAN)).toEqual(answer);
    // Without conditions there is no power to report.
    const single = planAdaptivePower({ ...PLAN, conditions: false, pool: 40 });
    expect([single.planned.power, single.needed.power]).toEqual([null, null]);
  });

  it('names what is wrong with a plan', () => {
    expect(adaptivePlanProblem(PLAN)).toBeUndefined();
    expect(adaptivePlanProblem({ ...PLAN, meanThreshold: 20 })).toMatch(/mean threshold must lie from 0 to 9/);
    expect(adaptivePlanProblem({ ...PLAN, pool: 5 })).toMatch(/simulated people/);
    expect(() => planAdaptivePower({ ...PLAN, halfWidth: 0 })).toThrow(/half-width/);
  });
});
