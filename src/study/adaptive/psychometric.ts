/**
 * The psychometric function of story length k that both adaptive procedures, the simulated
 * respondents and the power planner share: the chance of a right answer falls from near 1 to the
 * guess rate as k passes the person's threshold.
 *
 *   p(k) = guess + (1 − guess − lapse) · 1 / (1 + exp(slope · (k − threshold − ½)))
 *
 * `threshold` is the longest story the person answers mostly right: the decline's midpoint lies
 * half a hop beyond it, so a steep respondent with threshold 4 is right at k ≤ 4 and guesses at
 * k ≥ 5. `lapse` is the chance of a slip on an easy story; `guess` the chance of picking the right
 * word by luck (one of the relation words).
 */
import { RELATION_WORDS } from '../../core/kinship/relations';

export interface Psychometric {
  readonly threshold: number;
  readonly slope: number;
  readonly lapse: number;
}

/** The chance of guessing the right relation word among all of them. */
export const GUESS_RATE = 1 / RELATION_WORDS.length;

/** P(correct | k) under the function's parameters (see the file's comment). */
export function pCorrect(p: Psychometric, k: number, guess = GUESS_RATE): number {
  const decline = 1 / (1 + Math.exp(p.slope * (k - p.threshold - 0.5)));
  return guess + (1 - guess - p.lapse) * decline;
}

/** One answer of an adaptive run: the trial's k and whether it was right. */
export interface Answer {
  readonly k: number;
  readonly correct: boolean;
}

/** A participant's estimated threshold k with its interval (95%), after `trials` answers. */
export interface ThresholdEstimate {
  readonly threshold: number;
  readonly low: number;
  readonly high: number;
  readonly trials: number;
}
