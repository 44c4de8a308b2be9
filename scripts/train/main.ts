/**
 * `npm run train -- --model gat|gat-improved [--seed S] [--epochs N] [--train-rows N]
 * [--test-rows N] [--out DIR] [--backend wasm|cpu]`: generates clean k = 2, 3 training data with
 * our engine, trains the model, evaluates it on fresh clean test sets for k = 2..10 and writes
 * model.json, weights.bin and metadata.json to the output folder (default
 * public/models/<model>/<version>/). Progress on stderr, results on stdout.
 */
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_FAMILY } from '../../src/core/family/family';
import { type DatasetSpec, generateTaskRows } from '../../src/core/puzzle/dataset';
import type { TaskSpec } from '../../src/core/puzzle/tasks';
import { createRng } from '../../src/core/random/rng';
import {
  batchGraphs,
  CLASSES,
  type GraphBatch,
  graphFromPuzzle,
  NUM_EDGE_TYPES,
  type StoryGraph,
} from '../../src/ml/encoding';
import { evaluate, Gat, GAT_IMPROVED, GAT_PAPER, type GatConfig, saveGat, trainStep } from '../../src/ml/gat';

const MODELS: Record<string, GatConfig> = { gat: GAT_PAPER, 'gat-improved': GAT_IMPROVED };
const TRAIN_KS = [2, 3];
const TEST_KS = [2, 3, 4, 5, 6, 7, 8, 9, 10];

const USAGE = `usage: npm run train -- --model gat|gat-improved [--seed S] [--epochs N] [--train-rows N]
       [--test-rows N] [--batch N] [--lr X] [--version V] [--out DIR] [--backend wasm|cpu]`;

const log = (s: string) => process.stderr.write(s);
const seconds = (t0: number) => (performance.now() - t0) / 1000;

async function useBackend(name: string): Promise<void> {
  if (name === 'wasm') {
    // In Node the .wasm files are read from the package's dist folder on disk, never fetched.
    const dist = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
    setWasmPaths(dist + path.sep);
  }
  if (!(await tf.setBackend(name))) throw new Error(`the ${name} backend did not start`);
  await tf.ready();
}

function batches(graphs: readonly StoryGraph[], size: number, inverseEdges: boolean): GraphBatch[] {
  const out: GraphBatch[] = [];
  for (let i = 0; i < graphs.length; i += size) out.push(batchGraphs(graphs.slice(i, i + size), { inverseEdges }));
  return out;
}

function generate(spec: DatasetSpec, t: TaskSpec, split: 'train' | 'test'): StoryGraph[] {
  const t0 = performance.now();
  const rows = generateTaskRows(spec, t, split);
  log(`  ${split} k=${t.k}: ${rows.length} rows (${seconds(t0).toFixed(1)} s)\n`);
  return rows.map((r) => graphFromPuzzle(r.puzzle));
}

