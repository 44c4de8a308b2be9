import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../core/random/rng';
import { correlation, fitIrt, IrtError, normalCdf, scoreRespondent, type IrtData, type IrtModel } from './irt';

/** A standard normal draw (Box–Muller) from the seeded stream. */
function normal(rng: Rng): number {
  const u = 1 - rng.next();
  const v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

interface Simulated {
  readonly data: IrtData;
  readonly theta: number[];
  readonly a: number[];
  readonly b: number[];
}

/** Answers simulated from a Rasch (a = 1) or 2PL model with known parameters; `missing` leaves cells out. */
/**
 * Abilities are N(0, sd²), sd 1.5 unless said: a spread of logits typical of a reasoning test, and
 * one 20 items can place people in (with sd 1 the test's own information caps ρ(θ, EAP) near .9).
 */
function simulate(model: IrtModel, persons: number, items: number, seed: string, missing = 0, sd = 1.5): Simulated {
  const rng = createRng(seed);
  const theta = Array.from({ length: persons }, () => sd * normal(rng));
  const b = Array.from({ length: items }, (_, j) => -2 + (4 * j) / (items - 1) + 0.2 * normal(rng));
  const a = Array.from({ length: items }, () => (model === 'rasch' ? 1 : Math.exp(0.3 * normal(rng))));
  const responses = new Int8Array(persons * items);
  for (let p = 0; p < persons; p++)
    for (let j = 0; j < items; j++) {
      const P = 1 / (1 + Math.exp(-a[j]! * (theta[p]! - b[j]!)));
      responses[p * items + j] = missing > 0 && rng.chance(missing) ? -1 : rng.chance(P) ? 1 : 0;
    }
  return {
    data: {
      persons: theta.map((_, p) => `p${p}`),
      items: b.map((_, j) => `i${j}`),
      responses,
    },
    theta,
    a,
    b,
  };
}

const values = (list: readonly (number | null)[]) => list.map((v) => v ?? NaN);

describe('fitIrt: parameter recovery', () => {
  it('recovers a Rasch model (300 × 20): difficulties and abilities correlate ≥ .95 with the truth', () => {
    const sim = simulate('rasch', 300, 20, 'irt-rasch');
    const fit = fitIrt(sim.data, { model: 'rasch' });
    expect(fit.converged).toBe(true);
    expect(fit.items.every((i) => i.discrimination === 1)).toBe(true);
    expect(correlation(sim.b, values(fit.items.map((i) => i.difficulty)))).toBeGreaterThanOrEqual(0.95);
    expect(
      correlation(
        sim.theta,
        fit.persons.map((p) => p.ability),
      ),
    ).toBeGreaterThanOrEqual(0.9);
    // The logit scale itself: difficulties within a few SEs of the truth, σ near the simulated 1.5.
    const off = fit.items.map((i, j) => Math.abs(i.difficulty! - sim.b[j]!) / i.se!);
    expect(off.filter((z) => z > 3).length).toBeLessThanOrEqual(1);
    expect(fit.abilitySd).toBeGreaterThan(1.3);
    expect(fit.abilitySd).toBeLessThan(1.7);
    // Rasch items fit: mean squares near 1.
    for (const i of fit.items) {
      expect(i.infit!).toBeGreaterThan(0.7);
      expect(i.infit!).toBeLessThan(1.3);
    }
  });

  it('recovers a 2PL model (300 × 20): difficulties ≥ .95, discriminations positively', () => {
    const sim = simulate('2pl', 300, 20, 'irt-2pl');
    const fit = fitIrt(sim.data, { model: '2pl' });
    expect(fit.converged).toBe(true);
    expect(correlation(sim.b, values(fit.items.map((i) => i.difficulty)))).toBeGreaterThanOrEqual(0.95);
    expect(correlation(sim.a, values(fit.items.map((i) => i.discrimination)))).toBeGreaterThan(0.5);
    expect(
      correlation(
        sim.theta,
        fit.persons.map((p) => p.ability),
      ),
    ).toBeGreaterThanOrEqual(0.9);
    expect(fit.items.every((i) => i.se !== null && i.se > 0 && i.se < 1)).toBe(true);
  });

  it("issue 32's check: 200 × 20 Rasch, abilities and difficulties ≥ .9, EAP reliability within .05 of the simulated", () => {
    for (const seed of ['rel-1', 'rel-2', 'rel-3']) {
      const sim = simulate('rasch', 200, 20, seed);
      const fit = fitIrt(sim.data);
      const eap = fit.persons.map((p) => p.ability);
      expect(correlation(sim.theta, eap)).toBeGreaterThanOrEqual(0.9);
      expect(correlation(sim.b, values(fit.items.map((i) => i.difficulty)))).toBeGreaterThanOrEqual(0.9);
      // The simulated reliability: the share of the EAPs' variance that is true ability, ρ(θ, EAP)².
      const simulated = correlation(sim.theta, eap) ** 2;
      expect(Math.abs(fit.reliability - simulated)).toBeLessThan(0.05);
    }
  });

  it('estimates the spread of a Rasch ability distribution (sd 0.7)', () => {
    const sim = simulate('rasch', 400, 20, 'irt-narrow', 0, 0.7);
    const fit = fitIrt(sim.data);
    expect(fit.abilitySd).toBeGreaterThan(0.55);
    expect(fit.abilitySd).toBeLessThan(0.85);
    expect(correlation(sim.b, values(fit.items.map((i) => i.difficulty)))).toBeGreaterThanOrEqual(0.95);
  });

  it('fits a matrix with missing cells (30% not asked)', () => {
    const sim = simulate('rasch', 300, 20, 'irt-missing', 0.3);
    const fit = fitIrt(sim.data);
    expect(correlation(sim.b, values(fit.items.map((i) => i.difficulty)))).toBeGreaterThanOrEqual(0.95);
    const asked = fit.items.reduce((s, i) => s + i.n, 0);
    expect(asked).toBeLessThan(300 * 20 * 0.75);
    expect(asked).toBeGreaterThan(300 * 20 * 0.65);
  });

  it('has a test information curve peaking among the items and a misfitting item flagged by its mean squares', () => {
    const sim = simulate('rasch', 300, 12, 'irt-misfit');
    // Item 5 answered at random: it says nothing about ability.
    const rng = createRng('noise');
    for (let p = 0; p < 300; p++) sim.data.responses[p * 12 + 5] = rng.chance(0.5) ? 1 : 0;
    const fit = fitIrt(sim.data);
    const outfits = fit.items.map((i) => i.outfit!);
    expect(outfits.indexOf(Math.max(...outfits))).toBe(5);
    expect(fit.items[5]!.infit!).toBeGreaterThan(1.15);
    const peak = fit.information.reduce((a, b) => (b.information > a.information ? b : a));
    expect(Math.abs(peak.ability)).toBeLessThan(1.5);
    expect(fit.information.every((pt) => pt.information > 0 && Number.isFinite(pt.information))).toBe(true);
  });
});

describe('fitIrt: degenerate input', () => {
  it('flags items all right, all wrong or unanswered (no estimates, nothing infinite) and fits the rest', () => {
    const sim = simulate('rasch', 100, 8, 'irt-degenerate');
    const J = 8;
    for (let p = 0; p < 100; p++) {
      sim.data.responses[p * J + 0] = 1;
      sim.data.responses[p * J + 1] = 0;
      sim.data.responses[p * J + 2] = -1;
    }
    for (const model of ['rasch', '2pl'] as const) {
      const fit = fitIrt(sim.data, { model });
      expect(fit.items.slice(0, 3).map((i) => i.flag)).toEqual(['all-correct', 'all-wrong', 'unanswered']);
      expect(fit.items.slice(0, 3).every((i) => i.difficulty === null && i.se === null)).toBe(true);
      const rest = fit.items.slice(3);
      expect(rest.every((i) => i.flag === null && Number.isFinite(i.difficulty!) && Number.isFinite(i.se!))).toBe(true);
      expect(fit.persons.every((p) => Number.isFinite(p.ability) && Number.isFinite(p.se))).toBe(true);
      expect(Number.isFinite(fit.reliability)).toBe(true);
    }
  });

  it('gives a person with every answer right (or wrong) a finite ability beyond everyone else', () => {
    const sim = simulate('rasch', 60, 10, 'irt-perfect');
    sim.data.responses.fill(1, 0, 10);
    sim.data.responses.fill(0, 10, 20);
    const fit = fitIrt(sim.data);
    const abilities = fit.persons.map((p) => p.ability);
    expect(Number.isFinite(abilities[0]!) && Number.isFinite(abilities[1]!)).toBe(true);
    expect(abilities[0]).toBe(Math.max(...abilities));
    expect(abilities[1]).toBe(Math.min(...abilities));
  });

  it('gives a person with no answer to a fitted item the prior, counted out of the reliability', () => {
    const sim = simulate('rasch', 50, 6, 'irt-none');
    sim.data.responses.fill(-1, 0, 6);
    const fit = fitIrt(sim.data);
    expect(fit.persons[0]).toMatchObject({ answered: 0, fittedAnswers: 0, ability: 0 });
    expect(fit.persons[0]!.se).toBeCloseTo(fit.abilitySd, 10);
  });

  it('refuses too few participants or items with a message that says what is missing', () => {
    const one: IrtData = { persons: ['a', 'b'], items: ['x', 'y'], responses: Int8Array.from([1, 0, 0, 1]) };
    expect(() => fitIrt(one)).toThrow(IrtError);
    expect(() => fitIrt(one)).toThrow(/only 2 participants answered; the model needs at least 3/);
    const flat: IrtData = {
      persons: ['a', 'b', 'c'],
      items: ['x', 'y'],
      responses: Int8Array.from([1, 0, 1, 0, 0, 0]),
    };
    expect(() => fitIrt(flat)).toThrow(/only 1 item of 2 had both right and wrong answers/);
    expect(() => fitIrt({ ...flat, responses: new Int8Array(5) })).toThrow(/holds 5 answers, not 3 participants × 2/);
    expect(() => fitIrt({ ...flat, responses: Int8Array.from([1, 2, 0, 1, 0, 0]) })).toThrow(/2 is not 0 or 1/);
  });
});

describe('fitIrt: determinism and scoring', () => {
  it('gives identical numbers for the same matrix', () => {
    const sim = simulate('2pl', 120, 10, 'irt-same', 0.1);
    expect(fitIrt(sim.data, { model: '2pl' })).toEqual(fitIrt(sim.data, { model: '2pl' }));
  });

  it('scores a new respondent on the fit scale: all right is above nearly everyone, all wrong below', () => {
    const sim = simulate('rasch', 200, 15, 'irt-score');
    const fit = fitIrt(sim.data);
    const all = (right: boolean) => new Map(sim.data.items.map((id) => [id, right]));
    const top = scoreRespondent(fit, all(true))!;
    const bottom = scoreRespondent(fit, all(false))!;
    expect(top.percentile).toBeGreaterThan(90);
    expect(bottom.percentile).toBeLessThan(10);
    expect(top.answered).toBe(15);
    // The same answers as participant 7 give participant 7's ability.
    const seven = new Map(sim.data.items.map((id, j) => [id, sim.data.responses[7 * 15 + j] === 1]));
    expect(scoreRespondent(fit, seven)!.ability).toBeCloseTo(fit.persons[7]!.ability, 10);
    expect(scoreRespondent(fit, new Map([['nope', true]]))).toBeNull();
  });

  it('has a normal CDF accurate to 1e-6', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 6);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.158655254, 6);
  });
});
