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
import { INVERSE_CODE, PRED_CODE, predicateOf, wordFor } from '../core/kinship/relations';
import type { PuzzleRecord } from '../core/puzzle/puzzle';
import { createRng, type Rng, type Seed } from '../core/random/rng';
import { bit, composeMasks } from '../core/reasoning/solver';
import { batchGraphs, CLASSES, type GraphBatch, NUM_CLASSES, NUM_EDGE_TYPES, type StoryGraph } from './encoding';
import type { ClutrrModel, ModelAnswer, ModelQuestion } from './model';
import { createVariables, loadVariables, type ModelArtifacts, type ModelJsonBase, saveVariables } from './variables';

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
  /**
   * `nodes` (absent: the paper's GAT) or `pairs`: the improved GAT, whose states are the
   * relations of ordered pairs of people, composed through a third person with attention over
   * who that person is (see forwardPairs). With `pairs`, `rounds` 0 means "as many rounds as
   * the longest query distance in the batch" (so a k = 10 story gets 10), `convs` is unused.
   * `classes`: the same pairs and rounds, but each pair's state is a probability distribution
   * over PAIR_CLASSES and composition is a learned table (see forwardClasses).
   */
  readonly architecture?: 'nodes' | 'pairs' | 'classes';
  /** `pairs`: hidden size of the composition MLP. */
  readonly composeHidden?: number;
  /**
   * `pairs`: weight of the auxiliary loss on every pair's relation as the rule base derives it
   * from the story's facts (0: the answer only).
   */
  readonly pairLoss?: number;
  /**
   * `pairs`, training only: each batch runs up to this many rounds more than it needs (drawn
   * uniformly), so finished pairs learn to stay as they are while longer stories compose.
   */
  readonly trainExtraRounds?: number;
  /**
   * `pairs`: rescale every pair's state to unit root-mean-square after each round, so states
   * composed many times stay on the scale composition was trained on.
   */
  readonly normalizeStates?: boolean;
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

/** The paper's GAT plus inverse edges (the first improvement tried; see README). */
export const GAT_INVERSE: GatConfig = { ...GAT_PAPER, inverseEdges: true };

/**
 * Beyond the paper, first design (shipped as `gat-improved` until 2026-11-26, commit 3234ec2):
 * vector pair states composed through a third person by an MLP, inverse edges, rounds adapted
 * to the story, and the auxiliary pair-relation loss (see forwardPairs). Trained as `gat-pairs`;
 * it drifts on long compositions (src/ml/README.md).
 */
export const GAT_PAIRS: GatConfig = {
  dim: 32,
  edgeDim: 32,
  convs: 1,
  rounds: 0,
  dropout: 0,
  decoderHidden: 300,
  inverseEdges: true,
  architecture: 'pairs',
  composeHidden: 64,
  pairLoss: 1,
  trainExtraRounds: 4,
  normalizeStates: true,
};

/**
 * Beyond the paper, the shipped `gat-improved`: the pairs, rounds, inverse edges and auxiliary
 * loss of GAT_PAIRS, with states that are class distributions and a learned composition table
 * (see forwardClasses).
 */
export const GAT_IMPROVED: GatConfig = {
  dim: 0, // unused by `classes` (as are edgeDim, convs, dropout, decoderHidden)
  edgeDim: 0,
  convs: 1,
  rounds: 0,
  dropout: 0,
  decoderHidden: 0,
  inverseEdges: true,
  architecture: 'classes',
  pairLoss: 1,
  trainExtraRounds: 4,
};

/** Pair states composed through a third person (`pairs` or `classes`). */
export const isPairs = (c: GatConfig): boolean => c.architecture === 'pairs' || c.architecture === 'classes';
const isClasses = (c: GatConfig): boolean => c.architecture === 'classes';

/**
 * `classes`: the table's initial lean towards `none` (a logit added to every entry's `none` at
 * initialisation), so a pair of relations training never composes yields "no relation" rather
 * than a guess.
 */
const TABLE_NONE_PRIOR = 5;

