import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { generatePuzzle, toRecord } from '../../core/puzzle/puzzle';
import { createRng } from '../../core/random/rng';
import { batchGraphs, graphFromPuzzle } from '../encoding';
import { architectureOf, evaluate, GraphNet, type GatConfig, loadGat, saveGat, trainStep } from './graphNet';
import { GAT_PAPER, NODES } from './gatPaper';
import { PAIR_STATES } from './pairStates';
import { CLASS_STATES, GAT_IMPROVED } from './relationComposer';

// Small enough for a unit test; the shapes and code paths are those of the real model.
const TINY: GatConfig = { ...GAT_PAPER, dim: 16, edgeDim: 8, decoderHidden: 32, rounds: 2 };
const puzzles = [1, 2, 3, 4, 5, 6].map((seed) => toRecord(generatePuzzle({ seed, k: 2 + (seed % 2), task: 1 })));
const graphs = puzzles.map(graphFromPuzzle);

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('graph models: the shared weights, training step, saving and loading (graphNet.ts)', () => {
  it('picks the architecture its config names, refusing an unknown one by name', () => {
    expect(architectureOf(GAT_PAPER)).toBe(NODES);
    expect(architectureOf({ ...GAT_PAPER, architecture: 'nodes' })).toBe(NODES);
    expect(architectureOf({ ...GAT_IMPROVED, architecture: 'pairs' })).toBe(PAIR_STATES);
    expect(architectureOf(GAT_IMPROVED)).toBe(CLASS_STATES);
    const odd = { ...GAT_PAPER, architecture: 'graphs' } as unknown as GatConfig;
    expect(() => new GraphNet(odd, 1)).toThrow(
      'GAT config: unknown architecture "graphs" (expected nodes, pairs, classes, path)',
    );
  });

  it('a few Adam steps on a tiny fixed batch lower the loss', () => {
    const model = new GraphNet({ ...TINY, dropout: 0 }, 2);
    const optimizer = tf.train.adam(0.01);
    const batch = batchGraphs(graphs);
    const losses = Array.from({ length: 8 }, () => trainStep(model, optimizer, batch, createRng(7)).loss);
    expect(losses.at(-1)!).toBeLessThan(losses[0]!);
    optimizer.dispose();
    model.dispose();
  });
  it('save → load gives the same logits', async () => {
    const model = new GraphNet(GAT_IMPROVED, 3);
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
    const model = new GraphNet(TINY, 4);
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
      const model = new GraphNet(TINY, 5);
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
});
