/**
 * The MAC network of the CLUTRR paper (Hudson and Manning 2018, "compositional attention
 * networks", as the paper's appendix adapts it) behind the BiLSTM encoder (encoder.ts), tfjs ops
 * and tf.variable weights, in the shared harness (textNet.ts):
 *
 * - the story is anonymised and tokenised as for the LSTM (people are `@ent<k>` tokens, a fresh
 *   seeded assignment per story) and read by a bidirectional LSTM: its states, one per token,
 *   are the knowledge base k_h (d = 2 × hidden);
 * - the question is the two query people: their states a, b (the mean of the LSTM's states at
 *   their tokens) are the question's "words", q = tanh(W [a ; b]) its vector;
 * - for `steps` iterations, with one question projection shared by all steps
 *   (`shareQuestion`): the **control** unit attends over the question words, c_i = Σ_s cv_s w_s
 *   with cv = softmax_s(w_ca · ((W_c [c_{i-1} ; W_q q]) ⊙ w_s)); the **read** unit attends over
 *   the knowledge base, I_h = (W_m m_{i-1}) ⊙ (W_k k_h), ra_h = w_r · (c_i ⊙ W_I [I_h ; k_h]),
 *   r_i = Σ_h softmax_h(ra)_h k_h; the **write** unit is linear, m_i = W_w [r_i ; m_{i-1}]
 *   (biases everywhere; c_0 and m_0 learned);
 * - the decoder, a 2-layer MLP (decoder.ts), reads [m_last ; a ; b].
 *
 * The read score is computed without forming W_I [I_h ; k_h] per position: w_r · (c ⊙ (I W_a +
 * k W_b + b)) = k'_h · (m' ⊙ W_a (c ⊙ w_r)) + k_h · W_b (c ⊙ w_r) + const, where k'_h = W_k k_h
 * and m' = W_m m (the constant is the same for every h and drops out of the softmax). Exactly
 * the same scores, two [d, d] products per step instead of two per token. Dropout (training) on
 * the memory the read unit uses, the knowledge base and the write unit's input, as the paper's
 * "memory, read and write" dropout.
 */
import * as tf from '@tensorflow/tfjs';
import type { Seed } from '../../core/random/rng';
import { batchTexts, type TextBatch, type TextBatchOptions, type TextItem } from '../encoding';
import type { ClutrrModel } from '../model';
import type { ModelArtifacts } from '../variables';
import { decode, decoderShapes } from './decoder';
import { encoderShapes, type ForwardOptions, type LstmInputs, matMul } from './encoder';
import { type TextModelJson, TextNetBase, textNetFormat } from './textNet';
import type { TextTokenizer } from './tokens';

export interface MacConfig {
  readonly embeddingDim: number;
  /** Units per direction of the story LSTM; the MAC cell's width d is twice this. */
  readonly hidden: number;
  readonly layers: number;
  /** Reasoning steps (iterations of the cell; the paper: 6). */
  readonly steps: number;
  /** Dropout of the memory, read and write units (training only; the paper: 0.2). */
  readonly cellDropout: number;
  readonly decoderHidden: number;
  /** Dropout on the embeddings, between LSTM layers and before the decoder (training only). */
  readonly dropout: number;
  /** Training only: each word becomes `<unk>` with this probability. */
  readonly wordDropout: number;
  /** Training only: each word is split into word pieces, though known, with this probability (tokens.ts). */
  readonly pieceDropout: number;
}

/** The paper's MAC (6 iterations, shared question, dropout 0.2) behind a one-layer BiLSTM. */
export const MAC_PAPER: MacConfig = {
  embeddingDim: 100,
  hidden: 100,
  layers: 1,
  steps: 6,
  cellDropout: 0.2,
  decoderHidden: 200,
  dropout: 0.1,
  wordDropout: 0.1,
  pieceDropout: 0.1,
};

/** Weight names and shapes, in saving order: the encoder's, then the cell's and the decoder's. */
function weightShapes(c: MacConfig, vocabularySize: number): [string, number[]][] {
  const d = 2 * c.hidden;
  const shapes = encoderShapes(c, vocabularySize);
  shapes.push(
    ['mac/question', [2 * d, d]],
    ['mac/question/bias', [d]],
    ['mac/controlQuestion', [d, d]],
    ['mac/controlQuestion/bias', [d]],
    ['mac/control', [2 * d, d]],
    ['mac/control/bias', [d]],
    ['mac/controlAttention', [1, d]],
    ['mac/control0', [d]],
    ['mac/memory0', [d]],
    ['mac/readMemory', [d, d]],
    ['mac/readMemory/bias', [d]],
    ['mac/readKnowledge', [d, d]],
    ['mac/readKnowledge/bias', [d]],
    // W_I [I ; k] as its two halves W_a, W_b (I W_a + k W_b; its bias drops out of the softmax).
    ['mac/readInteraction', [d, d]],
    ['mac/readDirect', [d, d]],
    ['mac/readAttention', [1, d]],
    ['mac/write', [2 * d, d]],
    ['mac/write/bias', [d]],
    ...decoderShapes(3 * d, c.decoderHidden),
  );
  return shapes;
}

export interface MacForward {
  readonly logits: tf.Tensor2D;
  /** Per step: the read unit's attention over the story's tokens [B, L]. */
  readonly read: tf.Tensor2D[];
  /** Per step: the control unit's attention over the two query people [B, 2]. */
  readonly control: tf.Tensor2D[];
}

