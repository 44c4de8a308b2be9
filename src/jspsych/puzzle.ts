/**
 * A CLUTRR trial's puzzle, made in the page the way the study makes it: the study's generator
 * request (`storyRequest`), the generator worker's own `story` handler run on the main thread,
 * and `trialContent` for the story as shown, the question, the query names and the gold word.
 * The same seed, k, task and settings therefore give the same puzzle here as in a study run.
 */
import type { Puzzle } from '../core/puzzle/puzzle';
import type { TaskId } from '../core/puzzle/tasks';
import { withDefaults, type StudyDefinition } from '../study/definition/definition';
import type { StudyItem } from '../study/schedule/items';
import { storyRequest, trialContent, type TrialContent } from '../study/schedule/trialContent';
import { handlers } from '../worker/handlers';

export type StoryOrder = 'shuffled' | 'path';

/** What fixes a puzzle. */
export interface ClutrrPuzzleSpec {
  readonly seed: number;
  readonly k: number;
  readonly task: TaskId;
  readonly strict: boolean;
  readonly templateSplit: StudyDefinition['templateSplit'];
  readonly storyOrder: StoryOrder;
  /** main, practice, or check (an attention check asks for another word inside its question). */
  readonly phase: StudyItem['phase'];
  readonly puzzleId: string;
}

export interface ClutrrPuzzle {
  readonly content: TrialContent;
  readonly puzzle: Puzzle;
}

/** The puzzle and what the trial shows; throws with a sentence naming the bad setting. */
export function makeClutrrPuzzle(spec: ClutrrPuzzleSpec): ClutrrPuzzle {
  const item: StudyItem = { puzzleId: spec.puzzleId, phase: spec.phase, seed: spec.seed, k: spec.k, task: spec.task };
  const request = storyRequest(withDefaults({ strict: spec.strict, templateSplit: spec.templateSplit }), item);
  const made = handlers.story({ ...request, text: { ...request.text, storyOrder: spec.storyOrder } });
  return { content: trialContent(made.puzzle, made.story, item), puzzle: made.puzzle };
}
