/**
 * The designer's power planner for an adaptive study: how many participants give a 95% interval
 * on the mean threshold of a given half-width, and the power to find a difference in mean
 * threshold between two conditions. A Monte Carlo in two stages, both seeded:
 *
 * 1. Simulated people: `pool` per condition, each with a true threshold drawn from a normal
 *    distribution (mean `meanThreshold`, plus `conditionDifference` in the second condition; SD
 *    `spread`), the given slope and lapse, answer the study's own adaptive procedure
 *    (`adaptiveState` of src/study/adaptive/procedure.ts, with its levels, most trials and interval
 *    rule) through the simulated respondent of `study simulate` (`answersRight`) until it stops;
 *    each person's estimate is what the completion screen and the stored rows would show.
 * 2. Simulated studies: `simulations` studies of n participants drawn (with replacement) from the
 *    pool, conditions alternating, analysed as a researcher would: the mean threshold's 95% t
 *    interval (its half-width, over the first condition's participants — all of them without
 *    conditions) and Welch's t test between the conditions' thresholds at α = .05, two-sided.
 *
 * Running every person of every study through QUEST+ would cost minutes; resampling a pool keeps
 * the same procedure and respondent at a few seconds (the pool's size bounds how well the spread
 * of estimates is known: say so beside the answer).
 */
import { createRng, type Rng } from '../../core/random/rng';
import { adaptiveState, type AdaptiveSettings } from '../adaptive/procedure';
import type { Psychometric } from '../adaptive/psychometric';
import { MAX_PARTICIPANTS, TARGET_POWER } from './power';
import { answersRight } from './respondent';
import { studentTQuantile } from '../results/stats';
import { welch } from './tTest';

export interface AdaptivePowerPlan {
  /** The study's procedure, levels, most trials and interval rule (`adaptiveSettings(def)`). */
  readonly settings: AdaptiveSettings;
  /** Mean of people's true thresholds (hops). */
  readonly meanThreshold: number;
  /** SD of people's true thresholds (hops). */
  readonly spread: number;
  readonly slope: number;
  readonly lapse: number;
  /** The study has two conditions to compare (the first two of its conditions). */
  readonly conditions: boolean;
  /** Hops added to the true thresholds in the second condition. */
  readonly conditionDifference: number;
  /** The half-width wanted for the mean threshold's 95% interval (hops). */
  readonly halfWidth: number;
  /** The planned participants (in all; with conditions, half in each). */
  readonly participants: number;
  /** Simulated people per condition run through the procedure. */
  readonly pool: number;
  readonly simulations: number;
  readonly seed: number;
}

export interface AdaptivePowerAnswer {
  /** The planned participants' mean half-width of the 95% interval, and the share of studies reaching `halfWidth`. */
  readonly planned: { readonly halfWidth: number; readonly assurance: number; readonly power: number | null };
  /** Participants for the half-width in 80% of studies (one group), and for 80% power (in all); null: more than MAX_PARTICIPANTS (or no conditions). */
  readonly needed: { readonly halfWidth: number | null; readonly power: number | null };
  /** What the pool of simulated people showed: their mean trials, the estimates' bias and error SD, and the SD of the estimates. */
  readonly people: {
    readonly count: number;
    readonly meanTrials: number;
    readonly bias: number;
    readonly errorSd: number;
    readonly estimateSd: number;
  };
  /** Simulated studies run in all. */
  readonly studies: number;
}

const ALPHA = 0.05;
export const ASSURANCE = 0.8;

