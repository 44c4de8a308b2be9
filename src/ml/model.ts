/**
 * What every model of src/ml offers its callers (the train script, `cli eval`, the models
 * worker): one question type, one answer type, the shipped folders' metadata shapes. Reading a
 * model folder is `loadModel` in load.ts. No tfjs types leak out of here.
 */
import type { StoryGraph } from './encoding';

export type ModelKind = 'gat' | 'lstm';

/** One puzzle as a model sees it: the GAT reads `graph`, the LSTM reads `story` and `queryNames`. */
export interface ModelQuestion {
  readonly graph: StoryGraph;
  /** The story text with people written `[Name]`, as in the CLUTRR `story` column. */
  readonly story: string;
  /** [a, b] of "how is b related to a?": the names inside the brackets. */
  readonly queryNames: readonly [string, string];
}

/** A model's answer to one question. */
export interface ModelAnswer {
  /** NUM_CLASSES probabilities in CLASSES order (encoding.ts). */
  readonly probs: Float32Array;
  /**
   * GAT only: one weight in [0, 1] per stated fact, in `graph.from/to/type` order: how much the
   * receiving person attended to that fact (the last round; averaged over convolutions and, for
   * inverse edges, over both directions). For drawing on the graph's edges.
   */
  readonly factAttention?: Float32Array;
}

export interface ClutrrModel {
  readonly kind: ModelKind;
  /** model.json's `name`, e.g. `gat`, `gat-improved`, `lstm`. */
  readonly name: string;
  /** Answers in question order; the same questions give the same answers (seeded). Disposes all tensors. */
  answer(questions: readonly ModelQuestion[]): Promise<ModelAnswer[]>;
  dispose(): void;
}

/** The descriptor of public/models/index.json: every shipped model folder. */
export interface ModelIndexEntry {
  /** `<model>/<version>`, also its folder under public/models/. */
  readonly id: string;
  readonly model: string;
  readonly version: string;
  readonly kind: ModelKind;
  /** Short human label, e.g. `GAT (paper)`. */
  readonly label: string;
  /** Bytes of weights.bin (for the loading progress). */
  readonly weightBytes: number;
}

export interface ModelIndex {
  readonly models: readonly ModelIndexEntry[];
}

/** Noise kinds of the robustness table (tasks 1..4). */
export type NoiseKind = 'clean' | 'supporting' | 'irrelevant' | 'disconnected';

/** The parts of metadata.json the app reads (the file holds more: config, history, …). */
export interface ModelMetadata {
  readonly model: string;
  readonly kind: ModelKind;
  readonly label: string;
  readonly version: string;
  readonly seed: string;
  readonly madeBy: string;
  readonly classes: readonly string[];
  readonly training: {
    readonly noise: NoiseKind;
    readonly tasks: readonly { task: number; k: number }[];
    readonly rows: number;
    readonly epochs: number;
    readonly seconds: number;
    readonly [more: string]: unknown;
  };
  /** Fresh test sets of the training noise kind, k = 2..10: accuracy by k ("2".."10"). */
  readonly test: {
    readonly rows: number;
    readonly accuracy: Readonly<Record<string, number>>;
    readonly [more: string]: unknown;
  };
  /** Rows of the robustness table: trained on `training.noise`, tested on k = 2, 3 of each kind. */
  readonly robustness: readonly { readonly test: NoiseKind; readonly rows: number; readonly accuracy: number }[];
  readonly [more: string]: unknown;
}

/** The class index a model answers: its most probable class (the first of equals). */
export function bestClass(probs: Float32Array): number {
  let best = 0;
  for (let c = 1; c < probs.length; c++) if (probs[c]! > probs[best]!) best = c;
  return best;
}
