/**
 * What `npm run train` asks of each model kind (gat.ts, lstm.ts here): train on the generated
 * data and hand back the saved artifacts. main.ts does everything else the same way for every
 * kind: it loads the artifacts back with src/ml/load.ts and evaluates *that* model, so the
 * accuracies in metadata.json are the shipped weights' own.
 */
import type { PresetName } from '../../src/core/puzzle/datasetOptions';
import type { ModelKind, NoiseKind } from '../../src/ml/model';
import type { TrainData } from './data';

export interface TrainOptions {
  readonly model: string;
  readonly seed: string;
  readonly noise: NoiseKind;
  /** See data.ts DataOptions. */
  readonly preset: PresetName | 'none';
  readonly labels?: 'clutrr';
  readonly epochs: number;
  readonly trainRows: number;
  readonly testRows: number;
  readonly batchSize: number;
  readonly learningRate: number;
  readonly version: string;
  readonly backend: string;
}

export interface TrainContext {
  readonly options: TrainOptions;
  readonly data: TrainData;
  /** Progress on stderr. */
  readonly log: (s: string) => void;
}

export interface Trained {
  readonly kind: ModelKind;
  /** model.json contents (must carry `format` and `name`, see src/ml/load.ts). */
  readonly modelJson: object;
  readonly weights: ArrayBuffer;
  /** metadata.json's `config` and `encoding` sections. */
  readonly config: unknown;
  readonly encoding: Record<string, unknown>;
  /** Extra training facts for metadata.json's `training` (history, optimiser, vocabulary size…). */
  readonly training: Record<string, unknown>;
}

export type Trainer = (ctx: TrainContext) => Promise<Trained>;

export interface EpochRecord {
  readonly epoch: number;
  /** Mean training loss and accuracy (with dropout) over the epoch's rows. */
  readonly loss: number;
  readonly accuracy: number;
  /** Accuracy on the k = 2, 3 test sets after the epoch. */
  readonly testAccuracy23: number;
  readonly seconds: number;
}

/** One optimiser step: its batch's mean loss, correct answers and size. */
export type Step = () => { loss: number; correct: number; size: number };

/**
 * The epoch loop every trainer shares: `epoch(n)` prepares that epoch's steps (drawing its
 * shuffles now, so the rng is used in the same order on every run), the steps run with progress
 * on the log, then `dev(n)` measures the k = 2, 3 test accuracy. Returns the history.
 */
export async function runEpochs(
  { options, data, log }: TrainContext,
  epoch: (n: number) => readonly Step[],
  dev: (n: number) => Promise<{ correct: number; rows: number }>,
): Promise<EpochRecord[]> {
  const { epochs } = options;
  const rows = data.train.length;
  const history: EpochRecord[] = [];
  for (let n = 1; n <= epochs; n++) {
    const te = performance.now();
    const steps = epoch(n);
    let lossSum = 0;
    let correct = 0;
    steps.forEach((step, i) => {
      const s = step();
      lossSum += s.loss * s.size;
      correct += s.correct;
      if (i % 5 === 0) log(`\r  epoch ${n}/${epochs}: batch ${i + 1}/${steps.length} loss ${s.loss.toFixed(3)}`);
    });
    const seconds = (performance.now() - te) / 1000;
    const r = await dev(n);
    const row = {
      epoch: n,
      loss: lossSum / rows,
      accuracy: correct / rows,
      testAccuracy23: r.correct / r.rows,
      seconds,
    };
    history.push(row);
    log(
      `\r  epoch ${n}/${epochs}: loss ${row.loss.toFixed(4)}  train acc ${row.accuracy.toFixed(3)}  test k=2,3 acc ${row.testAccuracy23.toFixed(3)}  ${seconds.toFixed(1)} s\n`,
    );
  }
  return history;
}
