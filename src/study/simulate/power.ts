/**
 * The designer's power planner: a Monte Carlo of the study's own analysis. Each simulated study
 * has `participants` people (conditions alternate, so two conditions are balanced), each with
 * their own offset on the log-odds scale (normal, SD `spread`, plus `conditionEffect` in the
 * second condition) from the expected accuracy by k, answering `itemsPerK` puzzles at every k
 * through the same simulated respondent as `study simulate` (respondent.ts: `respond`,
 * `respondMany`, `curveChance`). The analyses, at α = .05 two-sided, with participants as the unit (as the
 * results dashboard's participant-cluster intervals treat them):
 * - decline with k: each person's least-squares slope of accuracy on k, one-sample t test;
 * - the first vs the last k (Table 3's k = 2 vs 6): each person's difference, paired t test;
 * - conditions: each person's mean accuracy, Welch's t test between the two conditions.
 * Power is the share of simulated studies that find the effect; the participants needed for 80%
 * is searched from a normal-approximation guess (`planPower`), with the same simulated people at
 * every size (person i of study s draws the same numbers whatever the size), so power rises
 * smoothly with it.
 */
import { createRng, type Rng } from '../../core/random/rng';
import { curveChance, respondMany } from './respondent';
import { oneSample, welch } from './tTest';

export interface PowerPlan {
  /** Expected accuracy at each k (two k at least), ascending by k. */
  readonly accuracy: readonly { readonly k: number; readonly accuracy: number }[];
  readonly participants: number;
  readonly itemsPerK: number;
  /** SD of people's offsets on the log-odds scale. */
  readonly spread: number;
  /** Log-odds added for people in the second condition. */
  readonly conditionEffect: number;
  /** Simulated studies per power figure (at least 1,000 in the designer). */
  readonly simulations: number;
  readonly seed: number;
}

export const POWER_TESTS = ['decline', 'contrast', 'conditions'] as const;
export type PowerTest = (typeof POWER_TESTS)[number];

export type PowerFigures = { readonly [T in PowerTest]: number };

export interface PowerAnswer {
  /** Power of each analysis at the planned participants. */
  readonly power: PowerFigures;
  /** Participants needed for 80% power, per analysis; null when even MAX_PARTICIPANTS fall short. */
  readonly needed: { readonly [T in PowerTest]: number | null };
  /** Simulated studies run in all (every figure and every step of the search). */
  readonly studies: number;
}

export const ALPHA = 0.05;
export const TARGET_POWER = 0.8;
export const MAX_PARTICIPANTS = 2000;