export class Mac extends TextNetBase<MacConfig, TextBatch, LstmInputs> {
  constructor(config: MacConfig, tokens: TextTokenizer, init: Seed | ReadonlyMap<string, tf.Tensor>) {
    super('MAC', config, tokens, init, weightShapes(config, tokens.size));
  }

  /** Tokenises and packs stories (see encoding.ts batchTexts). */
  batch(items: readonly TextItem[], options: TextBatchOptions = {}): TextBatch {
    return batchTexts(items, this.tokens, options);
  }

  inputs(batch: TextBatch): LstmInputs {
    return this.encoder.inputs(batch);
  }

  private cellDropout<T extends tf.Tensor>(x: T, options: ForwardOptions): T {
    const rate = this.config.cellDropout;
    if (!options.training || rate <= 0) return x;
    return tf.dropout(x, rate, undefined, options.rng?.uint32()) as T;
  }

  private dense(x: tf.Tensor2D, name: string): tf.Tensor2D {
    return tf.add(matMul(x, this.w(name)), this.w(`${name}/bias`)) as tf.Tensor2D;
  }

  /** Logits [B, 18] and each step's attention. */
  forward(x: LstmInputs, options: ForwardOptions = {}): MacForward {
    const c = this.config;
    const { size: B, maxLength: L } = x;
    const d = 2 * c.hidden;
    const states = this.encoder.encode(x, options); // [L * B, d]
    const { a, b } = this.encoder.queryStates(x, states);
    const words = tf.stack([a, b], 1); // [B, 2, d]
    const question = tf.tanh(this.dense(tf.concat([a, b], 1) as tf.Tensor2D, 'mac/question')) as tf.Tensor2D;
    const stepQuestion = this.dense(question, 'mac/controlQuestion'); // shared by every step
    // The knowledge base: k_h and k'_h = W_k k_h side by side, [L, B, 2d].
    const knowledge = this.cellDropout(states, options);
    const projected = this.dense(knowledge, 'mac/readKnowledge');
    const base = tf.reshape(tf.concat([projected, knowledge], 1), [L, B, 2 * d]);
    const padding = tf.mul(tf.sub(1, tf.transpose(tf.reshape(x.mask, [L, B]))), -1e9); // [B, L]
    const interactionT = tf.transpose(this.w('mac/readInteraction'));
    const directT = tf.transpose(this.w('mac/readDirect'));
    let control = tf.tile(tf.reshape(this.w('mac/control0'), [1, d]), [B, 1]) as tf.Tensor2D;
    let memory = tf.tile(tf.reshape(this.w('mac/memory0'), [1, d]), [B, 1]) as tf.Tensor2D;
    const read: tf.Tensor2D[] = [];
    const controls: tf.Tensor2D[] = [];
    for (let i = 0; i < c.steps; i++) {
      // Control: attention over the question words.
      const cq = this.dense(tf.concat([control, stepQuestion], 1) as tf.Tensor2D, 'mac/control');
      const ca = tf.sum(tf.mul(tf.expandDims(tf.mul(cq, this.w('mac/controlAttention')), 1), words), 2);
      const cv = tf.softmax(ca) as tf.Tensor2D; // [B, 2]
      control = tf.sum(tf.mul(tf.expandDims(cv, 2), words), 1) as tf.Tensor2D;
      // Read: attention over the knowledge base (see the header for the factored score).
      const m = this.dense(this.cellDropout(memory, options), 'mac/readMemory');
      const z = tf.mul(control, this.w('mac/readAttention')) as tf.Tensor2D;
      const u = tf.mul(m, matMul(z, interactionT));
      const v = matMul(z, directT);
      const key = tf.expandDims(tf.concat([u, v], 1), 0); // [1, B, 2d]
      const scores = tf.transpose(tf.sum(tf.mul(base, key), 2)); // [B, L]
      const rv = tf.softmax(tf.add(scores, padding)) as tf.Tensor2D;
      const r = tf.sum(tf.mul(tf.expandDims(tf.transpose(rv), 2), tf.reshape(knowledge, [L, B, d])), 0) as tf.Tensor2D;
      // Write: a linear layer on [r ; m].
      memory = this.dense(this.cellDropout(tf.concat([r, memory], 1) as tf.Tensor2D, options), 'mac/write');
      read.push(rv);
      controls.push(cv);
    }
    const features = this.encoder.dropout(tf.concat([memory, a, b], 1) as tf.Tensor2D, options);
    return { logits: decode(features, (name) => this.w(name)), read, control: controls };
  }
}

// ---------------------------------------------------------------------------------------------
// Saving and loading: public/models/mac/<version>/{model.json, weights.bin, metadata.json}

export const MAC_FORMAT = 'clutrr-lab/mac';

/** model.json: architecture, tokeniser (tokens.ts) and the weights manifest (tfjs's layout). */
export type MacModelJson = TextModelJson<typeof MAC_FORMAT, MacConfig>;

export type MacArtifacts = ModelArtifacts<MacModelJson>;

const macFormat = textNetFormat<MacConfig, Mac, MacModelJson>('mac', 'MAC', MAC_FORMAT, (c, t, i) => new Mac(c, t, i));

/** The model as model.json and weights.bin contents (named `mac` unless told). */
export const saveMac: (model: Mac, name?: string) => Promise<MacArtifacts> = macFormat.save;

/** A model from model.json and weights.bin contents; refuses another format or class list. */
export const loadMac: (modelJson: MacModelJson, weights: ArrayBuffer) => Mac = macFormat.load;

/** A loaded MAC as a ClutrrModel: each question anonymised with a seed of its own text. */
export const macAsModel: (model: Mac, name: string) => ClutrrModel = macFormat.asModel;
