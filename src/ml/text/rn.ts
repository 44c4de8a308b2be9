/**
 * The Relation Network of the CLUTRR paper over the story text (Santoro et al. 2017, as the
 * paper's appendix adapts it), tfjs ops and tf.variable weights behind the same encoder as the
 * BiLSTM (encoder.ts) and in the shared harness (textNet.ts):
 *
 * - the story is anonymised and tokenised as for the LSTM (encoding.ts batchTexts: people are
 *   `@ent<k>` tokens, a fresh seeded assignment per story) and cut into sentences after `.`,
 *   `!` and `?`;
 * - every sentence is read on its own by a bidirectional LSTM (all sentences of a batch side by
 *   side, "a batch of sentences × words") and pooled by the mean of its states: the objects;
 * - the query people's states are the mean of the sentence LSTM's states at their tokens;
 * - g (an MLP) reads every ordered pair of objects (a sentence with itself included) together
 *   with the two query states, its outputs are summed over the pairs, and f (an MLP) maps the
 *   sum to the 18 classes. As the paper says, the query enters through g only, not the decoder.
 *
 * g's first layer is linear in [o_i ; o_j ; q], so it is computed as three products (per
 * object, per object, per story) added by broadcasting, not one product per pair. Gather-free
 * where gradients flow (see encoder.ts): the wasm backend trains it.
 */
import * as tf from '@tensorflow/tfjs';
import type { Seed } from '../../core/random/rng';
import { batchTexts, NUM_CLASSES, type TextBatch, type TextBatchOptions, type TextItem } from '../encoding';
import type { ClutrrModel } from '../model';
import type { ModelArtifacts } from '../variables';
import { encoderShapes, type ForwardOptions, type LstmInputs, matMul } from './encoder';
import { type TextModelJson, TextNetBase, textNetFormat } from './textNet';
import type { TextTokenizer } from './tokens';

export interface RnConfig {
  readonly embeddingDim: number;
  /** Units per direction of the sentence LSTM. */
  readonly hidden: number;
  /** Bidirectional layers of the sentence LSTM. */
  readonly layers: number;
  /** Width of g's layers (the paper: 64). */
  readonly gHidden: number;
  /** Layers of g (each gHidden wide, ReLU). */
  readonly gLayers: number;
  /** Widths of f's hidden layers before the 18 outputs (the paper: 256, 64). */
  readonly fHidden: readonly number[];
  /** How g's outputs are pooled over the pairs: `sum` (Santoro et al.) or `mean`. */
  readonly aggregate: 'sum' | 'mean';
  /** Dropout on the embeddings and on f's hidden layers (training only). */
  readonly dropout: number;
  /** Training only: each word becomes `<unk>` with this probability. */
  readonly wordDropout: number;
  /** Training only: each word is split into word pieces, though known, with this probability (tokens.ts). */
  readonly pieceDropout: number;
}

/** The paper's sizes (appendix: f 256, 64; g 64; embeddings 100, LSTM 100). */
export const RN_PAPER: RnConfig = {
  embeddingDim: 100,
  hidden: 100,
  layers: 1,
  gHidden: 64,
  gLayers: 2,
  fHidden: [256, 64],
  aggregate: 'sum',
  dropout: 0.1,
  wordDropout: 0.15,
  pieceDropout: 0.15,
};

/** Weight names and shapes, in saving order: the encoder's, then g's and f's. */
function weightShapes(c: RnConfig, vocabularySize: number): [string, number[]][] {
  const D = 2 * c.hidden;
  const G = c.gHidden;
  const shapes = encoderShapes(c, vocabularySize);
  shapes.push(['g/left', [D, G]], ['g/right', [D, G]], ['g/query', [2 * D, G]], ['g/bias', [G]]);
  for (let l = 1; l < c.gLayers; l++) shapes.push([`g/${l}`, [G, G]], [`g/${l}/bias`, [G]]);
  let inDim = G;
  c.fHidden.forEach((width, l) => {
    shapes.push([`f/${l}`, [inDim, width]], [`f/${l}/bias`, [width]]);
    inDim = width;
  });
  shapes.push(['f/out', [inDim, NUM_CLASSES]], ['f/out/bias', [NUM_CLASSES]]);
  return shapes;
}

/**
 * The sentences of a story batch, `maxSentences` (S) rows per story, story-major (row b * S + s
 * is story b's sentence s; rows past a story's last sentence are empty), each padded to the
 * longest sentence: a TextBatch whose rows are sentences. Its `queryA`/`queryB` keep the
 * story's weights (1 / the person's count in the whole story), so summing a story's rows gives
 * the mean state over all the person's tokens. `objects` [B, S]: 1 for a real sentence.
 */
export interface SentenceBatch {
  readonly size: number;
  readonly maxSentences: number;
  readonly sentences: TextBatch;
  readonly objects: Float32Array;
  readonly labels: Int32Array;
}

