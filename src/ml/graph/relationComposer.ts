/**
 * The relation composer (model `gat-improved`, `architecture: 'classes'`; not in the paper and
 * not a graph attention network over people): every ordered pair of people holds a probability
 * distribution over PAIR_CLASSES, composed through a third person with a learned 21 × 21 × 21
 * table, for as many rounds as the question's path is long. Trained with the rule base's label
 * of every pair after every round as an auxiliary loss (pairRounds.ts pairLabelsFromPuzzle, the
 * unsound rules included) unless `pairLoss` is 0 (`gat-improved-answer-only`, the ablation).
 */
import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../../core/random/rng';
import { NUM_CLASSES, NUM_EDGE_TYPES } from '../encoding';
import {
  type ForwardOptions,
  type GatConfig,
  type GatInputs,
  type GatOutputs,
  glorotValues,
  type GraphArchitecture,
  type WeightOf,
} from './architecture';
import { NONE_CLASS, NUM_PAIR_CLASSES, pairFactAttention, pairInputs, queryPair } from './pairRounds';

/**
 * Beyond the paper, the shipped `gat-improved` (`gat-improved-answer-only`: `pairLoss` 0): the
 * pairs, rounds, inverse edges and auxiliary loss of GAT_PAIRS, with states that are class
 * distributions and a learned composition table (CLASS_STATES.forward).
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

/**
 * `classes`: the table's initial lean towards `none` (a logit added to every entry's `none` at
 * initialisation), so a pair of relations training never composes yields "no relation" rather
 * than a guess.
 */
const TABLE_NONE_PRIOR = 5;

/** Class states composed through a learned table (`architecture: 'classes'`). */
export const CLASS_STATES: GraphArchitecture = {
  weightShapes: () => [
    ['edgeClasses', [NUM_EDGE_TYPES - 1, NUM_PAIR_CLASSES]],
    ['compose/table', [NUM_PAIR_CLASSES * NUM_PAIR_CLASSES, NUM_PAIR_CLASSES]],
    ['attention/sharpness', [1]],
  ],

  /** Glorot-uniform, the table leaning to `none` (TABLE_NONE_PRIOR). */
  initialValues(name: string, shape: number[], rng: Rng): Float32Array {
    const values = glorotValues(name, shape, rng);
    if (name === 'compose/table')
      for (let i = NONE_CLASS; i < values.length; i += NUM_PAIR_CLASSES) values[i]! += TABLE_NONE_PRIOR;
    return values;
  },

  inputs: (c, batch) => pairInputs(c, batch),

  /**
   * Rounds of class states. The same pairs, rounds and attention over who joins a pair as
   * pairStates.ts, but every pair's state S[b, x, y] is a probability distribution over
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
  forward(_c: GatConfig, w: WeightOf, x: GatInputs, options: ForwardOptions): GatOutputs {
    const training = options.training === true;
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
    const stated = facts.matMul(tf.softmax(w('edgeClasses'))).div(tf.maximum(count, 1));
    const none = tf.oneHot(tf.tensor1d([NONE_CLASS], 'int32'), C);
    let S = stated.add(tf.sub(1, tf.minimum(count, 1)).mul(none)).reshape([B, N, N, C]) as tf.Tensor4D;
    // T as [c2, (c1, o)].
    const table = tf
      .softmax(w('compose/table'))
      .reshape([C, C, C])
      .transpose([1, 0, 2])
      .reshape([C, C * C]) as tf.Tensor2D;
    const beta = tf.exp(w('attention/sharpness'));
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
  },

  factAttention: (_c, graph, attention, n, b) => pairFactAttention(graph, attention, n, b),

  /** [B, N, N, N, C] candidates and the [B, N, N, C, C] half-composed table: about 4M floats per batch. */
  chunk(_c, graphs) {
    const n = Math.max(1, ...graphs.map((g) => g.numNodes));
    const floats = Math.max(n * n * n * NUM_PAIR_CLASSES, n * n * NUM_PAIR_CLASSES * NUM_PAIR_CLASSES);
    return Math.max(1, Math.floor(4_000_000 / floats));
  },
};
