import { generatePuzzle } from '../core/puzzle/puzzle';
import type { Command, Requests } from './protocol';
import { renderStory, setTemplateSource } from './renderers';

/**
 * What each command does: pure core calls. The worker file only dispatches here, and tests call
 * these directly on the main thread.
 */
export const handlers: { [C in Command]: (body: Requests[C]['body']) => Requests[C]['result'] } = {
  puzzle: (body) => generatePuzzle({ seed: body.seed, k: body.k, task: body.task, family: body.family }),
  story: (body) => {
    const puzzle = generatePuzzle({ seed: body.seed, k: body.k, task: body.task, family: body.family });
    return { puzzle, ...renderStory(puzzle, body.text) };
  },
  render: (body) => renderStory(body.puzzle, body.text),
  setTemplates: (body) => {
    setTemplateSource(body.id, body.source);
    return null;
  },
};
