import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { generatePuzzle, toRecord } from '../../core/puzzle/puzzle';
import { createRng } from '../../core/random/rng';
import { batchGraphs, graphFromPuzzle, NUM_CLASSES } from '../encoding';
import { GraphNet, type GatConfig } from './graphNet';
import { GAT_PAPER } from './gatPaper';

// Small enough for a unit test; the shapes and code paths are those of the real model.
const TINY: GatConfig = { ...GAT_PAPER, dim: 16, edgeDim: 8, decoderHidden: 32, rounds: 2 };
const puzzles = [1, 2, 3, 4, 5, 6].map((seed) => toRecord(generatePuzzle({ seed, k: 2 + (seed % 2), task: 1 })));
const graphs = puzzles.map(graphFromPuzzle);

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe("the paper's GAT (gatPaper.ts)", () => {
  it('forward pass: logits [B, 18], one attention map per convolution', () => {
    const model = new GraphNet(TINY, 1);
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
});
