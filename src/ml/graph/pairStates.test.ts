import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { generatePuzzle, toRecord } from '../../core/puzzle/puzzle';
import { createRng } from '../../core/random/rng';
import { batchGraphs, graphFromPuzzle, NUM_CLASSES } from '../encoding';
import { GraphNet, type GatConfig, gatAsModel, loadGat, saveGat, trainStep } from './graphNet';
import { batchPairLabels, batchRounds, NUM_PAIR_CLASSES, pairLabelsFromPuzzle } from './pairRounds';
import { GAT_PAIRS } from './pairStates';
import { GAT_IMPROVED } from './relationComposer';

const TINY_PAIRS: GatConfig = { ...GAT_PAIRS, dim: 8, edgeDim: 8, composeHidden: 8, decoderHidden: 16 };
const puzzles = [1, 2, 3, 4, 5, 6].map((seed) => toRecord(generatePuzzle({ seed, k: 2 + (seed % 2), task: 1 })));
const graphs = puzzles.map(graphFromPuzzle);

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('the first relation composer, vector pair states (pairStates.ts)', () => {
  it('logits [B, 18], per-round attention over keep and each third person', () => {
    const model = new GraphNet(TINY_PAIRS, 6);
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
  it('Adam steps with the pair loss lower it; save → load → answers with fact attention', async () => {
    const model = new GraphNet(TINY_PAIRS, 7);
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
    expect((await saveGat(new GraphNet(GAT_IMPROVED, 1))).weights.byteLength).toBeLessThan(1_000_000);
    model.dispose();
    copy.dispose();
  });
});
