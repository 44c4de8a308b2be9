/**
 * The scheduler: what every participant of a study sees, in which order, under which condition.
 *
 * - The items are fixed by the study seed alone: every participant gets the same puzzles (same
 *   seeds, k and task), so answers can be compared item by item.
 * - The order of the main items comes from the participant's session seed (`order.mode: 'session'`)
 *   or from one of `lists` rotations of one fixed order (a Latin square when lists = items).
 * - The condition comes from a seeded balanced counter over the participant number (permuted
 *   blocks: within every block of (conditions × lists) participants each pair appears once), or
 *   is forced by the URL.
 *
 * Everything is a pure function of the definition and the participant's inputs, so a reloaded
 * session rebuilds exactly the same schedule and resumes at its first unanswered trial.
 *
 * Which items a kind has is its spec's (src/study/kinds): puzzle solving's are shared by everyone
 * and ordered here; a collection study has main items only, each participant their own (clauses,
 * embedded stories, or placeholders for the live review queue's), already in the order shown.
 * Items from outside (`ParticipantInput.items`: clauses picked with the results server's
 * coverage, stories the live review queue handed out) are taken as given.
 */
import { createRng, type Seed } from '../../core/random/rng';
import type { StudyCondition, StudyDefinition } from '../definition/types';
import { kindSpec } from '../kinds';
import {
  type ParticipantInput,
  type Step,
  type StudyItem,
  type StudyItems,
  StudyScheduleError,
  type Trial,
} from './items';

export { isLiveReview } from '../kinds';
export { StudyScheduleError } from './items';
export type { ParticipantInput, Phase, Step, StudyItem, StudyItems, Trial } from './items';

export interface ParticipantSchedule {
  readonly condition: StudyCondition;
  /** The counterbalanced list (0-based), or null in `session` order mode. */
  readonly list: number | null;
  readonly trials: readonly Trial[];
  readonly steps: readonly Step[];
}

/**
 * The study's items: for puzzle solving, main items per (k, task), practice items and attention
 * checks. A collection study has none shared by everyone (see `collectionItems`).
 */
export function studyItems(def: StudyDefinition): StudyItems {
  return kindSpec(def.kind).sharedItems(def);
}

/**
 * A collection study's main items for one participant (see the file's comment): their clauses,
 * their embedded stories, or placeholders for the stories the live queue will hand out.
 */
export function collectionItems(def: StudyDefinition, who: ParticipantInput): StudyItem[] {
  return kindSpec(def.kind).ownItems?.(def, who) ?? [];
}

/**
 * Counterbalanced list `list` of `lists`: the study's base order (a shuffle by the study seed)
 * rotated by an even share. With as many lists as items this is a Latin square: every item takes
 * every position exactly once over the lists.
 */
export function counterbalancedOrder<T>(base: readonly T[], list: number, lists: number): T[] {
  const n = base.length;
  const offset = Math.floor((list * n) / lists);
  return base.map((_, i) => base[(i + offset) % n]!);
}

/**
 * The element of a seeded balanced counter: participants are taken in blocks of `cells`; each
 * block is its own seeded permutation of 0..cells-1. Over any whole number of blocks every cell
 * is assigned equally often, and no cell is more than one ahead of another at any time.
 */
export function balancedCell(seed: Seed, participantNumber: number, cells: number, what: string): number {
  const block = Math.floor(participantNumber / cells);
  const order = createRng(seed, 'balanced', what, block).shuffle(Array.from({ length: cells }, (_, i) => i));
  return order[participantNumber % cells]!;
}

/** Main items with the attention checks spread evenly among them (check j after ⌊(j+1)·n/(c+1)⌋ main items). */
function withChecks(main: readonly StudyItem[], checks: readonly StudyItem[]): StudyItem[] {
  const out: StudyItem[] = [];
  let next = 0;
  const at = checks.map((_, j) => Math.floor(((j + 1) * main.length) / (checks.length + 1)));
  for (let i = 0; i <= main.length; i++) {
    while (next < checks.length && at[next] === i) out.push(checks[next++]!);
    if (i < main.length) out.push(main[i]!);
  }
  return out;
}

/**
 * A participant's schedule: condition, list, trials (practice first, then main items with the
 * checks among them) and steps (trials and breaks). Throws StudyScheduleError for a forced
 * condition the study does not have, or a URL-assigned study without one.
 */
export function scheduleParticipant(def: StudyDefinition, who: ParticipantInput): ParticipantSchedule {
  if (!Number.isInteger(who.participantNumber) || who.participantNumber < 0) {
    throw new StudyScheduleError('the participant number must be a whole number from 0');
  }
  const items = studyItems(def);
  const lists = def.order.mode === 'counterbalanced' ? def.order.lists : 1;
  const conditions = def.conditions.length;

  let condition: StudyCondition;
  let list: number;
  if (who.forcedCondition !== undefined) {
    const found = def.conditions.find((c) => c.id === who.forcedCondition);
    if (!found) {
      throw new StudyScheduleError(
        `the link asks for condition "${who.forcedCondition}", which this study does not have (it has ${def.conditions.map((c) => c.id).join(', ')})`,
      );
    }
    condition = found;
    list = balancedCell(def.seed, who.participantNumber, lists, `lists:${found.id}`);
  } else if (def.assignment === 'url') {
    throw new StudyScheduleError('this study assigns conditions by URL, and the link names none (condition=<id>)');
  } else {
    // Conditions and lists are crossed: one counter over every (condition, list) pair keeps
    // both balanced and unconfounded.
    const cell = balancedCell(def.seed, who.participantNumber, conditions * lists, 'conditions×lists');
    condition = def.conditions[Math.floor(cell / lists)]!;
    list = cell % lists;
  }

  // A collection study's items are the participant's own, already in the order they are shown.
  const own = kindSpec(def.kind).ownItems;
  const main = own
    ? [...(who.items ?? own(def, who))]
    : def.order.mode === 'counterbalanced'
      ? counterbalancedOrder(createRng(def.seed, 'base-order').shuffle([...items.main]), list, lists)
      : createRng(who.sessionSeed, 'session-order').shuffle([...items.main]);
  const sequence = [...items.practice, ...withChecks(main, items.checks)];
  const trials = sequence.map((item, trialIndex): Trial => ({ trialIndex, item }));

  const steps: Step[] = [];
  let counted = 0;
  const last = trials.length - 1;
  for (const trial of trials) {
    steps.push({ kind: 'trial', trial });
    if (trial.item.phase === 'practice') continue;
    counted++;
    if (def.breakEvery > 0 && counted % def.breakEvery === 0 && trial.trialIndex !== last) {
      steps.push({ kind: 'break', afterTrial: trial.trialIndex });
    }
  }
  return { condition, list: def.order.mode === 'counterbalanced' ? list : null, trials, steps };
}

/** The first trial not yet answered (the resume point), or undefined when every trial is. */
export function firstUnanswered(trials: readonly Trial[], answered: ReadonlySet<number>): Trial | undefined {
  return trials.find((t) => !answered.has(t.trialIndex));
}

/** What to do when a participant reopens a session that already has rows. */
export type ResumeDecision = 'resume' | 'restart' | 'refuse' | 'expired';

/**
 * Applies the study's resume policy to a session started at `startedAtMs`: past `maxAgeMinutes`
 * the session is `expired` (the UI says so and does not record); otherwise the policy itself.
 */
export function resumeDecision(def: StudyDefinition, startedAtMs: number, nowMs: number): ResumeDecision {
  if (nowMs - startedAtMs > def.maxAgeMinutes * 60_000) return 'expired';
  return def.resumePolicy;
}