/** Weight names and shapes, in the order they are saved. */
function weightShapes(c: GatConfig): [string, number[]][] {
  if (isClasses(c)) {
    return [
      ['edgeClasses', [NUM_EDGE_TYPES - 1, NUM_PAIR_CLASSES]],
      ['compose/table', [NUM_PAIR_CLASSES * NUM_PAIR_CLASSES, NUM_PAIR_CLASSES]],
      ['attention/sharpness', [1]],
    ];
  }
  if (isPairs(c)) {
    const h = c.composeHidden ?? 128;
    return [
      ['edgeEmbedding', [NUM_EDGE_TYPES, c.dim]],
      ['compose/left', [c.dim, h]],
      ['compose/right', [c.dim, h]],
      ['compose/hiddenBias', [h]],
      ['compose/out', [h, c.dim]],
      ['compose/outBias', [c.dim]],
      ['attention/via', [c.dim, 1]],
      ['attention/keep', [c.dim, 1]],
      ['decoder/hidden', [c.dim, c.decoderHidden]],
      ['decoder/hiddenBias', [c.decoderHidden]],
      ['decoder/out', [c.decoderHidden, NUM_PAIR_CLASSES]],
      ['decoder/outBias', [NUM_PAIR_CLASSES]],
    ];
  }
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
  if (name === 'compose/table')
    for (let i = NONE_CLASS; i < size; i += NUM_PAIR_CLASSES) values[i]! += TABLE_NONE_PRIOR;
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

/**
 * Classes of the `pairs` decoder: the 18 answer classes, then `husband`, `wife` (a pair may be
 * spouses, though a query never is) and `none` (the rule base derives nothing for the pair).
 * The answer reads the first 18 only.
 */
export const PAIR_CLASSES = [...CLASSES, 'husband', 'wife', 'none'] as const;
export const NUM_PAIR_CLASSES = PAIR_CLASSES.length;
const NONE_CLASS = NUM_PAIR_CLASSES - 1;

/** [B, N, N, N]: 1 where i, j, m are three distinct real people of the story. */
export function splitMask(batch: GraphBatch): Float32Array {
  const { size: B, maxNodes: N, nodeMask } = batch;
  const out = new Float32Array(B * N * N * N);
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < N; i++) {
      if (!nodeMask[b * N + i]) continue;
      for (let j = 0; j < N; j++) {
        if (j === i || !nodeMask[b * N + j]) continue;
        const at = ((b * N + i) * N + j) * N;
        for (let m = 0; m < N; m++) if (m !== i && m !== j && nodeMask[b * N + m]) out[at + m] = 1;
      }
    }
  }
  return out;
}

/**
 * Rounds for a `pairs` batch: the longest distance from a to b (in facts, the story graph read
 * undirected) over the batch, at least 1. Read from the batch's edges, so a CSV row needs nothing more.
 */
export function batchRounds(batch: GraphBatch): number {
  const { size: B, maxNodes: N, edges, queryA, queryB } = batch;
  const T = NUM_EDGE_TYPES;
  let rounds = 1;
  for (let b = 0; b < B; b++) {
    const linked = (i: number, j: number) => {
      for (let t = 1; t < T; t++)
        if (edges[((b * N + i) * N + j) * T + t] || edges[((b * N + j) * N + i) * T + t]) return true;
      return false;
    };
    let a = 0;
    let target = 0;
    for (let i = 0; i < N; i++) {
      if (queryA[b * N + i]) a = i;
      if (queryB[b * N + i]) target = i;
    }
    const dist = new Int32Array(N).fill(-1);
    dist[a] = 0;
    const queue = [a];
    for (let q = 0; q < queue.length; q++) {
      const v = queue[q]!;
      for (let u = 0; u < N; u++) {
        if (dist[u]! < 0 && linked(v, u)) {
          dist[u] = dist[v]! + 1;
          queue.push(u);
        }
      }
    }
    rounds = Math.max(rounds, dist[target]!);
  }
  return rounds;
}

/**
 * The auxiliary targets of the improved GAT, from the puzzle with core's rule base (the
 * composition table of src/core/kinship/rules.ts, as the solver uses it): what a reader knows
 * about every ordered pair (x, y) of distinct people after each round of composing through a
 * third person, starting from the stated facts (read both ways). Round r's array [n * n], row x:
 * the class of "y is x's ?" when exactly one predicate is known (its word by y's gender),
 * `none` when none is (yet), -1 (not scored) when several are. One array per round 1..rounds.
 */
