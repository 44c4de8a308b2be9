/**
 * The training and test data of `npm run train`, made by our engine through src/ml/testData.ts
 * (the same rows and stories the models worker makes in the browser): one noise kind for
 * training at k = 2, 3 and for the k = 2..10 test curve, plus k = 2, 3 test sets of every noise
 * kind for the robustness row. Stories are paraphrased with the template split seeded by the
 * training seed (test stories use held-out paraphrases) and told in shuffled order.
 */
import type { DatasetSpec } from '../../src/core/puzzle/dataset';
import { DATASET_PRESETS, type PresetName } from '../../src/core/puzzle/datasetOptions';
import { parseTaskList, type TaskSpec } from '../../src/core/puzzle/tasks';
import type { Seed } from '../../src/core/random/rng';
import type { NoiseKind } from '../../src/ml/model';
import {
  dataOptionsFor,
  type Example,
  makeExamples,
  modelDataSpec,
  NOISE_KINDS,
  NOISE_TASK,
  TEST_KS,
  TRAIN_KS,
} from '../../src/ml/testData';

export { type Example, NOISE_KINDS, NOISE_TASK, TEST_KS, TRAIN_KS };

export interface TrainData {
  /** The generated rows' spec; absent for data read from files (csvData.ts). */
  readonly spec?: DatasetSpec;
  readonly train: readonly Example[];
  /** The held-out rows of the per-epoch figure: k = 2, 3 test sets, validation rows (`validation`), or a slice of the training files. */
  readonly dev: readonly Example[];
  /** Test sets of the training noise kind, by k (2..10). */
  readonly tests: ReadonlyMap<number, readonly Example[]>;
  /** k = 2, 3 test sets of each noise kind (the robustness row). */
  readonly robustness: ReadonlyMap<NoiseKind, readonly Example[]>;
}

export interface DataOptions {
  readonly seed: Seed;
  readonly noise: NoiseKind;
  /**
   * The dataset preset whose training tasks and balanced patterns (`equal`) the data follows,
   * like the datasets released with the paper; test sets are balanced the same way. `none`: the
   * first rows of k = 2, 3 of the noise kind, unbalanced (the models shipped first).
   */
  readonly preset: PresetName | 'none';
  /** CLUTRR's own labels (`generate --labels clutrr`) for training and test rows. */
  readonly labels?: 'clutrr';
  /** `--bank wide`: stories told with our bank plus its wide files (src/core/text/wideBank.ts). */
  readonly bank?: 'wide';
  readonly trainRows: number;
  readonly testRows: number;
  /**
   * The per-epoch held-out rows are validation rows (`--keep-best`): k = 2, 3 rows of the test
   * tasks from another dataset seed (validationSeed), told with the held-out paraphrases, so that
   * choosing an epoch by them never looks at the test sets. Else the k = 2, 3 test sets.
   */
  readonly validation?: boolean;
  /** Progress lines (stderr). */
  readonly log?: (line: string) => void;
}

/** The dataset seed of the validation rows of a run with training seed `seed`. */
export const validationSeed = (seed: Seed): string => `${seed}/validation`;

/** Generates everything a training run needs; the same options give the same examples. */
export function makeTrainData(options: DataOptions): TrainData & { readonly spec: DatasetSpec } {
  const { seed, noise, trainRows, testRows } = options;
  const dataOptions = dataOptionsFor(options);
  const log = options.log ?? (() => {});
  const task = (n: NoiseKind, k: number): TaskSpec => ({ task: NOISE_TASK[n], k });
  const testTasks: TaskSpec[] = [];
  const seen = new Set<string>();
  const addTest = (t: TaskSpec) => {
    const key = `${t.task}.${t.k}`;
    if (seen.has(key)) return;
    seen.add(key);
    testTasks.push(t);
  };
  TEST_KS.forEach((k) => addTest(task(noise, k)));
  NOISE_KINDS.forEach((n) => TRAIN_KS.forEach((k) => addTest(task(n, k))));
  const trainTasks =
    options.preset === 'none'
      ? TRAIN_KS.map((k) => task(noise, k))
      : parseTaskList(DATASET_PRESETS[options.preset].trainTasks, '--preset');
  const generate = (t: TaskSpec, split: 'train' | 'test', rows: number): Example[] => {
    const t0 = performance.now();
    const examples = makeExamples(seed, seed, t, split, rows, dataOptions);
    log(`  ${split} ${t.task}.${t.k}: ${rows} rows (${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
    return examples;
  };
  const train = trainTasks.flatMap((t) => generate(t, 'train', trainRows));
  const made = new Map(testTasks.map((t) => [`${t.task}.${t.k}`, generate(t, 'test', testRows)]));
  const tests = new Map(TEST_KS.map((k) => [k, made.get(`${NOISE_TASK[noise]}.${k}`)!]));
  const robustness = new Map(NOISE_KINDS.map((n) => [n, TRAIN_KS.flatMap((k) => made.get(`${NOISE_TASK[n]}.${k}`)!)]));
  return {
    spec: { ...modelDataSpec(seed, trainTasks, testTasks, 0, dataOptions), trainRows, testRows },
    train,
    dev: options.validation
      ? TRAIN_KS.flatMap((k) => {
          const t = task(noise, k);
          const rows = makeExamples(validationSeed(seed), seed, t, 'test', testRows, dataOptions);
          log(`  validation ${t.task}.${t.k}: ${testRows} rows (dataset seed ${validationSeed(seed)})\n`);
          return rows;
        })
      : TRAIN_KS.flatMap((k) => tests.get(k)!),
    tests,
    robustness,
  };
}
