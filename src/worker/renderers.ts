import type { Puzzle } from '../core/puzzle/puzzle';
import { createRng } from '../core/random/rng';
import { datasetRenderer } from '../core/text/datasetText';
import type { CombinationLength } from '../core/text/paraphrase';
import type { RenderedStory, Split, StoryRenderer } from '../core/text/render';
import type { TextOptions } from './protocol';

/**
 * The seed of the explorer's template split. The CLI splits with the dataset's seed (1 by
 * default), so the explorer's train and test halves are those of a default `generate` run.
 */
export const TEMPLATE_SPLIT_SEED = '1';

const cache = new Map<string, { render: StoryRenderer; name: string }>();

/**
 * The one place where the app chooses how a story is written, from the text settings. It goes
 * through core's `datasetRenderer`, the choice the CLI and the dataset builder make, so a story
 * in the explorer reads as the same settings would write it into a dataset; `train` and `test`
 * are the halves of the seeded template split. The paraphrase bank lives in the worker bundle,
 * never in the main one.
 */
export function resolveRenderer(text: TextOptions): { render: StoryRenderer; name: string; split: Split } {
  const comb = (Math.min(3, Math.max(1, Math.round(text.combLength))) || 1) as CombinationLength;
  const key = `${text.mode}:${comb}`;
  let chosen = cache.get(key);
  if (!chosen) {
    const { render, name } = datasetRenderer(
      { synthetic: text.mode === 'synthetic', combinationLength: comb, templateSplit: text.mode !== 'paraphrase' },
      TEMPLATE_SPLIT_SEED,
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
