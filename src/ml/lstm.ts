/**
 * The BiLSTM of the CLUTRR paper over the story text, reimplemented from its description with
 * tfjs ops and tf.variable weights (no tfjs-layers): people are anonymised as `@ent<k>` tokens
 * (a fresh random assignment per story: nothing can be learned from which number a person
 * gets), words are embedded, two bidirectional LSTM layers read the story, and a decoder reads
 * [state of query person a ; state of query person b ; pooled story] into the 18 classes. The
 * story is pooled by the mean of the states or, the paper's best text model, by attention
 * conditioned on the two query people.
 *
 * Gather-free where gradients flow (the wasm backend lacks unsortedSegmentSum, the gradient of
 * gather): embeddings are a one-hot product in training, the query people's states are mask
 * products. For speed, each layer projects the inputs of all steps in one matMul, and both
 * directions run in one batched matMul per step (the backward one on the time-reversed
 * sequence; padding never changes a state, so padded stories need no reversing by length).
 */
import * as tf from '@tensorflow/tfjs';
import type { Rng, Seed } from '../core/random/rng';
import { batchTexts, CLASSES, NUM_CLASSES, type TextBatch, type TextBatchOptions, type TextItem } from './encoding';
import { type RowTimes, wasmRowTimes } from './backend';
import { TextTokenizer, type TokenizerJson, tokenizerProblem } from './tokens';
import type { ClutrrModel, ModelAnswer, ModelKind, ModelQuestion } from './model';
import { createVariables, loadVariables, type ModelArtifacts, type ModelJsonBase, saveVariables } from './variables';

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

/** The part of a config the encoder reads (BiLstmEncoder: embedding and bidirectional layers). */
export type EncoderConfig = Pick<LstmConfig, 'embeddingDim' | 'hidden' | 'layers' | 'dropout'>;

/**
 * The encoder's weight names and shapes, in saving order: `embedding`, then per layer l and
 * direction d `lstm<l>/<d>/{input, recurrent, bias}`. Models behind the encoder (rn.ts, mac.ts)
 * add their own after these.
 */
export function encoderShapes(c: EncoderConfig, vocabularySize: number): [string, number[]][] {
  const H = c.hidden;
  const shapes: [string, number[]][] = [['embedding', [vocabularySize, c.embeddingDim]]];
  for (let l = 0; l < c.layers; l++) {
    const inDim = l === 0 ? c.embeddingDim : 2 * H;
    for (const d of DIRECTIONS) {
      // Gate columns i, f, g, o (H each).
      shapes.push(
        [`lstm${l}/${d}/input`, [inDim, 4 * H]],
        [`lstm${l}/${d}/recurrent`, [H, 4 * H]],
        [`lstm${l}/${d}/bias`, [4 * H]],
      );
    }
  }
  return shapes;
}

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
  shapes.push(
    ['decoder/hidden', [6 * H, c.decoderHidden]],
    ['decoder/hiddenBias', [c.decoderHidden]],
    ['decoder/out', [c.decoderHidden, NUM_CLASSES]],
    ['decoder/outBias', [NUM_CLASSES]],
  );
  return shapes;
}

const DIRECTIONS = ['forward', 'backward'] as const;

/**
 * Seeded initial values by weight name: Glorot-uniform matrices (per gate for the LSTM), small
 * embeddings, forget-gate bias 1, other vectors 0. Also used for the weights of the models
 * behind the encoder (rn.ts, mac.ts).
 */
export function initialValues(name: string, shape: number[], c: Pick<LstmConfig, 'hidden'>, rng: Rng): Float32Array {
  const size = shape.reduce((a, b) => a * b, 1);
  const values = new Float32Array(size);
  if (/^lstm\d+\/\w+\/bias$/.test(name)) {
    values.fill(1, c.hidden, 2 * c.hidden); // the forget gates start open
    return values;
  }
  if (shape.length === 1) return values;
  const fanIn = shape[0]!;
  const fanOut = name.startsWith('lstm') ? shape[1]! / 4 : shape[1]!;
  const limit = name === 'embedding' ? 0.1 * Math.sqrt(3) : Math.sqrt(6 / (fanIn + fanOut));
  for (let i = 0; i < size; i++) values[i] = (2 * rng.next() - 1) * limit;
  return values;
}

