import { describe, expect, it } from 'vitest';
import { generatePuzzle } from '../../core/puzzle/puzzle';
import { createRng } from '../../core/random/rng';
import { datasetRenderer } from '../../core/text/datasetText';
import { withDefaults } from '../../study/definition/definition';
import { studyItems } from '../../study/schedule/schedule';
import { storyRequest, trialContent } from '../../study/schedule/trialContent';
import { studyTrialContent } from '../../study/schedule/trialFacts';
import { handlers } from '../../worker/handlers';

/**
 * The page asks the generator worker (its `story` handler) for each trial; scripts and specs in
 * Node rebuild the same trial from the core. Both must give the same story, question and gold.
 */
describe('trial pipeline', () => {
  it.each(['all', 'train', 'test'] as const)('the worker and the core recipe agree (template split %s)', (split) => {
    const def = withDefaults({ seed: 99, k: [2, 4], itemsPerK: 2, templateSplit: split, attentionChecks: 2 });
    const items = studyItems(def);
    for (const item of [...items.practice, ...items.main, ...items.checks]) {
      const body = storyRequest(def, item);
      const fromWorker = handlers.story(body);
      const puzzle = generatePuzzle({ seed: body.seed, k: body.k, task: body.task, strict: body.strict });
      const story = datasetRenderer(body.text, '1').render(puzzle, body.text.half, createRng(puzzle.seed, 'text'));
      expect(trialContent(fromWorker.puzzle, fromWorker.story, item)).toEqual(trialContent(puzzle, story, item));
      // What the results server rebuilds each row from.
      expect(studyTrialContent(def, item)).toEqual(trialContent(puzzle, story, item));
    }
  });
});