function normal(rng: Rng): number {
  const u = 1 - rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** What is wrong with a plan, or undefined. */
export function adaptivePlanProblem(plan: AdaptivePowerPlan): string | undefined {
  const { levels } = plan.settings;
  if (levels.length < 2) return 'the study needs two story lengths at least';
  if (!(plan.meanThreshold >= levels[0]! - 2 && plan.meanThreshold <= levels[levels.length - 1]! + 1))
    return `the mean threshold must lie from ${levels[0]! - 2} to ${levels[levels.length - 1]! + 1} (the study's k ${levels[0]}–${levels[levels.length - 1]})`;
  if (!(plan.spread >= 0 && plan.spread <= 5)) return 'the spread of thresholds must be from 0 to 5 hops';
  if (!(plan.slope >= 0.1 && plan.slope <= 20)) return 'the slope must be from 0.1 to 20';
  if (!(plan.lapse >= 0 && plan.lapse <= 0.3)) return 'the lapse rate must be from 0 to 0.3';
  if (!(Math.abs(plan.conditionDifference) <= 5)) return 'the condition difference must be from −5 to 5 hops';
  if (!(plan.halfWidth > 0 && plan.halfWidth <= 5)) return 'the half-width must be above 0 and at most 5 hops';
  if (!Number.isInteger(plan.participants) || plan.participants < 4 || plan.participants > MAX_PARTICIPANTS)
    return `participants must be a whole number from 4 to ${MAX_PARTICIPANTS}`;
  if (!Number.isInteger(plan.pool) || plan.pool < 20 || plan.pool > 5000)
    return 'simulated people must be a whole number from 20 to 5000';
  if (!Number.isInteger(plan.simulations) || plan.simulations < 100 || plan.simulations > 100_000)
    return 'simulations must be a whole number from 100 to 100000';
  return undefined;
}

/** One simulated person through the procedure: their estimate and the trials it took. */
export function runPerson(settings: AdaptiveSettings, person: Psychometric, rng: Rng) {
  const answers: { k: number; correct: boolean }[] = [];
  for (;;) {
    const state = adaptiveState(settings, answers);
    if (state.next === null) return { estimate: state.estimate.threshold, trials: answers.length };
    answers.push({ k: state.next, correct: answersRight(person, state.next, rng) });
  }
}

/** The pool: per condition, each simulated person's true threshold and estimate. */
export function simulatePeople(plan: AdaptivePowerPlan, progress?: (done: number, total: number) => void) {
  const groups = plan.conditions ? 2 : 1;
  const estimates = Array.from({ length: groups }, () => new Float64Array(plan.pool));
  let trials = 0;
  let errSum = 0;
  let errSq = 0;
  for (let c = 0; c < groups; c++) {
    for (let i = 0; i < plan.pool; i++) {
      const rng = createRng(plan.seed, 'adaptive-power', c, i);
      const threshold = plan.meanThreshold + (c === 1 ? plan.conditionDifference : 0) + plan.spread * normal(rng);
      const run = runPerson(plan.settings, { threshold, slope: plan.slope, lapse: plan.lapse }, rng);
      estimates[c]![i] = run.estimate;
      trials += run.trials;
      errSum += run.estimate - threshold;
      errSq += (run.estimate - threshold) ** 2;
      progress?.(c * plan.pool + i + 1, groups * plan.pool);
    }
  }
  const count = groups * plan.pool;
  const bias = errSum / count;
  const first = estimates[0]!;
  let m = 0;
  for (const e of first) m += e / first.length;
  let ss = 0;
  for (const e of first) ss += (e - m) ** 2;
  return {
    estimates,
    people: {
      count,
      meanTrials: trials / count,
      bias,
      errorSd: Math.sqrt(Math.max(0, errSq / count - bias * bias)),
      estimateSd: Math.sqrt(ss / (first.length - 1)),
    },
  };
}

type Pool = readonly Float64Array[];

/** `simulations` studies of n: the mean half-width, the share within `halfWidth`, and the power between conditions. */
export function adaptiveStudiesAt(plan: AdaptivePowerPlan, pool: Pool, n: number) {
  const a = new Float64Array(n);
  const b = new Float64Array(n);
  const g = plan.conditions ? Math.ceil(n / 2) : n;
  const t975 = g < 2 ? Infinity : studentTQuantile(0.975, g - 1);
  let widthSum = 0;
  let within = 0;
  let found = 0;
  let tSum = 0;
  for (let s = 0; s < plan.simulations; s++) {
    const rng = createRng(plan.seed, 'adaptive-power-study', s);
    let na = 0;
    let nb = 0;
    for (let i = 0; i < n; i++) {
      const c = plan.conditions ? i % 2 : 0;
      const from = pool[c]!;
      const e = from[Math.min(from.length - 1, Math.floor(rng.next() * from.length))]!;
      if (c === 0) a[na++] = e;
      else b[nb++] = e;
    }
    // The interval on one group's mean: all participants, or the first condition's (na = ⌈n/2⌉).
    const half = t975 * seOf(a, na);
    widthSum += half;
    if (half <= plan.halfWidth) within++;
    if (plan.conditions) {
      const test = welch(a, na, b, nb);
      if (test.p < ALPHA) found++;
      tSum += Number.isFinite(test.t) ? Math.max(-50, Math.min(50, test.t)) : 0;
    }
  }
  return {
    halfWidth: widthSum / plan.simulations,
    assurance: within / plan.simulations,
    power: plan.conditions ? found / plan.simulations : null,
    meanT: tSum / plan.simulations,
  };
}

/** The standard error of the mean of xs[0..n) (Infinity below two values). */
function seOf(xs: Float64Array, n: number): number {
  if (n < 2) return Infinity;
  let m = 0;
  for (let i = 0; i < n; i++) m += xs[i]!;
  m /= n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (xs[i]! - m) ** 2;
  return Math.sqrt(ss / (n - 1) / n);
}

const Z_ALPHA = 1.959964;
const Z_POWER = 0.841621;

/**
 * The smallest size tried that reaches the target, searched from a guess by 10% steps (as the
 * solve planner's `planPower`); null when MAX_PARTICIPANTS fall short.
 */
function search(guess: number, reaches: (n: number) => boolean, min: number): number | null {
  const clamp = (n: number) => Math.max(min, Math.min(MAX_PARTICIPANTS, Math.round(n)));
  let n = clamp(guess);
  if (reaches(n)) {
    let best = n;
    for (let i = 0; i < 6 && n > min; i++) {
      const smaller = clamp(Math.min(n - 1, n * 0.9));
      if (!reaches(smaller)) break;
      best = n = smaller;
    }
    return best;
  }
  for (let i = 0; i < 12 && n < MAX_PARTICIPANTS; i++) {
    n = clamp(Math.max(n + 1, n * 1.1));
    if (reaches(n)) return n;
  }
  return null;
}

/** The plan's answer: the half-width and power at the planned size, and the sizes each target needs. */
export function planAdaptivePower(
  plan: AdaptivePowerPlan,
  progress?: (done: number, total: number) => void,
): AdaptivePowerAnswer {
  const problem = adaptivePlanProblem(plan);
  if (problem) throw new RangeError(problem);
  const { estimates, people } = simulatePeople(plan, progress);
  const cache = new Map<number, ReturnType<typeof adaptiveStudiesAt>>();
  const at = (n: number) => {
    let f = cache.get(n);
    if (!f) cache.set(n, (f = adaptiveStudiesAt(plan, estimates, n)));
    return f;
  };
  const planned = at(plan.participants);
  // Half-width: one group of n; its interval is about z·SD/√n.
  const widthGuess = ((Z_ALPHA * people.estimateSd) / plan.halfWidth) ** 2 + 2;
  // With conditions the group is half the participants: search the group's size, report it.
  const groupPlan = { ...plan, conditions: false };
  const groupAt = (n: number) => {
    const key = -n;
    let f = cache.get(key);
    if (!f) cache.set(key, (f = adaptiveStudiesAt(groupPlan, estimates, n)));
    return f;
  };
  const halfWidth = search(widthGuess, (n) => groupAt(n).assurance >= ASSURANCE, 3);
  let power: number | null = null;
  if (plan.conditions) {
    const delta = Math.abs(planned.meanT) / Math.sqrt(plan.participants);
    power =
      delta < 1e-3 ? null : search(((Z_ALPHA + Z_POWER) / delta) ** 2 + 2, (n) => at(n).power! >= TARGET_POWER, 4);
  }
  return {
    planned: { halfWidth: planned.halfWidth, assurance: planned.assurance, power: planned.power },
    needed: { halfWidth, power },
    people,
    studies: cache.size * plan.simulations,
  };
}