/** A standard normal draw (Box–Muller, one of the pair). */
function normal(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** What is wrong with a plan, or undefined. */
export function powerPlanProblem(plan: PowerPlan): string | undefined {
  if (plan.accuracy.length < 2) return 'give the expected accuracy at two k values at least';
  for (const a of plan.accuracy) {
    if (!(a.accuracy > 0 && a.accuracy < 1))
      return `the accuracy at k = ${a.k} must be between 0 and 1 (got ${a.accuracy})`;
  }
  if (!Number.isInteger(plan.participants) || plan.participants < 4 || plan.participants > MAX_PARTICIPANTS) {
    return `participants must be a whole number from 4 to ${MAX_PARTICIPANTS}`;
  }
  if (!Number.isInteger(plan.itemsPerK) || plan.itemsPerK < 1 || plan.itemsPerK > 100) {
    return 'items per k must be a whole number from 1 to 100';
  }
  if (!(plan.spread >= 0 && plan.spread <= 5)) return 'the spread between people must be from 0 to 5 (log-odds)';
  if (!(Math.abs(plan.conditionEffect) <= 5)) return 'the condition effect must be from −5 to 5 (log-odds)';
  if (!Number.isInteger(plan.simulations) || plan.simulations < 100 || plan.simulations > 100_000) {
    return 'simulations must be a whole number from 100 to 100000';
  }
  return undefined;
}

/** The power of each analysis with `n` participants (plan.simulations studies), and each test's mean t. */
export function powerAt(plan: PowerPlan, n: number): { readonly power: PowerFigures; readonly meanT: PowerFigures } {
  const ks = plan.accuracy.map((a) => a.k);
  const accuracy = new Map(plan.accuracy.map((a) => [a.k, a.accuracy]));
  const kMean = ks.reduce((s, k) => s + k, 0) / ks.length;
  const kSs = ks.reduce((s, k) => s + (k - kMean) ** 2, 0);
  const slopes = new Float64Array(n);
  const contrasts = new Float64Array(n);
  const first = new Float64Array(n);
  const second = new Float64Array(n);
  const found = { decline: 0, contrast: 0, conditions: 0 };
  const tSum = { decline: 0, contrast: 0, conditions: 0 };
  for (let s = 0; s < plan.simulations; s++) {
    const rng = createRng(plan.seed, 'power', s);
    let nFirst = 0;
    let nSecond = 0;
    for (let i = 0; i < n; i++) {
      const condition = i % 2;
      const offset = plan.spread * normal(rng) + (condition === 1 ? plan.conditionEffect : 0);
      const chance = curveChance(accuracy, offset);
      let slope = 0;
      let total = 0;
      let lo = 0;
      let hi = 0;
      for (let j = 0; j < ks.length; j++) {
        const k = ks[j]!;
        const acc = respondMany(chance, k, plan.itemsPerK, rng) / plan.itemsPerK;
        slope += (k - kMean) * acc;
        total += acc;
        if (j === 0) lo = acc;
        if (j === ks.length - 1) hi = acc;
      }
      slopes[i] = slope / kSs;
      contrasts[i] = lo - hi;
      if (condition === 0) first[nFirst++] = total / ks.length;
      else second[nSecond++] = total / ks.length;
    }
    const decline = oneSample(slopes, n);
    const contrast = oneSample(contrasts, n);
    const conditions = welch(first, nFirst, second, nSecond);
    if (decline.p < ALPHA) found.decline++;
    if (contrast.p < ALPHA) found.contrast++;
    if (conditions.p < ALPHA) found.conditions++;
    tSum.decline += clampT(decline.t);
    tSum.contrast += clampT(contrast.t);
    tSum.conditions += clampT(conditions.t);
  }
  const per = (x: PowerFigures): PowerFigures => ({
    decline: x.decline / plan.simulations,
    contrast: x.contrast / plan.simulations,
    conditions: x.conditions / plan.simulations,
  });
  return { power: per(found), meanT: per(tSum) };
}

/** A t without spread (every person the same) counts as large, not infinite, in the mean. */
const clampT = (t: number) =>
  Number.isFinite(t) ? Math.max(-50, Math.min(50, t)) : Number.isNaN(t) ? 0 : Math.sign(t) * 50;

/** z of 1 − α/2 and of the target power: the normal approximation's (z_α/2 + z_β)² / δ² participants. */
const Z_ALPHA = 1.959964;
const Z_POWER = 0.841621;

/**
 * The power at the planned participants, and the participants each analysis needs for 80%:
 * first guessed from the mean t at the planned size (t grows as √n: n ≈ ((z.975 + z.80) / δ)² with
 * δ = mean t / √n), then checked by the Monte Carlo at the guess and moved by 10% steps until
 * the smallest size tried that reaches 80% is found (within 10%). `progress(done)` after each
 * size tried.
 */
export function planPower(plan: PowerPlan, progress?: (sizesTried: number) => void): PowerAnswer {
  const problem = powerPlanProblem(plan);
  if (problem) throw new RangeError(problem);
  const cache = new Map<number, ReturnType<typeof powerAt>>();
  const at = (n: number) => {
    let f = cache.get(n);
    if (!f) {
      cache.set(n, (f = powerAt(plan, n)));
      progress?.(cache.size);
    }
    return f;
  };
  const planned = at(plan.participants);
  const needed = {} as { [T in PowerTest]: number | null };
  for (const test of POWER_TESTS) {
    const delta = Math.abs(planned.meanT[test]) / Math.sqrt(plan.participants);
    if (delta < 1e-3) {
      needed[test] = null;
      continue;
    }
    const clamp = (n: number) => Math.max(4, Math.min(MAX_PARTICIPANTS, Math.round(n)));
    let n = clamp(((Z_ALPHA + Z_POWER) / delta) ** 2 + 1);
    let best: number | null = null;
    if (at(n).power[test] >= TARGET_POWER) {
      best = n;
      // Smaller sizes while they still reach 80%.
      for (let i = 0; i < 4 && n > 4; i++) {
        const smaller = clamp(Math.min(n - 1, n * 0.9));
        if (at(smaller).power[test] < TARGET_POWER) break;
        best = n = smaller;
      }
    } else {
      for (let i = 0; i < 8 && n < MAX_PARTICIPANTS; i++) {
        n = clamp(Math.max(n + 1, n * 1.1));
        if (at(n).power[test] >= TARGET_POWER) {
          best = n;
          break;
        }
      }
    }
    needed[test] = best;
  }
  return { power: planned.power, needed, studies: cache.size * plan.simulations };
}
