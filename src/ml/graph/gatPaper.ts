/**
 * The graph attention network of the CLUTRR paper (model `gat`), reimplemented from its
 * description with tfjs ops: people are nodes with random identity vectors (resampled for every
 * story, never learned), edge types are embedded, two edge-aware attention convolutions are
 * applied for several rounds with shared weights, and a decoder reads
 * [mean of nodes ; query node a ; query node b] into the 18 answer classes.
 *
 * Attention runs on the dense padded batch of encoding.ts (matMul and softmax only), so the
 * gradients need no `gather` (whose gradient is unsortedSegmentSum, which the wasm backend
 * lacks) and training runs on wasm, cpu and WebGL alike.
 */
import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../../core/random/rng';
import { type GraphBatch, NUM_CLASSES, NUM_EDGE_TYPES, type StoryGraph } from '../encoding';
import {
  type ForwardOptions,
  type GatConfig,
  type GatInputs,
  type GatOutputs,
  type GraphArchitecture,
  graphTensors,
  type WeightOf,
} from './architecture';

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

/** The paper's GAT plus inverse edges (the first improvement tried; see README). */
export const GAT_INVERSE: GatConfig = { ...GAT_PAPER, inverseEdges: true };

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

/** The paper's GAT (`architecture` `nodes` or absent). */
export const NODES: GraphArchitecture = {
  weightShapes(c) {
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
  },

  /** Random identity vectors drawn from `rng` (the same rng state gives the same vectors, so predictions are reproducible). */
  inputs(c: GatConfig, batch: GraphBatch, rng: Rng): GatInputs {
    const { size: B, maxNodes: N } = batch;
    return {
      ...graphTensors(batch),
      identities: tf.tensor3d(normals(B * N * c.dim, rng), [B, N, c.dim]),
    };
  },

  /**
   * Logits [B, 18], and each convolution's attention [B, N, N] (row i: how much node i listened
   * to each j, over its incoming edges and itself) from the last round.
   */
  forward(c: GatConfig, w: WeightOf, x: GatInputs, options: ForwardOptions): GatOutputs {
    const [B, N] = x.nodeMask.shape;
    const training = options.training === true;
    const dropRng = options.rng;
    const edgesFlat = x.edges.reshape([B * N * N, NUM_EDGE_TYPES]);
    // Per pair (i, j): -1e9 where no edge goes j → i, so softmax covers incoming edges only.
    const noEdge = tf.sub(1, tf.minimum(x.edges.sum(3), 1)).mul(-1e9);
    const edgesPerPair = x.edges.reshape([B * N, N, NUM_EDGE_TYPES]);
    const embedding = w('edgeEmbedding');
    let h: tf.Tensor3D = x.identities!;
    let attention: tf.Tensor3D[] = [];
    for (let round = 0; round < c.rounds; round++) {
      attention = [];
      for (let k = 0; k < c.convs; k++) {
        const p = `conv${k}/`;
        let input: tf.Tensor = h;
        if (training && c.dropout > 0) input = tf.dropout(h, c.dropout, undefined, dropRng?.uint32());
        const flat = input.reshape([B * N, c.dim]) as tf.Tensor2D;
        const messages = flat.matMul(w(p + 'node')).reshape([B, N, c.dim]) as tf.Tensor3D;
        const scoreSelf = flat.matMul(w(p + 'attSelf')).reshape([B, N, 1]);
        const scoreNeighbour = flat.matMul(w(p + 'attNeighbour')).reshape([B, 1, N]);
        const scoreEdge = edgesFlat.matMul(embedding.matMul(w(p + 'attEdge'))).reshape([B, N, N]);
        const scores = tf.leakyRelu(scoreSelf.add(scoreNeighbour).add(scoreEdge), 0.2).add(noEdge);
        const alpha = tf.softmax(scores) as tf.Tensor3D;
        // Σ_j α_ij (W h_j + V e_ij): the edge part as (α-weighted edge-type counts) · E · V.
        const edgeMix = alpha
          .reshape([B * N, 1, N])
          .matMul(edgesPerPair as tf.Tensor3D)
          .reshape([B * N, NUM_EDGE_TYPES]) as tf.Tensor2D;
        const edgePart = edgeMix.matMul(embedding.matMul(w(p + 'edge'))).reshape([B, N, c.dim]);
        h = tf.elu(
          alpha
            .matMul(messages)
            .add(edgePart)
            .add(w(p + 'bias')),
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
    const hidden = tf.relu(tf.concat([mean, a, b], 1).matMul(w('decoder/hidden')).add(w('decoder/hiddenBias')));
    const logits = hidden.matMul(w('decoder/out')).add(w('decoder/outBias')) as tf.Tensor2D;
    return { logits, attention };
  },

  factAttention: (c, graph, attention, n, b) => factAttention(graph, attention, n, b, c.inverseEdges),

  /** The whole call in one batch (its tensors are [B, N, N, *], small). */
  chunk: (_c, graphs) => Math.max(1, graphs.length),
};
