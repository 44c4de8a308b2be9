/**
 * The harness every text model runs in (lstm.ts, rn.ts, mac.ts), so that none carries its own
 * copy: `TextNetBase` (weights, encoder, tokeniser, predict, dispose), `trainStep`, `evaluate`,
 * saving and loading model.json + weights.bin, and `textModel`, the ClutrrModel of any of them.
 */
import * as tf from '@tensorflow/tfjs';
import type { Rng, Seed } from '../../core/random/rng';
import { CLASSES, NUM_CLASSES, type TextBatchOptions, type TextItem } from '../encoding';
import type { ClutrrModel, ModelAnswer, ModelKind, ModelQuestion } from '../model';
import { applyClippedGradients, crossEntropy, type TrainStep } from '../training';
import { createVariables, loadVariables, type ModelArtifacts, type ModelJsonBase, saveVariables } from '../variables';
import { BiLstmEncoder, type EncoderConfig, type ForwardOptions, initialValues } from './encoder';
import { TextTokenizer, type TokenizerJson, tokenizerProblem } from './tokens';

export type { TrainStep } from '../training';

/** What a text model's batch must carry for training and scoring. */
export interface LabelledBatch {
  readonly size: number;
  readonly labels: Int32Array;
}

/** What trainStep, evaluate and textModel need of a text model, with its own batch and input types. */
export interface TextNet<Batch extends LabelledBatch, Inputs> {
  readonly variables: ReadonlyMap<string, tf.Variable>;
  /** Tokenises and packs stories (encoding.ts batchTexts; the dropouts: training only). */
  batch(items: readonly TextItem[], options?: TextBatchOptions): Batch;
  inputs(batch: Batch): Inputs;
  forward(x: Inputs, options?: ForwardOptions): { logits: tf.Tensor2D };
  /** Class probabilities [B * 18]; disposes everything. */
  predict(batch: Batch): Promise<Float32Array>;
  dispose(): void;
}

/**
 * A text model's state: its weights as tf.variables (seeded or loaded, the encoder's first, in
 * `shapes` order), the BiLSTM encoder over them and the tokeniser whose vocabulary is the
 * embedding's rows. `label` names the model in messages and variable names (`LSTM`, `RN`).
 */
export abstract class TextNetBase<C extends EncoderConfig, Batch extends LabelledBatch, Inputs> implements TextNet<
  Batch,
  Inputs
> {
  readonly variables: ReadonlyMap<string, tf.Variable>;
  /** Embedding and bidirectional layers over this model's variables. */
  readonly encoder: BiLstmEncoder;

  constructor(
    label: string,
    readonly config: C,
    readonly tokens: TextTokenizer,
    init: Seed | ReadonlyMap<string, tf.Tensor>,
    shapes: [string, number[]][],
  ) {
    this.variables = createVariables(label, shapes, init, (name, shape, rng) =>
      initialValues(name, shape, config, rng),
    );
    this.encoder = new BiLstmEncoder(config, (name) => this.w(name));
  }

  protected w(name: string): tf.Variable {
    return this.variables.get(name)!;
  }

  abstract batch(items: readonly TextItem[], options?: TextBatchOptions): Batch;
  abstract inputs(batch: Batch): Inputs;
  abstract forward(x: Inputs, options?: ForwardOptions): { logits: tf.Tensor2D };

  /** Class probabilities [B * 18] for a batch; disposes everything. */
  predict(batch: Batch): Promise<Float32Array> {
    return softmaxProbs(() => this.forward(this.inputs(batch)).logits);
  }

  dispose(): void {
    for (const v of this.variables.values()) v.dispose();
    this.encoder.dispose();
  }
}

/** Class probabilities of a batch from its logits (made inside a tidy); disposes everything. */
export async function softmaxProbs(logits: () => tf.Tensor2D): Promise<Float32Array> {
  const probs = tf.tidy(() => tf.softmax(logits()));
  try {
    return (await probs.data()) as Float32Array;
  } finally {
    probs.dispose();
  }
}

/**
 * One optimiser step on a batch: cross-entropy, gradients clipped to a global norm of `clip`
 * (the paper: 1.0), then the optimiser's update. Every intermediate tensor is disposed.
 */
