import type { FamilyParams } from '../core/family/family';
import type { Puzzle } from '../core/puzzle/puzzle';
import type { TaskId } from '../core/puzzle/tasks';
import type { TemplateSource } from '../core/text/datasetText';
import type { RenderedStory } from '../core/text/render';

/**
 * Typed messages between the app and the generator worker. Every request carries an id; the
 * worker answers with the same id, either a result or an error message.
 */
export interface PuzzleRequestBody {
  readonly seed: string;
  readonly k: number;
  readonly task: TaskId;
  readonly family?: Partial<FamilyParams>;
}

/**
 * How a story is written: `paraphrase` draws from the whole paraphrase bank; `train` and `test`
 * from one half of its seeded 80/20 template split (CLUTRR's held-out templates); `synthetic` is
 * one plain sentence per fact. `combLength` facts at most share one paraphrase.
 */
export const TEMPLATE_MODES = ['paraphrase', 'train', 'test', 'synthetic'] as const;
export type TemplateMode = (typeof TEMPLATE_MODES)[number];

export interface TextOptions {
  readonly mode: TemplateMode;
  /** 1–3 consecutive facts per paraphrase (CLUTRR's combination_length). */
  readonly combLength: number;
  /**
   * The id of a template file sent with `setTemplates` (see renderers.ts); absent for our bank.
   * Never in the URL: links do not carry the file.
   */
  readonly templates?: number;
}

export interface StoryRequestBody extends PuzzleRequestBody {
  readonly text: TextOptions;
}

/** A puzzle with its text, as the explorer shows it. */
export interface PuzzleWithStory {
  readonly puzzle: Puzzle;
  readonly story: RenderedStory;
  /** Which renderer wrote the story, in words (see renderers.ts). */
  readonly renderer: string;
}

export interface RenderRequestBody {
  readonly puzzle: Puzzle;
  readonly text: TextOptions;
}

/** A template file for the explorer's renderer, or null to go back to our bank. */
export interface TemplatesBody {
  /** Named again by `TextOptions.templates`; a new file gets a new id. */
  readonly id: number;
  readonly source: TemplateSource | null;
}

export interface Requests {
  /** Generates a puzzle (no text). */
  puzzle: { body: PuzzleRequestBody; result: Puzzle };
  /** Generates a puzzle and writes its story. */
  story: { body: StoryRequestBody; result: PuzzleWithStory };
  /** Writes the story of a puzzle made elsewhere (e.g. opened from the audit view). */
  render: { body: RenderRequestBody; result: { story: RenderedStory; renderer: string } };
  /** Stores a template file in the worker (once per file, not with every request). */
  setTemplates: { body: TemplatesBody; result: null };
}

export type Command = keyof Requests;

export type WorkerRequest = {
  [C in Command]: { readonly id: number; readonly command: C; readonly body: Requests[C]['body'] };
}[Command];

export type WorkerResponse =
  | { readonly id: number; readonly ok: true; readonly result: unknown }
  | { readonly id: number; readonly ok: false; readonly error: string; readonly kind: string }
  | { readonly id: number; readonly progress: { readonly done: number; readonly total: number } };
