/**
 * The power planner's inputs as the designer shows them, and the plan they make: the expected
 * accuracy by k (Table 3's where it has the k, else the nearest of its values), the sample and
 * the effects, read from the text inputs with a problem named where one is wrong. An adaptive
 * study's planner asks other questions (the thresholds' spread, an interval's half-width): its
 * inputs and plan below.
 */
import { PAPER_TABLE3 } from '../../study/results/paper';
import type { StudyDefinition } from '../../study/definition/definition';
import { type PowerAnswer, type PowerPlan, powerPlanProblem } from '../../study/simulate/power';
import {
  ASSURANCE,
  type AdaptivePowerAnswer,
  type AdaptivePowerPlan,
  adaptivePlanProblem,
} from '../../study/simulate/adaptivePower';
import { adaptiveSettings } from '../../study/kinds/adaptive';

export interface PowerInputs {
  /** `k:accuracy` pairs, comma-separated. */
  readonly accuracy: string;
  readonly participants: string;
  readonly itemsPerK: string;
  readonly spread: string;
  readonly conditionEffect: string;
  readonly simulations: string;
  readonly seed: string;
}

/** Table 3's accuracy at k, or the nearest k it has (its decline flattens by k = 6). */
export function paperAccuracy(k: number): number {
  let best = PAPER_TABLE3[0]!;
  for (const row of PAPER_TABLE3) if (Math.abs(row.k - k) < Math.abs(best.k - k)) best = row;
  return best.accuracy;
}

/** The planner's starting inputs for a study: its k with Table 3's accuracy, its items per k (all tasks). */
export function powerInputsFor(def: StudyDefinition): PowerInputs {
  const ks = [...def.k].sort((a, b) => a - b);
  return {
    accuracy: ks.map((k) => `${k}:${paperAccuracy(k)}`).join(', '),
    participants: '40',
    itemsPerK: String(def.itemsPerK * def.tasks.length),
    spread: '1',
    conditionEffect: '0.5',
    simulations: '1000',
    seed: '1',
  };
}

const num = (t: string) => (/^\s*-?\d+(\.\d+)?\s*$/.test(t) ? Number(t) : Number.NaN);

