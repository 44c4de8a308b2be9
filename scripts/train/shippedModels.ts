/**
 * What the shipped-model tests check (shipped.test.ts, shipped-2.test.ts), for every folder listed
 * in public/models/index.json: the weights as shipped, loaded the way every user loads them
 * (src/ml/load.ts) on the wasm backend, score exactly the correct counts that metadata.json
 * records on test sets regenerated from its seed, noise kind and row counts (k = 2..10 and the
 * robustness row); and index.json is what the folders say it is.
 *
 * The folders are shared out between two test files of about 8 and 10 minutes on this 2-core
 * machine (19 minutes in all), so that vitest's two workers (vite.config.ts sets two even on 2
 * cores) check the halves side by side, each beside the other test files.
 */
import type { PresetName } from '../../src/core/puzzle/datasetOptions';
import * as tf from '@tensorflow/tfjs';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadModel } from '../../src/ml/load';
import type { ModelIndex, ModelIndexEntry, ModelMetadata } from '../../src/ml/model';
import { modelFacts, requireModelKind } from '../../src/ml/modelKinds';
import { makeTrainData } from './data';
import { score, useBackend } from './main';
import { FACT_KEYS, readModelFolders } from './modelIndex';

const root = path.resolve(__dirname, '..', '..', 'public', 'models');
const indexFile = path.join(root, 'index.json');
const index: ModelIndex = existsSync(indexFile)
  ? (JSON.parse(readFileSync(indexFile, 'utf8')) as ModelIndex)
  : { models: [] };

function read(id: string, file: string): Buffer {
  return readFileSync(path.join(root, id, file));
}

/** Which test file checks a folder: the second checks these kinds (about half the time), the first every other. */
export type ShippedPart = 1 | 2;
const SECOND_PART_KINDS: readonly string[] = ['lstm-mean', 'rn'];
const shippedPart = (entry: ModelIndexEntry): ShippedPart => (SECOND_PART_KINDS.includes(entry.model) ? 2 : 1);

/** The folders of index.json that one part checks. */
const shippedEntries = (part: ShippedPart): readonly ModelIndexEntry[] =>
  index.models.filter((e) => shippedPart(e) === part);

/** Switches tfjs to the wasm backend; returns what switches it back. */
export async function useWasmBackend(): Promise<() => Promise<void>> {
  const backend = tf.getBackend();
  await useBackend('wasm');
  return async () => {
    if (backend) await tf.setBackend(backend);
  };
}

/** A folder's facts and model.json format as shipped, beside what its kind's descriptor says. */
function folderFacts(entry: ModelIndexEntry): {
  facts: Record<string, unknown>;
  described: Record<string, unknown>;
  format: string;
  describedFormat: string;
} {
  const metadata = JSON.parse(read(entry.id, 'metadata.json').toString('utf8')) as ModelMetadata;
  const modelJson = JSON.parse(read(entry.id, 'model.json').toString('utf8')) as { format: string };
  return {
    facts: Object.fromEntries(FACT_KEYS.map((k) => [k, metadata[k]])),
    described: modelFacts(entry.model) as unknown as Record<string, unknown>,
    format: modelJson.format,
    describedFormat: requireModelKind(entry.model).format,
  };
}

/** The correct counts by k and the robustness row the shipped weights score, beside what metadata.json records. */
async function reproduce(entry: ModelIndexEntry): Promise<{
  got: Record<string, number>;
  recorded: Record<string, number>;
  /** The rows of each k's test set, and how many metadata.json says each has. */
  rows: number[];
  recordedRows: number;
  robustness: { test: string; rows: number; accuracy: number }[];
  recordedRobustness: unknown;
}> {
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
    const recorded: Record<string, number> = {};
    const got: Record<string, number> = {};
    const rows: number[] = [];
    for (const [k, examples] of data.tests) {
      rows.push(examples.length);
      recorded[k] = Math.round(metadata.test.accuracy[k]! * examples.length);
      got[k] = await score(model, examples);
    }
    const robustness = [];
    for (const [noise, examples] of data.robustness) {
      robustness.push({
        test: noise,
        rows: examples.length,
        accuracy: (await score(model, examples)) / examples.length,
      });
    }
    return {
      got,
      recorded,
      rows,
      recordedRows: metadata.test.rows,
      robustness,
      recordedRobustness: metadata.robustness,
    };
  } finally {
    model.dispose();
  }
}

/** One check of a part: its test's name, its time limit, and what it asserts (node:assert). */
export interface ShippedCheck {
  readonly name: string;
  readonly timeout?: number;
  readonly run: () => void | Promise<void>;
}

/** The checks of one part's folders (the first part also checks index.json itself). */
export function shippedChecks(part: ShippedPart): ShippedCheck[] {
  const checks: ShippedCheck[] = [];
  if (part === 1) {
    checks.push({
      name: 'index.json lists exactly the model folders',
      run: () => assert.deepEqual(index, readModelFolders(root)),
    });
  }
  for (const entry of shippedEntries(part)) {
    checks.push({
      name: `${entry.id}: metadata.json and model.json say what the descriptor (src/ml/modelKinds.ts) says`,
      run: () => {
        const f = folderFacts(entry);
        assert.deepEqual(f.facts, f.described, 'stale: run npm run train -- --describe');
        assert.equal(f.format, f.describedFormat);
      },
    });
    checks.push({
      name: `${entry.id}: the shipped weights reproduce metadata.json's accuracies`,
      timeout: 15 * 60_000,
      run: async () => {
        const r = await reproduce(entry);
        assert.deepEqual(
          r.rows,
          r.rows.map(() => r.recordedRows),
        );
        assert.deepEqual(r.got, r.recorded);
        assert.deepEqual(r.robustness, r.recordedRobustness);
      },
    });
  }
  return checks;
}
