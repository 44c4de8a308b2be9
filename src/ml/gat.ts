/**
 * The graph attention network of the CLUTRR paper, reimplemented from its description with tfjs
 * ops and tf.variable weights (no tfjs-layers): people are nodes with random identity vectors
 * (resampled for every story, never learned), edge types are embedded, two edge-aware attention
 * convolutions are applied for several rounds with shared weights, and a decoder reads
 * [mean of nodes ; query node a ; query node b] into the 18 answer classes.
 *
 * Attention runs on the dense padded batch of encoding.ts (matMul and softmax only), so the
 * gradients need no `gather` (whose gradient is unsortedSegmentSum, which the wasm backend
 * lacks) and training runs on wasm, cpu and WebGL alike.
 */
import * as tf from '@tensorflow/tfjs';
import { createRng, type Rng, type Seed } from '../core/random/rng';
import { batchGraphs, CLASSES, type GraphBatch, NUM_CLASSES, NUM_EDGE_TYPES, type StoryGraph } from './encoding';
import type { ClutrrModel, ModelAnswer, ModelQuestion } from './model';

export interface GatConfig {
  /** Node state size; the identity vectors have this size too (rounds share weights). */
  readonly dim: number;
  readonly edgeDim: number;
  /** Distinct convolutions, applied in turn within each round. */
  readonly convs: number;
  readonly rounds: number;
  /** Dropout rate on the input of every convolution (training only). */
  readonly dropout: number;
  readonly decoderHidden: number;
  /** Add each fact read backwards (the improved GAT); see encoding.ts's edge types. */
  readonly inverseEdges: boolean;
}

/** The paper's GAT. */
export const GAT_PAPER: GatConfig = {
  dim: 100,
  edgeDim: 20,
  convs: 2,
  rounds: 3,
  dropout: 0.6,
  decoderHidden: 300,
  inverseEdges: false,
};

/** Beyond the paper: the same network with inverse edges, so information flows both ways. */
export const GAT_IMPROVED: GatConfig = { ...GAT_PAPER, inverseEdges: true };

/** Weight names and shapes, in the order they are saved. */
function weightShapes(c: GatConfig): [string, number[]][] {
  const shapes: [string, number[]][] = [['edgeEmbedding', [NUM_EDGE_TYPES, c.edgeDim]]];
  for (let i = 0; i < c.convs; i++) {
    shapes.push(
      [`conv${i}/node`, [c.dim, c.dim]],
      [`conv${i}/edge`, [c.edgeDim, c.dim]],
      [`conv${i}/attSelf`, [c.dim, 1]],
      [`conv${i}/attNeighbour`, [c.dim, 1]],
      [`conv${i}/attEdge`, [c.edgeDim, 1]],
      [`conv${i}/bias`, [c.dim]],
    );
  }
  shapes.push(
    ['decoder/hidden', [3 * c.dim, c.decoderHidden]],
    ['decoder/hiddenBias', [c.decoderHidden]],
    ['decoder/out', [c.decoderHidden, NUM_CLASSES]],
    ['decoder/outBias', [NUM_CLASSES]],
  );
  return shapes;
}

/** Glorot-uniform values (biases zero, embeddings unit-normal-ish), from a seeded Rng. */
function initialValues(name: string, shape: number[], rng: Rng): Float32Array {
  const size = shape.reduce((a, b) => a * b, 1);
  const values = new Float32Array(size);
  if (shape.length === 1) return values;
  const limit = name === 'edgeEmbedding' ? 1 : Math.sqrt(6 / (shape[0]! + shape[1]!));
  for (let i = 0; i < size; i++) values[i] = (2 * rng.next() - 1) * limit;
  return values;
}

/** Standard-normal values from an Rng (Box–Muller), for the identity vectors. */
function normals(count: number, rng: Rng): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    const r = Math.sqrt(-2 * Math.log(1 - rng.next()));
    const t = 2 * Math.PI * rng.next();
    out[i] = r * Math.cos(t);
    if (i + 1 < count) out[i + 1] = r * Math.sin(t);
  }
  return out;
}