/** The plan the inputs describe, or what is wrong with them. */
export function planFromInputs(inputs: PowerInputs): { ok: true; plan: PowerPlan } | { ok: false; message: string } {
  const accuracy: { k: number; accuracy: number }[] = [];
  for (const part of inputs.accuracy.split(',')) {
    if (part.trim() === '') continue;
    const m = /^\s*(\d+)\s*:\s*(0?\.\d+|1(\.0+)?|0)\s*$/.exec(part);
    if (!m) return { ok: false, message: `Expected accuracy: “${part.trim()}” is not k:accuracy (like 2:0.848)` };
    accuracy.push({ k: Number(m[1]), accuracy: Number(m[2]) });
  }
  accuracy.sort((a, b) => a.k - b.k);
  if (new Set(accuracy.map((a) => a.k)).size !== accuracy.length) {
    return { ok: false, message: 'Expected accuracy: each k may be given once' };
  }
  const plan: PowerPlan = {
    accuracy,
    participants: num(inputs.participants),
    itemsPerK: num(inputs.itemsPerK),
    spread: num(inputs.spread),
    conditionEffect: num(inputs.conditionEffect),
    simulations: num(inputs.simulations),
    seed: num(inputs.seed),
  };
  if (!Number.isInteger(plan.seed) || plan.seed < 0) return { ok: false, message: 'Seed: a whole number from 0' };
  const problem = powerPlanProblem(plan);
  return problem ? { ok: false, message: problem } : { ok: true, plan };
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** The sentence that says how a planned N was chosen (the summary and the recruitment text show it). */
export function plannedHow(plan: PowerPlan, answer: PowerAnswer, n: number): string {
  const first = plan.accuracy[0]!;
  const last = plan.accuracy[plan.accuracy.length - 1]!;
  return (
    `${n} participants: 80% power (α = .05, two-sided) to detect the difference between two conditions of ${plan.conditionEffect} log-odds, ` +
    `by ${plan.simulations.toLocaleString('en')} simulated studies of this design per size (${plan.itemsPerK} items per k, between-person SD ${plan.spread} log-odds, ` +
    `expected accuracy ${pct(first.accuracy)} at k = ${first.k} to ${pct(last.accuracy)} at k = ${last.k}; seed ${plan.seed}). ` +
    `With ${plan.participants} participants the power was ${pct(answer.power.decline)} for the decline with k, ${pct(answer.power.contrast)} for k = ${first.k} vs ${last.k} and ${pct(answer.power.conditions)} for the conditions.`
  );
}

/** The adaptive planner's inputs (the procedure, levels and stopping rule come from the design). */
export interface AdaptivePowerInputs {
  readonly meanThreshold: string;
  readonly spread: string;
  readonly slope: string;
  readonly lapse: string;
  readonly conditionDifference: string;
  readonly halfWidth: string;
  readonly participants: string;
  readonly pool: string;
  readonly simulations: string;
  readonly seed: string;
}

/**
 * The adaptive planner's starting inputs: a mean threshold of 3.5 hops (Table 3's accuracy is near
 * one half at k = 4, the psychometric function's midpoint half a hop past the threshold), an SD of
 * one hop, slope 2 and lapse .05 (`study simulate`'s defaults), half a hop between conditions, an
 * interval of ±0.25 hops; fewer simulated people for QUEST+, whose runs cost more.
 */
export function adaptiveInputsFor(def: StudyDefinition): AdaptivePowerInputs {
  return {
    meanThreshold: '3.5',
    spread: '1',
    slope: '2',
    lapse: '0.05',
    conditionDifference: '0.5',
    halfWidth: '0.25',
    participants: '40',
    pool: def.adaptive === 'quest' ? '100' : '300',
    simulations: '1000',
    seed: '1',
  };
}

/** The adaptive plan the inputs and the design describe, or what is wrong with them. */
export function adaptivePlanFromInputs(
  def: StudyDefinition,
  inputs: AdaptivePowerInputs,
): { ok: true; plan: AdaptivePowerPlan } | { ok: false; message: string } {
  const plan: AdaptivePowerPlan = {
    settings: adaptiveSettings(def),
    meanThreshold: num(inputs.meanThreshold),
    spread: num(inputs.spread),
    slope: num(inputs.slope),
    lapse: num(inputs.lapse),
    conditions: def.conditions.length >= 2,
    conditionDifference: num(inputs.conditionDifference),
    halfWidth: num(inputs.halfWidth),
    participants: num(inputs.participants),
    pool: num(inputs.pool),
    simulations: num(inputs.simulations),
    seed: num(inputs.seed),
  };
  if (!Number.isInteger(plan.seed) || plan.seed < 0) return { ok: false, message: 'Seed: a whole number from 0' };
  const problem = adaptivePlanProblem(plan);
  return problem ? { ok: false, message: problem } : { ok: true, plan };
}

const PROCEDURE_NAMES = { staircase: '2-down-1-up staircase', quest: 'QUEST+' } as const;

/** How an adaptive study's planned N was chosen (the summary and the recruitment text show it). */
export function adaptivePlannedHow(plan: AdaptivePowerPlan, answer: AdaptivePowerAnswer, n: number): string {
  const s = plan.settings;
  const rule = `${PROCEDURE_NAMES[s.procedure]} over k = ${s.levels[0]}–${s.levels[s.levels.length - 1]}, at most ${s.maxTrials} trials${s.ciWidth > 0 ? ` or until the 95% interval is ${s.ciWidth} hops wide` : ''}`;
  const people = `${plan.pool.toLocaleString('en')} simulated people per condition (true thresholds mean ${plan.meanThreshold}, SD ${plan.spread} hops; slope ${plan.slope}, lapse ${plan.lapse}) run through the ${rule} (${answer.people.meanTrials.toFixed(1)} trials on average), ${plan.simulations.toLocaleString('en')} studies resampled per size; seed ${plan.seed}`;
  const byConditions = plan.conditions && answer.needed.power === n;
  return byConditions
    ? `${n} participants: 80% power (α = .05, two-sided, Welch) to detect a difference of ${plan.conditionDifference} hops in mean threshold between two conditions, by ${people}.`
    : `${n} participants: a 95% interval on the mean threshold no wider than ±${plan.halfWidth} hops in ${Math.round(ASSURANCE * 100)}% of simulated studies, by ${people}.`;
}
