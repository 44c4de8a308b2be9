import type { ModelMetadata } from '../ml/model';
import type { EpochRecord } from '../ml/train/epochs';
import type { DataFile } from '../ml/train/csvFiles';

/**
 * Messages of the train worker (`train.worker.ts`), served through `rpc.ts`: the browser's Train
 * panel trains one model at a time on CLUTRR CSV files the user dropped, with its curves streamed
 * epoch by epoch, then tests it on more files and hands its folder over.
 */

export type TrainBackend = 'webgl' | 'wasm' | 'cpu';

/** A dropped file: its name (for messages and the folder's record) and its bytes, unread. */
export interface CsvInput {
  readonly name: string;
  readonly data: Blob;
}

export interface TrainBody {
  /** A model id of src/ml/train/trainers.ts TRAINERS. */
  readonly model: string;
  readonly epochs: number;
  readonly files: readonly CsvInput[];
  /** Default `1` (the validation slice and the weights' initial values are seeded by it). */
  readonly seed?: string;
  readonly batchSize?: number;
  readonly learningRate?: number;
  /** Which labels the files carry (default `clutrr`, as the script's `--train-csv`). */
  readonly labels?: 'family' | 'clutrr';
  /** Force a backend; default WebGL on a real GPU, else WebAssembly, else cpu. */
  readonly backend?: TrainBackend;
}

/** What the files gave, sent once they are read (before the first epoch). */
export interface TrainStart {
  readonly type: 'start';
  readonly backend: TrainBackend;
  /** Why WebGL was not used, when it was not. */
  readonly webglNote: string | null;
  readonly files: readonly DataFile[];
  readonly trainRows: number;
  readonly validationRows: number;
}

/** One epoch's figures, as it ends. */
export interface TrainEpoch {
  readonly type: 'epoch';
  readonly record: EpochRecord;
  /** All epochs of the run. */
  readonly of: number;
}

export type TrainChunk = TrainStart | TrainEpoch;

export interface TrainResult {
  readonly backend: TrainBackend;
  readonly history: readonly EpochRecord[];
  /** `stopped`: cancelled between two steps; the model is what was learned so far. */
  readonly end: 'done' | 'time-cap' | 'stopped';
  readonly seconds: number;
}

export interface TestBody {
  readonly files: readonly CsvInput[];
}

export interface TestScore {
  readonly k: number;
  readonly rows: number;
  readonly correct: number;
}

export interface TestResult {
  readonly byK: readonly TestScore[];
  readonly files: readonly DataFile[];
}

/** The trained model's folder (metadata with the last test's figures). */
export interface FolderResult {
  readonly modelJson: ArrayBuffer;
  readonly weights: ArrayBuffer;
  readonly metadataJson: ArrayBuffer;
  readonly metadata: ModelMetadata;
}

export type TrainCommands = {
  /** Progress: steps run of all steps (all epochs); chunks: `start`, then one `epoch` each. */
  train: { body: TrainBody; chunk: TrainChunk; result: TrainResult };
  /** Accuracy by k of the last trained model on test files (recorded in its metadata). */
  test: { body: TestBody; chunk: never; result: TestResult };
  /** model.json, weights.bin and metadata.json of the last trained model. */
  folder: { body: Record<string, never>; chunk: never; result: FolderResult };
  /** Asks a running `train` to stop after its current step (it keeps what was learned). */
  cancel: { body: Record<string, never>; chunk: never; result: { readonly stopping: boolean } };
};
