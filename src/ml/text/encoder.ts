/**
 * The BiLSTM encoder every text model reads the story through (lstm.ts, rn.ts, mac.ts): token
 * embeddings, then bidirectional LSTM layers, over a model's own tf.variables.
 *
 * Gather-free where gradients flow (the wasm backend lacks unsortedSegmentSum, the gradient of
 * gather): the embedding's gradient is summed in plain arithmetic (`embed`), the query people's
 * states are mask products. For speed, each layer projects the inputs of all steps in one matMul, and both
 * directions run in one batched matMul per step (the backward one on the time-reversed
 * sequence; padding never changes a state, so padded stories need no reversing by length).
 */
import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../../core/random/rng';
import { type RowTimes, wasmRowTimes } from '../backend';
import type { TextBatch } from '../encoding';

/** The part of a text model's config the encoder reads. */
export interface EncoderConfig {
  readonly embeddingDim: number;
  /** Units per direction. */
  readonly hidden: number;
  /** Bidirectional layers. */
  readonly layers: number;
  /** Dropout on the embeddings and between layers (training only); the models reuse it elsewhere. */
  readonly dropout: number;
}

const DIRECTIONS = ['forward', 'backward'] as const;

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

/**
 * Seeded initial values by weight name: Glorot-uniform matrices (per gate for the LSTM), small
 * embeddings, forget-gate bias 1, other vectors 0. Also used for the weights of the models
 * behind the encoder (rn.ts, mac.ts).
 */
export function initialValues(name: string, shape: number[], c: Pick<EncoderConfig, 'hidden'>, rng: Rng): Float32Array {
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
   * The top layer's states by time [L, B, 2H] and the query people's states a, b [B, 2H]: the
   * mean of the states at each one's tokens, a mask product (no gather).
   */
  queryStates(x: LstmInputs, states: tf.Tensor2D): { byTime: tf.Tensor3D; a: tf.Tensor2D; b: tf.Tensor2D } {
    const byTime = tf.reshape(states, [x.maxLength, x.size, 2 * this.config.hidden]) as tf.Tensor3D;
    const a = tf.sum(tf.mul(x.queryA, byTime), 0) as tf.Tensor2D;
    const b = tf.sum(tf.mul(x.queryB, byTime), 0) as tf.Tensor2D;
    return { byTime, a, b };
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
    // Steps → times: forward states are in time order, backward ones reversed. The reversing is
    // done on a copy: the array tf.unstack returns is the very list of outputs its tape node
    // keeps, so reversing it in place sent each backward step's gradient to the mirrored time.
    const [forward, backwardBySteps] = tf.unstack(tf.transpose(tf.stack(outputs), [1, 0, 2, 3]));
    const backward = tf.stack([...tf.unstack(backwardBySteps!)].reverse());
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
