import { describe, expect, it } from 'vitest';
import { PAPER_TABLE3 } from '../results/paper';
import { planPower, powerAt, type PowerPlan, powerPlanProblem } from './power';

const PAPER: PowerPlan = {
  accuracy: PAPER_TABLE3.map((r) => ({ k: r.k, accuracy: r.accuracy })),
  participants: 20,
  itemsPerK: 5,
  spread: 1,
  conditionEffect: 0.5,
  simulations: 300,
  seed: 1,
};

describe('the power planner', () => {
  it('finds the strong decline of Table 3 with few people, and a null effect at the α rate', () => {
    const { power } = powerAt(PAPER, 20);
    expect(power.decline).toBeGreaterThan(0.95);
    expect(power.contrast).toBeGreaterThan(0.95);
    // No difference between conditions: "found" about 5% of the time.
    const nullPlan = { ...PAPER, conditionEffect: 0, simulations: 1000 };
    expect(powerAt(nullPlan, 20).power.conditions).toBeGreaterThan(0.02);
    expect(powerAt(nullPlan, 20).power.conditions).toBeLessThan(0.08);
  });

  it('gains power with more participants, and is the same for the same seed', () => {
    const small = powerAt(PAPER, 20).power.conditions;
    const large = powerAt(PAPER, 200).power.conditions;
    expect(large).toBeGreaterThan(small + 0.3);
    expect(powerAt(PAPER, 20)).toEqual(powerAt(PAPER, 20));
  });

  it('the participants needed for 80% do reach it; the decline needs few', () => {
    const answer = planPower(PAPER);
    const n = answer.needed.conditions!;
    expect(n).toBeGreaterThan(40);
    expect(powerAt(PAPER, n).power.conditions).toBeGreaterThanOrEqual(0.8);
    expect(answer.needed.decline!).toBeLessThanOrEqual(12);
    expect(answer.studies % PAPER.simulations).toBe(0);
  });

  it('names what is wrong with a plan', () => {
    expect(powerPlanProblem({ ...PAPER, accuracy: [{ k: 2, accuracy: 0.8 }] })).toMatch(/two k values/);
    expect(
      powerPlanProblem({
        ...PAPER,
        accuracy: [
          { k: 2, accuracy: 1.2 },
          { k: 3, accuracy: 0.5 },
        ],
      }),
    ).toMatch(/accuracy at k = 2 must be between 0 and 1/);
    expect(powerPlanProblem({ ...PAPER, participants: 2 })).toMatch(/participants must be/);
    expect(() => planPower({ ...PAPER, simulations: 5 })).toThrow(/simulations must be/);
  });
});
