/**
 * `study simulate`'s core: runs a puzzle study (solve, or adaptive) with simulated respondents
 * and returns the rows a real run would record, in the export format (ResultRow), and each
 * participant's threshold estimate. The schedule, the adaptive procedure and the puzzles are the
 * very ones of a real run (scheduleParticipant, the kind's `follows`, studyTrialContent), so a row
 * here is a row the results server would accept. Deterministic for a seed: the respondents draw
 * from `createRng(seed, participant)` and the times are a fixed clock.
 *
 * The estimate: an adaptive study's own (its procedure's); a fixed-item study's is QUEST+'s
 * posterior over the same grid given the main answers (src/study/adaptive/questPlus.ts).
 */
import { RELATION_WORDS, type RelationWord } from '../../core/kinship/relations';
import { createRng, type Rng } from '../../core/random/rng';
import type { Answer, ThresholdEstimate } from '../adaptive/psychometric';
import { questConfig, questEstimate, questGrid, questPosterior } from '../adaptive/questPlus';
import type { StudyDefinition } from '../definition/types';
import { adaptiveAnswers, adaptiveStateOf } from '../kinds/adaptive';
import { kindSpec } from '../kinds';
import { NO_ESTIMATE } from '../results/resultFields';
import type { ResultRow } from '../results/results';
import type { StudyItem, Trial } from '../schedule/items';
import { scheduleParticipant } from '../schedule/schedule';
import type { TrialContent } from '../schedule/trialContent';
import { studyTrialContent } from '../schedule/trialFacts';

/** One simulated participant's answer to a trial: the word chosen. */
export type Answerer = (item: StudyItem, content: TrialContent) => Promise<RelationWord> | RelationWord;

/** Makes participant `n`'s answerer, with that participant's own random stream. */
export type RespondentFactory = (participant: number, rng: Rng) => Answerer;

export interface SimulatedParticipant {
  readonly sessionId: string;
  readonly rows: readonly ResultRow[];
  readonly estimate: ThresholdEstimate | null;
}

export interface SimulationResult {
  readonly participants: readonly SimulatedParticipant[];
  readonly rows: readonly ResultRow[];
  /** The mean estimated threshold over participants, or null when none has one. */
  readonly meanThreshold: number | null;
}

/** The kinds whose trials are puzzles a respondent can answer. */
export const SIMULATED_KINDS = ['solve', 'adaptive'] as const;

/** A wrong word other than the gold one, drawn from `rng`. */
export function wrongWord(gold: string, rng: Rng): RelationWord {
  return rng.pick(RELATION_WORDS.filter((w) => w !== gold));
}

/** A fixed-item study's estimate: QUEST+'s posterior over its k given the main answers; null with fewer than two k. */
export function fixedItemEstimate(def: StudyDefinition, rows: readonly ResultRow[]): ThresholdEstimate | null {
  const levels = [...def.k].sort((a, b) => a - b);
  if (levels.length < 2) return null;
  const answers: Answer[] = adaptiveAnswers(rows);
  const grid = questGrid(questConfigFor(levels));
  return questEstimate(grid, questPosterior(grid, answers), answers.length);
}

const configs = new Map<string, ReturnType<typeof questConfig>>();
function questConfigFor(levels: readonly number[]) {
  const key = levels.join(',');
  let c = configs.get(key);
  if (!c) configs.set(key, (c = questConfig(levels)));
  return c;
}

/** The simulated clock: every trial takes 10 s from a fixed start, so the rows are the same for a seed. */
const START_MS = Date.parse('2026-01-01T09:00:00.000Z');

/**
 * A session's threshold estimate from its rows: an adaptive study's procedure replayed over them
 * (the estimate the completion screen shows), a fixed-item study's fitted from its accuracy by k.
 * The same for simulated rows and a real study's exported rows.
 */
export function sessionEstimate(def: StudyDefinition, rows: readonly ResultRow[]): ThresholdEstimate | null {
  return kindSpec(def.kind).follows ? adaptiveStateOf(def, rows).estimate : fixedItemEstimate(def, rows);
}

