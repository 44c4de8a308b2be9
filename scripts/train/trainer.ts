/**
 * What `npm run train` asks of each model kind (gat.ts, lstm.ts here): train on the generated
 * data and hand back the saved artifacts. main.ts does everything else the same way for every
 * kind: it loads the artifacts back with src/ml/load.ts and evaluates *that* model, so the
 * accuracies in metadata.json are the shipped weights' own.
 */
import type { ModelKind, NoiseKind } from '../../src/ml/model';
import type { TrainData } from './data';

export interface TrainOptions {
  readonly model: string;
  readonly seed: string;
  readonly noise: NoiseKind;
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
  /** Human label for the app, e.g. `GAT (paper)`. */
  readonly label: string;
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
