/**
 * The path composer (model `path-composer`, `architecture: 'path'`; not in the paper): it finds
 * the shortest chain of stated facts from the first query person to the second, reads each step
 * as a distribution over PAIR_CLASSES (a learned table per edge type, forward or read backwards)
 * and composes adjacent steps (the leftmost pair it is sure of first) with one learned
 * PAIR_CLASSES² → PAIR_CLASSES table until one relation is left. It
 * is trained on the final answers alone: no rule of the rule base and no label of an
 * intermediate pair reaches it, so what it knows of kinship it learned from k = 2, 3 answers. The
 * only prior is that a stated word starts out meaning its own class (its name), which the
 * training may change.
 */
import * as tf from '@tensorflow/tfjs';
import type { Rng } from '../../core/random/rng';
import { RELATION_WORDS } from '../../core/kinship/relations';
import { type GraphBatch, NUM_CLASSES, NUM_EDGE_TYPES, NUM_WORDS, type StoryGraph } from '../encoding';
import {
  type ForwardOptions,
  type GatConfig,
  type GatInputs,
  type GatOutputs,
  glorotValues,
  type GraphArchitecture,
  graphTensors,
  type WeightOf,
} from './architecture';
import { NONE_CLASS, NUM_PAIR_CLASSES, PAIR_CLASSES } from './pairRounds';

export const PATH_COMPOSER: GatConfig = {
  dim: 0, // unused by `path` (as are edgeDim, convs, rounds, dropout, decoderHidden)
  edgeDim: 0,
  convs: 1,
  rounds: 0,
  dropout: 0,
  decoderHidden: 0,
  // Backward steps need their own tokens: a chain stated towards the first person is still a chain.
  inverseEdges: true,
  architecture: 'path',
  pairLoss: 0,
};

/** The lean of a forward word towards its own class at initialisation (a logit). */
const OWN_CLASS_PRIOR = 4;
/**
 * The table's lean towards `none` at initialisation: a pair of relations no answer ever composed
 * says "nothing known", so the surest-pair choice leaves it for a pair the answers taught.
 */
const TABLE_NONE_PRIOR = 5;

/**
 * The steps of the shortest chain from query a to query b of graph `g` of the batch, each the
 * lowest edge type among the edges of that step (forward types 1..NUM_WORDS, read-backwards
 * types after them), as [person from, person to, type]. Breadth-first, lower person numbers
 * first, so the same graph always gives the same chain. Empty when b cannot be reached.
 */
export function queryChain(batch: GraphBatch, g: number): [number, number, number][] {
  const { maxNodes: N, edges } = batch;
  const T = NUM_EDGE_TYPES;
  const one = (v: Float32Array, at: number) => {
    for (let i = 0; i < N; i++) if (v[at + i] === 1) return i;
    return -1;
  };
  const a = one(batch.queryA, g * N);
  const b = one(batch.queryB, g * N);
  if (a < 0 || b < 0 || a === b) return [];
  const via = new Int32Array(N).fill(-1);
  const type = new Int32Array(N);
  via[a] = a;
  let frontier = [a];
  while (frontier.length > 0 && via[b] === -1) {
    const next: number[] = [];
    for (const u of frontier) {
      for (let i = 0; i < N; i++) {
        if (via[i] !== -1) continue;
        // edges[g, i, u, t]: how many edges of type t go u → i ("i is u's word").
        const at = ((g * N + i) * N + u) * T;
        for (let t = 1; t < T; t++) {
          if (edges[at + t]! > 0) {
            via[i] = u;
            type[i] = t;
            next.push(i);
            break;
          }
        }
      }
    }
    frontier = next;
  }
  if (via[b] === -1) return [];
  const chain: [number, number, number][] = [];
  for (let v = b; v !== a; v = via[v]!) chain.push([via[v]!, v, type[v]!]);
  return chain.reverse();
}

/** The chains of a batch as one-hot steps [B, L, T] (all zero past a chain's end) and each step's place. */
function chainInputs(batch: GraphBatch): { steps: Float32Array; length: number; onChain: Float32Array } {
  const { size: B, maxNodes: N } = batch;
  const chains = Array.from({ length: B }, (_, g) => queryChain(batch, g));
  const length = Math.max(1, ...chains.map((c) => c.length));
  const steps = new Float32Array(B * length * NUM_EDGE_TYPES);
  const onChain = new Float32Array(B * N * N);
  chains.forEach((chain, g) => {
    chain.forEach(([from, to, t], l) => {
      steps[(g * length + l) * NUM_EDGE_TYPES + t] = 1;
      onChain[(g * N + to) * N + from] = 1;
    });
  });
  return { steps, length, onChain };
}

