import type { Puzzle } from '../core/puzzle/puzzle';
import type { TemplateSource } from '../core/text/datasetText';
import type { RenderedStory } from '../core/text/render';
import { createGeneratorClient, type GeneratorClient } from '../worker/generatorClient';
import type { ExplorerText, PuzzleWithStory, StoryRequestBody } from '../worker/protocol';

/** Where the store gets puzzles from: the generator worker in the app, the handlers in tests. */
export interface PuzzleService {
  /** Generates a puzzle and its story; a newer call supersedes (rejects) an older one. */
  generate(body: StoryRequestBody): Promise<PuzzleWithStory>;
  /** Generates a puzzle and its story without superseding any other request (a handout's set). */
  generateOne(body: StoryRequestBody): Promise<PuzzleWithStory>;
  /** Writes the story of a puzzle made elsewhere. */
  render(puzzle: Puzzle, text: ExplorerText): Promise<{ story: RenderedStory; renderer: string }>;
  /**
   * Hands a template file to the renderer under `id` (null: our bank again); requests name it by
   * `text.templates`. Sent once per file, before the requests that use it.
   */
  setTemplates(id: number, source: TemplateSource | null): void;
  /** Abandons work in progress; the pending promises reject with a CancelledError. */
  cancel(): void;
}

/**
 * The worker-backed service. Generation is synchronous inside the worker, so cancelling resets
 * it (terminate and respawn on the next request); a newer request supersedes an older one.
 */
export function createWorkerService(
  make: (onStart: (client: GeneratorClient) => void) => GeneratorClient = createGeneratorClient,
): PuzzleService & { warm(): void } {
  // The file in use: a restarted worker gets it again before any request.
  let templates: { id: number; source: TemplateSource } | null = null;
  const send = (c: GeneratorClient, id: number, source: TemplateSource | null) =>
    void c.request('setTemplates', { id, source }).promise.catch(() => undefined);
  const client = make((c) => {
    if (templates) send(c, templates.id, templates.source);
  });
  return {
    warm: () => client.warm(),
    setTemplates: (id, source) => {
      templates = source ? { id, source } : null;
      send(client, id, source);
    },
    generate: (body) => client.latest('explorer', 'story', body),
    generateOne: (body) => client.request('story', body).promise,
    render: (puzzle, text) => client.latest('explorer-render', 'render', { puzzle, text }),
    cancel: () => client.reset(),
  };
}

let current: PuzzleService | null = null;

/** The service in use (the worker, created on first use). */
export function puzzleService(): PuzzleService {
  return (current ??= createWorkerService());
}

/** Replaces the service (tests run the same handlers on the main thread). */
export function setPuzzleService(service: PuzzleService): void {
  current = service;
}
