import type { Puzzle } from '../core/puzzle/puzzle';
import { createRng } from '../core/random/rng';
import { OUR_BANK } from '../core/text/bank';
import { type CombinationLength, createParaphraseRenderer } from '../core/text/paraphrase';
import type { RenderedStory, Split, StoryRenderer } from '../core/text/render';
import type { TextOptions } from './protocol';

/**
 * The seed of the explorer's template split. The CLI splits with the dataset's seed (1 by
 * default), so the explorer's train and test halves are those of a default `generate` run.
 */
export const TEMPLATE_SPLIT_SEED = '1';

const cache = new Map<string, StoryRenderer>();

/**
 * The one place where the app chooses how a story is written: a StoryRenderer per text setting
 * (the paraphrase bank lives here, in the worker, and never in the main bundle). Swap the
 * renderer here and every view follows.
 */
export function resolveRenderer(text: TextOptions): { render: StoryRenderer; name: string; split: Split } {
  const comb = (Math.min(3, Math.max(1, Math.round(text.combLength))) || 1) as CombinationLength;
  const key = `${text.mode}:${comb}`;
  let render = cache.get(key);
  if (!render) {
    render =
      text.mode === 'synthetic'
        ? createParaphraseRenderer({ bank: {}, combinationLength: 1, synthetic: true })
        : createParaphraseRenderer({
            bank: OUR_BANK,
            combinationLength: comb,
            templateSplit: text.mode === 'paraphrase' ? undefined : { seed: TEMPLATE_SPLIT_SEED },
          });
    cache.set(key, render);
  }
  const name =
    text.mode === 'synthetic'
      ? 'synthetic'
      : `paraphrase${text.mode === 'paraphrase' ? '' : ` (${text.mode} half)`}, up to ${comb} fact${comb > 1 ? 's' : ''} per sentence`;
  return { render, name, split: text.mode === 'test' ? 'test' : 'train' };
}

/** Writes a puzzle's story; the text is seeded by the puzzle's seed, so it is reproducible. */
export function renderStory(puzzle: Puzzle, text: TextOptions): { story: RenderedStory; renderer: string } {
  const { render, name, split } = resolveRenderer(text);
  return { story: render(puzzle, split, createRng(puzzle.seed, 'text')), renderer: name };
}