/**
 * Runs `participants` simulated participants (numbers 0..n−1, session ids `sim-<seed>-<n>`) through
 * the study; each answers every trial the schedule (or the adaptive procedure) gives them.
 * Throws for a study whose kind is not a puzzle study.
 */
export async function simulateStudy(
  def: StudyDefinition,
  respondent: RespondentFactory,
  options: { readonly participants: number; readonly seed: number },
): Promise<SimulationResult> {
  if (!(SIMULATED_KINDS as readonly string[]).includes(def.kind)) {
    throw new RangeError(
      `a ${def.kind} study cannot be simulated: its participants write or judge stories; simulate a solve or adaptive study`,
    );
  }
  const kind = kindSpec(def.kind);
  const contents = new Map<string, TrialContent>();
  const contentOf = (item: StudyItem) => {
    const key = `${item.puzzleId}@${item.seed}`;
    let c = contents.get(key);
    if (!c) contents.set(key, (c = studyTrialContent(def, item)));
    return c;
  };
  const out: SimulatedParticipant[] = [];
  for (let n = 0; n < options.participants; n++) {
    const sessionId = `sim-${options.seed}-${n}`;
    const rng = createRng(options.seed, 'simulate', n);
    const answer = respondent(n, rng);
    const schedule = scheduleParticipant(def, { participantNumber: n, sessionSeed: sessionId });
    const rows: ResultRow[] = [];
    for (const scheduled of schedule.trials) {
      let trial: Trial = scheduled;
      if (kind.follows?.placeholder(scheduled.item)) {
        const item = kind.follows.item(def, scheduled, rows);
        if (item === null) break;
        trial = { trialIndex: scheduled.trialIndex, item };
      }
      const content = contentOf(trial.item);
      const response = await answer(trial.item, content);
      const t0 = START_MS + n * 3_600_000 + trial.trialIndex * 10_000;
      rows.push({
        study_id: def.studyId,
        session_id: sessionId,
        participant_id: `sim-${n}`,
        condition: schedule.condition.id,
        trial_index: trial.trialIndex,
        phase: trial.item.phase,
        puzzle_id: trial.item.puzzleId,
        seed: trial.item.seed,
        k: trial.item.k,
        task: trial.item.task,
        strict: def.strict,
        query_a: content.queryA,
        query_b: content.queryB,
        gold: content.gold,
        response,
        correct: response === content.gold,
        difficulty: Math.min(5, Math.max(1, Math.round(trial.item.k / 2))),
        rt_ms: 8_000,
        ended_on: 'response',
        time_limit_s: schedule.condition.perPuzzleLimitS,
        answer_changes: 0,
        hidden_ms: 0,
        resumed: false,
        started_at: new Date(t0).toISOString(),
        answered_at: new Date(t0 + 8_000).toISOString(),
        story: content.story,
        prolific_study_id: '',
        prolific_session_id: '',
        ...NO_ESTIMATE,
      });
      // The estimate columns as the page writes them (and the results server recomputes them).
      const last = rows[rows.length - 1]!;
      if (kind.follows) rows[rows.length - 1] = { ...last, ...kind.follows.estimate(def, last, rows) };
    }
    const estimate = sessionEstimate(def, rows);
    out.push({ sessionId, rows, estimate });
  }
  const estimates = out.flatMap((p) => (p.estimate ? [p.estimate.threshold] : []));
  return {
    participants: out,
    rows: out.flatMap((p) => p.rows),
    meanThreshold: estimates.length === 0 ? null : estimates.reduce((a, b) => a + b, 0) / estimates.length,
  };
}

/** The estimates as CSV (session_id, threshold, low, high, trials), as `study simulate --estimates` and `study estimates` write them. */
export function estimatesCsv(sessions: readonly { sessionId: string; estimate: ThresholdEstimate | null }[]): string {
  const lines = ['session_id,threshold,low,high,trials'];
  for (const { sessionId, estimate: e } of sessions) {
    lines.push(
      e
        ? `${sessionId},${e.threshold.toFixed(3)},${e.low.toFixed(3)},${e.high.toFixed(3)},${e.trials}`
        : `${sessionId},,,,0`,
    );
  }
  return `${lines.join('\n')}\n`;
}
