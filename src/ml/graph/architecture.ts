/**
 * What every graph model of src/ml shares, whatever its architecture: the configuration saved
 * in model.json (`GatConfig`), the batch as tensors (`GatInputs`), what a forward pass gives
 * (`GatOutputs`), and the contract an architecture fulfils (`GraphArchitecture`): its weights,
 * its inputs, its forward pass, how its attention reaches the stated facts and how many
 * questions go through at once. graphNet.ts holds the model built on one of them (weights, training
 * step, saving and loading); gatPaper.ts, relationComposer.ts, pairStates.ts and pathComposer.ts
 * are the four.
 */
import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../../core/random/rng';
import { type GraphBatch, NUM_EDGE_TYPES, type StoryGraph } from '../encoding';

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
  /** Add each fact read backwards (the relation composers); see encoding.ts's edge types. */
  readonly inverseEdges: boolean;
  /**
   * `nodes` (absent: the paper's GAT, gatPaper.ts), `pairs` (the first relation composer,
   * pairStates.ts: vector states of ordered pairs of people composed through a third person)
   * or `classes` (the shipped relation composer, relationComposer.ts: each pair's state a
   * distribution over PAIR_CLASSES, composition a learned table) or `path` (pathComposer.ts:
   * the chain of facts from a to b composed step by step). With `pairs` and `classes`,
   * `rounds` 0 means "as many rounds as the longest query distance in the batch" (so a k = 10
   * story gets 10), `convs` is unused.
   */
  readonly architecture?: 'nodes' | 'pairs' | 'classes' | 'path';
  /** `pairs`: hidden size of the composition MLP. */
  readonly composeHidden?: number;
  /**
   * `pairs`, `classes`: weight of the auxiliary loss on every pair's relation as the rule base
   * derives it from the story's facts (0: the answer only).
   */
  readonly pairLoss?: number;
  /**
   * `pairs`, `classes`, training only: each batch runs up to this many rounds more than it needs
   * (drawn uniformly), so finished pairs learn to stay as they are while longer stories compose.
   */
  readonly trainExtraRounds?: number;
  /**
   * `pairs`: rescale every pair's state to unit root-mean-square after each round, so states
   * composed many times stay on the scale composition was trained on.
   */
  readonly normalizeStates?: boolean;
}

/** The batch's arrays as tensors (the caller disposes them, or runs inside tf.tidy). */
export interface GatInputs {
  readonly edges: tf.Tensor4D;
  readonly nodeMask: tf.Tensor2D;
  readonly queryA: tf.Tensor2D;
  readonly queryB: tf.Tensor2D;
  /** [B, N, dim] random identities (the paper's GAT; absent for the pair architectures). */
  readonly identities?: tf.Tensor3D;
  /** Pair architectures: [B, N, N, N], 1 where person m may join the pair (i, j): three distinct real people. */
  readonly splitMask?: tf.Tensor4D;
  /** Pair architectures: composition rounds for this batch. */
  readonly rounds?: number;
  /** `path`: the chain from a to b as one-hot edge types per step [B, L, T] (zero past its end). */
  readonly chainSteps?: tf.Tensor3D;
  /** `path`: [B, N, N], 1 at [b, to, from] for each step of the chain. */
  readonly chainEdges?: tf.Tensor3D;
}

/** The inputs every architecture has: the batch's edges, node mask and query one-hots as tensors. */
export function graphTensors(batch: GraphBatch): Pick<GatInputs, 'edges' | 'nodeMask' | 'queryA' | 'queryB'> {
  const { size: B, maxNodes: N } = batch;
  return {
    edges: tf.tensor4d(batch.edges, [B, N, N, NUM_EDGE_TYPES]),
    nodeMask: tf.tensor2d(batch.nodeMask, [B, N]),
    queryA: tf.tensor2d(batch.queryA, [B, N]),
    queryB: tf.tensor2d(batch.queryB, [B, N]),
  };
}

export interface ForwardOptions {
  /** Dropout on (training). */
  readonly training?: boolean;
  /** Seeds dropout when training. */
  readonly rng?: Rng;
}

export interface GatOutputs {
  /** [B, 18] */
  readonly logits: tf.Tensor2D;
  /**
   * The paper's GAT: each convolution's attention [B, N, N] in the last round. Pair
   * architectures: every round's attention [B, N, N, N + 1] (index 0 keep, 1 + m through m).
   */
  readonly attention: tf.Tensor[];
  /** Pair architectures, training: per round [B * N * N, NUM_PAIR_CLASSES], every ordered pair's relation (auxiliary loss). */
  readonly pairLogits?: tf.Tensor2D[];
}

/** A weight by name (the model's tf.variables). */
export type WeightOf = (name: string) => tf.Variable;

/** One architecture of graph model: what graphNet.ts's `GraphNet` asks of it. */
export interface GraphArchitecture {
  /** Weight names and shapes, in the order they are saved. */
  weightShapes(c: GatConfig): [string, number[]][];
  /** A weight's initial values (seeded), if not Glorot-uniform (`glorotValues`). */
  initialValues?(name: string, shape: number[], rng: Rng): Float32Array;
  /** Tensors for a batch; `rng` draws anything random (the paper's identity vectors). */
  inputs(c: GatConfig, batch: GraphBatch, rng: Rng): GatInputs;
  forward(c: GatConfig, w: WeightOf, x: GatInputs, options: ForwardOptions): GatOutputs;
  /**
   * One weight in [0, 1] per stated fact of graph `b` of the batch, from `explain`'s attention
   * maps (`n` the batch's padded size), for drawing on the graph's edges.
   */
  factAttention(
    c: GatConfig,
    graph: StoryGraph,
    attention: readonly Float32Array[],
    n: number,
    b: number,
  ): Float32Array;
  /** Questions per forward pass when answering these graphs (bounds the largest tensor). */
  chunk(c: GatConfig, graphs: readonly StoryGraph[]): number;
}

/** Glorot-uniform values (biases zero, `edgeEmbedding` uniform in ±1), from a seeded Rng. */
export function glorotValues(name: string, shape: number[], rng: Rng): Float32Array {
  const size = shape.reduce((a, b) => a * b, 1);
  const values = new Float32Array(size);
  if (shape.length === 1) return values;
  const limit = name === 'edgeEmbedding' ? 1 : Math.sqrt(6 / (shape[0]! + shape[1]!));
  for (let i = 0; i < size; i++) values[i] = (2 * rng.next() - 1) * limit;
  return values;
}