/**
 * matMul with its gradients as plain products of explicit transposes: on the wasm backend a
 * product with a transposed operand (what the built-in gradient uses) or with a batch dimension
 * takes a slow path, about ten times slower.
 */
export const matMul = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  const [a, b, save] = args as [tf.Tensor2D, tf.Tensor2D, tf.GradSaveFunc];
  save([a, b]);
  return {
    value: tf.matMul(a, b),
    gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => [
      tf.matMul(dy as tf.Tensor2D, tf.transpose(saved[1]!)),
      tf.matMul(tf.transpose(saved[0]!), dy as tf.Tensor2D),
    ],
  };
}) as (a: tf.Tensor, b: tf.Tensor) => tf.Tensor2D;

/**
 * Rows `ids` of the embedding. Its gradient is each row of dy added into its token's row, read
 * and summed in plain arithmetic: gather's own gradient needs unsortedSegmentSum, which wasm
 * lacks, and the one-hot product used before ([E, B·L] × [B·L, V]) was a tenth of a training
 * step's time. Reads dy synchronously (training runs on wasm or cpu).
 */
export function embed(embedding: tf.Tensor2D, ids: tf.Tensor1D): tf.Tensor2D {
  const [V, E] = embedding.shape;
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => ({
    value: tf.gather(args[0] as tf.Tensor, ids),
    gradFunc: (dy: tf.Tensor) => {
      const rows = dy.dataSync();
      const at = ids.dataSync();
      const grad = new Float32Array(V * E);
      for (let r = 0; r < at.length; r++) {
        const to = at[r]! * E;
        const from = r * E;
        for (let e = 0; e < E; e++) grad[to + e] = grad[to + e]! + rows[from + e]!;
      }
      return tf.tensor2d(grad, [V, E]);
    },
  })) as (e: tf.Tensor2D) => tf.Tensor2D;
  return f(embedding);
}

/** A TextBatch as tensors, time-major (the caller disposes them, or runs inside tf.tidy). */
export interface LstmInputs {
  readonly size: number;
  readonly maxLength: number;
  /** [L * B] int32 token ids, row t * B + b. */
  readonly ids: tf.Tensor1D;
  /**
   * Per step s: [2, B, 1], the mask of time s (forward) and time L-1-s (backward); empty when
   * no story is padded (e.g. one question at a time), which skips the masking.
   */
  readonly stepMasks: tf.Tensor3D[];
  /** [L, B, 1]: 1 for a real token. */
  readonly mask: tf.Tensor3D;
  /** [L, B, 1]: query person a's (b's) positions, weights summing to 1. */
  readonly queryA: tf.Tensor3D;
  readonly queryB: tf.Tensor3D;
}

export interface ForwardOptions {
  /** Dropout on (training). */
  readonly training?: boolean;
  /** Seeds dropout when training. */
  readonly rng?: Rng;
}

/** [B, L] row-major → [L, B] row-major. */
function timeMajor<T extends Float32Array | Int32Array>(x: T, B: number, L: number, make: (n: number) => T): T {
  const out = make(B * L);
  for (let b = 0; b < B; b++) for (let t = 0; t < L; t++) out[t * B + b] = x[b * L + t]!;
  return out;
}

/** [4H]: 1 for the i, f and o gates' columns, 2 for g's (tanh(x) = 2σ(2x) − 1). */
function gateScale(H: number): tf.Tensor1D {
  const scale = new Float32Array(4 * H).fill(1);
  scale.fill(2, 2 * H, 3 * H);
  return tf.tensor1d(scale);
}

