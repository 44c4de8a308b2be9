/**
 * The models' puzzles, one definition for the training script (scripts/train/data.ts) and the
 * models worker (the report's fresh test sets): rows of a task made by our engine's dataset
 * pipeline, stories paraphrased with the template split (20% of every paraphrase list held out
 * for the test split) and told in shuffled order. The split of paraphrases is seeded by the
 * *training* seed (`splitSeed`), so whatever seed makes the puzzles, a text model is tested on
 * paraphrases it never saw.
 */
import { DEFAULT_FAMILY } from '../core/family/family';
import { type DatasetSpec, rowMaker, taskRowNumbers } from '../core/puzzle/dataset';
import type { PuzzleRecord } from '../core/puzzle/puzzle';
import type { TaskId, TaskSpec } from '../core/puzzle/tasks';
import { createRng, type Seed } from '../core/random/rng';
import { datasetRenderer } from '../core/text/datasetText';
import { WIDE_BANK, WIDE_BANK_NAME } from '../core/text/wideBank';
import { questionFromPuzzle } from './encoding';
import type { ModelQuestion, NoiseKind } from './model';

export const NOISE_KINDS: readonly NoiseKind[] = ['clean', 'supporting', 'irrelevant', 'disconnected'];
/** The robustness table's noise kinds are CLUTRR's tasks 1..4. */
export const NOISE_TASK: Readonly<Record<NoiseKind, TaskId>> = {
  clean: 1,
  supporting: 2,
  irrelevant: 3,
  disconnected: 4,
};
export const TRAIN_KS = [2, 3] as const;
export const TEST_KS = [2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

export const TEXT_SETTINGS = {
  synthetic: false,
  combinationLength: 3,
  templateSplit: true,
  storyOrder: 'shuffled',
} as const;

export interface Example {
  readonly puzzle: PuzzleRecord;
  /** `[Name]`-bracketed story, as the CSV's `story` column. */
  readonly story: string;
  readonly question: ModelQuestion;
}

/**
 * How the models' rows are drawn: `equal` balances the relation patterns within each task (as
 * `--preset emnlp-systematic` and the release do); `labels: 'clutrr'` gives CLUTRR's own labels.
 */
export interface ModelDataOptions {
  readonly equal?: boolean;
  readonly labels?: 'clutrr';
  /** `wide`: stories told with our bank plus its wide files (plural and collective kin words). */
  readonly bank?: 'wide';
}

/**
 * The rows a model's data follows, from what it was trained on (metadata.json `training`, or the
 * training flags): balanced patterns unless its preset is `none` (or absent: the folders trained
 * before presets), CLUTRR's labels when its labels say so. The training script and the models
 * worker's fresh test sets both use it.
 */
export function dataOptionsFor(trained: {
  readonly preset?: string;
  readonly labels?: string;
  readonly bank?: unknown;
}): ModelDataOptions {
  return {
    equal: trained.preset !== undefined && trained.preset !== 'none',
    ...(trained.labels === 'clutrr' ? { labels: 'clutrr' as const } : {}),
    ...(trained.bank === 'wide' ? { bank: 'wide' as const } : {}),
  };
}

/** The dataset spec whose rows the models see: `seed`, the tasks and the options decide a row. */
export function modelDataSpec(
  seed: Seed,
  trainTasks: TaskSpec[],
  testTasks: TaskSpec[],
  rows = 0,
  options: ModelDataOptions = {},
): DatasetSpec {
  return {
    seed,
    trainTasks,
    testTasks,
    trainRows: rows,
    testRows: rows,
    holdout: 0,
    equal: options.equal === true,
    family: DEFAULT_FAMILY,
    ...(options.labels === 'clutrr' ? { labels: 'clutrr' as const } : {}),
  };
}

/**
 * The first `rows` rows of one task and split, as the dataset pipeline makes them for this seed
 * and these options (with `equal`, the balanced selection), each with its story rendered with
 * the row's own `text` rng.
 */
export function makeExamples(
  seed: Seed,
  splitSeed: Seed,
  task: TaskSpec,
  split: 'train' | 'test',
  rows: number,
  options: ModelDataOptions = {},
): Example[] {
  const spec = modelDataSpec(seed, [task], [task], rows, options);
  const make = rowMaker(spec, task, split);
  const numbers = spec.equal ? taskRowNumbers(spec, task, split) : undefined;
  const wide = options.bank === 'wide' ? { name: WIDE_BANK_NAME, bank: WIDE_BANK, ours: true } : undefined;
  const render = datasetRenderer(TEXT_SETTINGS, splitSeed, wide).render;
  return Array.from({ length: rows }, (_, i) => {
    const row = make(numbers ? numbers[i]! : i);
    const story = render(row.puzzle, row.split, createRng(row.puzzle.seed, 'text')).story;
    return { puzzle: row.puzzle, story, question: questionFromPuzzle(row.puzzle, story) };
  });
}

/** The first `rows` test questions of one noise kind and k (paraphrases split by `splitSeed`). */
export function testQuestions(
  seed: Seed,
  noise: NoiseKind,
  k: number,
  rows: number,
  splitSeed: Seed = seed,
  options: ModelDataOptions = {},
): ModelQuestion[] {
  return makeExamples(seed, splitSeed, { task: NOISE_TASK[noise], k }, 'test', rows, options).map((e) => e.question);
}
