import type { Seed } from '../random/rng';
import { OUR_BANK } from './bank';
import { type CombinationLength, createParaphraseRenderer } from './paraphrase';
import type { StoryOrder } from './order';
import type { StoryRenderer } from './render';
import type { BankHalves, TemplateBank } from './templates';

/**
 * How stories are written, one type for the explorer and for datasets: the CLI's text flags
 * (--synthetic, --combination-length, --template-split, --story-order) and the builder's and explorer's text
 * fields. `synthetic`: one plain sentence per fact (the other two ignored). Otherwise paraphrases,
 * up to `combinationLength` consecutive facts per paraphrase, and with `templateSplit` 20% of
 * every paraphrase list held out for the test rows (the explorer shows either half).
 */
export interface TextSettings {
  readonly synthetic: boolean;
  readonly combinationLength: CombinationLength;
  readonly templateSplit: boolean;
  /** --story-order: sentences shuffled (datasets' default, as CLUTRR) or in path order. */
  readonly storyOrder: StoryOrder;
}

/** Where paraphrases come from when not our bank: a template file, possibly already split. */
export interface TemplateSource {
  readonly name: string;
  readonly bank: TemplateBank;
  readonly halves?: BankHalves;
}

/**
 * The one choice of a dataset's story renderer, for the CLI and the dataset worker alike, and
 * what config.json records of it. The template split is seeded by the dataset's seed; halves
 * from a file (`.train.json` / `.test.json`) are used as given.
 */
export function datasetRenderer(
  text: TextSettings,
  seed: Seed,
  source?: TemplateSource,
): { render: StoryRenderer; name: string; describe: Record<string, unknown> } {
  if (text.synthetic) {
    return {
      render: createParaphraseRenderer({
        bank: {},
        combinationLength: 1,
        synthetic: true,
        storyOrder: text.storyOrder,
      }),
      name: `synthetic (one plain sentence per fact${text.storyOrder === 'path' ? ', in path order' : ''})`,
      describe: { text: 'synthetic', story_order: text.storyOrder },
    };
  }
  const split = source?.halves ?? (text.templateSplit ? { seed: String(seed) } : undefined);
  const bankName = source?.name ?? 'clutrr-lab bank';
  const n = text.combinationLength;
  return {
    render: createParaphraseRenderer({
      bank: source?.bank ?? OUR_BANK,
      combinationLength: n,
      templateSplit: split,
      storyOrder: text.storyOrder,
    }),
    name: `paraphrase (${bankName}${split ? ', template split' : ''}, up to ${n} fact${n > 1 ? 's' : ''} per paraphrase${text.storyOrder === 'path' ? ', in path order' : ''})`,
    describe: {
      text: 'paraphrase',
      templates: bankName,
      template_split: split ? (source?.halves ? 'file halves' : 'seeded 80/20') : false,
      combination_length: n,
      story_order: text.storyOrder,
    },
  };
}
