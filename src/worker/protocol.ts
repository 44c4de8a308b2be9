import type { FamilyParams } from '../core/family/family';
import type { Puzzle } from '../core/puzzle/puzzle';
import type { TaskId } from '../core/puzzle/tasks';
import type { TemplateSource, TextSettings } from '../core/text/datasetText';
import type { RenderedStory, Split } from '../core/text/render';

/** The generator worker's commands (served with rpc.ts): the explorer's puzzles and their text. */

export interface PuzzleRequestBody {
  readonly seed: string;
  readonly k: number;
  readonly task: TaskId;
  readonly family?: Partial<FamilyParams>;
  /** Strict mode: sound rules only (generatePuzzle's `strict`). */
  readonly strict?: boolean;
}

/**
 * The explorer's text: the text settings datasets use, plus which half of the template split it
 * shows (`half`, when `templateSplit`), and the id of a template file sent with `setTemplates`
 * (see renderers.ts; absent for our bank). Links carry the settings, never the file.
 */
export interface ExplorerText extends TextSettings {
  readonly half: Split;
  readonly templates?: number;
}

export interface StoryRequestBody extends PuzzleRequestBody {
  readonly text: ExplorerText;
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
  readonly text: ExplorerText;
}

/** A template file for the explorer's renderer, or null to go back to our bank. */
export interface TemplatesBody {
  /** Named again by `ExplorerText.templates`; a new file gets a new id. */
  readonly id: number;
  readonly source: TemplateSource | null;
}

export type GeneratorCommands = {
  /** Generates a puzzle and writes its story. */
  story: { body: StoryRequestBody; chunk: never; result: PuzzleWithStory };
  /** Writes the story of a puzzle made elsewhere (e.g. opened from the audit view). */
  render: { body: RenderRequestBody; chunk: never; result: { story: RenderedStory; renderer: string } };
  /** Stores a template file in the worker (once per file, not with every request). */
  setTemplates: { body: TemplatesBody; chunk: never; result: null };
};
