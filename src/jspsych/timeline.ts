/**
 * A study's trials as jsPsych trials of plugin-clutrr: the items the designer's study would show
 * one participant (practice with feedback, main items per k and task, attention checks spread
 * among them, in the participant's order), from a study definition or a participant link's
 * token (or the whole `?study=…` URL). Same definition and participant → the same puzzles as a
 * CLUTRR Lab run: the schedule is `scheduleParticipant`, each puzzle `storyRequest` + the
 * generator's handler (puzzle.ts).
 *
 * Not carried over: breaks, the overall time limit, the scratchpad, consent and completion
 * texts, and the study's sinks (jsPsych keeps the data; send it where your experiment does).
 */
import { checkStudyDefinition, type StudyDefinition } from '../study/definition/definition';
import { decodeStudyLink } from '../study/definition/link';
import { scheduleParticipant } from '../study/schedule/schedule';

/** The parameters of one plugin-clutrr trial (plus `type`, the plugin class you pass in). */
export interface ClutrrTrialParameters {
  readonly type: unknown;
  readonly seed: number;
  readonly k: number;
  readonly task: number;
  readonly strict: boolean;
  readonly template_split: string;
  readonly story_order: 'shuffled';
  readonly display: string;
  readonly time_limit: number | null;
  readonly ask_difficulty: boolean;
  readonly feedback: boolean;
  readonly phase: string;
  readonly puzzle_id: string;
  /**
   * Added to the trial's data, as jsPsych does with `data` on any trial. `study_trial_index` is the
   * study's trial index (jsPsych's own `trial_index` counts every trial of the experiment).
   */
  readonly data: { readonly study_id: string; readonly condition: string; readonly study_trial_index: number };
}

export interface TimelineOptions {
  /** The plugin class (the default export, or `window.jsPsychClutrr`). */
  readonly plugin: unknown;
  /** The balanced counter: 0 for the first participant (JATOS batch counter, Prolific place…). Default 0. */
  readonly participantNumber?: number;
  /** Draws the order of the main items in `session` order mode (e.g. the participant's id). Default "jspsych". */
  readonly sessionSeed?: string;
  /** A condition id, required when the study assigns conditions by URL. */
  readonly condition?: string;
}

/** The study definition of a token or `?study=` URL; throws the link's own message when it is not one. */
export function studyFromLink(tokenOrUrl: string): StudyDefinition {
  let token = tokenOrUrl.trim();
  const inUrl = /[?&]study=([^&#]+)/.exec(token);
  if (inUrl) token = decodeURIComponent(inUrl[1]!);
  const decoded = decodeStudyLink(token);
  if (!decoded.ok) throw new Error(`clutrrTimeline: ${decoded.error.message}`);
  return decoded.definition;
}

/** One participant's CLUTRR trials of a study, ready for `jsPsych.run([...your trials, ...these])`. */
export function clutrrTimeline(study: StudyDefinition | string, options: TimelineOptions): ClutrrTrialParameters[] {
  const def = typeof study === 'string' ? studyFromLink(study) : study;
  if (typeof study !== 'string') {
    const problems = checkStudyDefinition(def);
    if (problems.length > 0) {
      throw new Error(
        `clutrrTimeline: the study definition is not valid: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`,
      );
    }
  }
  const schedule = scheduleParticipant(def, {
    participantNumber: options.participantNumber ?? 0,
    sessionSeed: options.sessionSeed ?? 'jspsych',
    forcedCondition: options.condition,
  });
  const condition = schedule.condition;
  return schedule.trials.map(({ trialIndex, item }) => ({
    type: options.plugin,
    seed: item.seed,
    k: item.k,
    task: item.task,
    strict: def.strict,
    template_split: def.templateSplit,
    story_order: 'shuffled',
    display: condition.display,
    time_limit: condition.perPuzzleLimitS,
    ask_difficulty: true,
    feedback: item.phase === 'practice',
    phase: item.phase,
    puzzle_id: item.puzzleId,
    data: { study_id: def.studyId, condition: condition.id, study_trial_index: trialIndex },
  }));
}
