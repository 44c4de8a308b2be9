/**
 * An adaptive run as one function of its answers: which procedure (the staircase or QUEST+), over
 * which story lengths, when it stops (after `maxTrials` answers, or once the threshold's 95%
 * interval is at most `ciWidth` hops wide, after at least MIN_TRIALS_BEFORE_STOP), the next k and
 * the estimate so far. The study kind (src/study/kinds/adaptive.ts), the results server's row
 * check, the simulated respondents and the power planner all call this, so they agree.
 */
import type { AdaptiveProcedure } from '../definition/vocabulary';
import type { Answer, ThresholdEstimate } from './psychometric';
import { type QuestConfig, questConfig, questEstimate, questGrid, questNextK, questPosterior } from './questPlus';
import {
  replayStaircase,
  STAIRCASE_DEFAULTS,
  type StaircaseConfig,
  staircaseEstimate,
  staircaseNextK,
} from './staircase';

export { ADAPTIVE_PROCEDURES, type AdaptiveProcedure } from '../definition/vocabulary';

/** Answers before the interval may stop a run. */
export const MIN_TRIALS_BEFORE_STOP = 10;

export interface AdaptiveSettings {
  readonly procedure: AdaptiveProcedure;
  /** The story lengths the procedure moves over, ascending. */
  readonly levels: readonly number[];
  readonly maxTrials: number;
  /** Stop once the threshold's 95% interval is at most this wide (hops); 0: by trials only. */
  readonly ciWidth: number;
}

/** Where a run stands: the next k (null: it has stopped) and the estimate after the answers so far. */
export interface AdaptiveState {
  readonly next: number | null;
  readonly estimate: ThresholdEstimate;
  /** Why it stopped, when it has. */
  readonly stopped: 'trials' | 'interval' | null;
}

const staircaseConfigs = new Map<string, StaircaseConfig>();
const questConfigs = new Map<string, QuestConfig>();

/** One config object per level set (QUEST+'s grid is cached on it). */
function configOf(levels: readonly number[]) {
  const key = levels.join(',');
  let s = staircaseConfigs.get(key);
  if (!s) staircaseConfigs.set(key, (s = { ...STAIRCASE_DEFAULTS, levels, start: levels[0]! }));
  let q = questConfigs.get(key);
  if (!q) questConfigs.set(key, (q = questConfig(levels)));
  return { staircase: s, quest: q };
}

/** The run after its answers, in order: the next k (or null when it stops) and the estimate. */
export function adaptiveState(settings: AdaptiveSettings, answers: readonly Answer[]): AdaptiveState {
  const configs = configOf(settings.levels);
  let next: number;
  let estimate: ThresholdEstimate;
  if (settings.procedure === 'staircase') {
    const s = replayStaircase(configs.staircase, answers);
    next = staircaseNextK(configs.staircase, s);
    estimate = staircaseEstimate(configs.staircase, s);
  } else {
    const grid = questGrid(configs.quest);
    const posterior = questPosterior(grid, answers);
    next = questNextK(grid, posterior);
    estimate = questEstimate(grid, posterior, answers.length);
  }
  let stopped: AdaptiveState['stopped'] = null;
  if (answers.length >= settings.maxTrials) stopped = 'trials';
  else if (
    settings.ciWidth > 0 &&
    answers.length >= MIN_TRIALS_BEFORE_STOP &&
    estimate.high - estimate.low <= settings.ciWidth
  ) {
    stopped = 'interval';
  }
  return { next: stopped ? null : next, estimate, stopped };
}