/** Cuts each story of `batch` into its sentences (TextBatch `sentence`: a new one after `.`, `!`, `?`). */
export function splitSentences(batch: TextBatch): SentenceBatch {
  const { size: B, maxLength: L } = batch;
  // Per story, each sentence's [first, end) token positions.
  const runs: [number, number][][] = [];
  let S = 1;
  let Ls = 1;
  for (let b = 0; b < B; b++) {
    const story: [number, number][] = [];
    for (let t = 0; t < L && batch.mask[b * L + t] === 1; t++) {
      const s = batch.sentence[b * L + t]!;
      while (story.length <= s) story.push([t, t]);
      story[s]![1] = t + 1;
    }
    const real = story.filter(([from, to]) => to > from);
    runs.push(real);
    S = Math.max(S, real.length);
    for (const [from, to] of real) Ls = Math.max(Ls, to - from);
  }
  const rows = B * S;
  const ids = new Int32Array(rows * Ls);
  const mask = new Float32Array(rows * Ls);
  const queryA = new Float32Array(rows * Ls);
  const queryB = new Float32Array(rows * Ls);
  const sentence = new Int32Array(rows * Ls).fill(-1);
  const objects = new Float32Array(B * S);
  runs.forEach((story, b) =>
    story.forEach(([from, to], s) => {
      const row = (b * S + s) * Ls;
      objects[b * S + s] = 1;
      for (let t = from; t < to; t++) {
        ids[row + t - from] = batch.ids[b * L + t]!;
        mask[row + t - from] = 1;
        queryA[row + t - from] = batch.queryA[b * L + t]!;
        queryB[row + t - from] = batch.queryB[b * L + t]!;
        sentence[row + t - from] = 0;
      }
    }),
  );
  return {
    size: B,
    maxSentences: S,
    sentences: {
      size: rows,
      maxLength: Ls,
      ids,
      mask,
      queryA,
      queryB,
      sentence,
      labels: new Int32Array(rows).fill(-1),
    },
    objects,
    labels: batch.labels,
  };
}

/** A SentenceBatch as tensors (the caller disposes them, or runs inside tf.tidy). */
export interface RnInputs {
  readonly size: number;
  readonly maxSentences: number;
  readonly sentences: LstmInputs;
  /** [Ls, B * S, 1]: each sentence's tokens weighted 1 / its length (the mean). */
  readonly pooling: tf.Tensor3D;
  /** [B, S, S, 1]: 1 for a pair of real sentences. */
  readonly pairs: tf.Tensor4D;
  /** [B, 1]: the number of real pairs (at least 1). */
  readonly pairCount: tf.Tensor2D;
  /**
   * One story (B = 1): each sentence on its own, unpadded, for the encoder's one-story path at
   * inference (on wasm about four times faster than the padded batch of its sentences).
   */
  readonly each?: readonly LstmInputs[];
}

/** Each row of a batch as a batch of its own, cut to its real tokens. */
function rowsOf(batch: TextBatch): TextBatch[] {
  const L = batch.maxLength;
  return Array.from({ length: batch.size }, (_, r) => {
    let n = 0;
    while (n < L && batch.mask[r * L + n] === 1) n++;
    const cut = <T extends Float32Array | Int32Array>(a: T) => a.slice(r * L, r * L + n) as T;
    return {
      size: 1,
      maxLength: n,
      ids: cut(batch.ids),
      mask: cut(batch.mask),
      queryA: cut(batch.queryA),
      queryB: cut(batch.queryB),
      sentence: cut(batch.sentence),
      labels: batch.labels.slice(r, r + 1),
    };
  });
}

export class Rn extends TextNetBase<RnConfig, SentenceBatch, RnInputs> {
  constructor(config: RnConfig, tokens: TextTokenizer, init: Seed | ReadonlyMap<string, tf.Tensor>) {
    super('RN', config, tokens, init, weightShapes(config, tokens.size));
  }

  /** Tokenises and packs stories (see encoding.ts batchTexts) and cuts them into sentences. */
  batch(items: readonly TextItem[], options: TextBatchOptions = {}): SentenceBatch {
    return splitSentences(batchTexts(items, this.tokens, options));
  }

