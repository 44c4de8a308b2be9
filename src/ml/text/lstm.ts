/**
 * The BiLSTM of the CLUTRR paper over the story text, reimplemented from its description with
 * tfjs ops and tf.variable weights (no tfjs-layers): people are anonymised as `@ent<k>` tokens
 * (a fresh random assignment per story: nothing can be learned from which number a person
 * gets), words are embedded, two bidirectional LSTM layers read the story (encoder.ts), and a
 * decoder (decoder.ts) reads [state of query person a ; state of query person b ; pooled story]
 * into the 18 classes. The story is pooled by the mean of the states or, the paper's best text
 * model, by attention conditioned on the two query people.
 */
import * as tf from '@tensorflow/tfjs';
import type { Rng, Seed } from '../../core/random/rng';
import { batchTexts, type TextBatch, type TextItem } from '../encoding';
import type { ClutrrModel } from '../model';
import type { ModelArtifacts, ModelJsonBase } from '../variables';
import { decode, decoderShapes } from './decoder';
import { encoderShapes, type ForwardOptions, type LstmInputs, matMul } from './encoder';
import { readTokenizer, TextNetBase, textNetFormat } from './textNet';
import type { TextTokenizer, TokenizerJson } from './tokens';

export type Pooling = 'mean' | 'attention';

export interface LstmConfig {
  readonly embeddingDim: number;
  /** Units per direction. */
  readonly hidden: number;
  readonly layers: number;
  readonly pooling: Pooling;
  /** Size of the attention scorer's hidden layer (attention pooling). */
  readonly attentionDim: number;
  readonly decoderHidden: number;
  /** Dropout on the embeddings, between layers and before the decoder (training only). */
  readonly dropout: number;
  /** Training only: each word becomes `<unk>` with this probability (stories with unseen words). */
  readonly wordDropout: number;
  /**
   * Training only: each word is split into word pieces, though known, with this probability
   * (tokens.ts: unseen words come as pieces). Absent in models trained before tokens.ts.
   */
  readonly pieceDropout?: number;
}

/** The paper's BiLSTM with attention pooling (its best text model). */
export const LSTM_PAPER: LstmConfig = {
  embeddingDim: 100,
  hidden: 100,
  layers: 2,
  pooling: 'attention',
  attentionDim: 100,
  decoderHidden: 200,
  dropout: 0.1,
  wordDropout: 0.15,
  pieceDropout: 0.15,
};

/** The same network with mean pooling. */
export const LSTM_MEAN: LstmConfig = { ...LSTM_PAPER, pooling: 'mean' };

/** Weight names and shapes, in the order they are saved. */
function weightShapes(c: LstmConfig, vocabularySize: number): [string, number[]][] {
  const H = c.hidden;
  const shapes = encoderShapes(c, vocabularySize);
  if (c.pooling === 'attention') {
    shapes.push(
      ['attention/state', [2 * H, c.attentionDim]],
      ['attention/query', [4 * H, c.attentionDim]],
      ['attention/score', [c.attentionDim, 1]],
    );
  }
  shapes.push(...decoderShapes(6 * H, c.decoderHidden));
  return shapes;
}

export class Lstm extends TextNetBase<LstmConfig, TextBatch, LstmInputs> {
  constructor(config: LstmConfig, tokens: TextTokenizer, init: Seed | ReadonlyMap<string, tf.Tensor>) {
    super('LSTM', config, tokens, init, weightShapes(config, tokens.size));
  }

  /** Tokenises and packs stories with this model's tokens (see encoding.ts batchTexts). */
  batch(
    items: readonly TextItem[],
    options: { wordDropout?: number; pieceDropout?: number; rng?: Rng } = {},
  ): TextBatch {
    return batchTexts(items, this.tokens, options);
  }

  inputs(batch: TextBatch): LstmInputs {
    return this.encoder.inputs(batch);
  }

  /** Logits [B, 18] and, with attention pooling, the attention over tokens [B, L]. */
  forward(x: LstmInputs, options: ForwardOptions = {}): { logits: tf.Tensor2D; attention?: tf.Tensor2D } {
    const c = this.config;
    const { size: B, maxLength: L } = x;
    const states = this.encoder.encode(x, options);
    const { byTime, a, b } = this.encoder.queryStates(x, states);
    let weights: tf.Tensor;
    let attention: tf.Tensor2D | undefined;
    if (c.pooling === 'attention') {
      const query = matMul(tf.concat([a, b], 1) as tf.Tensor2D, this.w('attention/query'));
      const keys = tf.reshape(matMul(states, this.w('attention/state')), [L, B, c.attentionDim]);
      const hidden = tf.reshape(tf.tanh(tf.add(keys, query)), [L * B, c.attentionDim]) as tf.Tensor2D;
      const scores = tf.reshape(matMul(hidden, this.w('attention/score')), [L, B]);
      const masked = tf.add(scores, tf.mul(tf.sub(1, tf.reshape(x.mask, [L, B])), -1e9));
      attention = tf.softmax(tf.transpose(masked)) as tf.Tensor2D;
      weights = tf.expandDims(tf.transpose(attention), 2);
    } else {
      weights = tf.div(x.mask, tf.maximum(tf.sum(x.mask, 0, true), 1));
    }
    const pooled = tf.sum(tf.mul(weights, byTime), 0);
    const features = this.encoder.dropout(tf.concat([a, b, pooled], 1) as tf.Tensor2D, options);
    return { logits: decode(features, (name) => this.w(name)), attention };
  }
}

// ---------------------------------------------------------------------------------------------
// Saving and loading: public/models/<model>/<version>/{model.json, weights.bin, metadata.json}

export const LSTM_FORMAT = 'clutrr-lab/lstm';

/**
 * model.json: architecture, tokeniser and the weights manifest (tfjs's layout). Models trained
 * before tokens.ts have a word `vocabulary` instead of `tokenizer` (read as its `words` kind).
 */
export interface LstmModelJson extends ModelJsonBase {
  readonly format: typeof LSTM_FORMAT;
  readonly config: LstmConfig;
  readonly tokenizer?: TokenizerJson;
  readonly vocabulary?: readonly string[];
}

export type LstmArtifacts = ModelArtifacts<LstmModelJson>;

/** The tokeniser of a model.json: its `tokenizer`, or the word `vocabulary` of a model trained before tokens.ts. */
export function lstmTokens(modelJson: LstmModelJson): TextTokenizer {
  return readTokenizer('LSTM', modelJson.tokenizer ?? { kind: 'words', vocabulary: modelJson.vocabulary });
}

const lstmFormat = textNetFormat<LstmConfig, Lstm, LstmModelJson>(
  'lstm',
  'LSTM',
  LSTM_FORMAT,
  (c, t, i) => new Lstm(c, t, i),
  lstmTokens,
);

/** The model as model.json and weights.bin contents (named `lstm` unless told). */
export const saveLstm: (model: Lstm, name?: string) => Promise<LstmArtifacts> = lstmFormat.save;

/** A model from model.json and weights.bin contents; refuses another format or class list. */
export const loadLstm: (modelJson: LstmModelJson, weights: ArrayBuffer) => Lstm = lstmFormat.load;

/** A loaded LSTM as a ClutrrModel: each question anonymised with a seed of its own text. */
export const lstmAsModel: (model: Lstm, name: string) => ClutrrModel = lstmFormat.asModel;
