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
  /** Stop after this many seconds of training (between two steps) and keep what was learned. */
  readonly maxSeconds?: number;
}

/** A model folder training goes on from (`--resume DIR`): its files and the epochs it has had. */
export interface ResumeFrom {
  readonly modelJson: unknown;
  readonly weights: ArrayBuffer;
  /** Its metadata.json history: epochs are numbered on from these. */
  readonly history: readonly EpochRecord[];
}

export interface TrainContext {
  readonly options: TrainOptions;
  readonly data: TrainData;
  /** Progress on stderr. */
  readonly log: (s: string) => void;
  readonly resume?: ResumeFrom;
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
  /**
   * Accuracy on the held-out rows after the epoch: the k = 2, 3 test sets of generated data, the
   * validation slice of training files (null when there is none).
   */
  readonly testAccuracy23: number | null;
  readonly seconds: number;
  /** Set on an epoch the time cap cut short: the batches it ran. */
  readonly batches?: number;
}

/** One optimiser step: its batch's mean loss, correct answers and size. */
export type Step = () => { loss: number; correct: number; size: number };

/**
 * The epoch loop every trainer shares: `epoch(n)` prepares that epoch's steps (drawing its
 * shuffles now, so the rng is used in the same order on every run), the steps run with progress
 * on the log, then `dev(n)` measures the held-out accuracy. With `maxSeconds` the loop stops
 * between two steps once that much time has passed (after one step at least), and that epoch's record says how many
 * batches it ran. A resumed run numbers its epochs on from the folder's history and returns the
 * whole history.
 */
export async function runEpochs(
  { options, log, resume }: TrainContext,
  epoch: (n: number) => readonly Step[],
  dev: (n: number) => Promise<{ correct: number; rows: number }>,
): Promise<EpochRecord[]> {
  const { epochs } = options;
  const history: EpochRecord[] = [...(resume?.history ?? [])];
  const first = history.length + 1;
  const last = history.length + epochs;
  const deadline = options.maxSeconds === undefined ? Infinity : performance.now() + options.maxSeconds * 1000;
  for (let n = first; n <= last; n++) {
    const te = performance.now();
    const steps = epoch(n);
    let lossSum = 0;
    let correct = 0;
    let rows = 0;
    let ran = 0;
    for (const step of steps) {
      // At least one step a run, so a cap shorter than a batch still saves a trained model.
      if ((ran > 0 || history.length > first - 1) && performance.now() >= deadline) break;
      const s = step();
      lossSum += s.loss * s.size;
      correct += s.correct;
      rows += s.size;
      if (ran % 5 === 0) log(`\r  epoch ${n}/${last}: batch ${ran + 1}/${steps.length} loss ${s.loss.toFixed(3)}`);
      ran++;
    }
    const seconds = (performance.now() - te) / 1000;
    if (ran === 0) {
      log(`\r  time cap of ${options.maxSeconds} s reached before epoch ${n}: keeping the weights as they are\n`);
      break;
    }
    const r = await dev(n);
    const row: EpochRecord = {
      epoch: n,
      loss: lossSum / rows,
      accuracy: correct / rows,
      testAccuracy23: r.rows === 0 ? null : r.correct / r.rows,
      seconds,
      ...(ran < steps.length ? { batches: ran } : {}),
    };
    history.push(row);
    const held = row.testAccuracy23 === null ? 'no held-out rows' : `held-out acc ${row.testAccuracy23.toFixed(3)}`;
    log(
      `\r  epoch ${n}/${last}: loss ${row.loss.toFixed(4)}  train acc ${row.accuracy.toFixed(3)}  ${held}  ${seconds.toFixed(1)} s\n`,
    );
    if (ran < steps.length) {
      log(
        `  time cap of ${options.maxSeconds} s reached after ${ran} of ${steps.length} batches: keeping what was learned\n`,
      );
      break;
    }
  }
  return history;
}
