/**
 * QUEST+ (Watson 2017, Journal of Vision 17(3):10) over story length k: a grid of psychometric
 * functions (threshold × slope × lapse, psychometric.ts) with a prior, updated by Bayes' rule after
 * each answer; the next k is the one whose answer is expected to leave the posterior with the
 * least entropy. The estimate is the posterior mean of the threshold with its 95% credible
 * interval (the marginal's 2.5% and 97.5% quantiles).
 *
 * Pure: the posterior is a function of the answers, so replaying them gives the same next k.
 */
import { type Answer, GUESS_RATE, pCorrect, type ThresholdEstimate } from './psychometric';

export interface QuestConfig {
  /** The allowed story lengths, ascending. */
  readonly levels: readonly number[];
  readonly thresholds: readonly number[];
  readonly slopes: readonly number[];
  readonly lapses: readonly number[];
  readonly guess: number;
}

/** The default grid: thresholds from a hop below the shortest story to the longest by quarter hops. */
export function questConfig(levels: readonly number[]): QuestConfig {
  const lo = levels[0]! - 1;
  const hi = levels[levels.length - 1]!;
  const thresholds: number[] = [];
  for (let t = lo; t <= hi + 1e-9; t += 0.25) thresholds.push(Math.round(t * 100) / 100);
  return { levels, thresholds, slopes: [0.5, 1, 2, 4, 8], lapses: [0, 0.02, 0.05, 0.1], guess: GUESS_RATE };
}

/** The grid's likelihood table and prior, made once per config. */
export interface QuestGrid {
  readonly config: QuestConfig;
  /** Parameter sets in grid order: its threshold's index, for the marginal. */
  readonly thresholdOf: Int32Array;
  /** P(correct | parameters i, level j) at i * levels + j. */
  readonly likelihood: Float64Array;
  readonly prior: Float64Array;
}

const grids = new WeakMap<QuestConfig, QuestGrid>();

/** The grid for a config (cached per config object). */
export function questGrid(config: QuestConfig): QuestGrid {
  const known = grids.get(config);
  if (known) return known;
  const { levels, thresholds, slopes, lapses } = config;
  const n = thresholds.length * slopes.length * lapses.length;
  const thresholdOf = new Int32Array(n);
  const likelihood = new Float64Array(n * levels.length);
  const prior = new Float64Array(n).fill(1 / n);
  let i = 0;
  for (let t = 0; t < thresholds.length; t++) {
    for (const slope of slopes) {
      for (const lapse of lapses) {
        thresholdOf[i] = t;
        for (let j = 0; j < levels.length; j++) {
          likelihood[i * levels.length + j] = pCorrect(
            { threshold: thresholds[t]!, slope, lapse },
            levels[j]!,
            config.guess,
          );
        }
        i++;
      }
    }
  }
  const grid = { config, thresholdOf, likelihood, prior };
  grids.set(config, grid);
  return grid;
}

/** Recent posteriors by their answers, per grid: a run asks after n answers what it asked after n − 1 and one more. */
const recent = new WeakMap<QuestGrid, Map<string, Float64Array>>();
const RECENT_MAX = 512;
const answersKey = (answers: readonly Answer[]) => answers.map((a) => `${a.k}${a.correct ? '+' : '-'}`).join(',');

/**
 * The posterior after the answers (normalised). An answer at a k off the grid's levels throws.
 * The same answers always give the same posterior; the one after all but the last answer is
 * reused when it was asked for recently (a run replays its answers at every trial).
 */
export function questPosterior(grid: QuestGrid, answers: readonly Answer[]): Float64Array {
  let memo = recent.get(grid);
  if (!memo) recent.set(grid, (memo = new Map()));
  const key = answersKey(answers);
  const known = memo.get(key);
  if (known) return Float64Array.from(known);
  const before = answers.length > 0 ? memo.get(answersKey(answers.slice(0, -1))) : undefined;
  const post = before ? updatePosterior(grid, before, answers.slice(-1)) : updatePosterior(grid, grid.prior, answers);
  if (memo.size >= RECENT_MAX) memo.delete(memo.keys().next().value!);
  memo.set(key, post);
  return Float64Array.from(post);
}

/** `from` updated by the answers, in a new array. */
function updatePosterior(grid: QuestGrid, from: Float64Array, answers: readonly Answer[]): Float64Array {
  const { levels } = grid.config;
  const post = Float64Array.from(from);
  for (const a of answers) {
    const j = levels.indexOf(a.k);
    if (j < 0) throw new RangeError(`k ${a.k} is not one of the procedure's levels (${levels.join(', ')})`);
    let sum = 0;
    for (let i = 0; i < post.length; i++) {
      const p = grid.likelihood[i * levels.length + j]!;
      post[i]! *= a.correct ? p : 1 - p;
      sum += post[i]!;
    }
    for (let i = 0; i < post.length; i++) post[i]! /= sum;
  }
  return post;
}

const entropy = (w: Float64Array, sum: number): number => {
  let h = 0;
  for (let i = 0; i < w.length; i++) {
    const q = w[i]! / sum;
    if (q > 0) h -= q * Math.log(q);
  }
  return h;
};

/** The level whose answer leaves the least expected posterior entropy (ties to the shorter story). */
export function questNextK(grid: QuestGrid, posterior: Float64Array): number {
  const { levels } = grid.config;
  const right = new Float64Array(posterior.length);
  const wrong = new Float64Array(posterior.length);
  let best = levels[0]!;
  let bestH = Infinity;
  for (let j = 0; j < levels.length; j++) {
    let pr = 0;
    for (let i = 0; i < posterior.length; i++) {
      const p = grid.likelihood[i * levels.length + j]!;
      right[i] = posterior[i]! * p;
      wrong[i] = posterior[i]! * (1 - p);
      pr += right[i]!;
    }
    const h = pr * entropy(right, pr) + (1 - pr) * entropy(wrong, 1 - pr);
    if (h < bestH - 1e-12) {
      bestH = h;
      best = levels[j]!;
    }
  }
  return best;
}

/** The threshold's posterior mean and 95% credible interval (quantiles of its marginal). */
export function questEstimate(grid: QuestGrid, posterior: Float64Array, trials: number): ThresholdEstimate {
  const { thresholds } = grid.config;
  const marginal = new Float64Array(thresholds.length);
  for (let i = 0; i < posterior.length; i++) marginal[grid.thresholdOf[i]!]! += posterior[i]!;
  let mean = 0;
  for (let t = 0; t < thresholds.length; t++) mean += marginal[t]! * thresholds[t]!;
  const quantile = (q: number) => {
    let c = 0;
    for (let t = 0; t < thresholds.length; t++) {
      c += marginal[t]!;
      if (c >= q) return thresholds[t]!;
    }
    return thresholds[thresholds.length - 1]!;
  };
  return { threshold: mean, low: quantile(0.025), high: quantile(0.975), trials };
}