/**
 * The embedding and the bidirectional LSTM layers over a model's variables (named as
 * encoderShapes gives them): the encoder of `Lstm` and of the text models behind an LSTM
 * (rn.ts over sentences, mac.ts over the story). `w` looks a weight up by name.
 */
export class BiLstmEncoder {
  constructor(
    readonly config: EncoderConfig,
    private readonly w: (name: string) => tf.Variable,
  ) {}

  /** A TextBatch as time-major tensors. */
  inputs(batch: TextBatch): LstmInputs {
    const { size: B, maxLength: L } = batch;
    const f32 = (n: number) => new Float32Array(n);
    const stepMasks: tf.Tensor3D[] = [];
    const padded = batch.mask.includes(0);
    for (let s = 0; padded && s < L; s++) {
      const m = new Float32Array(2 * B);
      for (let b = 0; b < B; b++) {
        m[b] = batch.mask[b * L + s]!;
        m[B + b] = batch.mask[b * L + L - 1 - s]!;
      }
      stepMasks.push(tf.tensor3d(m, [2, B, 1]));
    }
    return {
      size: B,
      maxLength: L,
      ids: tf.tensor1d(
        timeMajor(batch.ids, B, L, (n) => new Int32Array(n)),
        'int32',
      ),
      stepMasks,
      mask: tf.tensor3d(timeMajor(batch.mask, B, L, f32), [L, B, 1]),
      queryA: tf.tensor3d(timeMajor(batch.queryA, B, L, f32), [L, B, 1]),
      queryB: tf.tensor3d(timeMajor(batch.queryB, B, L, f32), [L, B, 1]),
    };
  }

  /** Dropout at the configured rate when training (seeded by options.rng); x itself otherwise. */
  dropout<T extends tf.Tensor>(x: T, options: ForwardOptions): T {
    const rate = this.config.dropout;
    if (!options.training || rate <= 0) return x;
    return tf.dropout(x, rate, undefined, options.rng?.uint32()) as T;
  }

  /**
   * Top-layer states [L * B, 2H] (time-major rows t * B + b; forward units, then backward):
   * the embedding, then the layers, dropout before each (training).
   */
  encode(x: LstmInputs, options: ForwardOptions = {}): tf.Tensor2D {
    let states = this.dropout(embed(this.w('embedding') as tf.Tensor2D, x.ids), options);
    for (let l = 0; l < this.config.layers; l++) {
      if (l > 0) states = this.dropout(states, options);
      const input = states;
      // At inference a layer's intermediate tensors go as soon as it is done (training keeps
      // them for the gradients): a batch of 250 stories of 200 tokens would otherwise hold
      // about 2 GB, past what the wasm backend can allocate.
      states = options.training ? this.biLstm(l, input, x, true) : tf.tidy(() => this.biLstm(l, input, x, false));
    }
    return states;
  }

