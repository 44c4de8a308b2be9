/**
 * What every model of src/ml offers its callers (the train script, `cli eval`, the models
 * worker): one question type, one answer type, the shipped folders' metadata shapes. Reading a
 * model folder is `loadModel` in load.ts. No tfjs types leak out of here.
 */

/** A model folder's format family (model.json `format` `clutrr-lab/<kind>`); what a model *is* is its descriptor (modelKinds.ts). */
export type ModelKind = 'gat' | 'lstm' | 'rn' | 'mac';

/** What a model reads: the story's graph of stated facts, or its text. */
export type ModelReads = 'graph' | 'text';
/**
 * What its training loss scores: the answer only, or the answer plus every ordered pair's
 * relation as the CLUTRR rule base derives it (unsound rules included).
 */
export type ModelSupervision = 'answer' | 'answer+rule-pairs';
/** What its attention weights, if it has any to show: the stated facts, the story's words. */
export type ModelAttention = 'facts' | 'words' | 'none';
/** The columns of the CLUTRR paper's Table 2. */
export type PaperModelId = 'bilstmAttention' | 'bilstmMean' | 'rn' | 'mac' | 'bert' | 'bertLstm' | 'gat';

/** What a model is, from its descriptor (modelKinds.ts); metadata.json and index.json carry these. */
export interface ModelFacts {
  /** Display name, e.g. `GAT (paper)`, `Relation composer, rule-supervised`. */
  readonly label: string;
  readonly reads: ModelReads;
  readonly supervision: ModelSupervision;
  readonly attention: ModelAttention;
  /** The paper model it reimplements; null: not in the paper. */
  readonly paperModel: PaperModelId | null;
  /** One honest sentence or two on what it is. */
  readonly description: string;
}

/** What a folder's model was trained on (from metadata.json `training`). */
export interface TrainedOn {
  readonly noise: NoiseKind;
  /** The dataset preset of its rows; `none`: the unbalanced rows of the models trained before presets. */
  readonly preset: string;
  readonly labels: 'family' | 'clutrr';
  /** Training rows per task (per k); for a model trained on files, all the rows trained on. */
  readonly rows: number;
  readonly ks: readonly number[];
  /** The CLUTRR CSV files it was trained on (`npm run train -- --train-csv`): names and rows used. */
  readonly files?: readonly { readonly name: string; readonly used: number }[];
}

/**
 * A story as a graph: nodes are the people 0..numNodes-1 (story node indices), each stated fact
 * `(from, word, to)` ("to is from's word") an edge from → to of type edgeTypeOf(word)
 * (encoding.ts, which builds these graphs); messages flow along the edge (the `to` person hears
 * about `from`).
 */
export interface StoryGraph {
  readonly numNodes: number;
  readonly from: Int32Array;
  readonly to: Int32Array;
  readonly type: Int32Array;
  /** [a, b]: "how is b related to a?" */
  readonly query: readonly [number, number];
  /** Class index of the answer; -1 when unknown (or not one of the 18 classes). */
  readonly label: number;
}

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
   * Graph models only: one weight in [0, 1] per stated fact, in `graph.from/to/type` order: how
   * much the receiving person attended to that fact (the last round; averaged over convolutions
   * and, for inverse edges, over both directions). For drawing on the graph's edges.
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

/** One entry of public/models/index.json: a shipped model folder, what it is and what it was trained on. */
export interface ModelIndexEntry extends ModelFacts {
  /** `<model>/<version>`, also its folder under public/models/. */
  readonly id: string;
  readonly model: string;
  readonly version: string;
  readonly kind: ModelKind;
  readonly trainedOn: TrainedOn;
  /** Bytes of weights.bin (for the loading progress). */
  readonly weightBytes: number;
}

export interface ModelIndex {
  readonly models: readonly ModelIndexEntry[];
}

/** Noise kinds of the robustness table (tasks 1..4). */
export type NoiseKind = 'clean' | 'supporting' | 'irrelevant' | 'disconnected';

/** The parts of metadata.json the app reads (the file holds more: config, history, …). */
export interface ModelMetadata extends ModelFacts {
  readonly model: string;
  readonly kind: ModelKind;
  readonly version: string;
  readonly seed: string;
  readonly madeBy: string;
  readonly classes: readonly string[];
  readonly training: {
    readonly noise: NoiseKind;
    /** Absent in folders trained before presets (the unbalanced rows). */
    readonly preset?: string;
    readonly labels?: 'family' | 'clutrr';
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

/** What a folder's metadata says its model was trained on (older folders: no preset, our labels). */
export function trainedOn(meta: Pick<ModelMetadata, 'training'>): TrainedOn {
  const t = meta.training;
  return {
    noise: t.noise,
    preset: t.preset ?? 'none',
    labels: t.labels === 'clutrr' ? 'clutrr' : 'family',
    rows: t.rows,
    ks: [...new Set(t.tasks.map((x) => x.k))].sort((a, b) => a - b),
    ...(Array.isArray(t.files)
      ? { files: (t.files as { name: string; used: number }[]).map((f) => ({ name: f.name, used: f.used })) }
      : {}),
  };
}

/** The class index a model answers: its most probable class (the first of equals). */
export function bestClass(probs: Float32Array): number {
  let best = 0;
  for (let c = 1; c < probs.length; c++) if (probs[c]! > probs[best]!) best = c;
  return best;
}