export function pairLabelsFromPuzzle(puzzle: PuzzleRecord, rounds: number): Int32Array[] {
  const n = puzzle.entities.length;
  let known = new Uint16Array(n * n);
  for (const f of puzzle.facts) {
    const code = PRED_CODE[f.predicate];
    known[f.from * n + f.to]! |= bit(code);
    known[f.to * n + f.from]! |= bit(INVERSE_CODE[code]!);
  }
  const out: Int32Array[] = [];
  for (let r = 0; r < rounds; r++) {
    const next = known.slice();
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        if (i === j) continue;
        let m = next[i * n + j]!;
        for (let v = 0; v < n; v++) {
          if (v !== i && v !== j) m |= composeMasks(known[i * n + v]!, known[v * n + j]!);
        }
        next[i * n + j] = m;
      }
    }
    known = next;
    const labels = new Int32Array(n * n).fill(-1);
    for (let x = 0; x < n; x++) {
      for (let y = 0; y < n; y++) {
        if (x === y) continue;
        const mask = known[x * n + y]!;
        if (mask === 0) labels[x * n + y] = NONE_CLASS;
        else if ((mask & (mask - 1)) === 0) {
          const word = wordFor(predicateOf(Math.log2(mask) + 1), puzzle.entities[y]!.gender);
          labels[x * n + y] = PAIR_CLASSES.indexOf(word as (typeof PAIR_CLASSES)[number]);
        }
      }
    }
    out.push(labels);
  }
  return out;
}

/** Per-graph, per-round pair labels ([n * n] each) padded into [B * N * N] per round (-1 elsewhere). */
export function batchPairLabels(labels: readonly (readonly Int32Array[])[], N: number): Int32Array[] {
  const rounds = labels[0]?.length ?? 0;
  return Array.from({ length: rounds }, (_, r) => {
    const out = new Int32Array(labels.length * N * N).fill(-1);
    labels.forEach((perRound, b) => {
      const l = perRound[r]!;
      const n = Math.round(Math.sqrt(l.length));
      for (let x = 0; x < n; x++) for (let y = 0; y < n; y++) out[(b * N + x) * N + y] = l[x * n + y]!;
    });
    return out;
  });
}

/** The batch's arrays as tensors (the caller disposes them, or runs inside tf.tidy). */
export interface GatInputs {
  readonly edges: tf.Tensor4D;
  readonly nodeMask: tf.Tensor2D;
  readonly queryA: tf.Tensor2D;
  readonly queryB: tf.Tensor2D;
  /** [B, N, dim] random identities (the paper's GAT; absent for `pairs`). */
  readonly identities?: tf.Tensor3D;
  /** `pairs`: [B, N, N, N], 1 where person m may join the pair (i, j): three distinct real people. */
  readonly splitMask?: tf.Tensor4D;
  /** `pairs`: composition rounds for this batch. */
  readonly rounds?: number;
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
   * The paper's GAT: each convolution's attention [B, N, N] in the last round. `pairs`: every
   * round's attention [B, N, N, N + 1] (see forwardPairs).
   */
  readonly attention: tf.Tensor[];
  /** `pairs`, training: per round [B * N * N, NUM_PAIR_CLASSES], every ordered pair's relation (auxiliary loss). */
  readonly pairLogits?: tf.Tensor2D[];
}

/** The query pair's state S[b, a, b] [B, d] of pair states [B, N, N, d]: Σ_ij qa_i qb_j S_ij, as two batched matMuls (no gather). */
function queryPair(x: GatInputs, S: tf.Tensor4D): tf.Tensor2D {
  const [B, N, , d] = S.shape;
  const rowA = x.queryA
    .reshape([B, 1, N])
    .matMul(S.reshape([B, N, N * d]))
    .reshape([B, N, d]);
  return x.queryB
    .reshape([B, 1, N])
    .matMul(rowA as tf.Tensor3D)
    .reshape([B, d]) as tf.Tensor2D;
}

export class Gat {
  readonly variables: ReadonlyMap<string, tf.Variable>;

