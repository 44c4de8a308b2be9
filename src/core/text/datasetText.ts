import type { Seed } from '../random/rng';
import { OUR_BANK } from './bank';
import { type CombinationLength, createParaphraseRenderer, type TextTally } from './paraphrase';
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
  /** Our own bank in another make-up (`--bank wide`): its facts count as told by the bank. */
  readonly ours?: boolean;
}

/** Where a dataset's facts were told from: the template file, our bank, plain sentences. */
export interface FactsTold {
  readonly file: number;
  readonly bank: number;
  readonly plain: number;
}

/** Where a renderer's paraphrases come from: a template file, or our bank (none when synthetic). */
export type ParaphraseSource = 'file' | 'bank';

/** A tally (TextTally) read as FactsTold: its paraphrased facts go to `source`. */
export function factsTold(tally: TextTally, source: ParaphraseSource): FactsTold {
  return source === 'file'
    ? { file: tally.template, bank: 0, plain: tally.plain }
    : { file: 0, bank: tally.template, plain: tally.plain };
}

/** FactsTold added up (e.g. over the jobs or threads of one dataset). */
export const addFactsTold = (a: FactsTold, b: FactsTold): FactsTold => ({
  file: a.file + b.file,
  bank: a.bank + b.bank,
  plain: a.plain + b.plain,
});

export const NO_FACTS_TOLD: FactsTold = { file: 0, bank: 0, plain: 0 };

/**
 * `facts told: 410 by the template file (82.0%), 0 by the bank, 90 by plain sentences (18.0%)`:
 * the CLI's stderr line and the builder's summary.
 */
export function factsToldLine(told: FactsTold): string {
  const all = told.file + told.bank + told.plain;
  const part = (n: number, what: string) =>
    `${n} by ${what}${n > 0 && all > 0 ? ` (${((100 * n) / all).toFixed(1)}%)` : ''}`;
  return `facts told: ${part(told.file, 'the template file')}, ${part(told.bank, 'the bank')}, ${part(told.plain, 'plain sentences')}`;
}

/** config.json's record of FactsTold. */
export const factsToldConfig = (told: FactsTold): Record<string, number> => ({
  template_file: told.file,
  bank: told.bank,
  plain: told.plain,
});

export interface DatasetRendererOptions {
  /** `--templates-only`: refuse plain sentences (a fact no paraphrase tells is an error naming it). */
  readonly templatesOnly?: boolean;
}

/**
 * The one choice of a dataset's story renderer, for the CLI and the dataset worker alike, and
 * what config.json records of it. The template split is seeded by the dataset's seed; halves
 * from a file (`.train.json` / `.test.json`) are used as given. `tally` counts the facts the
 * renderer tells (paraphrased ones from `source`, see factsTold); counting changes no output.
 */
export function datasetRenderer(
  text: TextSettings,
  seed: Seed,
  source?: TemplateSource,
  options: DatasetRendererOptions = {},
): {
  render: StoryRenderer;
  name: string;
  describe: Record<string, unknown>;
  tally: TextTally;
  source: ParaphraseSource;
} {
  const tally: TextTally = { template: 0, plain: 0 };
  if (text.synthetic) {
    const plain = createParaphraseRenderer({
      bank: {},
      combinationLength: 1,
      synthetic: true,
      storyOrder: text.storyOrder,
    });
    return {
      render: (puzzle, split, rng) => {
        tally.plain += puzzle.facts.length;
        return plain(puzzle, split, rng);
      },
      name: `synthetic (one plain sentence per fact${text.storyOrder === 'path' ? ', in path order' : ''})`,
      describe: { text: 'synthetic', story_order: text.storyOrder },
      tally,
      source: 'bank',
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
      tally,
      ...(options.templatesOnly ? { refusePlain: { bankName } } : {}),
    }),
    name: `paraphrase (${bankName}${split ? ', template split' : ''}, up to ${n} fact${n > 1 ? 's' : ''} per paraphrase${text.storyOrder === 'path' ? ', in path order' : ''})`,
    describe: {
      text: 'paraphrase',
      templates: bankName,
      template_split: split ? (source?.halves ? 'file halves' : 'seeded 80/20') : false,
      combination_length: n,
      story_order: text.storyOrder,
      // Only when on, so the config.json of a default dataset keeps its bytes.
      ...(options.templatesOnly ? { templates_only: true } : {}),
    },
    tally,
    source: source && !source.ours ? 'file' : 'bank',
  };
}
