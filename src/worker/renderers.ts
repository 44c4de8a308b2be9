import type { Puzzle } from '../core/puzzle/puzzle';
import { createRng } from '../core/random/rng';
import { datasetRenderer, type TemplateSource } from '../core/text/datasetText';
import type { CombinationLength } from '../core/text/paraphrase';
import type { RenderedStory, Split, StoryRenderer } from '../core/text/render';
import type { ExplorerText } from './protocol';

/**
 * The seed of the explorer's template split. The CLI splits with the dataset's seed (1 by
 * default), so the explorer's train and test halves are those of a default `generate` run.
 */
export const TEMPLATE_SPLIT_SEED = '1';

const cache = new Map<string, { render: StoryRenderer; name: string }>();

/** The template file the app sent (`setTemplates`), kept here so requests carry only its id. */
let loaded: { id: number; source: TemplateSource } | null = null;

/** Stores a template file under `id` (null: back to our bank) and drops the renderers of files. */
export function setTemplateSource(id: number, source: TemplateSource | null): void {
  loaded = source ? { id, source } : null;
  for (const key of [...cache.keys()]) if (key.includes(':file-')) cache.delete(key);
}

/** 1–3, whatever the request says. */
const combOf = (text: ExplorerText) =>
  (Math.min(3, Math.max(1, Math.round(text.combinationLength))) || 1) as CombinationLength;

/**
 * What a renderer is cached by: plain or paraphrased, facts per paraphrase, template split, and
 * the bank (`bank`, or the id of a template file). Plain sentences use no bank, so a file does
 * not change their key; the half shown is not part of it (one renderer writes both halves).
 */
export function rendererKey(text: ExplorerText): string {
  if (text.synthetic) return `synthetic:${text.storyOrder}`;
  const bank = text.templates === undefined ? 'bank' : `file-${text.templates}`;
  return `paraphrase:${combOf(text)}:${text.templateSplit ? 'split' : 'whole'}:${text.storyOrder}:${bank}`;
}

/**
 * The one place where the app chooses how a story is written, from the text settings. It goes
 * through core's `datasetRenderer`, the choice the CLI and the dataset builder make, so a story
 * in the explorer reads as the same settings would write it into a dataset; `train` and `test`
 * are the halves of the seeded template split (or a file's own .train/.test halves). The
 * paraphrase bank lives in the worker bundle, never in the main one; a template file is sent
 * once with `setTemplates` and named by its id in `text.templates`.
 */
export function resolveRenderer(text: ExplorerText): { render: StoryRenderer; name: string; split: Split } {
  const comb = combOf(text);
  const key = rendererKey(text);
  let chosen = cache.get(key);
  if (!chosen) {
    let source: TemplateSource | undefined;
    if (!text.synthetic && text.templates !== undefined) {
      if (!loaded || loaded.id !== text.templates) {
        throw new Error('The template file is no longer loaded in the generator; pick it again');
      }
      source = loaded.source;
    }
    chosen = datasetRenderer(
      {
        synthetic: text.synthetic,
        combinationLength: comb,
        templateSplit: text.templateSplit,
        storyOrder: text.storyOrder,
      },
      TEMPLATE_SPLIT_SEED,
      source,
    );
    cache.set(key, chosen);
  }
  const split = text.templateSplit && !text.synthetic ? text.half : 'train';
  return {
    render: chosen.render,
    name: text.templateSplit && !text.synthetic ? `${chosen.name}, ${split} half` : chosen.name,
    split,
  };
}

/** Writes a puzzle's story; the text is seeded by the puzzle's seed, so it is reproducible. */
export function renderStory(puzzle: Puzzle, text: ExplorerText): { story: RenderedStory; renderer: string } {
  const { render, name, split } = resolveRenderer(text);
  return { story: render(puzzle, split, createRng(puzzle.seed, 'text')), renderer: name };
}
