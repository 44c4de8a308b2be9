import type { Puzzle } from '../core/puzzle/puzzle';
import type { RenderedStory } from '../core/text/render';
import { createGeneratorClient, type GeneratorClient } from '../worker/client';
import type { PuzzleWithStory, StoryRequestBody, TextOptions } from '../worker/protocol';

/** Where the store gets puzzles from: the generator worker in the app, the handlers in tests. */
export interface PuzzleService {
  /** Generates a puzzle and its story; a newer call supersedes (rejects) an older one. */
  generate(body: StoryRequestBody): Promise<PuzzleWithStory>;
  /** Writes the story of a puzzle made elsewhere. */
  render(puzzle: Puzzle, text: TextOptions): Promise<{ story: RenderedStory; renderer: string }>;
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
  const get = () => (client ??= make());
  return {
    warm: () => void get(),
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