  /**
   * One bidirectional layer over time-major inputs [L * B, in] → [L * B, 2H] (forward states ;
   * backward states). Both directions advance together in one state [2, B, H] (direction,
   * story, unit): step s reads time s forwards and time L-1-s backwards.
   */
  private biLstm(layer: number, input: tf.Tensor2D, x: LstmInputs, training: boolean): tf.Tensor2D {
    const H = this.config.hidden;
    const { size: B, maxLength: L } = x;
    const p = `lstm${layer}/`;
    if (!training && B === 1) return this.biLstmOne(layer, input, L);
    // Every step's input projection in one product per direction, then split by step.
    const [fw, bw] = DIRECTIONS.map((d) =>
      tf.unstack(tf.reshape(tf.add(matMul(input, this.w(`${p}${d}/input`)), this.w(`${p}${d}/bias`)), [L, B, 4 * H])),
    ) as [tf.Tensor2D[], tf.Tensor2D[]];
    const [recurrentFw, recurrentBw] = DIRECTIONS.map((d) => this.w(`${p}${d}/recurrent`));
    let hFw: tf.Tensor = tf.zeros([B, H]);
    let hBw: tf.Tensor = tf.zeros([B, H]);
    let c: tf.Tensor = tf.zeros([2, B, H]);
    const outputs: tf.Tensor[] = [];
    for (let s = 0; s < L; s++) {
      const step = () => {
        const gates = tf.stack([
          tf.add(fw[s]!, matMul(hFw, recurrentFw!)),
          tf.add(bw[L - 1 - s]!, matMul(hBw, recurrentBw!)),
        ]);
        // [2, B, (gate, unit)] → 4 × [2, B, H] by gate: a transpose and contiguous pieces
        // (tf.split along an inner axis is slow on wasm).
        const [i, f, g, o] = tf.unstack(tf.transpose(tf.reshape(gates, [2, B, 4, H]), [2, 0, 1, 3]));
        const cNew = tf.add(tf.mul(tf.sigmoid(f!), c), tf.mul(tf.sigmoid(i!), tf.tanh(g!)));
        const hNew = tf.mul(tf.sigmoid(o!), tf.tanh(cNew));
        // Padding zeroes the state: the backward direction starts from zeros at the story's
        // real end; forward states past the end are never read.
        const m = x.stepMasks[s];
        const h = m ? tf.mul(hNew, m) : hNew;
        const [nextFw, nextBw] = tf.unstack(h);
        return { c: m ? tf.mul(cNew, m) : cNew, h, hFw: nextFw!, hBw: nextBw! };
      };
      // At inference each step keeps only its state (see encode).
      const next = training ? step() : tf.tidy(step);
      ({ c, hFw, hBw } = next);
      outputs.push(next.h);
    }
    // Steps → times: forward states are in time order, backward ones reversed.
    const [forward, backwardBySteps] = tf.unstack(tf.transpose(tf.stack(outputs), [1, 0, 2, 3]));
    const backward = tf.stack(tf.unstack(backwardBySteps!).reverse());
    return tf.concat([tf.reshape(forward!, [L * B, H]), tf.reshape(backward, [L * B, H])], 1) as tf.Tensor2D;
  }

  /**
   * The recurrent weights of both directions as one block-diagonal [2H, 8H] product for
   * biLstmOne: rows h_forward then h_backward, columns gate-major (i, f, g, o), each gate's
   * forward units then backward units. Kept per layer until dispose (building it every call
   * measured 30 ms a story against 23), and made again when either variable has been assigned
   * new values since (an optimizer step gives a variable a new dataId).
   */
  private readonly fused = new Map<number, { readonly from: readonly object[]; readonly w: tf.Tensor2D }>();

  private fusedRecurrent(layer: number): tf.Tensor2D {
    const p = `lstm${layer}/`;
    const forward = this.w(`${p}forward/recurrent`);
    const backward = this.w(`${p}backward/recurrent`);
    const cached = this.fused.get(layer);
    if (cached && cached.from[0] === forward.dataId && cached.from[1] === backward.dataId) return cached.w;
    cached?.w.dispose();
    const H = this.config.hidden;
    const w = tf.tidy(() => {
      const zeros = tf.zeros([H, 4, 1, H]);
      const f = tf.reshape(forward, [H, 4, 1, H]);
      const b = tf.reshape(backward, [H, 4, 1, H]);
      return tf.reshape(tf.concat([tf.concat([f, zeros], 2), tf.concat([zeros, b], 2)], 0), [2 * H, 8 * H]);
    }) as tf.Tensor2D;
    this.fused.set(layer, { from: [forward.dataId, backward.dataId], w: tf.keep(w) });
    return w;
  }

