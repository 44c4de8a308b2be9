/**
 * What a trainer gets and returns, the same for the training script (scripts/train) and the
 * browser's train worker: settings, the training and held-out examples, a folder to go on from,
 * and the hooks of the epoch loop (epochs.ts).
 */
import type { ModelKind } from '../model';
import type { Example } from '../testData';
import type { EpochHooks, EpochRecord, EpochsEnd } from './epochs';

export type { EpochHooks, EpochRecord, EpochsEnd, Step } from './epochs';

/** What every trainer reads of the run's settings (the script's options carry more). */
export interface TrainSettings {
  /** The model id (a key of TRAINERS; its descriptor in modelKinds.ts). */
  readonly model: string;
  readonly seed: string;
  readonly epochs: number;
  readonly batchSize: number;
  readonly learningRate: number;
  /** Stop after this many seconds of training (between two steps) and keep what was learned. */
  readonly maxSeconds?: number;
  /**
   * Text models: pack a step's batch in parts of at most this many story characters (a part holds
   * one story at least) and sum their gradients before the one update, so that a step's memory is
   * bounded by the part, not the batch (the browser sets it; the script leaves whole batches).
   */
  readonly stepChars?: number;
  /**
   * Keep the weights of the epoch with the best held-out figure, not the last epoch's (the
   * script's `--keep-best`: its held-out rows are then validation rows, not the test sets).
   */
  readonly keepBest?: boolean;
}

/** The rows trained on and the held-out rows of the per-epoch figure. */
export interface TrainExamples {
  readonly train: readonly Example[];
  readonly dev: readonly Example[];
}

/** A model folder training goes on from (`--resume DIR`): its files and the epochs it has had. */
export interface ResumeFrom {
  readonly modelJson: unknown;
  readonly weights: ArrayBuffer;
  /** Its metadata.json history: epochs are numbered on from these. */
  readonly history: readonly EpochRecord[];
}

export interface TrainContext {
  readonly options: TrainSettings;
  readonly data: TrainExamples;
  /** Progress lines (the script's stderr). */
  readonly log: (s: string) => void;
  readonly resume?: ResumeFrom;
  /** The epoch loop's other hooks (live curves, cancel, yielding in a worker). */
  readonly hooks?: Omit<EpochHooks, 'log'>;
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
  readonly training: Record<string, unknown> & { readonly history: readonly EpochRecord[] };
  /** Why training ended: all epochs, the time cap, or a stop (cancel). */
  readonly end: EpochsEnd;
}

export type Trainer = (ctx: TrainContext) => Promise<Trained>;