export function trainStep<Batch extends LabelledBatch, Inputs>(
  model: TextNet<Batch, Inputs>,
  optimizer: tf.Optimizer,
  batch: Batch,
  rng: Rng,
  clip = 1,
): TrainStep {
  return trainStepInParts(model, optimizer, [batch], rng, clip);
}

/**
 * One optimiser step over a batch packed in parts (a long batch split so that one part's
 * backward pass, whose tape holds every time step of the BiLSTM, fits a phone's memory): each
 * part's gradients of its share of the mean loss (size / total) are summed, then clipped and
 * applied once — the step of the whole batch, up to the dropout drawn per part. One part is
 * exactly `trainStep`.
 */
export function trainStepInParts<Batch extends LabelledBatch, Inputs>(
  model: TextNet<Batch, Inputs>,
  optimizer: tf.Optimizer,
  parts: readonly Batch[],
  rng: Rng,
  clip = 1,
): TrainStep {
  const vars = [...model.variables.values()];
  const total = parts.reduce((n, p) => n + p.size, 0);
  let correct = 0;
  let loss = 0;
  let sum: tf.NamedTensorMap | null = null;
  for (const batch of parts) {
    const share = batch.size / total;
    const got: tf.NamedTensorMap = tf.tidy((): tf.NamedTensorMap => {
      const x = model.inputs(batch);
      const { value, grads } = tf.variableGrads(() => {
        const { logits } = model.forward(x, { training: true, rng });
        const predicted = logits.argMax(1).dataSync();
        correct += batch.labels.reduce((n, l, i) => n + (predicted[i] === l ? 1 : 0), 0);
        const mean = crossEntropy(logits, batch.labels);
        return parts.length === 1 ? mean : (mean.mul(share) as tf.Scalar);
      }, vars);
      loss += value.dataSync()[0]!;
      if (parts.length === 1) {
        applyClippedGradients(optimizer, grads, clip);
        return {};
      }
      const prev = sum;
      // The running sum outlives this tidy; the previous one is disposed once added.
      return Object.fromEntries(
        Object.entries(grads).map(([n, g]) => [n, prev ? prev[n]!.add(g) : g]),
      ) as tf.NamedTensorMap;
    });
    if (parts.length > 1) {
      if (sum) tf.dispose(Object.values(sum));
      sum = got;
    }
  }
  if (sum) {
    const grads: tf.NamedTensorMap = sum;
    tf.tidy(() => applyClippedGradients(optimizer, grads, clip));
    tf.dispose(Object.values(grads));
  }
  return { loss, correct };
}

/** The anonymisation seed of a question at inference: its own text, so it always gets the same answer. */
export function questionSeed(story: string, queryNames: readonly [string, string]): string {
  return `${story}\u0000${queryNames[0]}\u0000${queryNames[1]}`;
}

/** Inference items of questions (labels from their graphs, -1 when unknown). */
export function textItems(questions: readonly ModelQuestion[]): TextItem[] {
  return questions.map((q) => ({
    story: q.story,
    queryNames: q.queryNames,
    label: q.graph.label,
    seed: questionSeed(q.story, q.queryNames),
  }));
}

/**
 * Accuracy on questions: correct answers over labelled rows, in batches of about `batchSize`
 * (sorted by length so that little is padding).
 */
export async function evaluate<Batch extends LabelledBatch, Inputs>(
  model: TextNet<Batch, Inputs>,
  questions: readonly ModelQuestion[],
  batchSize = 250,
): Promise<{ correct: number; rows: number }> {
  const items = textItems(questions).sort((p, q) => p.story.length - q.story.length);
  let correct = 0;
  let rows = 0;
  for (let i = 0; i < items.length; i += batchSize) {
    const batch = model.batch(items.slice(i, i + batchSize));
    const probs = await model.predict(batch);
    for (let b = 0; b < batch.size; b++) {
      if (batch.labels[b]! < 0) continue;
      rows++;
      if (argMax(probs.subarray(b * NUM_CLASSES, (b + 1) * NUM_CLASSES)) === batch.labels[b]) correct++;
    }
  }
  return { correct, rows };
}

function argMax(row: ArrayLike<number>): number {
  let best = 0;
  for (let c = 1; c < row.length; c++) if (row[c]! > row[best]!) best = c;
  return best;
}

