/**
 * The shipped models reproduce their own metadata: for every folder listed in
 * public/models/index.json, the weights as shipped, loaded the way every user loads them
 * (src/ml/load.ts) on the wasm backend, score exactly the correct counts that metadata.json
 * records on test sets regenerated from its seed, noise kind and row counts (k = 2..10 and the
 * robustness row). And index.json is what the folders say it is.
 */
import type { PresetName } from '../../src/core/puzzle/datasetOptions';
import * as tf from '@tensorflow/tfjs';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../src/ml/load';
import type { ModelIndex, ModelMetadata } from '../../src/ml/model';
import { modelFacts, requireModelKind } from '../../src/ml/modelKinds';
import { FACT_KEYS } from './modelIndex';
import { makeTrainData } from './data';
import { score, useBackend } from './main';
import { readModelFolders } from './modelIndex';

const root = path.resolve(__dirname, '..', '..', 'public', 'models');
const indexFile = path.join(root, 'index.json');
const index: ModelIndex = existsSync(indexFile)
  ? (JSON.parse(readFileSync(indexFile, 'utf8')) as ModelIndex)
  : { models: [] };

function read(id: string, file: string): Buffer {
  return readFileSync(path.join(root, id, file));
}

let backend = '';
beforeAll(async () => {
  backend = tf.getBackend();
  await useBackend('wasm');
});
afterAll(async () => {
  if (backend) await tf.setBackend(backend);
});

describe('shipped models (public/models)', () => {
  it('index.json lists exactly the model folders', () => {
    expect(index).toEqual(readModelFolders(root));
  });

  for (const entry of index.models) {
    it(`${entry.id}: metadata.json and model.json say what the descriptor (src/ml/modelKinds.ts) says`, () => {
      const metadata = JSON.parse(read(entry.id, 'metadata.json').toString('utf8')) as ModelMetadata;
      const facts = Object.fromEntries(FACT_KEYS.map((k) => [k, metadata[k]]));
      expect(facts, 'stale: run npm run train -- --describe').toEqual(modelFacts(entry.model));
      const modelJson = JSON.parse(read(entry.id, 'model.json').toString('utf8')) as { format: string };
      expect(modelJson.format).toBe(requireModelKind(entry.model).format);
    });

    it(
      `${entry.id}: the shipped weights reproduce metadata.json's accuracies`,
      async () => {
        const metadata = JSON.parse(read(entry.id, 'metadata.json').toString('utf8')) as ModelMetadata;
        const weights = new Uint8Array(read(entry.id, 'weights.bin'));
        const model = loadModel(JSON.parse(read(entry.id, 'model.json').toString('utf8')), weights.buffer, entry.model);
        try {
          const data = makeTrainData({
            seed: metadata.seed,
            noise: metadata.training.noise,
            // Models trained before issue 22 record no preset: the unbalanced rows.
            preset: (metadata.training.preset as PresetName | 'none' | undefined) ?? 'none',
            ...(metadata.training.labels === 'clutrr' ? { labels: 'clutrr' as const } : {}),
            ...(metadata.training.bank === 'wide' ? { bank: 'wide' as const } : {}),
            trainRows: metadata.training.rows,
            testRows: metadata.test.rows,
          });
          const expected: Record<string, number> = {};
          const got: Record<string, number> = {};
          for (const [k, examples] of data.tests) {
            expect(examples).toHaveLength(metadata.test.rows);
            expected[k] = Math.round(metadata.test.accuracy[k]! * examples.length);
            got[k] = await score(model, examples);
          }
          expect(got).toEqual(expected);
          const robustness = [];
          for (const [noise, examples] of data.robustness) {
            robustness.push({
              test: noise,
              rows: examples.length,
              accuracy: (await score(model, examples)) / examples.length,
            });
          }
          expect(robustness).toEqual(metadata.robustness);
        } finally {
          model.dispose();
        }
      },
      15 * 60_000,
    );
  }
});