/** The batch's arrays as tensors (the caller disposes them, or runs inside tf.tidy). */
export interface GatInputs {
  readonly edges: tf.Tensor4D;
  readonly nodeMask: tf.Tensor2D;
  readonly queryA: tf.Tensor2D;
  readonly queryB: tf.Tensor2D;
  /** [B, N, dim] random identities. */
  readonly identities: tf.Tensor3D;
}

export interface ForwardOptions {
  /** Dropout on (training). */
  readonly training?: boolean;
  /** Seeds dropout when training. */
  readonly rng?: Rng;
}

/** tfjs variable names are global: each model instance gets its own prefix. */
let instances = 0;

export class Gat {
  readonly variables: ReadonlyMap<string, tf.Variable>;

  constructor(
    readonly config: GatConfig,
    init: Seed | ReadonlyMap<string, tf.Tensor>,
  ) {
    const rng = typeof init === 'object' ? undefined : createRng(init, 'gat-init');
    const prefix = `gat${instances++}/`;
    this.variables = new Map(
      weightShapes(config).map(([name, shape]) => {
        let value: tf.Tensor;
        if (rng) value = tf.tensor(initialValues(name, shape, rng), shape);
        else {
          const given = (init as ReadonlyMap<string, tf.Tensor>).get(name);
          if (!given) throw new Error(`GAT weights: ${name} missing`);
          if (given.shape.join() !== shape.join()) {
            throw new Error(`GAT weights: ${name} has shape [${given.shape}], expected [${shape}]`);
          }
          value = given;
        }
        const v = tf.variable(value, true, prefix + name);
        if (rng) value.dispose();
        return [name, v];
      }),
    );
  }

  private w(name: string): tf.Variable {
    return this.variables.get(name)!;
  }

  /**
   * Tensors for a batch: random identity vectors drawn from `rng` (the same rng state gives the
   * same vectors, so predictions are reproducible).
   */
  inputs(batch: GraphBatch, rng: Rng): GatInputs {
    const { size: B, maxNodes: N } = batch;
    return {
      edges: tf.tensor4d(batch.edges, [B, N, N, NUM_EDGE_TYPES]),
      nodeMask: tf.tensor2d(batch.nodeMask, [B, N]),
      queryA: tf.tensor2d(batch.queryA, [B, N]),
      queryB: tf.tensor2d(batch.queryB, [B, N]),
      identities: tf.tensor3d(normals(B * N * this.config.dim, rng), [B, N, this.config.dim]),
    };
  }

