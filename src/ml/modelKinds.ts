/**
 * One descriptor per model id: what each model is, said once. The training script copies these
 * facts into every folder's metadata.json (and from there index.json); the model list, the k
 * curve, the robustness table, "Ask the models", the results dashboard and `cli eval` read them
 * here instead of testing `kind === 'gat'`. Pure data and small helpers: no tfjs, so the page
 * may import it.
 *
 * Adding a model: one entry in MODEL_KINDS (the compiler then asks for nothing else here), one
 * trainer in scripts/train/main.ts, one FORMATS entry in load.ts.
 */
import type {
  ModelAttention,
  ModelFacts,
  ModelIndexEntry,
  ModelKind,
  ModelReads,
  ModelSupervision,
  NoiseKind,
  PaperModelId,
  TrainedOn,
} from './model';

export type { ModelAttention, ModelFacts, ModelReads, ModelSupervision, PaperModelId, TrainedOn } from './model';

/** A model of ours: its facts (model.ts `ModelFacts`) and how its folders are built. */
export interface ModelKindInfo extends ModelFacts {
  /** model.json's `format`, which load.ts builds the model by. */
  readonly format: string;
  /** The architecture within the format (graph/architecture.ts `GatConfig.architecture`, the LSTM's pooling, …). */
  readonly architecture: string;
  /** The model this one is an ablation of (shown beside it), if any. */
  readonly ablationOf?: string;
}

/** The model ids of this table (the first segment of a folder id, `<model>/<version>`). */
export type ModelId =
  | 'gat'
  | 'gat-improved'
  | 'gat-improved-answer-only'
  | 'gat-pairs'
  | 'path-composer'
  | 'lstm'
  | 'lstm-mean'
  | 'rn'
  | 'mac';

/** The columns of the paper's Table 2, as it prints them. */
export const PAPER_MODEL_NAME: Readonly<Record<PaperModelId, string>> = {
  bilstmAttention: 'BiLSTM-attention',
  bilstmMean: 'BiLSTM-mean',
  rn: 'RN',
  mac: 'MAC',
  bert: 'BERT',
  bertLstm: 'BERT-LSTM',
  gat: 'GAT',
};

/** Paper columns in Table 2's order. */
export const PAPER_MODELS: readonly PaperModelId[] = [
  'bilstmAttention',
  'bilstmMean',
  'rn',
  'mac',
  'bert',
  'bertLstm',
  'gat',
];

export const READS_TEXT: Readonly<Record<ModelReads, string>> = {
  graph: 'the graph of stated facts, not the text',
  text: 'the story text, names anonymised',
};

export const SUPERVISION_TEXT: Readonly<Record<ModelSupervision, string>> = {
  answer: 'answer only',
  'answer+rule-pairs': "answer plus every pair's relation from the rule base, unsound rules included",
};

export const ATTENTION_TEXT: Readonly<Record<ModelAttention, string>> = {
  facts: 'over the stated facts (drawn on the family graph)',
  words: 'over the words of the story',
  none: 'none',
};

const RULE_PAIRS_NOTE =
  "Its training loss also scores every ordered pair of people after every round against the relation the CLUTRR rule base derives from the story's facts (src/core/kinship/rules.ts, the unsound rules included), so it is told far more than the answer.";

export const MODEL_KINDS = {
  gat: {
    label: 'GAT (paper)',
    reads: 'graph',
    supervision: 'answer',
    attention: 'facts',
    paperModel: 'gat',
    description:
      "The paper's graph attention network: people are nodes with random identity vectors, two edge-aware attention convolutions run for 3 rounds over the stated facts, and a decoder reads the two query people.",
    format: 'clutrr-lab/gat',
    architecture: 'nodes',
  },
  'gat-improved': {
    label: 'Relation composer, rule-supervised',
    reads: 'graph',
    supervision: 'answer+rule-pairs',
    attention: 'facts',
    paperModel: null,
    description: `Not a graph attention network over people and not in the paper: every ordered pair of people holds a distribution over 21 relation classes, composed through a third person with a learned 21×21×21 table as many rounds as the query path is long. ${RULE_PAIRS_NOTE}`,
    format: 'clutrr-lab/gat',
    architecture: 'classes',
  },
  'gat-improved-answer-only': {
    label: 'Relation composer, answer only (ablation)',
    reads: 'graph',
    supervision: 'answer',
    attention: 'facts',
    paperModel: null,
    description:
      'The rule-supervised relation composer trained on the answer alone, without the pair loss: the same network and data, so the difference between the two is what the rule-base supervision buys.',
    format: 'clutrr-lab/gat',
    architecture: 'classes',
    ablationOf: 'gat-improved',
  },
  'gat-pairs': {
    label: 'Pair-state composer, rule-supervised (first design)',
    reads: 'graph',
    supervision: 'answer+rule-pairs',
    attention: 'facts',
    paperModel: null,
    description: `The first design of the relation composer, not in the paper: 32-d vector states per ordered pair, composed through a third person by a small MLP; it drifts on long compositions. ${RULE_PAIRS_NOTE}`,
    format: 'clutrr-lab/gat',
    architecture: 'pairs',
  },
  'path-composer': {
    label: 'Path composer, answer only',
    reads: 'graph',
    supervision: 'answer',
    attention: 'facts',
    paperModel: null,
    description:
      'Not in the paper: it finds the shortest chain of stated facts from the first query person to the second and composes adjacent steps, the leftmost pair it is sure of first, with a learned 21×21→21 table of relation classes. Trained on the final answers alone: no rule of the rule base and no label of an intermediate pair; its only prior is that a stated word starts out meaning its own class.',
    format: 'clutrr-lab/gat',
    architecture: 'path',
  },
  lstm: {
    label: 'BiLSTM-attention (paper)',
    reads: 'text',
    supervision: 'answer',
    attention: 'words',
    paperModel: 'bilstmAttention',
    description:
      "The paper's best text model: a 2-layer bidirectional LSTM over the anonymised story, pooled by attention conditioned on the two query people, then a decoder.",
    format: 'clutrr-lab/lstm',
    architecture: 'attention',
  },
  'lstm-mean': {
    label: 'BiLSTM-mean (paper)',
    reads: 'text',
    supervision: 'answer',
    attention: 'none',
    paperModel: 'bilstmMean',
    description:
      "The paper's BiLSTM with the story pooled by the mean of its states instead of attention; the same encoder and decoder as BiLSTM-attention.",
    format: 'clutrr-lab/lstm',
    architecture: 'mean',
  },
  rn: {
    label: 'Relation Network (paper)',
    reads: 'text',
    supervision: 'answer',
    attention: 'none',
    paperModel: 'rn',
    description:
      "The paper's Relation Network over the story text: each sentence encoded by an LSTM and pooled, a shared MLP applied to every pair of sentence embeddings with the query people, the results summed and decoded.",
    format: 'clutrr-lab/rn',
    architecture: 'rn',
  },
  mac: {
    label: 'MAC (paper)',
    reads: 'text',
    supervision: 'answer',
    attention: 'words',
    paperModel: 'mac',
    description:
      "The paper's MAC network behind an LSTM over the story text: for a fixed number of iterations a control state attends to the query people and a read step attends over the LSTM's states of the story's words, and a write step updates a memory that is decoded.",
    format: 'clutrr-lab/mac',
    architecture: 'mac',
  },
} as const satisfies Record<ModelId, ModelKindInfo>;