/** A loaded text model as a ClutrrModel of `kind`: each question anonymised with a seed of its own text. */
export function textModel<Batch extends LabelledBatch, Inputs>(
  model: TextNet<Batch, Inputs>,
  kind: ModelKind,
  name: string,
): ClutrrModel {
  return {
    kind,
    name,
    async answer(questions: readonly ModelQuestion[]): Promise<ModelAnswer[]> {
      if (questions.length === 0) return [];
      const probs = await model.predict(model.batch(textItems(questions)));
      return questions.map((_, b) => ({ probs: probs.slice(b * NUM_CLASSES, (b + 1) * NUM_CLASSES) }));
    },
    dispose: () => model.dispose(),
  };
}

// ---------------------------------------------------------------------------------------------
// Saving and loading: public/models/<model>/<version>/{model.json, weights.bin, metadata.json}

/** model.json of a text model: its format, architecture, tokeniser and the weights manifest (tfjs's layout). */
export interface TextModelJson<F extends string, C> extends ModelJsonBase {
  readonly format: F;
  readonly config: C;
  readonly tokenizer: TokenizerJson;
}

/** A text model's parts that its model.json records: weights, architecture and tokeniser. */
export interface SavedTextNet<C> {
  readonly variables: ReadonlyMap<string, tf.Variable>;
  readonly config: C;
  readonly tokens: TextTokenizer;
}

/** model.json (`format`, config, classes, tokeniser, weights manifest) and weights.bin of a text model. */
export function saveTextNet<F extends string, C>(model: SavedTextNet<C>, format: F, name: string) {
  return saveVariables(model.variables, {
    format,
    formatVersion: 1 as const,
    name,
    config: model.config,
    classes: [...CLASSES],
    tokenizer: model.tokens.toJson(),
  });
}

/**
 * A text model from model.json and weights.bin contents and its tokeniser (read first, so a bad
 * one is named before the weights are decoded); refuses another format or class list.
 */
export function loadTextNet<C, M>(
  label: string,
  format: string,
  modelJson: ModelJsonBase & { readonly config: C },
  weights: ArrayBuffer,
  tokens: TextTokenizer,
  build: (config: C, tokens: TextTokenizer, init: ReadonlyMap<string, tf.Tensor>) => M,
): M {
  return loadVariables(label, format, CLASSES, modelJson, weights, (t) => build(modelJson.config, tokens, t));
}

/** The tokeniser a model.json holds, or an error naming the model (`label`) and what is wrong. */
export function readTokenizer(label: string, json: unknown): TextTokenizer {
  const problem = tokenizerProblem(json);
  if (problem) throw new Error(`${label} model.json: tokenizer: ${problem}`);
  return new TextTokenizer(json as TokenizerJson);
}

/** A text model's saving, loading and ClutrrModel, one set per model.json format. */
export interface TextNetFormat<M, J extends ModelJsonBase> {
  /** The model as model.json and weights.bin contents. */
  readonly save: (model: M, name?: string) => Promise<ModelArtifacts<J>>;
  /** A model from model.json and weights.bin contents; refuses another format or class list. */
  readonly load: (modelJson: J, weights: ArrayBuffer) => M;
  /** A loaded model as a ClutrrModel: each question anonymised with a seed of its own text. */
  readonly asModel: (model: M, name: string) => ClutrrModel;
}

/**
 * The save/load/asModel of the text model of `kind` whose model.json has `format` (`label` names
 * it in errors), so lstm.ts, rn.ts and mac.ts share one body; `tokensOf` reads the tokeniser
 * (by default the model.json's `tokenizer`).
 */
export function textNetFormat<
  C,
  M extends SavedTextNet<C> & TextNet<LabelledBatch, unknown>,
  J extends ModelJsonBase & { readonly config: C; readonly tokenizer?: TokenizerJson },
>(
  kind: ModelKind,
  label: string,
  format: J['format'],
  build: (config: C, tokens: TextTokenizer, init: ReadonlyMap<string, tf.Tensor>) => M,
  tokensOf: (modelJson: J) => TextTokenizer = (modelJson) => readTokenizer(label, modelJson.tokenizer),
): TextNetFormat<M, J> {
  return {
    // saveTextNet writes exactly J's fields, which TypeScript cannot see for a generic J.
    save: async (model, name = kind) => (await saveTextNet(model, format, name)) as ModelArtifacts<J>,
    load: (modelJson, weights) => loadTextNet(label, format, modelJson, weights, tokensOf(modelJson), build),
    asModel: (model, name) => textModel(model, kind, name),
  };
}
