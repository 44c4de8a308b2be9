/**
 * The first design of the relation composer (model `gat-pairs`, `architecture: 'pairs'`; shipped
 * as `gat-improved/1` until commit 3234ec2; not in the paper): vector states of ordered pairs of
 * people composed through a third person by an MLP, inverse edges, rounds adapted to the story,
 * trained with the rule base's pair labels as an auxiliary loss (pairRounds.ts). It drifts on
 * long compositions (src/ml/README.md), which the class states of relationComposer.ts remove.
 */
import * as tf from '@tensorflow/tfjs';
import { NUM_CLASSES, NUM_EDGE_TYPES } from '../encoding';
import type { ForwardOptions, GatConfig, GatInputs, GatOutputs, GraphArchitecture, WeightOf } from './architecture';
import { NUM_PAIR_CLASSES, pairFactAttention, pairInputs, queryPair } from './pairRounds';

/**
 * Beyond the paper, the first relation composer (shipped as `gat-improved` until commit
 * 3234ec2): vector pair states composed through a third person by an MLP, inverse edges, rounds
 * adapted to the story, and the auxiliary pair-relation loss (PAIR_STATES.forward). Trained as
 * `gat-pairs`; it drifts on long compositions (src/ml/README.md).
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

/** Vector pair states composed by an MLP (`architecture: 'pairs'`). */
export const PAIR_STATES: GraphArchitecture = {
  weightShapes(c) {
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
  },

  inputs: (c, batch) => pairInputs(c, batch),

  /**
   * Vector pair states. State S[b, x, y] (dim) is "what y is to x": first the stated
   * fact's edge embedding (forward or inverse; zero for unrelated pairs). Each round, every pair
   * (i, j) attends over its current state ("keep") and one candidate per third person m,
   * compose(S[i, m], S[m, j]) = MLP([S_im ; S_jm-side]): softmax over the candidates, and the new
   * state is their weighted sum. A relation k facts long is composed after at most k - 1 rounds
   * whatever the bracketing; `rounds` 0 runs the batch's longest query distance. The decoder
   * reads S[a, b] (all pairs for the auxiliary loss). Attention: per round [B, N, N, N + 1]
   * (index 0 keep, 1 + m through m).
   */
  forward(c: GatConfig, w: WeightOf, x: GatInputs, options: ForwardOptions): GatOutputs {
    const training = options.training === true;
    const [B, N] = x.nodeMask.shape;
    const d = c.dim;
    const h = c.composeHidden ?? 128;
    const P = B * N * N;
    // S0[b, x, y] = Σ_t edges[b, y, x, t] E[t] (edges[b, i, j] counts facts j → i).
    let S = x.edges
      .transpose([0, 2, 1, 3])
      .reshape([P, NUM_EDGE_TYPES])
      .matMul(w('edgeEmbedding'))
      .reshape([B, N, N, d]) as tf.Tensor4D;
    const decode = (states: tf.Tensor2D) =>
      tf
        .relu(states.matMul(w('decoder/hidden')).add(w('decoder/hiddenBias')))
        .matMul(w('decoder/out'))
        .add(w('decoder/outBias')) as tf.Tensor2D;
    const notSplit = tf.sub(1, x.splitMask!).mul(-1e9);
    const attention: tf.Tensor[] = [];
    const pairLogits: tf.Tensor2D[] = [];
    for (let round = 0; round < (x.rounds ?? 1); round++) {
      const flat = S.reshape([P, d]) as tf.Tensor2D;
      // left[b, i, ·, m] = S[b, i, m] Wl ; right[b, ·, j, m] = S[b, m, j] Wr
      const left = flat.matMul(w('compose/left')).add(w('compose/hiddenBias')).reshape([B, N, 1, N, h]);
      const right = flat
        .matMul(w('compose/right'))
        .reshape([B, N, N, h])
        .transpose([0, 2, 1, 3])
        .reshape([B, 1, N, N, h]);
      const hidden = tf.relu(left.add(right));
      const via = hidden
        .reshape([P * N, h])
        .matMul(w('compose/out'))
        .add(w('compose/outBias')) as tf.Tensor2D; // [(b, i, j, m), d]
      const scoreVia = via.matMul(w('attention/via')).reshape([B, N, N, N]).add(notSplit);
      const scoreKeep = flat.matMul(w('attention/keep')).reshape([B, N, N, 1]);
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
  },

  factAttention: (_c, graph, attention, n, b) => pairFactAttention(graph, attention, n, b),

  /** Its largest tensor is [B, N, N, N, hidden]: long or noisy stories go in smaller batches (about 4M floats each). */
  chunk(c, graphs) {
    const n = Math.max(1, ...graphs.map((g) => g.numNodes));
    return Math.max(1, Math.floor(4_000_000 / (n * n * n * (c.composeHidden ?? 128))));
  },
};
