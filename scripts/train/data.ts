/**
 * The training and test data of `npm run train`, made by our engine: one noise kind (the
 * robustness table's tasks 1..4) for training at k = 2, 3 and for the k = 2..10 test curve, plus
 * k = 2, 3 test sets of every noise kind for the robustness row. Stories are paraphrased with
 * the template split (20% of every paraphrase list held out for test rows), so a text model
 * is tested on sentences it never saw, and told in shuffled order.
 */
import { DEFAULT_FAMILY } from '../../src/core/family/family';
import type { PuzzleRecord } from '../../src/core/puzzle/puzzle';
import { type DatasetSpec, generateTaskRows } from '../../src/core/puzzle/dataset';
import type { TaskId, TaskSpec } from '../../src/core/puzzle/tasks';
import { createRng, type Seed } from '../../src/core/random/rng';
import { datasetRenderer } from '../../src/core/text/datasetText';
import { questionFromPuzzle } from '../../src/ml/encoding';
import type { ModelQuestion, NoiseKind } from '../../src/ml/model';

export const NOISE_KINDS: readonly NoiseKind[] = ['clean', 'supporting', 'irrelevant', 'disconnected'];
export const NOISE_TASK: Readonly<Record<NoiseKind, TaskId>> = {
  clean: 1,
  supporting: 2,
  irrelevant: 3,
  disconnected: 4,
};
export const TRAIN_KS = [2, 3] as const;
export const TEST_KS = [2, 3, 4, 5, 6, 7, 8, 9, 10] as const;

export interface Example {
  readonly puzzle: PuzzleRecord;
  /** `[Name]`-bracketed story, as the CSV's `story` column. */
  readonly story: string;
  readonly question: ModelQuestion;
}

export interface TrainData {
  readonly spec: DatasetSpec;
  readonly train: readonly Example[];
  /** Test sets of the training noise kind, by k (2..10). */
  readonly tests: ReadonlyMap<number, readonly Example[]>;
  /** k = 2, 3 test sets of each noise kind (the robustness row). */
  readonly robustness: ReadonlyMap<NoiseKind, readonly Example[]>;
}

export interface DataOptions {
  readonly seed: Seed;
  readonly noise: NoiseKind;
  readonly trainRows: number;
  readonly testRows: number;
  /** Progress lines (stderr). */
  readonly log?: (line: string) => void;
}

export const TEXT_SETTINGS = {
  synthetic: false,
  combinationLength: 3,
  templateSplit: true,
  storyOrder: 'shuffled',
} as const;

/** Generates everything a training run needs; the same options give the same examples. */
export function makeTrainData(options: DataOptions): TrainData {
  const { seed, noise, trainRows, testRows } = options;
  const log = options.log ?? (() => {});
  const task = (n: NoiseKind, k: number): TaskSpec => ({ task: NOISE_TASK[n], k });
  const testKinds = new Set<string>();
  const testTasks: TaskSpec[] = [];
  const addTest = (t: TaskSpec) => {
    const key = `${t.task}.${t.k}`;
    if (testKinds.has(key)) return;
    testKinds.add(key);
    testTasks.push(t);
  };
  TEST_KS.forEach((k) => addTest(task(noise, k)));
  NOISE_KINDS.forEach((n) => TRAIN_KS.forEach((k) => addTest(task(n, k))));
  const spec: DatasetSpec = {
    seed,
    trainTasks: TRAIN_KS.map((k) => task(noise, k)),
    testTasks,
    trainRows,
    testRows,
    holdout: 0,
    equal: false,
    family: DEFAULT_FAMILY,
  };
  const render = datasetRenderer(TEXT_SETTINGS, seed).render;
  const made = new Map<string, Example[]>();
  const generate = (t: TaskSpec, split: 'train' | 'test'): Example[] => {
    const t0 = performance.now();
    const rows = generateTaskRows(spec, t, split);
    const examples = rows.map((r) => {
      const story = render(r.puzzle, r.split, createRng(r.puzzle.seed, 'text')).story;
      return { puzzle: r.puzzle, story, question: questionFromPuzzle(r.puzzle, story) };
    });
    log(`  ${split} ${t.task}.${t.k}: ${rows.length} rows (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
    return examples;
  };
  const train = spec.trainTasks.flatMap((t) => generate(t, 'train'));
  for (const t of testTasks) made.set(`${t.task}.${t.k}`, generate(t, 'test'));
  const tests = new Map(TEST_KS.map((k) => [k, made.get(`${NOISE_TASK[noise]}.${k}`)!]));
  const robustness = new Map(NOISE_KINDS.map((n) => [n, TRAIN_KS.flatMap((k) => made.get(`${NOISE_TASK[n]}.${k}`)!)]));
  return { spec, train, tests, robustness };
}
