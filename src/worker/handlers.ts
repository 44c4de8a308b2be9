import { generatePuzzle } from '../core/puzzle/puzzle';
import type { GeneratorCommands } from './protocol';
import { renderStory, setTemplateSource } from './renderers';
import type { Handlers } from './rpc';

/**
 * What each generator command does: pure core calls. The worker file only serves these, and
 * tests call them directly on the main thread.
 */
export const handlers = {
  story: (body) => {
    const puzzle = generatePuzzle({
      seed: body.seed,
      k: body.k,
      task: body.task,
      family: body.family,
      strict: body.strict === true,
    });
    return { puzzle, ...renderStory(puzzle, body.text) };
  },
  render: (body) => renderStory(body.puzzle, body.text),
  setTemplates: (body) => {
    setTemplateSource(body.id, body.source);
    return null;
  },
} satisfies Handlers<GeneratorCommands>;