  constructor(
    readonly config: GatConfig,
    init: Seed | ReadonlyMap<string, tf.Tensor>,
  ) {
    this.variables = createVariables('GAT', weightShapes(config), init, (name, shape, rng) =>
      initialValues(name, shape, rng),
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
    if (isPairs(this.config)) {
      return {
        edges: tf.tensor4d(batch.edges, [B, N, N, NUM_EDGE_TYPES]),
        nodeMask: tf.tensor2d(batch.nodeMask, [B, N]),
        queryA: tf.tensor2d(batch.queryA, [B, N]),
        queryB: tf.tensor2d(batch.queryB, [B, N]),
        splitMask: tf.tensor4d(splitMask(batch), [B, N, N, N]),
        rounds: this.config.rounds > 0 ? this.config.rounds : batchRounds(batch),
      };
    }
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
  forward(x: GatInputs, options: ForwardOptions = {}): GatOutputs {
    if (isClasses(this.config)) return this.forwardClasses(x, options.training === true);
    if (isPairs(this.config)) return this.forwardPairs(x, options.training === true);
    const c = this.config;
    const [B, N] = x.nodeMask.shape;
    const training = options.training === true;
    const dropRng = options.rng;
    const edgesFlat = x.edges.reshape([B * N * N, NUM_EDGE_TYPES]);
    // Per pair (i, j): -1e9 where no edge goes j → i, so softmax covers incoming edges only.
    const noEdge = tf.sub(1, tf.minimum(x.edges.sum(3), 1)).mul(-1e9);
    const edgesPerPair = x.edges.reshape([B * N, N, NUM_EDGE_TYPES]);
    const embedding = this.w('edgeEmbedding');
    let h: tf.Tensor3D = x.identities!;
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

  /**
   * The improved GAT (`pairs`). State S[b, x, y] (dim) is "what y is to x": first the stated
   * fact's edge embedding (forward or inverse; zero for unrelated pairs). Each round, every pair
   * (i, j) attends over its current state ("keep") and one candidate per third person m,
   * compose(S[i, m], S[m, j]) = MLP([S_im ; S_jm-side]): softmax over the candidates, and the new
   * state is their weighted sum. A relation k facts long is composed after at most k - 1 rounds
   * whatever the bracketing; `rounds` 0 runs the batch's longest query distance. The decoder
   * reads S[a, b] (all pairs for the auxiliary loss). Attention: per round [B, N, N, N + 1]
   * (index 0 keep, 1 + m through m).
   */
  private forwardPairs(x: GatInputs, training: boolean): GatOutputs {
    const c = this.config;
    const [B, N] = x.nodeMask.shape;
    const d = c.dim;
    const h = c.composeHidden ?? 128;
    const P = B * N * N;
    // S0[b, x, y] = Σ_t edges[b, y, x, t] E[t] (edges[b, i, j] counts facts j → i).
    let S = x.edges
      .transpose([0, 2, 1, 3])
      .reshape([P, NUM_EDGE_TYPES])
      .matMul(this.w('edgeEmbedding'))
      .reshape([B, N, N, d]) as tf.Tensor4D;
    const decode = (states: tf.Tensor2D) =>
      tf
        .relu(states.matMul(this.w('decoder/hidden')).add(this.w('decoder/hiddenBias')))
        .matMul(this.w('decoder/out'))
        .add(this.w('decoder/outBias')) as tf.Tensor2D;
    const notSplit = tf.sub(1, x.splitMask!).mul(-1e9);
    const attention: tf.Tensor[] = [];
    const pairLogits: tf.Tensor2D[] = [];
    for (let round = 0; round < (x.rounds ?? 1); round++) {
      const flat = S.reshape([P, d]) as tf.Tensor2D;
      // left[b, i, ·, m] = S[b, i, m] Wl ; right[b, ·, j, m] = S[b, m, j] Wr
      const left = flat.matMul(this.w('compose/left')).add(this.w('compose/hiddenBias')).reshape([B, N, 1, N, h]);
      const right = flat
        .matMul(this.w('compose/right'))
        .reshape([B, N, N, h])
        .transpose([0, 2, 1, 3])
        .reshape([B, 1, N, N, h]);
      const hidden = tf.relu(left.add(right));
      const via = hidden
        .reshape([P * N, h])
        .matMul(this.w('compose/out'))
        .add(this.w('compose/outBias')) as tf.Tensor2D; // [(b, i, j, m), d]
      const scoreVia = via.matMul(this.w('attention/via')).reshape([B, N, N, N]).add(notSplit);
      const scoreKeep = flat.matMul(this.w('attention/keep')).reshape([B, N, N, 1]);
      const alpha = tf.softmax(tf.concat([scoreKeep, scoreVia], 3)) as tf.Tensor4D;
      const keep = alpha.slice([0, 0, 0, 0], [B, N, N, 1]);
      const mixed = alpha
        .slice([0, 0, 0, 1], [B, N, N, N])
        .reshape([P, 1, N])
        .matMul(via.reshape([P, N, d]))
        .reshape([B, N, N, d]);
      S = S.mul(keep).add(mixed) as tf.Tensor4D;
      if (c.normalizeStates) S = S.div(tf.sqrt(S.square().mean(3, true).add(1e-6))) as tf.Tensor4D;
      if (training) pairLogits.push(decode(S.reshape([P, d]) as tf.Tensor2D));
      attention.push(alpha);
    }
    const logits = decode(queryPair(x, S)).slice([0, 0], [B, NUM_CLASSES]) as tf.Tensor2D;
    return { logits, attention, ...(training ? { pairLogits } : {}) };
  }

  /**
   * The improved GAT (`classes`). The same pairs, rounds and attention over who joins a pair as
   * forwardPairs, but every pair's state S[b, x, y] is a probability distribution over
   * PAIR_CLASSES ("what y is to x", `none` for nothing known), so a state composed ten times
   * lives where a state composed once does:
   * - start: a stated fact's distribution, softmax(edgeClasses[type]) (averaged when a pair has
   *   several); `none` for every other pair;
   * - compose(S[i, m], S[m, j])[o] = Σ_{c1, c2} S[i, m, c1] S[m, j, c2] T[c1, c2, o], with T a
   *   learned table (softmax over o of `compose/table`), leaning to `none` at initialisation;
   * - each round every pair attends over keeping its state and each candidate through a third
   *   person m, with score β · log(1 - P(none)) (β = exp(`attention/sharpness`)): a candidate
   *   that says something outweighs one that knows nothing. The new state is the weighted sum.
   * The answer is S[a, b] over the 18 answer classes (logits = log-probabilities).
   */
  private forwardClasses(x: GatInputs, training: boolean): GatOutputs {
    const [B, N] = x.nodeMask.shape;
    const C = NUM_PAIR_CLASSES;
    const T = NUM_EDGE_TYPES;
    const P = B * N * N;
    const eps = 1e-6;
    // Stated facts per pair: counts [P, T - 1] of each word (forward 1..20, inverse 21..40).
    const facts = x.edges
      .transpose([0, 2, 1, 3])
      .reshape([P, T])
      .slice([0, 1], [P, T - 1]) as tf.Tensor2D;
    const count = facts.sum(1, true);
    const stated = facts.matMul(tf.softmax(this.w('edgeClasses'))).div(tf.maximum(count, 1));
    const none = tf.oneHot(tf.tensor1d([NONE_CLASS], 'int32'), C);
    let S = stated.add(tf.sub(1, tf.minimum(count, 1)).mul(none)).reshape([B, N, N, C]) as tf.Tensor4D;
    // T as [c2, (c1, o)].
    const table = tf
      .softmax(this.w('compose/table'))
      .reshape([C, C, C])
      .transpose([1, 0, 2])
      .reshape([C, C * C]) as tf.Tensor2D;
    const beta = tf.exp(this.w('attention/sharpness'));
    const notSplit = tf.sub(1, x.splitMask!).mul(-1e9);
    const saying = (states: tf.Tensor) => tf.log(tf.sub(1, states).add(eps));
    const attention: tf.Tensor[] = [];
    const pairLogits: tf.Tensor2D[] = [];
    for (let round = 0; round < (x.rounds ?? 1); round++) {
      const flat = S.reshape([P, C]) as tf.Tensor2D;
      // V[b, m, j, c1, o] = Σ_c2 S[b, m, j, c2] T[c1, c2, o], as [(b, m), c1, (j, o)].
      const v = flat
        .matMul(table)
        .reshape([B * N, N, C, C])
        .transpose([0, 2, 1, 3])
        .reshape([B * N, C, N * C]) as tf.Tensor3D;
      // S[b, i, m, c1] as [(b, m), i, c1]; via[(b, m), i, (j, o)] = Σ_c1 S[b, i, m, c1] V[b, m, j, c1, o].
      const left = S.transpose([0, 2, 1, 3]).reshape([B * N, N, C]) as tf.Tensor3D;
      const via = left.matMul(v).reshape([B, N, N * N, C]); // [b, m, (i, j), o]
      // Scores from each candidate's P(none), laid out [b, i, j, m] like the attention.
      const viaNone = via
        .slice([0, 0, 0, NONE_CLASS], [B, N, N * N, 1])
        .reshape([B, N, N, N])
        .transpose([0, 2, 3, 1]);
      const scoreVia = saying(viaNone).mul(beta).add(notSplit);
      const scoreKeep = saying(S.slice([0, 0, 0, NONE_CLASS], [B, N, N, 1])).mul(beta);
      const alpha = tf.softmax(tf.concat([scoreKeep, scoreVia], 3)) as tf.Tensor4D;
      const keep = alpha.slice([0, 0, 0, 0], [B, N, N, 1]);
      const mixed = alpha
        .slice([0, 0, 0, 1], [B, N, N, N])
        .transpose([0, 3, 1, 2])
        .reshape([B, N, N * N, 1])
        .mul(via)
        .sum(1)
        .reshape([B, N, N, C]);
      S = S.mul(keep).add(mixed) as tf.Tensor4D;
      if (training) pairLogits.push(tf.log(S.reshape([P, C]).add(eps)) as tf.Tensor2D);
      attention.push(alpha);
    }
    const logits = tf.log(queryPair(x, S).slice([0, 0], [B, NUM_CLASSES]).add(eps)) as tf.Tensor2D;
    return { logits, attention, ...(training ? { pairLogits } : {}) };
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
   * on the graph's edges. `pairs`: every round's attention [B * N * N * (N + 1)] instead (see
   * forwardPairs, pairFactAttention). Disposes everything.
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

/** Mean cross-entropy over the rows whose label is ≥ 0 (-1: not scored); 0 when there are none. */
export function maskedCrossEntropy(logits: tf.Tensor2D, labels: Int32Array): tf.Scalar {
  return tf.tidy(() => {
    const classes = logits.shape[1];
    const scored = Float32Array.from(labels, (l) => (l >= 0 ? 1 : 0));
    const count = scored.reduce((a, b) => a + b, 0);
    const oneHot = tf.oneHot(
      tf.tensor1d(
        Int32Array.from(labels, (l) => Math.max(l, 0)),
        'int32',
      ),
      classes,
    );
    const logProbs = logits.sub(tf.logSumExp(logits, 1, true));
    const perRow = oneHot.mul(logProbs).sum(1).mul(tf.tensor1d(scored));
    return perRow.sum().div(Math.max(count, 1)).neg() as tf.Scalar;
  });
}

/** The improved GAT's auxiliary targets for one batch: its rounds and each round's pair labels (batchPairLabels). */
export interface PairTargets {
  readonly rounds: number;
  readonly labels: readonly Int32Array[];
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
export function trainStep(
  model: Gat,
  optimizer: tf.Optimizer,
  batch: GraphBatch,
  rng: Rng,
  clip = 1,
  auxiliary?: PairTargets,
): TrainStep {
  const vars = [...model.variables.values()];
  let correct = 0;
  const pairWeight = model.config.pairLoss ?? 0;
  const loss = tf.tidy(() => {
    let x = model.inputs(batch, rng);
    if (auxiliary && x.rounds !== undefined) x = { ...x, rounds: auxiliary.rounds };
    const { value, grads } = tf.variableGrads(() => {
      const { logits, pairLogits } = model.forward(x, { training: true, rng });
      const predicted = logits.argMax(1).dataSync();
      correct = batch.labels.reduce((n, l, i) => n + (predicted[i] === l ? 1 : 0), 0);
      const answer = crossEntropy(logits, batch.labels);
      if (!auxiliary || !pairLogits || pairWeight === 0) return answer;
      const perRound = pairLogits.map((l, r) => maskedCrossEntropy(l, auxiliary.labels[r]!));
      return answer.add(tf.addN(perRound).mul(pairWeight / perRound.length)) as tf.Scalar;
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
export interface GatModelJson extends ModelJsonBase {
  readonly format: typeof GAT_FORMAT;
  readonly config: GatConfig;
}

export type GatArtifacts = ModelArtifacts<GatModelJson>;

/** The model as model.json and weights.bin contents. */
export async function saveGat(model: Gat, name = 'gat'): Promise<GatArtifacts> {
  return saveVariables(model.variables, {
    format: GAT_FORMAT,
    formatVersion: 1,
    name,
    config: model.config,
    classes: [...CLASSES],
  });
}

/** A model from model.json and weights.bin contents; refuses another format or class list. */
export function loadGat(modelJson: GatModelJson, weights: ArrayBuffer): Gat {
  return loadVariables('GAT', GAT_FORMAT, CLASSES, modelJson, weights, (t) => new Gat(modelJson.config, t));
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

/**
 * The improved GAT's (`pairs`) attention per stated fact: how much of the answer's pair (a, b)
 * was built from that fact. Starting from weight 1 on (a, b), each round (last first) hands a
 * pair's weight to its own earlier state (keep) and, through each third person m, to (i, m) and
 * (m, j), by the pair's attention; what reaches a fact's pair (either direction) in the first
 * round is its weight, capped at 1. `attention`: every round's [B, N, N, N + 1].
 */
export function pairFactAttention(
  graph: StoryGraph,
  attention: readonly Float32Array[],
  n: number,
  b = 0,
): Float32Array {
  let w = new Float32Array(n * n);
  w[graph.query[0] * n + graph.query[1]] = 1;
  for (let r = attention.length - 1; r >= 0; r--) {
    const alpha = attention[r]!;
    const next = new Float32Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const weight = w[i * n + j]!;
        if (weight === 0) continue;
        const at = ((b * n + i) * n + j) * (n + 1);
        next[i * n + j]! += weight * alpha[at]!;
        for (let m = 0; m < n; m++) {
          const share = weight * alpha[at + 1 + m]!;
          if (share < 1e-6) continue;
          next[i * n + m]! += share;
          next[m * n + j]! += share;
        }
      }
    }
    w = next;
  }
  const out = new Float32Array(graph.type.length);
  for (let e = 0; e < out.length; e++) {
    const from = graph.from[e]!;
    const to = graph.to[e]!;
    out[e] = Math.min(1, w[from * n + to]! + w[to * n + from]!);
  }
  return out;
}

/**
 * Questions per forward pass of the `pairs` model: its largest tensor is [B, N, N, N, hidden],
 * so long or noisy stories go in smaller batches (about 4M floats each).
 */
function pairChunk(config: GatConfig, graphs: readonly StoryGraph[]): number {
  const n = Math.max(1, ...graphs.map((g) => g.numNodes));
  // `classes`: [B, N, N, N, C] candidates and the [B, N, N, C, C] half-composed table.
  const floats = isClasses(config)
    ? Math.max(n * n * n * NUM_PAIR_CLASSES, n * n * NUM_PAIR_CLASSES * NUM_PAIR_CLASSES)
    : n * n * n * (config.composeHidden ?? 128);
  return Math.max(1, Math.floor(4_000_000 / floats));
}

/** A loaded GAT as a ClutrrModel: identities seeded per question position (one batch per call for the paper's GAT). */
export function gatAsModel(model: Gat, name: string): ClutrrModel {
  const pairs = isPairs(model.config);
  return {
    kind: 'gat',
    name,
    async answer(questions: readonly ModelQuestion[]): Promise<ModelAnswer[]> {
      if (questions.length === 0) return [];
      const graphs = questions.map((q) => q.graph);
      const chunk = pairs ? pairChunk(model.config, graphs) : graphs.length;
      const answers: ModelAnswer[] = [];
      for (let start = 0; start < graphs.length; start += chunk) {
        const part = graphs.slice(start, start + chunk);
        const batch = batchGraphs(part, { inverseEdges: model.config.inverseEdges });
        const { probs, attention } = await model.explain(batch);
        part.forEach((g, b) =>
          answers.push({
            probs: probs.slice(b * NUM_CLASSES, (b + 1) * NUM_CLASSES),
            factAttention: pairs
              ? pairFactAttention(g, attention, batch.maxNodes, b)
              : factAttention(g, attention, batch.maxNodes, b, model.config.inverseEdges),
          }),
        );
      }
      return answers;
    },
    dispose: () => model.dispose(),
  };
}