  /**
   * Logits [B, 18], and each convolution's attention [B, N, N] (row i: how much node i listened
   * to each j, over its incoming edges and itself) from the last round.
   */
  forward(x: GatInputs, options: ForwardOptions = {}): { logits: tf.Tensor2D; attention: tf.Tensor3D[] } {
    const c = this.config;
    const [B, N] = x.nodeMask.shape;
    const training = options.training === true;
    const dropRng = options.rng;
    const edgesFlat = x.edges.reshape([B * N * N, NUM_EDGE_TYPES]);
    // Per pair (i, j): -1e9 where no edge goes j → i, so softmax covers incoming edges only.
    const noEdge = tf.sub(1, tf.minimum(x.edges.sum(3), 1)).mul(-1e9);
    const edgesPerPair = x.edges.reshape([B * N, N, NUM_EDGE_TYPES]);
    const embedding = this.w('edgeEmbedding');
    let h: tf.Tensor3D = x.identities;
    let attention: tf.Tensor3D[] = [];
    for (let round = 0; round < c.rounds; round++) {
      attention = [];
      for (let k = 0; k < c.convs; k++) {
        const p = `conv${k}/`;
        let input: tf.Tensor = h;
        if (training && c.dropout > 0) input = tf.dropout(h, c.dropout, undefined, dropRng?.uint32());
        const flat = input.reshape([B * N, c.dim]) as tf.Tensor2D;
        const messages = flat.matMul(this.w(p + 'node')).reshape([B, N, c.dim]) as tf.Tensor3D;
        const scoreSelf = flat.matMul(this.w(p + 'attSelf')).reshape([B, N, 1]);
        const scoreNeighbour = flat.matMul(this.w(p + 'attNeighbour')).reshape([B, 1, N]);
        const scoreEdge = edgesFlat.matMul(embedding.matMul(this.w(p + 'attEdge'))).reshape([B, N, N]);
        const scores = tf.leakyRelu(scoreSelf.add(scoreNeighbour).add(scoreEdge), 0.2).add(noEdge);
        const alpha = tf.softmax(scores) as tf.Tensor3D;
        // Σ_j α_ij (W h_j + V e_ij): the edge part as (α-weighted edge-type counts) · E · V.
        const edgeMix = alpha
          .reshape([B * N, 1, N])
          .matMul(edgesPerPair as tf.Tensor3D)
          .reshape([B * N, NUM_EDGE_TYPES]) as tf.Tensor2D;
        const edgePart = edgeMix.matMul(embedding.matMul(this.w(p + 'edge'))).reshape([B, N, c.dim]);
        h = tf.elu(
          alpha
            .matMul(messages)
            .add(edgePart)
            .add(this.w(p + 'bias')),
        ) as tf.Tensor3D;
        attention.push(alpha);
      }
    }
    const mask = x.nodeMask.expandDims(2);
    const mean = h
      .mul(mask)
      .sum(1)
      .div(tf.maximum(x.nodeMask.sum(1, true), 1));
    const a = h.mul(x.queryA.expandDims(2)).sum(1);
    const b = h.mul(x.queryB.expandDims(2)).sum(1);
    const hidden = tf.relu(
      tf.concat([mean, a, b], 1).matMul(this.w('decoder/hidden')).add(this.w('decoder/hiddenBias')),
    );
    const logits = hidden.matMul(this.w('decoder/out')).add(this.w('decoder/outBias')) as tf.Tensor2D;
    return { logits, attention };
  }

  /** Class probabilities [B * 18] for a batch (identities from `seed`); disposes everything. */
  async predict(batch: GraphBatch, seed: Seed = 0): Promise<Float32Array> {
    const rng = createRng(seed, 'gat-identities');
    const probs = tf.tidy(() => tf.softmax(this.forward(this.inputs(batch, rng)).logits));
    try {
      return (await probs.data()) as Float32Array;
    } finally {
      probs.dispose();
    }
  }

  /**
   * Probabilities [B * 18] and, per convolution, the last round's attention [B * N * N] (row i:
   * the weight node i gave each j, summing to 1 over its incoming edges and itself), for drawing
   * on the graph's edges. Disposes everything.
   */
  async explain(batch: GraphBatch, seed: Seed = 0): Promise<{ probs: Float32Array; attention: Float32Array[] }> {
    const rng = createRng(seed, 'gat-identities');
    const outputs = tf.tidy(() => {
      const { logits, attention } = this.forward(this.inputs(batch, rng));
      return [tf.softmax(logits), ...attention];
    });
    try {
      const [probs, ...attention] = (await Promise.all(outputs.map((t) => t.data()))) as Float32Array[];
      return { probs: probs!, attention };
    } finally {
      outputs.forEach((t) => t.dispose());
    }
  }