export async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      model: { type: 'string' },
      seed: { type: 'string', default: '1' },
      epochs: { type: 'string', default: '30' },
      'train-rows': { type: 'string', default: '5000' },
      'test-rows': { type: 'string', default: '500' },
      batch: { type: 'string', default: '100' },
      lr: { type: 'string', default: '0.001' },
      version: { type: 'string', default: '1' },
      out: { type: 'string' },
      backend: { type: 'string', default: 'wasm' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const modelName = values.model ?? '';
  const config = MODELS[modelName];
  if (!config) {
    console.error(modelName === 'lstm' ? 'the LSTM is not written yet (issue 11)' : USAGE);
    return 2;
  }
  const int = (name: string, v: string) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number ≥ 1 (got ${v})`);
    return n;
  };
  const epochs = int('epochs', values.epochs);
  const trainRows = int('train-rows', values['train-rows']);
  const testRows = int('test-rows', values['test-rows']);
  const batchSize = int('batch', values.batch);
  const learningRate = Number(values.lr);
  const seed = values.seed;
  const out = path.resolve(values.out ?? path.join('public', 'models', modelName, values.version));

  await useBackend(values.backend);
  log(`backend ${tf.getBackend()}; model ${modelName}; seed ${seed}\n`);

  const clean = (k: number): TaskSpec => ({ task: 1, k });
  const spec: DatasetSpec = {
    seed,
    trainTasks: TRAIN_KS.map(clean),
    testTasks: TEST_KS.map(clean),
    trainRows,
    testRows,
    holdout: 0,
    equal: false,
    family: DEFAULT_FAMILY,
  };
  log('generating data\n');
  const train = spec.trainTasks.flatMap((t) => generate(spec, t, 'train'));
  const tests = new Map(spec.testTasks.map((t) => [t.k, generate(spec, t, 'test')]));

  const model = new Gat(config, `${seed}/init`);
  const optimizer = tf.train.adam(learningRate);
  const rng = createRng(seed, 'train');
  const history: { epoch: number; loss: number; accuracy: number; testAccuracy23: number; seconds: number }[] = [];
  const t0 = performance.now();
  for (let epoch = 1; epoch <= epochs; epoch++) {
    const te = performance.now();
    const order = rng.shuffle([...train]);
    const epochBatches = batches(order, batchSize, config.inverseEdges);
    let lossSum = 0;
    let correct = 0;
    epochBatches.forEach((b, i) => {
      const step = trainStep(model, optimizer, b, rng);
      lossSum += step.loss * b.size;
      correct += step.correct;
      if (i % 5 === 0)
        log(`\r  epoch ${epoch}/${epochs}: batch ${i + 1}/${epochBatches.length} loss ${step.loss.toFixed(3)}`);
    });
    const elapsed = seconds(te);
    const seen = [2, 3].map((k) => tests.get(k)!).flat();
    const r = await evaluate(model, batches(seen, 500, config.inverseEdges), `${seed}/dev/${epoch}`);
    const row = {
      epoch,
      loss: lossSum / train.length,
      accuracy: correct / train.length,
      testAccuracy23: r.correct / r.rows,
      seconds: elapsed,
    };
    history.push(row);
    log(
      `\r  epoch ${epoch}/${epochs}: loss ${row.loss.toFixed(4)}  train acc ${row.accuracy.toFixed(3)}  test k=2,3 acc ${row.testAccuracy23.toFixed(3)}  ${elapsed.toFixed(1)} s\n`,
    );
  }
  const trainingSeconds = seconds(t0);

  const accuracy: Record<string, number> = {};
  for (const [k, graphs] of tests) {
    const r = await evaluate(model, batches(graphs, 500, config.inverseEdges), `${seed}/test/${k}`);
    accuracy[k] = r.correct / r.rows;
    console.log(`k=${k} rows=${r.rows} correct=${r.correct} accuracy=${accuracy[k]!.toFixed(3)}`);
  }

  const { modelJson, weights } = await saveGat(model);
  const metadata = {
    model: modelName,
    version: values.version,
    madeBy: `npm run train -- ${argv.join(' ')}`,
    classes: CLASSES,
    encoding: {
      module: 'src/ml/encoding.ts',
      graph: 'dense padded batches; edge type 0 self-loop, 1..20 relation words, 21..40 inverse edges',
      edgeTypes: NUM_EDGE_TYPES,
      inverseEdges: config.inverseEdges,
    },
    config,
    training: {
      data: { engine: 'src/core/puzzle/dataset.ts', tasks: spec.trainTasks, rows: trainRows, family: spec.family },
      epochs,
      batchSize,
      optimizer: 'adam',
      learningRate,
      gradientClipNorm: 1,
      backend: tf.getBackend(),
      seconds: Math.round(trainingSeconds),
      history,
    },
    seed,
    test: { tasks: spec.testTasks, rows: testRows, accuracy },
  };
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'model.json'), JSON.stringify(modelJson));
  writeFileSync(path.join(out, 'weights.bin'), new Uint8Array(weights));
  writeFileSync(path.join(out, 'metadata.json'), JSON.stringify(metadata, null, 2) + '\n');
  log(
    `wrote ${out} (weights ${(weights.byteLength / 1024).toFixed(0)} KiB; training ${trainingSeconds.toFixed(0)} s)\n`,
  );
  optimizer.dispose();
  model.dispose();
  return 0;
}
