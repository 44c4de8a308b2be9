import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { generatePuzzle, toRecord } from '../../core/puzzle/puzzle';
import { createRng } from '../../core/random/rng';
import { batchGraphs, graphFromPuzzle, NUM_CLASSES, NUM_EDGE_TYPES } from '../encoding';
import { GraphNet } from './graphNet';
import { batchRounds, NUM_PAIR_CLASSES } from './pairRounds';
import { GAT_IMPROVED } from './relationComposer';
const puzzles = [1, 2, 3, 4, 5, 6].map((seed) => toRecord(generatePuzzle({ seed, k: 2 + (seed % 2), task: 1 })));
const graphs = puzzles.map(graphFromPuzzle);

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('the relation composer, class states (relationComposer.ts)', () => {
  it('every pair state a distribution, log-probability answers, attention over keep and each third person', () => {
    const model = new GraphNet(GAT_IMPROVED, 8);
    const batch = batchGraphs(graphs, { inverseEdges: true });
    const N = batch.maxNodes;
    tf.tidy(() => {
      const { logits, attention, pairLogits } = model.forward(model.inputs(batch, createRng(1)), { training: true });
      expect(logits.shape).toEqual([6, NUM_CLASSES]);
      expect(logits.max().dataSync()[0]).toBeLessThanOrEqual(0);
      expect(attention.map((a) => a.shape)).toEqual([3, 3, 3].map(() => [6, N, N, N + 1]));
      expect(pairLogits!.map((l) => l.shape)).toEqual([3, 3, 3].map(() => [6 * N * N, NUM_PAIR_CLASSES]));
      for (const l of pairLogits!) {
        const sums = l.exp().sum(1).dataSync();
        for (const v of sums) expect(v).toBeCloseTo(1, 4);
      }
      expect(attention[2]!.sum(3).sum().dataSync()[0]).toBeCloseTo(6 * N * N, 3);
    });
    model.dispose();
  });
  it('the tensor program equals a plain loop over pairs, third persons and classes', () => {
    const C = NUM_PAIR_CLASSES;
    const E = NUM_EDGE_TYPES - 1;
    const rng = createRng('classes-reference');
    const random = (n: number) => Float32Array.from({ length: n }, () => 3 * (2 * rng.next() - 1));
    const raw = { edge: random(E * C), table: random(C * C * C), sharpness: 0.4 };
    const weights = new Map<string, tf.Tensor>([
      ['edgeClasses', tf.tensor2d(raw.edge, [E, C])],
      ['compose/table', tf.tensor2d(raw.table, [C * C, C])],
      ['attention/sharpness', tf.tensor1d([raw.sharpness])],
    ]);
    const model = new GraphNet(GAT_IMPROVED, weights);
    weights.forEach((t) => t.dispose());
    const batch = batchGraphs(graphs, { inverseEdges: true });
    const x = model.inputs(batch, createRng(1));
    const logits = tf.tidy(() => model.forward(x).logits.arraySync());
    Object.values(x).forEach((t) => t instanceof tf.Tensor && t.dispose());
    model.dispose();

    const softmax = (v: number[]) => {
      const m = Math.max(...v);
      const e = v.map((z) => Math.exp(z - m));
      const sum = e.reduce((a, b) => a + b, 0);
      return e.map((z) => z / sum);
    };
    const edgeProbs = Array.from({ length: E }, (_, t) => softmax([...raw.edge.subarray(t * C, (t + 1) * C)]));
    const T = Array.from({ length: C * C }, (_, r) => softmax([...raw.table.subarray(r * C, (r + 1) * C)]));
    const beta = Math.exp(raw.sharpness);
    const eps = 1e-6;
    const N = batch.maxNodes;
    const rounds = batchRounds(batch);
    graphs.forEach((g, b) => {
      const real = (i: number) => batch.nodeMask[b * N + i] === 1;
      let S = Array.from({ length: N * N }, (_, p) => {
        const [i, j] = [Math.floor(p / N), p % N];
        const out = new Array<number>(C).fill(0);
        let count = 0;
        for (let t = 1; t <= E; t++) {
          const c = batch.edges[((b * N + j) * N + i) * NUM_EDGE_TYPES + t]!;
          count += c;
          for (let o = 0; o < C; o++) out[o]! += c * edgeProbs[t - 1]![o]!;
        }
        return count > 0 ? out.map((v) => v / count) : out.map((_, o) => (o === C - 1 ? 1 : 0));
      });
      for (let r = 0; r < rounds; r++) {
        S = S.map((keep, p) => {
          const [i, j] = [Math.floor(p / N), p % N];
          const candidates = [keep];
          for (let m = 0; m < N; m++) {
            if (m === i || m === j || i === j || !real(i) || !real(j) || !real(m)) continue;
            const q = new Array<number>(C).fill(0);
            S[i * N + m]!.forEach((p1, c1) =>
              S[m * N + j]!.forEach((p2, c2) => T[c1 * C + c2]!.forEach((t, o) => (q[o]! += p1 * p2 * t))),
            );
            candidates.push(q);
          }
          const alpha = softmax(candidates.map((q) => beta * Math.log(1 - q[C - 1]! + eps)));
          return keep.map((_, o) => candidates.reduce((sum, q, k) => sum + alpha[k]! * q[o]!, 0));
        });
      }
      const ab = S[g.query[0] * N + g.query[1]]!;
      for (let c = 0; c < NUM_CLASSES; c++) expect(logits[b]![c]!).toBeCloseTo(Math.log(ab[c]! + eps), 3);
    });
  });
});