/** The descriptor of a model id, or undefined for an id this code does not know. */
export function modelKind(model: string): ModelKindInfo | undefined {
  return Object.hasOwn(MODEL_KINDS, model) ? MODEL_KINDS[model as ModelId] : undefined;
}

/** The descriptor of a model id; a clear error naming the id and the known ones otherwise. */
export function requireModelKind(model: string, where = 'model'): ModelKindInfo {
  const kind = modelKind(model);
  if (!kind) throw new Error(`${where}: unknown model "${model}" (known: ${Object.keys(MODEL_KINDS).join(', ')})`);
  return kind;
}

/** The facts metadata.json and index.json carry for a model (its descriptor less the build details). */
export function modelFacts(model: string, where?: string): ModelFacts {
  const { label, reads, supervision, attention, paperModel, description } = requireModelKind(model, where);
  return { label, reads, supervision, attention, paperModel, description };
}

/** The format family of a model id (`clutrr-lab/gat` → `gat`). */
export const formatKind = (model: string): ModelKind => requireModelKind(model).format.split('/')[1] as ModelKind;

/** Clean k = 2, 3 rows of the release's shape, our labels: what the main models are trained on. */
export const MAIN_TRAINING: TrainedOn = {
  noise: 'clean',
  preset: 'emnlp-systematic',
  labels: 'family',
  rows: 5000,
  ks: [2, 3],
};

/**
 * An index.json entry for a folder of `model` with the descriptor's facts (as the training script
 * writes them): for folders whose metadata predates the descriptor, and for tests.
 */
export function indexEntry(
  model: string,
  version: string,
  trained: Partial<TrainedOn> = {},
  weightBytes = 0,
): ModelIndexEntry {
  return {
    id: `${model}/${version}`,
    model,
    version,
    kind: formatKind(model),
    ...modelFacts(model),
    trainedOn: { ...MAIN_TRAINING, ...trained },
    weightBytes,
  };
}

/** "BiLSTM-attention", or "not in the paper". */
export const paperModelText = (paperModel: PaperModelId | null): string =>
  paperModel ? PAPER_MODEL_NAME[paperModel] : 'not in the paper';

const NOISE_WORD: Readonly<Record<NoiseKind, string>> = {
  clean: 'clean',
  supporting: 'supporting-noise',
  irrelevant: 'irrelevant-noise',
  disconnected: 'disconnected-noise',
};

/**
 * What a model was trained on, in a line: "5,000 clean puzzles per k, k = 2, 3, balanced patterns
 * (emnlp-systematic), our labels". Folders trained before presets say "unbalanced rows".
 */
export function trainedOnText(t: TrainedOn): string {
  if (t.files) {
    const labels = t.labels === 'clutrr' ? "CLUTRR's labels" : 'our labels';
    return `${t.rows.toLocaleString('en')} rows of ${t.files.map((f) => f.name).join(', ')} (validation rows held out), k = ${t.ks.join(', ')}; ${labels}`;
  }
  const data = t.preset === 'none' ? 'unbalanced rows (before presets)' : `balanced patterns (--preset ${t.preset})`;
  const labels = t.labels === 'clutrr' ? "CLUTRR's labels" : 'our labels';
  return `${t.rows.toLocaleString('en')} ${NOISE_WORD[t.noise] ?? t.noise} puzzles per k, k = ${t.ks.join(', ')}; ${data}; ${labels}`;
}
