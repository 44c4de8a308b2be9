import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generatePuzzle, toRecord } from '../core/puzzle/puzzle';
import { createRng } from '../core/random/rng';
import { batchGraphs, graphFromPuzzle, NUM_CLASSES, NUM_EDGE_TYPES } from './encoding';
import {
  batchPairLabels,
  batchRounds,
  evaluate,
  Gat,
  GAT_IMPROVED,
  GAT_PAIRS,
  GAT_PAPER,
  type GatConfig,
  gatAsModel,
  loadGat,
  NUM_PAIR_CLASSES,
  PAIR_CLASSES,
  pairLabelsFromPuzzle,
  saveGat,
  trainStep,
} from './gat';

// Small enough for a unit test; the shapes and code paths are those of the real model.
const TINY: GatConfig = { ...GAT_PAPER, dim: 16, edgeDim: 8, decoderHidden: 32, rounds: 2 };
const puzzles = [1, 2, 3, 4, 5, 6].map((seed) => toRecord(generatePuzzle({ seed, k: 2 + (seed % 2), task: 1 })));
const graphs = puzzles.map(graphFromPuzzle);
const TINY_PAIRS: GatConfig = { ...GAT_PAIRS, dim: 8, edgeDim: 8, composeHidden: 8, decoderHidden: 16 };

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('GAT', () => {
  it('forward pass: logits [B, 18], one attention map per convolution', () => {
    const model = new Gat(TINY, 1);
    const batch = batchGraphs(graphs, { inverseEdges: true });
    tf.tidy(() => {
      const { logits, attention } = model.forward(model.inputs(batch, createRng(1)));
      expect(logits.shape).toEqual([6, NUM_CLASSES]);
      expect(attention.map((a) => a.shape)).toEqual([
        [6, batch.maxNodes, batch.maxNodes],
        [6, batch.maxNodes, batch.maxNodes],
      ]);
      // Each real node's attention sums to 1 over its incoming edges and itself.
      const rowSums = attention[0]!.sum(2).mul(tf.tensor2d(batch.nodeMask, [6, batch.maxNodes]));
      expect(rowSums.sum().dataSync()[0]).toBeCloseTo(batch.nodeMask.reduce((a, b) => a + b));
    });
    model.dispose();
  });

  it('a few Adam steps on a tiny fixed batch lower the loss', () => {
    const model = new Gat({ ...TINY, dropout: 0 }, 2);
    const optimizer = tf.train.adam(0.01);
    const batch = batchGraphs(graphs);
    const losses = Array.from({ length: 8 }, () => trainStep(model, optimizer, batch, createRng(7)).loss);
    expect(losses.at(-1)!).toBeLessThan(losses[0]!);
    optimizer.dispose();
    model.dispose();
  });

  it('save → load gives the same logits', async () => {
    const model = new Gat(GAT_IMPROVED, 3);
    const batch = batchGraphs(graphs, { inverseEdges: true });
    const { modelJson, weights } = await saveGat(model);
    const copy = loadGat(JSON.parse(JSON.stringify(modelJson)), weights.slice(0));
    expect(copy.config).toEqual(GAT_IMPROVED);
    expect(await copy.predict(batch, 5)).toEqual(await model.predict(batch, 5));
    expect(weights.byteLength).toBeLessThan(1_000_000);
    expect(() => loadGat({ ...modelJson, classes: ['son'] }, weights)).toThrow(/classes/);
    model.dispose();
    copy.dispose();
  });

  it('predictions leave no tensor behind', async () => {
    const model = new Gat(TINY, 4);
    const batch = batchGraphs(graphs.slice(0, 1));
    await model.predict(batch);
    const before = tf.memory().numTensors;
    for (let i = 0; i < 20; i++) await model.predict(batch, i);
    await evaluate(model, [batch, batch]);
    const { probs, attention } = await model.explain(batch, 3);
    expect(probs).toEqual(await model.predict(batch, 3));
    expect(attention.map((a) => a.length)).toEqual([batch.maxNodes ** 2, batch.maxNodes ** 2]);
    expect(tf.memory().numTensors).toBe(before);
    model.dispose();
  });

  it('trains on the wasm backend (no gather gradient needed)', async () => {
    const dist = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
    setWasmPaths(dist + path.sep);
    expect(await tf.setBackend('wasm')).toBe(true);
    try {
      const model = new Gat(TINY, 5);
      const optimizer = tf.train.adam(0.001);
      const before = tf.memory().numTensors;
      const step = trainStep(model, optimizer, batchGraphs(graphs, { inverseEdges: true }), createRng(1));
      expect(Number.isFinite(step.loss)).toBe(true);
      optimizer.dispose();
      model.dispose();
      expect(tf.memory().numTensors).toBeLessThanOrEqual(before);
    } finally {
      await tf.setBackend('cpu');
    }
  });

  it('pairs (first improved design): logits [B, 18], per-round attention over keep and each third person', () => {
    const model = new Gat(TINY_PAIRS, 6);
    const batch = batchGraphs(graphs, { inverseEdges: true });
    const N = batch.maxNodes;
    expect(batchRounds(batch)).toBe(3);
    tf.tidy(() => {
      const { logits, attention, pairLogits } = model.forward(model.inputs(batch, createRng(1)), { training: true });
      expect(logits.shape).toEqual([6, NUM_CLASSES]);
      expect(attention.map((a) => a.shape)).toEqual([3, 3, 3].map(() => [6, N, N, N + 1]));
      expect(pairLogits!.map((l) => l.shape)).toEqual([3, 3, 3].map(() => [6 * N * N, NUM_PAIR_CLASSES]));
      // Every pair's attention sums to 1; a pair never composes through a padding node or itself.
      expect(attention[0]!.sum(3).sum().dataSync()[0]).toBeCloseTo(6 * N * N, 3);
      const a0 = attention[0]!.arraySync() as number[][][][];
      const b = batch.nodeMask.indexOf(0) >= 0 ? Math.floor(batch.nodeMask.indexOf(0) / N) : 0;
      const n = graphs[b]!.numNodes;
      if (n < N) expect(a0[b]![0]![1]![1 + n]).toBe(0);
      expect(a0[b]![0]![1]![1 + 0]).toBe(0);
    });
    model.dispose();
  });

  it('improved: the rule-base pair labels give the answer after k rounds, none before it is known', () => {
    for (const p of puzzles) {
      const labels = pairLabelsFromPuzzle(p, p.k);
      const n = p.entities.length;
      const [a, b] = p.query;
      expect(PAIR_CLASSES[labels[p.k - 1]![a * n + b]!]).toBe(p.target.word);
      expect(PAIR_CLASSES[labels[0]![a * n + b]!]).toBe(p.k === 2 ? p.target.word : 'none');
      // A stated fact is known from the first round on.
      const f = p.facts[0]!;
      expect(PAIR_CLASSES[labels[0]![f.from * n + f.to]!]).toBe(f.word);
    }
  });

  it('improved: Adam steps with the pair loss lower it; save → load → answers with fact attention', async () => {
    const model = new Gat(TINY_PAIRS, 7);
    const optimizer = tf.train.adam(0.01);
    const batch = batchGraphs(graphs, { inverseEdges: true });
    const targets = {
      rounds: 3,
      labels: batchPairLabels(
        puzzles.map((p) => pairLabelsFromPuzzle(p, 3)),
        batch.maxNodes,
      ),
    };
    const losses = Array.from({ length: 8 }, () => trainStep(model, optimizer, batch, createRng(7), 1, targets).loss);
    expect(losses.at(-1)!).toBeLessThan(losses[0]!);
    optimizer.dispose();
    const { modelJson, weights } = await saveGat(model, 'gat-improved');
    const copy = gatAsModel(loadGat(JSON.parse(JSON.stringify(modelJson)), weights.slice(0)), 'gat-improved');
    const before = tf.memory().numTensors;
    const answers = await copy.answer(
      puzzles.map((p) => ({ graph: graphFromPuzzle(p), story: '', queryNames: ['', ''] })),
    );
    expect(tf.memory().numTensors).toBe(before);
    expect(answers.map((a) => a.probs.length)).toEqual(puzzles.map(() => NUM_CLASSES));
    expect(answers[0]!.probs).toEqual(Float32Array.from(await model.predict(batch)).slice(0, NUM_CLASSES));
    answers.forEach((a, i) => {
      expect(a.factAttention!.length).toBe(puzzles[i]!.facts.length);
      for (const w of a.factAttention!) expect(w >= 0 && w <= 1).toBe(true);
    });
    expect((await saveGat(new Gat(GAT_IMPROVED, 1))).weights.byteLength).toBeLessThan(1_000_000);
    model.dispose();
    copy.dispose();
  });

  it('improved (class states): every pair state a distribution, log-probability answers, attention over keep and each third person', () => {
    const model = new Gat(GAT_IMPROVED, 8);
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

  it('improved (class states): the tensor program equals a plain loop over pairs, third persons and classes', () => {
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
    const model = new Gat(GAT_IMPROVED, weights);
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
