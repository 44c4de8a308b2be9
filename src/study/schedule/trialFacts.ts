/**
 * A study trial made in Node (or any thread) without the generator worker. Kept apart from
 * trialContent.ts, which the participant page imports: this one pulls in the paraphrase bank,
 * which belongs to the worker bundle only.
 */
import { generatePuzzle } from '../../core/puzzle/puzzle';
import { createRng } from '../../core/random/rng';
import { datasetRenderer } from '../../core/text/datasetText';
import type { StoryRenderer } from '../../core/text/render';
import type { StudyDefinition } from '../definition/types';
import type { StudyItem } from './items';
import { storyRequest, trialContent, type TrialContent } from './trialContent';

/** The split seed of the page's stories (the generator worker's TEMPLATE_SPLIT_SEED). */
const STUDY_SPLIT_SEED = '1';

const renderers = new Map<string, StoryRenderer>();

/**
 * The trial of a study item made without the worker, as the page's generator worker makes it
 * (`features/participant/pipeline.test.ts` holds the two equal): the results server rebuilds each
 * row's puzzle with it rather than believe the page.
 */
export function studyTrialContent(def: StudyDefinition, item: StudyItem): TrialContent {
  const body = storyRequest(def, item);
  const key = JSON.stringify(body.text);
  let render = renderers.get(key);
  if (!render) {
    render = datasetRenderer(body.text, STUDY_SPLIT_SEED).render;
    renderers.set(key, render);
  }
  const puzzle = generatePuzzle({ seed: body.seed, k: body.k, task: body.task, strict: body.strict });
  return trialContent(puzzle, render(puzzle, body.text.half, createRng(puzzle.seed, 'text')), item);
}