  /**
   * biLstm for one story at inference (no padding, no dropout), in fewer and larger ops: both
   * directions' steps are one [1, 2H] × [2H, 8H] product (fusedRecurrent) and one set of gate
   * activations over [2H]. The same function as biLstm (the zero blocks add exact zeros; the
   * backend may sum in another order, so results can differ in the last bits: lstm.test.ts).
   */
  private biLstmOne(layer: number, input: tf.Tensor2D, L: number): tf.Tensor2D {
    const onWasm = this.biLstmOneWasm(layer, input, L);
    if (onWasm) return onWasm;
    const H = this.config.hidden;
    const p = `lstm${layer}/`;
    const project = (d: (typeof DIRECTIONS)[number]) =>
      tf.reshape(tf.add(tf.matMul(input, this.w(`${p}${d}/input`)), this.w(`${p}${d}/bias`)), [L, 4, 1, H]);
    // Step s reads time s forwards and time L-1-s backwards: [L, (gate, direction, unit)].
    const steps = tf.unstack(
      tf.reshape(tf.concat([project('forward'), tf.reverse(project('backward'), 0)], 2), [L, 8 * H]),
    );
    const recurrent = this.fusedRecurrent(layer);
    let h: tf.Tensor = tf.zeros([1, 2 * H]);
    let c: tf.Tensor = tf.zeros([1, 2 * H]);
    const outputs: tf.Tensor[] = [];
    for (let s = 0; s < L; s++) {
      const z = tf.add(tf.matMul(h as tf.Tensor2D, recurrent), steps[s]!);
      const [i, f, g, o] = tf.unstack(tf.reshape(z, [4, 2 * H]));
      c = tf.add(tf.mul(tf.sigmoid(f!), c), tf.mul(tf.sigmoid(i!), tf.tanh(g!)));
      h = tf.mul(tf.sigmoid(o!), tf.tanh(c));
      outputs.push(h);
    }
    const bySteps = tf.reshape(tf.stack(outputs), [L, 2 * H]);
    const forward = tf.slice(bySteps, [0, 0], [L, H]);
    const backward = tf.reverse(tf.slice(bySteps, [0, H], [L, H]), 0);
    return tf.concat([forward, backward], 1) as tf.Tensor2D;
  }

  /**
   * biLstmOneWasm's recurrent weights per layer and direction, the g-gate columns doubled (see
   * there), with their product (backend.ts wasmRowTimes); made again when the variable has new
   * values (a new dataId), as `fused`.
   */
  private readonly rowTimes = new Map<
    string,
    { readonly from: object; readonly w: tf.Tensor2D; readonly times: RowTimes | null }
  >();

  private recurrentTimes(layer: number, direction: (typeof DIRECTIONS)[number]): RowTimes | null {
    const key = `lstm${layer}/${direction}/recurrent`;
    const variable = this.w(key);
    const cached = this.rowTimes.get(key);
    if (cached && cached.from === variable.dataId) return cached.times;
    cached?.times?.dispose();
    cached?.w.dispose();
    const w = tf.keep(tf.tidy(() => tf.mul(variable, gateScale(this.config.hidden)))) as tf.Tensor2D;
    const times = wasmRowTimes(w, 'sigmoid');
    this.rowTimes.set(key, { from: variable.dataId, w, times });
    return times;
  }

