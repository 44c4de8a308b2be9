import type { Puzzle } from '../core/puzzle/puzzle';
import { createRng } from '../core/random/rng';
import { datasetRenderer, type TemplateSource } from '../core/text/datasetText';
import type { CombinationLength } from '../core/text/paraphrase';
import type { RenderedStory, Split, StoryRenderer } from '../core/text/render';
import type { TextOptions } from './protocol';

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
  for (const key of [...cache.keys()]) if (!key.endsWith(':bank')) cache.delete(key);
}

/** 1–3, whatever the request says. */
const combOf = (text: TextOptions) => (Math.min(3, Math.max(1, Math.round(text.combLength))) || 1) as CombinationLength;

/**
 * What a renderer is cached by: mode, facts per paraphrase and the bank (`bank`, or the id of a
 * template file). Plain sentences use no bank, so a file does not change their key.
 */
export function rendererKey(text: TextOptions): string {
  const bank = text.mode === 'synthetic' || text.templates === undefined ? 'bank' : `file-${text.templates}`;
  return `${text.mode}:${combOf(text)}:${bank}`;
}

/**
 * The one place where the app chooses how a story is written, from the text settings. It goes
 * through core's `datasetRenderer`, the choice the CLI and the dataset builder make, so a story
 * in the explorer reads as the same settings would write it into a dataset; `train` and `test`
 * are the halves of the seeded template split (or a file's own .train/.test halves). The
 * paraphrase bank lives in the worker bundle, never in the main one; a template file is sent
 * once with `setTemplates` and named by its id in `text.templates`.
 */
export function resolveRenderer(text: TextOptions): { render: StoryRenderer; name: string; split: Split } {
  const comb = combOf(text);
  const key = rendererKey(text);
  let chosen = cache.get(key);
  if (!chosen) {
    let source: TemplateSource | undefined;
    if (text.mode !== 'synthetic' && text.templates !== undefined) {
      if (!loaded || loaded.id !== text.templates) {
        throw new Error('The template file is no longer loaded in the generator; pick it again');
      }
      source = loaded.source;
    }
    const { render, name } = datasetRenderer(
      { synthetic: text.mode === 'synthetic', combinationLength: comb, templateSplit: text.mode !== 'paraphrase' },
      TEMPLATE_SPLIT_SEED,
      source,
    );
    chosen = { render, name: text.mode === 'train' || text.mode === 'test' ? `${name}, ${text.mode} half` : name };
    cache.set(key, chosen);
  }
  return { ...chosen, split: text.mode === 'test' ? 'test' : 'train' };
}

/** Writes a puzzle's story; the text is seeded by the puzzle's seed, so it is reproducible. */
export function renderStory(puzzle: Puzzle, text: TextOptions): { story: RenderedStory; renderer: string } {
  const { render, name, split } = resolveRenderer(text);
  return { story: render(puzzle, split, createRng(puzzle.seed, 'text')), renderer: name };
}
