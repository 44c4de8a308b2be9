import type { Puzzle } from '../core/puzzle/puzzle';
import type { TemplateSource } from '../core/text/datasetText';
import type { RenderedStory } from '../core/text/render';
import { createGeneratorClient, type GeneratorClient } from '../worker/client';
import type { PuzzleWithStory, StoryRequestBody, TextOptions } from '../worker/protocol';

/** Where the store gets puzzles from: the generator worker in the app, the handlers in tests. */
export interface PuzzleService {
  /** Generates a puzzle and its story; a newer call supersedes (rejects) an older one. */
  generate(body: StoryRequestBody): Promise<PuzzleWithStory>;
  /** Writes the story of a puzzle made elsewhere. */
  render(puzzle: Puzzle, text: TextOptions): Promise<{ story: RenderedStory; renderer: string }>;
  /**
   * Hands a template file to the renderer under `id` (null: our bank again); requests name it by
   * `text.templates`. Sent once per file, before the requests that use it.
   */
  setTemplates(id: number, source: TemplateSource | null): void;
  /** Abandons work in progress; the pending promises reject with a CancelledError. */
  cancel(): void;
}

/**
 * The worker-backed service. Generation is synchronous inside the worker, so cancelling only
 * drops the answer; a hard cancel (a request running too long) restarts the worker.
 */
export function createWorkerService(make: () => GeneratorClient = createGeneratorClient): PuzzleService & {
  warm(): void;
} {
  let client: GeneratorClient | null = null;
  // The file in use: a restarted worker (after a hard cancel) gets it again before any request.
  let templates: { id: number; source: TemplateSource } | null = null;
  const send = (c: GeneratorClient, id: number, source: TemplateSource | null) =>
    void c.request('setTemplates', { id, source }).promise.catch(() => undefined);
  const get = () => {
    if (!client) {
      client = make();
      if (templates) send(client, templates.id, templates.source);
    }
    return client;
  };
  return {
    warm: () => void get(),
    setTemplates: (id, source) => {
      templates = source ? { id, source } : null;
      if (client) send(client, id, source);
    },
    generate: (body) => get().latest('explorer', 'story', body),
    render: (puzzle, text) => get().latest('explorer-render', 'render', { puzzle, text }),
    cancel: () => {
      client?.terminate();
      client = null;
    },
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