  dispose(): void {
    for (const v of this.variables.values()) v.dispose();
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
 * One optimiser step on a batch: cross-entropy, gradients clipped to a global norm of `clip`
 * (the paper: 1.0), then the optimiser's update. Every intermediate tensor is disposed.
 */
export function trainStep(model: Gat, optimizer: tf.Optimizer, batch: GraphBatch, rng: Rng, clip = 1): TrainStep {
  const vars = [...model.variables.values()];
  let correct = 0;
  const loss = tf.tidy(() => {
    const x = model.inputs(batch, rng);
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

/** Accuracy of a model on batches: correct answers over labelled rows (identities seeded). */
export async function evaluate(
  model: Gat,
  batches: Iterable<GraphBatch>,
  seed: Seed = 0,
): Promise<{ correct: number; rows: number }> {
  let correct = 0;
  let rows = 0;
  let i = 0;
  for (const batch of batches) {
    const probs = await model.predict(batch, `${seed}/${i++}`);
    for (let b = 0; b < batch.size; b++) {
      if (batch.labels[b]! < 0) continue;
      rows++;
      const row = probs.subarray(b * NUM_CLASSES, (b + 1) * NUM_CLASSES);
      let best = 0;
      for (let c = 1; c < NUM_CLASSES; c++) if (row[c]! > row[best]!) best = c;
      if (best === batch.labels[b]) correct++;
    }
  }
  return { correct, rows };
}

// ---------------------------------------------------------------------------------------------
// Saving and loading: public/models/<model>/<version>/{model.json, weights.bin, metadata.json}

export const GAT_FORMAT = 'clutrr-lab/gat';

/** model.json: the architecture and the weights manifest (tfjs's layout, so tools can read it). */
export interface GatModelJson {
  readonly format: typeof GAT_FORMAT;
  readonly formatVersion: 1;
  /** The model's name (`gat`, `gat-improved`). */
  readonly name?: string;
  readonly config: GatConfig;
  readonly classes: readonly string[];
  readonly weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
}

export interface GatArtifacts {
  readonly modelJson: GatModelJson;
  readonly weights: ArrayBuffer;
}

/** The model as model.json and weights.bin contents. */
export async function saveGat(model: Gat, name = 'gat'): Promise<GatArtifacts> {
  const named = Object.fromEntries(model.variables);
  const { data, specs } = await tf.io.encodeWeights(named);
  return {
    modelJson: {
      format: GAT_FORMAT,
      formatVersion: 1,
      name,
      config: model.config,
      classes: [...CLASSES],
      weightsManifest: [{ paths: ['weights.bin'], weights: specs }],
    },
    weights: data,
  };
}

/** A model from model.json and weights.bin contents; refuses another format or class list. */
export function loadGat(modelJson: GatModelJson, weights: ArrayBuffer): Gat {
  if (modelJson.format !== GAT_FORMAT) throw new Error(`not a GAT model.json (format ${String(modelJson.format)})`);
  if (modelJson.classes.join() !== CLASSES.join()) throw new Error('model.json: the classes differ from encoding.ts');
  const specs = modelJson.weightsManifest.flatMap((g) => g.weights);
  const tensors = tf.io.decodeWeights(weights, specs);
  try {
    return new Gat(modelJson.config, new Map(Object.entries(tensors)));
  } finally {
    for (const t of Object.values(tensors)) t.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// As a ClutrrModel (model.ts)

/**
 * Per stated fact of `graph`, the attention the receiving person gave it: α[to, from] (and, with
 * inverse edges, α[from, to]), averaged over the convolutions of the last round.
 */
export function factAttention(
  graph: StoryGraph,
  attention: readonly Float32Array[],
  n: number,
  b = 0,
  inverse = false,
): Float32Array {
  const out = new Float32Array(graph.type.length);
  for (let e = 0; e < out.length; e++) {
    const from = graph.from[e]!;
    const to = graph.to[e]!;
    let sum = 0;
    let parts = 0;
    for (const map of attention) {
      sum += map[(b * n + to) * n + from]!;
      parts++;
      if (inverse) {
        sum += map[(b * n + from) * n + to]!;
        parts++;
      }
    }
    out[e] = parts ? sum / parts : 0;
  }
  return out;
}

/** A loaded GAT as a ClutrrModel: one batch per call, identities seeded per question position. */
export function gatAsModel(model: Gat, name: string): ClutrrModel {
  return {
    kind: 'gat',
    name,
    async answer(questions: readonly ModelQuestion[]): Promise<ModelAnswer[]> {
      if (questions.length === 0) return [];
      const graphs = questions.map((q) => q.graph);
      const batch = batchGraphs(graphs, { inverseEdges: model.config.inverseEdges });
      const { probs, attention } = await model.explain(batch);
      return graphs.map((g, b) => ({
        probs: probs.slice(b * NUM_CLASSES, (b + 1) * NUM_CLASSES),
        factAttention: factAttention(g, attention, batch.maxNodes, b, model.config.inverseEdges),
      }));
    },
    dispose: () => model.dispose(),
  };
}
