/**
 * A weighted up-down staircase over story length k (Levitt 1971; Kaernbach 1991): two right
 * answers in a row make the next story one hop longer, one wrong answer makes it one hop shorter
 * (2-down-1-up in the psychophysicist's words, where "down" is harder), which settles where
 * P(correct) = √½ ≈ 70.7%. Steps are weighted by `stepHarder` / `stepEasier` (equal by default:
 * the 70.7% target; other weights move the target, `targetOf`), and the first steps are doubled
 * until the first reversal so the staircase finds the region quickly. The position is a real
 * number; the k shown is the nearest allowed level.
 *
 * Everything is a pure function of the answers so far: replaying them gives the same next k,
 * which is how the results server checks a row.
 */
import type { Answer, ThresholdEstimate } from './psychometric';

export interface StaircaseConfig {
  /** The allowed story lengths, ascending (e.g. 2..10). */
  readonly levels: readonly number[];
  /** The first trial's k. */
  readonly start: number;
  /** Right answers in a row before the next story is harder. */
  readonly down: number;
  readonly stepHarder: number;
  readonly stepEasier: number;
  /** Reversals left out of the estimate (the approach from the start). */
  readonly discardReversals: number;
}

export const STAIRCASE_DEFAULTS: Omit<StaircaseConfig, 'levels' | 'start'> = {
  down: 2,
  stepHarder: 1,
  stepEasier: 1,
  discardReversals: 2,
};

export interface StaircaseState {
  /** Where the staircase stands (real-valued); the next k is the nearest level. */
  readonly position: number;
  /** Right answers in a row at the current run. */
  readonly run: number;
  /** +1 moving to longer stories, −1 to shorter, 0 before the first move. */
  readonly direction: -1 | 0 | 1;
  /** The k at each reversal, in order. */
  readonly reversals: readonly number[];
  readonly trials: number;
  /** The k of every trial so far. */
  readonly ks: readonly number[];
}

/** The allowed level nearest a position (ties to the shorter story). */
export function nearestLevel(levels: readonly number[], position: number): number {
  let best = levels[0]!;
  for (const l of levels) if (Math.abs(l - position) < Math.abs(best - position)) best = l;
  return best;
}

/** The staircase before any answer. */
export function startStaircase(config: StaircaseConfig): StaircaseState {
  return { position: config.start, run: 0, direction: 0, reversals: [], trials: 0, ks: [] };
}

/** The staircase after one more answer (at the k it asked for). */
export function stepStaircase(config: StaircaseConfig, s: StaircaseState, correct: boolean): StaircaseState {
  const k = nearestLevel(config.levels, s.position);
  const lo = config.levels[0]!;
  const hi = config.levels[config.levels.length - 1]!;
  // Doubled steps until the first reversal.
  const scale = s.reversals.length === 0 ? 2 : 1;
  let move: -1 | 0 | 1 = 0;
  let run = s.run;
  let position = s.position;
  if (correct) {
    run++;
    if (run >= config.down) {
      move = 1;
      run = 0;
      position = Math.min(hi, position + scale * config.stepHarder);
    }
  } else {
    run = 0;
    move = -1;
    position = Math.max(lo, position - scale * config.stepEasier);
  }
  const reversed = move !== 0 && s.direction !== 0 && move !== s.direction;
  return {
    position,
    run,
    direction: move === 0 ? s.direction : move,
    reversals: reversed ? [...s.reversals, k] : s.reversals,
    trials: s.trials + 1,
    ks: [...s.ks, k],
  };
}

/** The staircase after the answers, in order. */
export function replayStaircase(config: StaircaseConfig, answers: readonly Answer[]): StaircaseState {
  let s = startStaircase(config);
  for (const a of answers) s = stepStaircase(config, s, a.correct);
  return s;
}

/** The k the staircase asks for next. */
export const staircaseNextK = (config: StaircaseConfig, s: StaircaseState): number =>
  nearestLevel(config.levels, s.position);

/** The target P(correct) of an n-down-1-up rule with these step weights: p^n · up = (1 − p^n) · down. */
export function targetOf(down: number, stepHarder: number, stepEasier: number): number {
  // p^n = stepEasier / (stepHarder + stepEasier)
  return (stepEasier / (stepHarder + stepEasier)) ** (1 / down);
}

/**
 * The threshold estimate: the mean k at the reversals after the first `discardReversals` (with
 * too few, the mean k of the second half of the trials), less half a hop (the 70.7% point lies
 * between the last k answered right and the first answered wrong; see psychometric.ts), with a
 * normal 95% interval from the spread of those k (at least ±0.5: k is whole).
 */
export function staircaseEstimate(config: StaircaseConfig, s: StaircaseState): ThresholdEstimate {
  let points: readonly number[] = s.reversals.slice(config.discardReversals);
  if (points.length < 2) points = s.reversals.length >= 2 ? s.reversals : s.ks.slice(Math.floor(s.ks.length / 2));
  if (points.length === 0) points = [config.start];
  const n = points.length;
  const mean = points.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(points.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : Infinity;
  const half = Math.max(0.5, (1.96 * sd) / Math.sqrt(n));
  const threshold = mean - 0.5;
  const span = config.levels[config.levels.length - 1]! - config.levels[0]! + 1;
  const h = Number.isFinite(half) ? half : span;
  return { threshold, low: threshold - h, high: threshold + h, trials: s.trials };
}