  /**
   * biLstmOne on wasm, where tfjs's per-op cost is most of an LSTM's time at inference (a k = 10
   * story is ~170 tokens: 2 layers × 2 directions × 170 steps of a dozen small ops each). The
   * input projections of all steps are two tfjs products; then each step is one product per
   * direction by the backend's own fused matMul kernel (wasmRowTimes, no engine), which adds
   * the step's projection and applies the sigmoid to all four gates at once, the g gate's
   * columns doubled so that tanh(g) = 2σ(2g) − 1; the cell update is plain arithmetic over H
   * numbers, states kept as float32. The same function as biLstm (lstm.test.ts compares them);
   * null off wasm.
   */
  private biLstmOneWasm(layer: number, input: tf.Tensor2D, L: number): tf.Tensor2D | null {
    const times = [this.recurrentTimes(layer, 'forward'), this.recurrentTimes(layer, 'backward')];
    if (!times[0] || !times[1]) return null;
    const H = this.config.hidden;
    const p = `lstm${layer}/`;
    const projections = DIRECTIONS.map((d) => {
      const x = tf.tidy(() =>
        tf.mul(tf.add(tf.matMul(input, this.w(`${p}${d}/input`)), this.w(`${p}${d}/bias`)), gateScale(H)),
      );
      const values = x.dataSync() as Float32Array;
      x.dispose();
      return values;
    });
    const out = new Float32Array(L * 2 * H);
    const h = [new Float32Array(H), new Float32Array(H)];
    const c = [new Float32Array(H), new Float32Array(H)];
    const z = new Float32Array(4 * H);
    for (let s = 0; s < L; s++) {
      for (let d = 0; d < 2; d++) {
        const t = d === 0 ? s : L - 1 - s;
        const hd = h[d]!;
        const cd = c[d]!;
        times[d]!(hd, projections[d]!.subarray(t * 4 * H, (t + 1) * 4 * H), z);
        for (let u = 0; u < H; u++) {
          // z holds σ(i), σ(f), σ(2g), σ(o).
          cd[u] = z[H + u]! * cd[u]! + z[u]! * (2 * z[2 * H + u]! - 1);
          hd[u] = z[3 * H + u]! * Math.tanh(cd[u]!);
          out[t * 2 * H + d * H + u] = hd[u]!;
        }
      }
    }
    return tf.tensor2d(out, [L, 2 * H]);
  }

  /** Frees the one-story paths' fused weights and buffers (the variables are the owner's). */
  dispose(): void {
    for (const { w } of this.fused.values()) w.dispose();
    this.fused.clear();
    for (const { w, times } of this.rowTimes.values()) {
      times?.dispose();
      w.dispose();
    }
    this.rowTimes.clear();
  }
}

export class Lstm {
  readonly variables: ReadonlyMap<string, tf.Variable>;
  /** Embedding and bidirectional layers over this model's variables. */
  readonly encoder: BiLstmEncoder;

  constructor(
    readonly config: LstmConfig,
    /** The tokeniser (tokens.ts); its vocabulary is the embedding's rows. */
    readonly tokens: TextTokenizer,
    init: Seed | ReadonlyMap<string, tf.Tensor>,
  ) {
    this.variables = createVariables('LSTM', weightShapes(config, tokens.size), init, (name, shape, rng) =>
      initialValues(name, shape, config, rng),
    );
    this.encoder = new BiLstmEncoder(config, (name) => this.w(name));
  }

  private w(name: string): tf.Variable {
    return this.variables.get(name)!;
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
    const H2 = 2 * c.hidden;
    const byTime = tf.reshape(states, [L, B, H2]);
    const a = tf.sum(tf.mul(x.queryA, byTime), 0);
    const b = tf.sum(tf.mul(x.queryB, byTime), 0);
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
    const hidden = tf.relu(tf.add(matMul(features, this.w('decoder/hidden')), this.w('decoder/hiddenBias')));
    const logits = tf.add(matMul(hidden as tf.Tensor2D, this.w('decoder/out')), this.w('decoder/outBias'));
    return { logits: logits as tf.Tensor2D, attention };
  }

  /** Class probabilities [B * 18] for a batch; disposes everything. */
  predict(batch: TextBatch): Promise<Float32Array> {
    return softmaxProbs(() => this.forward(this.inputs(batch)).logits);
  }

  dispose(): void {
    for (const v of this.variables.values()) v.dispose();
    this.encoder.dispose();
  }
}