  inputs(batch: SentenceBatch): RnInputs {
    const { size: B, maxSentences: S } = batch;
    const { size: rows, maxLength: Ls, mask } = batch.sentences;
    const pooling = new Float32Array(Ls * rows);
    for (let r = 0; r < rows; r++) {
      let n = 0;
      for (let t = 0; t < Ls; t++) n += mask[r * Ls + t]!;
      for (let t = 0; t < Ls; t++) pooling[t * rows + r] = n > 0 ? mask[r * Ls + t]! / n : 0;
    }
    const pairs = new Float32Array(B * S * S);
    const pairCount = new Float32Array(B);
    for (let b = 0; b < B; b++) {
      for (let i = 0; i < S; i++) {
        for (let j = 0; j < S; j++) pairs[(b * S + i) * S + j] = batch.objects[b * S + i]! * batch.objects[b * S + j]!;
      }
      let n = 0;
      for (let i = 0; i < S; i++) n += batch.objects[b * S + i]!;
      pairCount[b] = Math.max(1, n * n);
    }
    return {
      size: B,
      maxSentences: S,
      sentences: this.encoder.inputs(batch.sentences),
      pooling: tf.tensor3d(pooling, [Ls, rows, 1]),
      pairs: tf.tensor4d(pairs, [B, S, S, 1]),
      pairCount: tf.tensor2d(pairCount, [B, 1]),
      ...(B === 1 && batch.objects[0] === 1
        ? { each: rowsOf(batch.sentences).map((row) => this.encoder.inputs(row)) }
        : {}),
    };
  }

  /** Logits [B, 18]. */
  forward(x: RnInputs, options: ForwardOptions = {}): { logits: tf.Tensor2D } {
    const c = this.config;
    const { size: B, maxSentences: S } = x;
    const D = 2 * c.hidden;
    const G = c.gHidden;
    const rows = B * S;
    const Ls = x.sentences.maxLength;
    const states =
      x.each && !options.training
        ? tf.stack(
            x.each.map((one) =>
              tf.pad(this.encoder.encode(one), [
                [0, Ls - one.maxLength],
                [0, 0],
              ]),
            ),
            1,
          )
        : tf.reshape(this.encoder.encode(x.sentences, options), [Ls, rows, D]);
    const objects = tf.sum(tf.mul(x.pooling, states), 0) as tf.Tensor2D; // [B * S, D]
    const perStory = (q: tf.Tensor3D) => tf.sum(tf.reshape(tf.sum(tf.mul(q, states), 0), [B, S, D]), 1);
    const query = tf.concat([perStory(x.sentences.queryA), perStory(x.sentences.queryB)], 1) as tf.Tensor2D;
    // g's first layer on [o_i ; o_j ; q] for every pair (i, j), by broadcasting.
    const left = tf.reshape(matMul(objects, this.w('g/left')), [B, S, 1, G]);
    const right = tf.reshape(matMul(objects, this.w('g/right')), [B, 1, S, G]);
    const fromQuery = tf.reshape(tf.add(matMul(query, this.w('g/query')), this.w('g/bias')), [B, 1, 1, G]);
    let h = tf.reshape(tf.relu(tf.add(tf.add(left, right), fromQuery)), [rows * S, G]) as tf.Tensor2D;
    for (let l = 1; l < c.gLayers; l++) {
      h = tf.relu(tf.add(matMul(h, this.w(`g/${l}`)), this.w(`g/${l}/bias`))) as tf.Tensor2D;
    }
    let pooled = tf.sum(tf.mul(tf.reshape(h, [B, S, S, G]), x.pairs), [1, 2]) as tf.Tensor2D;
    if (c.aggregate === 'mean') pooled = tf.div(pooled, x.pairCount);
    let z = pooled;
    c.fHidden.forEach((_, l) => {
      z = this.encoder.dropout(
        tf.relu(tf.add(matMul(z, this.w(`f/${l}`)), this.w(`f/${l}/bias`))) as tf.Tensor2D,
        options,
      );
    });
    const logits = tf.add(matMul(z, this.w('f/out')), this.w('f/out/bias')) as tf.Tensor2D;
    return { logits };
  }
}

// ---------------------------------------------------------------------------------------------
// Saving and loading: public/models/rn/<version>/{model.json, weights.bin, metadata.json}

export const RN_FORMAT = 'clutrr-lab/rn';

/** model.json: architecture, tokeniser (tokens.ts) and the weights manifest (tfjs's layout). */
export type RnModelJson = TextModelJson<typeof RN_FORMAT, RnConfig>;

export type RnArtifacts = ModelArtifacts<RnModelJson>;

const rnFormat = textNetFormat<RnConfig, Rn, RnModelJson>('rn', 'RN', RN_FORMAT, (c, t, i) => new Rn(c, t, i));

/** The model as model.json and weights.bin contents (named `rn` unless told). */
export const saveRn: (model: Rn, name?: string) => Promise<RnArtifacts> = rnFormat.save;

/** A model from model.json and weights.bin contents; refuses another format or class list. */
export const loadRn: (modelJson: RnModelJson, weights: ArrayBuffer) => Rn = rnFormat.load;

/** A loaded RN as a ClutrrModel: each question anonymised with a seed of its own text. */
export const rnAsModel: (model: Rn, name: string) => ClutrrModel = rnFormat.asModel;
