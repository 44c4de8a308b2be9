import { handlers } from '../worker/handlers';
import type { PuzzleService } from './service';

/**
 * A PuzzleService that runs the worker's handlers on the calling thread (unit tests, Node).
 * `delay` lets tests interleave requests; errors keep their names, as through the worker.
 */
export function createMainThreadService(delay = 0): PuzzleService & { calls: number } {
  const wait = () => new Promise((r) => setTimeout(r, delay));
  const svc = {
    calls: 0,
    async generate(body: Parameters<PuzzleService['generate']>[0]) {
      svc.calls++;
      await wait();
      return handlers.story(body);
    },
    async generateOne(body: Parameters<PuzzleService['generate']>[0]) {
      await wait();
      return handlers.story(body);
    },
    async render(puzzle: Parameters<PuzzleService['render']>[0], text: Parameters<PuzzleService['render']>[1]) {
      await wait();
      return handlers.render({ puzzle, text });
    },
    setTemplates(id: number, source: Parameters<PuzzleService['setTemplates']>[1]) {
      handlers.setTemplates({ id, source });
    },
    cancel() {},
  };
  return svc;
}