/** Mean softmax cross-entropy of logits against class indices (written out: no logSoftmax kernel on wasm). */
export function crossEntropy(logits: tf.Tensor2D, labels: Int32Array): tf.Scalar {
  return tf.tidy(() => {
    const oneHot = tf.oneHot(tf.tensor1d(labels, 'int32'), NUM_CLASSES);
    const logProbs = logits.sub(tf.logSumExp(logits, 1, true));
    return oneHot.mul(logProbs).sum(1).mean().neg() as tf.Scalar;
  });
}

export interface TrainStep {
  readonly loss: number;
  /** Correct answers in the batch (training mode: with dropout). */
  readonly correct: number;
}

/**
 * What trainStep, evaluate and textModel need of a text model: `Lstm`, and the models behind
 * its encoder (rn.ts, mac.ts) with their own batch and input types.
 */
export interface TextNet<Batch extends { readonly size: number; readonly labels: Int32Array }, Inputs> {
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
 * One optimiser step on a batch: cross-entropy, gradients clipped to a global norm of `clip`
 * (the paper: 1.0), then the optimiser's update. Every intermediate tensor is disposed.
 */
export function trainStep<Batch extends { readonly size: number; readonly labels: Int32Array }, Inputs>(
  model: TextNet<Batch, Inputs>,
  optimizer: tf.Optimizer,
  batch: Batch,
  rng: Rng,
  clip = 1,
): TrainStep {
  const vars = [...model.variables.values()];
  let correct = 0;
  const loss = tf.tidy(() => {
    const x = model.inputs(batch);
    const { value, grads } = tf.variableGrads(() => {
      const { logits } = model.forward(x, { training: true, rng });
      const predicted = logits.argMax(1).dataSync();
      correct = batch.labels.reduce((n, l, i) => n + (predicted[i] === l ? 1 : 0), 0);
      return crossEntropy(logits, batch.labels);
    }, vars);
    const norm = tf.sqrt(tf.addN(Object.values(grads).map((g) => g.square().sum())));
    const scale = tf.div(clip, tf.maximum(norm, clip));
    optimizer.applyGradients(Object.fromEntries(Object.entries(grads).map(([n, g]) => [n, g.mul(scale)])));
    return value.dataSync()[0]!;
  });
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
export async function evaluate<Batch extends { readonly size: number; readonly labels: Int32Array }, Inputs>(
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

/** The model as model.json and weights.bin contents. */
export async function saveLstm(model: Lstm, name = 'lstm'): Promise<LstmArtifacts> {
  return saveTextNet(model, LSTM_FORMAT, name);
}

/** The tokeniser of a model.json: its `tokenizer`, or the word `vocabulary` of a model trained before tokens.ts. */
export function lstmTokens(modelJson: LstmModelJson): TextTokenizer {
  return readTokenizer('LSTM', modelJson.tokenizer ?? { kind: 'words', vocabulary: modelJson.vocabulary });
}

/** A model from model.json and weights.bin contents; refuses another format or class list. */
export function loadLstm(modelJson: LstmModelJson, weights: ArrayBuffer): Lstm {
  const tokens = lstmTokens(modelJson);
  return loadVariables('LSTM', LSTM_FORMAT, CLASSES, modelJson, weights, (t) => new Lstm(modelJson.config, tokens, t));
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

/** The tokeniser a model.json holds, or an error naming the model (`label`) and what is wrong. */
export function readTokenizer(label: string, json: unknown): TextTokenizer {
  const problem = tokenizerProblem(json);
  if (problem) throw new Error(`${label} model.json: tokenizer: ${problem}`);
  return new TextTokenizer(json as TokenizerJson);
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

/** A loaded LSTM as a ClutrrModel: each question anonymised with a seed of its own text. */
export function lstmAsModel(model: Lstm, name: string): ClutrrModel {
  return textModel(model, 'lstm', name);
}

/** A loaded text model as a ClutrrModel of `kind`: each question anonymised with a seed of its own text. */
export function textModel<Batch extends { readonly size: number; readonly labels: Int32Array }, Inputs>(
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
