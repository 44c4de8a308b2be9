/**
 * What the two relation composers (relationComposer.ts, pairStates.ts) share: states of ordered
 * pairs of people "what y is to x", composed through a third person for as many rounds as the
 * question's path is long. Here: the pair classes, which third persons may join a pair, the
 * rounds a batch needs, the rule base's pair labels of the auxiliary loss (the extra
 * supervision), the query pair's state, the batch as tensors, and how the rounds' attention
 * reaches the stated facts.
 */
import * as tf from '@tensorflow/tfjs';
import { INVERSE_CODE, PRED_CODE, predicateOf, wordFor } from '../../core/kinship/relations';
import type { PuzzleRecord } from '../../core/puzzle/puzzle';
import { bit, composeMasks } from '../../core/reasoning/solver';
import { CLASSES, type GraphBatch, NUM_EDGE_TYPES, type StoryGraph } from '../encoding';
import { type GatConfig, type GatInputs, graphTensors } from './architecture';

/**
 * Classes of a pair's relation (both composers): the 18 answer classes, then `husband`, `wife` (a pair may be
 * spouses, though a query never is) and `none` (the rule base derives nothing for the pair).
 * The answer reads the first 18 only.
 */
export const PAIR_CLASSES = [...CLASSES, 'husband', 'wife', 'none'] as const;
export const NUM_PAIR_CLASSES = PAIR_CLASSES.length;
export const NONE_CLASS = NUM_PAIR_CLASSES - 1;

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
 * Rounds for a batch of a relation composer: the longest distance from a to b (in facts, the story graph read
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
 * The auxiliary targets of the relation composers (the extra supervision), from the puzzle with core's rule base (the
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

/** A pair architecture's tensors for a batch: no identities; the split mask and the batch's rounds. */
export function pairInputs(c: GatConfig, batch: GraphBatch): GatInputs {
  const { size: B, maxNodes: N } = batch;
  return {
    ...graphTensors(batch),
    splitMask: tf.tensor4d(splitMask(batch), [B, N, N, N]),
    rounds: c.rounds > 0 ? c.rounds : batchRounds(batch),
  };
}

/** The query pair's state S[b, a, b] [B, d] of pair states [B, N, N, d]: Σ_ij qa_i qb_j S_ij, as two batched matMuls (no gather). */
export function queryPair(x: GatInputs, S: tf.Tensor4D): tf.Tensor2D {
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

/**
 * A relation composer's attention per stated fact: how much of the answer's pair (a, b)
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