/** Chains of stated facts composed with a learned table (`architecture: 'path'`). */
export const PATH_STATES: GraphArchitecture = {
  weightShapes: () => [
    ['edgeClasses', [NUM_EDGE_TYPES - 1, NUM_PAIR_CLASSES]],
    ['compose/table', [NUM_PAIR_CLASSES * NUM_PAIR_CLASSES, NUM_PAIR_CLASSES]],
  ],

  /** Glorot-uniform, each forward word leaning to its own class, the table to `none`. */
  initialValues(name: string, shape: number[], rng: Rng): Float32Array {
    const values = glorotValues(name, shape, rng);
    if (name === 'compose/table')
      for (let i = NONE_CLASS; i < values.length; i += NUM_PAIR_CLASSES) values[i]! += TABLE_NONE_PRIOR;
    if (name === 'edgeClasses') {
      RELATION_WORDS.forEach((word, w) => {
        const c = (PAIR_CLASSES as readonly string[]).indexOf(word);
        if (c >= 0 && w < NUM_WORDS) values[w * NUM_PAIR_CLASSES + c]! += OWN_CLASS_PRIOR;
      });
    }
    return values;
  },

  /** The chain from a to b found here, in JavaScript: the network composes, it does not search. */
  inputs(_c, batch) {
    const { size: B, maxNodes: N } = batch;
    const { steps, length, onChain } = chainInputs(batch);
    return {
      ...graphTensors(batch),
      chainSteps: tf.tensor3d(steps, [B, length, NUM_EDGE_TYPES]),
      chainEdges: tf.tensor3d(onChain, [B, N, N]),
    };
  },

  /**
   * Each step of the chain becomes a distribution over PAIR_CLASSES, eₗ = softmax(edgeClasses[tₗ]);
   * then, as many times as the chain has steps less one, an adjacent pair is replaced by its
   * composition, Σ_{c1,c2} x[c1] y[c2] T[c1, c2, ·] with T = softmax of `compose/table` over its
   * last axis: the leftmost pair the table is sure of (P(none) < ½), else the surest. Like a
   * shift-reduce parse, this stays among relations the answers name, where composing strictly
   * left to right passes through relations no class names (a husband's brother): measured on our
   * CLUTRR-label test sets, left to right reached .59 at k = 10, the surest pair first .80, the
   * leftmost sure pair .99. The choice is made in JavaScript from the current values
   * (no gradient goes through it); the composed values carry the gradient. The answer is what remains, over the 18 answer classes (logits =
   * log-probabilities); no chain: `none`.
   */
  forward(_c: GatConfig, w: WeightOf, x: GatInputs, _options: ForwardOptions): GatOutputs {
    const steps = x.chainSteps!;
    const [B, L, T] = steps.shape;
    const C = NUM_PAIR_CLASSES;
    const eps = 1e-6;
    const classes = tf.softmax(w('edgeClasses'));
    const table = tf.softmax(w('compose/table'));
    const none = tf.oneHot(tf.fill([B], NONE_CLASS, 'int32'), C).toFloat();
    // The chain as distributions [B, L, C] (zero past its end) and its length [B, 1].
    let seq = steps
      .reshape([B * L, T])
      .slice([0, 1], [B * L, T - 1])
      .matMul(classes)
      .reshape([B, L, C]) as tf.Tensor3D;
    // Lengths and choices live in JavaScript: they steer the composition, no gradient goes through them.
    const length = Int32Array.from(steps.sum([1, 2]).dataSync());
    for (let n = L; n > 1; n--) {
      const left = seq.slice([0, 0, 0], [B, n - 1, C]);
      const right = seq.slice([0, 1, 0], [B, n - 1, C]);
      const outer = left.reshape([B * (n - 1), C, 1]).mul(right.reshape([B * (n - 1), 1, C]));
      const composed = outer
        .reshape([B * (n - 1), C * C])
        .matMul(table)
        .reshape([B, n - 1, C]);
      // Pair i is real while both its steps are within the chain: i + 1 < length.
      const realPairs = new Float32Array(B * (n - 1));
      for (let b = 0; b < B; b++) for (let i = 0; i + 1 < length[b]!; i++) realPairs[b * (n - 1) + i] = 1;
      const real = tf.tensor2d(realPairs, [B, n - 1]);
      const sure = composed
        .slice([0, 0, NONE_CLASS], [B, n - 1, 1])
        .reshape([B, n - 1])
        .mul(-1)
        .add(real.sub(1).mul(1e9))
        .dataSync();
      const choice = new Float32Array(B * (n - 1));
      for (let b = 0; b < B; b++) {
        // The leftmost pair the table is sure of (P(none) < ½); if none is, the surest.
        let best = -1;
        for (let i = 0; i < n - 1 && best < 0; i++) if (sure[b * (n - 1) + i]! > -0.5) best = i;
        if (best < 0) {
          best = 0;
          for (let i = 1; i < n - 1; i++) if (sure[b * (n - 1) + i]! > sure[b * (n - 1) + best]!) best = i;
        }
        choice[b * (n - 1) + best] = 1;
        if (best + 1 < length[b]!) length[b]!--;
      }
      const chosen = tf.tensor2d(choice, [B, n - 1]);
      // A pair past the chain's end "composes" to its left step, so a finished chain only drops padding.
      const merged = composed.mul(real.expandDims(2)).add(left.mul(tf.sub(1, real).expandDims(2)));
      const before = tf.sub(1, chosen.cumsum(1)); // 1 left of the chosen pair
      const after = chosen.cumsum(1).sub(chosen); // 1 right of it
      seq = left
        .mul(before.expandDims(2))
        .add(merged.mul(chosen.expandDims(2)))
        .add(right.mul(after.expandDims(2))) as tf.Tensor3D;
    }
    const first = seq.slice([0, 0, 0], [B, 1, C]).reshape([B, C]);
    const started = steps.slice([0, 0, 0], [B, 1, T]).sum([1, 2]).reshape([B, 1]);
    const state = first.add(tf.sub(1, started).mul(none));
    const logits = tf.log(state.slice([0, 0], [B, NUM_CLASSES]).add(eps)) as tf.Tensor2D;
    return { logits, attention: [x.chainEdges!] };
  },

  /** A fact weighs 1 when the chain steps along it (either way), else 0. */
  factAttention(_c, graph: StoryGraph, attention, n, b) {
    const onChain = attention[0]!;
    const at = (i: number, j: number) => onChain[(b * n + i) * n + j]!;
    return Float32Array.from(graph.from, (from, f) => Math.max(at(graph.to[f]!, from), at(from, graph.to[f]!)));
  },

  /** [B, 21 × 21] per step at most: a large batch fits. */
  chunk: () => 500,
};
