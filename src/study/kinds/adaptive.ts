/**
 * Adaptive puzzle solving: each participant's next story length follows their answers, by a
 * 2-down-1-up staircase or QUEST+ (src/study/adaptive), until the stopping rule (trials, or the
 * threshold's interval width). The trial is puzzle solving's (pick a word, rate the difficulty);
 * practice comes first, as in a solve study; there are no attention checks (a run's length is not
 * known ahead).
 *
 * The schedule holds `adaptiveTrials` placeholders; the item of each is a pure function of the
 * study seed and the session's earlier answers (`follows.item`): the k the procedure asks for, the
 * task in turn, and the i-th strict puzzle of that (k, task) from the study seed, where i counts
 * the earlier trials at that k. Everyone who reaches a k sees the same puzzles there, so items
 * can be compared across people; the results server replays the same function to check a row.
 * A session continued on another device gets its stored rows' facts with the session answer
 * (`SessionGrant.earlier`), so that device decides the next item as the first one would have.
 */
import { hashSeed, type Seed } from '../../core/random/rng';
import { adaptiveState, type AdaptiveSettings, type AdaptiveState } from '../adaptive/procedure';
import type { Answer } from '../adaptive/psychometric';
import { type EstimateColumns, NO_ESTIMATE } from '../results/resultFields';
import type { StudyDefinition } from '../definition/types';
import type { StudyItem, Trial } from '../schedule/items';
import type { TrialContent } from '../schedule/trialContent';
import type { TrialScreen } from './screens';
import { SOLVE } from './solve';
import { type EarlierRow, type KindSpec, MissingRowsError } from './types';

const itemSeed = (def: StudyDefinition, ...parts: Seed[]) => hashSeed(def.seed, 'study-item', ...parts);

/** The placeholder of the n-th adaptive trial (its k and seed mean nothing until it is decided). */
const PLACEHOLDER = /^adaptive-(\d+)$/;

/** The procedure's settings from the definition. */
export function adaptiveSettings(
  def: Pick<StudyDefinition, 'adaptive' | 'k' | 'adaptiveTrials' | 'ciWidth'>,
): AdaptiveSettings {
  return {
    procedure: def.adaptive,
    levels: [...def.k].sort((a, b) => a - b),
    maxTrials: def.adaptiveTrials,
    ciWidth: def.ciWidth,
  };
}

/** The answers the procedure counts: main rows that were answered or timed out (a timeout counts as wrong), in trial order. */
export function adaptiveAnswers(rows: readonly EarlierRow[], before = Infinity): Answer[] {
  return rows
    .filter((r) => r.phase === 'main' && r.trial_index < before && r.ended_on !== 'skipped')
    .sort((a, b) => a.trial_index - b.trial_index)
    .map((r) => ({ k: r.k, correct: r.ended_on === 'response' && r.correct }));
}

/** Where a session's adaptive run stands after its rows: the next k (null once stopped) and the estimate. */
export const adaptiveStateOf = (def: StudyDefinition, rows: readonly EarlierRow[]): AdaptiveState =>
  adaptiveState(adaptiveSettings(def), adaptiveAnswers(rows));

/** An estimate as stored: three decimals (the text `toFixed(3)` gives, so a file and a recomputation print alike). */
export const storedEstimate = (x: number): number => Number(x.toFixed(3));

/**
 * The estimate columns of an adaptive study's main row: the estimate after its answer, over the
 * session's rows up to it; NO_ESTIMATE for practice, or when a main row before it is missing (the
 * main trials follow the practice ones, so row t is adaptive trial t − practice).
 */
export function adaptiveEstimateColumns(
  def: StudyDefinition,
  row: EarlierRow,
  rows: readonly EarlierRow[],
): EstimateColumns {
  if (row.phase !== 'main') return NO_ESTIMATE;
  // One row per trial (a row sent again beside its stored copy counts once), the first standing.
  const before = new Map<number, EarlierRow>();
  for (const r of rows) if (r.trial_index < row.trial_index && !before.has(r.trial_index)) before.set(r.trial_index, r);
  const mainBefore = [...before.values()].filter((r) => r.phase === 'main').length;
  if (mainBefore < row.trial_index - def.practice) return NO_ESTIMATE;
  const state = adaptiveStateOf(def, [...before.values(), row]);
  const e = state.estimate;
  return {
    threshold_k: storedEstimate(e.threshold),
    threshold_low: storedEstimate(e.low),
    threshold_high: storedEstimate(e.high),
    adaptive_procedure: def.adaptive,
    adaptive_stop: state.stopped ?? '',
  };
}

/** The item the procedure gives after `answers` (their count is the trial's place among the adaptive ones). */
export function adaptiveItem(def: StudyDefinition, answers: readonly Answer[]): StudyItem | null {
  const { next } = adaptiveState(adaptiveSettings(def), answers);
  if (next === null) return null;
  const i = answers.filter((a) => a.k === next).length;
  const task = def.tasks[i % def.tasks.length]!;
  return {
    puzzleId: `adaptive-k${next}-t${task}-${i}`,
    phase: 'main',
    seed: itemSeed(def, 'adaptive', next, task, i),
    k: next,
    task,
  };
}

export const ADAPTIVE = {
  ...SOLVE,
  kind: 'adaptive',

  /** Practice items as a solve study has them; no shared main items or checks. */
  sharedItems(def) {
    const { practice } = SOLVE.sharedItems(def);
    return { practice, main: [], checks: [] };
  },
  /** `adaptiveTrials` placeholders, decided one by one as the answers come (`follows`). */
  ownItems: (def) =>
    Array.from({ length: def.adaptiveTrials }, (_, n): StudyItem => ({
      puzzleId: `adaptive-${n}`,
      phase: 'main',
      seed: 0,
      k: Math.min(...def.k),
      task: def.tasks[0]!,
    })),

  follows: {
    placeholder: (item) => item.phase === 'main' && PLACEHOLDER.test(item.puzzleId),
    item(def, trial: Trial, earlier) {
      const n = Number(PLACEHOLDER.exec(trial.item.puzzleId)?.[1] ?? Number.NaN);
      const before = earlier.filter((r) => r.phase === 'main' && r.trial_index < trial.trialIndex);
      const answers = adaptiveAnswers(before);
      const skipped = before.length - answers.length;
      if (skipped > 0) return null;
      if (answers.length < n) {
        throw new MissingRowsError(
          `trial ${trial.trialIndex} is adaptive trial ${n + 1}; its item follows the ${n} before it, and only ${answers.length} have arrived`,
        );
      }
      return adaptiveItem(def, answers);
    },
    estimate: adaptiveEstimateColumns,
  },

  // Practice items are fixed by the schedule; adaptive items are decided (and checked) through `follows`.
  fixesItem: () => true,

  designer: {
    ...SOLVE.designer,
    summaryHeading: 'Adaptive run',
    participantTask: (def) =>
      `Each participant answers up to ${def.adaptiveTrials} puzzles whose story length k (${Math.min(...def.k)}–${Math.max(...def.k)}) follows their answers (${def.adaptive === 'quest' ? 'QUEST+' : '2-down-1-up staircase, 70.7% right'})${def.ciWidth > 0 ? `, stopping early once the threshold’s 95% interval is at most ${def.ciWidth} hops wide` : ''}.`,
    orderFields: false,
  },
} as const satisfies KindSpec<TrialScreen, TrialContent>;
