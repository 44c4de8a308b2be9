/**
 * `npm run train -- --model gat|gat-improved|lstm [--seed S] [--noise clean|supporting|irrelevant|disconnected]
 * [--epochs N] [--train-rows N] [--test-rows N] [--batch N] [--lr X] [--version V] [--out DIR]
 * [--backend wasm|cpu]`: generates k = 2, 3 training data of one noise kind with our engine
 * (data.ts), trains the model (gat.ts, lstm.ts), loads the written weights back and evaluates
 * them on fresh test sets (k = 2..10 of the training noise kind; k = 2, 3 of every noise kind
 * for the robustness row), and writes model.json, weights.bin and metadata.json to the output
 * folder (default public/models/<model>/<version>/), then refreshes public/models/index.json.
 * Progress on stderr; one `k=<k> rows=<n> correct=<n> accuracy=<x>` line per test k on stdout.
 */
import * as tf from '@tensorflow/tfjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { useBackend as useModelBackend } from '../../src/ml/backend';
import { CLASSES } from '../../src/ml/encoding';
import { loadModel } from '../../src/ml/load';
import { bestClass, type ClutrrModel, type ModelMetadata, type NoiseKind } from '../../src/ml/model';
import { type Example, makeTrainData, NOISE_KINDS, TRAIN_KS } from './data';
import { GAT_MODELS, trainGat } from './gat';
import { trainLstm } from './lstm';
import { writeModelIndex } from './modelIndex';
import type { Trainer, TrainOptions } from './trainer';

const TRAINERS: Record<string, Trainer> = {
  ...Object.fromEntries(Object.keys(GAT_MODELS).map((m) => [m, trainGat])),
  lstm: trainLstm,
};

const USAGE = `usage: npm run train -- --model ${Object.keys(TRAINERS).join('|')} [--seed S]
       [--noise ${NOISE_KINDS.join('|')}] [--epochs N] [--train-rows N] [--test-rows N]
       [--batch N] [--lr X] [--version V] [--out DIR] [--backend wasm|cpu]`;

const log = (s: string) => process.stderr.write(s);

/** tfjs on `name`; wasm reads its .wasm files from the package's dist folder on disk, never fetched. */
export async function useBackend(name: string): Promise<void> {
  const dist = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
  await useModelBackend(name, dist + path.sep);
}

/** Correct answers of a model on examples, in batches. */
export async function score(model: ClutrrModel, examples: readonly Example[], batch = 250): Promise<number> {
  let correct = 0;
  for (let i = 0; i < examples.length; i += batch) {
    const part = examples.slice(i, i + batch);
    const answers = await model.answer(part.map((e) => e.question));
    answers.forEach((a, j) => {
      if (bestClass(a.probs) === part[j]!.question.graph.label) correct++;
    });
  }
  return correct;
}

function readOptions(argv: string[]): TrainOptions | string {
  const { values } = parseArgs({
    args: argv,
    options: {
      model: { type: 'string' },
      seed: { type: 'string', default: '1' },
      noise: { type: 'string', default: 'clean' },
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
  if (values.help) return USAGE;
  const model = values.model ?? '';
  if (!TRAINERS[model]) return `--model must be one of ${Object.keys(TRAINERS).join(', ')} (got ${model || 'nothing'})`;
  const noise = values.noise as NoiseKind;
  if (!NOISE_KINDS.includes(noise)) return `--noise must be one of ${NOISE_KINDS.join(', ')} (got ${values.noise})`;
  const int = (name: string, v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number ≥ 1 (got ${v})`);
    return n;
  };
  const learningRate = Number(values.lr);
  if (!(learningRate > 0)) return `--lr must be a positive number (got ${values.lr})`;
  if (!/^[\w.-]+$/.test(values.version))
    return `--version may hold letters, digits, '.', '_' and '-' only (got ${values.version})`;
  return {
    model,
    seed: values.seed,
    noise,
    epochs: int('epochs', values.epochs),
    trainRows: int('train-rows', values['train-rows']),
    testRows: int('test-rows', values['test-rows']),
    batchSize: int('batch', values.batch),
    learningRate,
    version: values.version,
    backend: values.backend,
    out: values.out,
  } as TrainOptions & { out?: string };
}

export async function main(argv: string[]): Promise<number> {
  let read: ReturnType<typeof readOptions>;
  try {
    read = readOptions(argv);
  } catch (e) {
    console.error((e as Error).message);
    return 2;
  }
  if (typeof read === 'string') {
    if (read === USAGE) console.log(USAGE);
    else console.error(`${read}\n${USAGE}`);
    return read === USAGE ? 0 : 2;
  }
  const options = read;
  const modelsRoot = path.resolve('public', 'models');
  const outArg = (options as { out?: string }).out;
  const out = path.resolve(outArg ?? path.join(modelsRoot, options.model, options.version));

  await useBackend(options.backend);
  log(`backend ${tf.getBackend()}; model ${options.model}; noise ${options.noise}; seed ${options.seed}\n`);
  log('generating data\n');
  const data = makeTrainData({ ...options, log });
  const trained = await TRAINERS[options.model]!({ options, data, log });

  // Evaluate the weights as written, loaded back the way every user of them loads them.
  const model = loadModel(trained.modelJson, trained.weights.slice(0), options.model);
  const accuracy: Record<string, number> = {};
  for (const [k, examples] of data.tests) {
    const correct = await score(model, examples);
    accuracy[k] = correct / examples.length;
    console.log(`k=${k} rows=${examples.length} correct=${correct} accuracy=${accuracy[k]!.toFixed(3)}`);
  }
  const robustness: { test: NoiseKind; rows: number; accuracy: number }[] = [];
  for (const [noise, examples] of data.robustness) {
    const correct = await score(model, examples);
    robustness.push({ test: noise, rows: examples.length, accuracy: correct / examples.length });
    log(`  robustness: trained ${options.noise}, tested ${noise} k=2,3: ${(correct / examples.length).toFixed(3)}\n`);
  }
  model.dispose();

  const metadata: ModelMetadata = {
    model: options.model,
    kind: trained.kind,
    label: trained.label,
    version: options.version,
    seed: options.seed,
    madeBy: `npm run train -- ${argv.join(' ')}`,
    classes: CLASSES,
    encoding: trained.encoding,
    config: trained.config,
    training: {
      noise: options.noise,
      tasks: data.spec.trainTasks,
      ks: TRAIN_KS,
      rows: options.trainRows,
      epochs: options.epochs,
      batchSize: options.batchSize,
      learningRate: options.learningRate,
      backend: tf.getBackend(),
      data: {
        engine: 'src/core/puzzle/dataset.ts',
        family: data.spec.family,
        text: 'scripts/train/data.ts TEXT_SETTINGS',
      },
      seconds: 0,
      ...trained.training,
    },
    test: { tasks: data.spec.testTasks, rows: options.testRows, accuracy },
    robustness,
  };
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'model.json'), JSON.stringify(trained.modelJson));
  writeFileSync(path.join(out, 'weights.bin'), new Uint8Array(trained.weights));
  writeFileSync(path.join(out, 'metadata.json'), JSON.stringify(metadata, null, 2) + '\n');
  log(`wrote ${out} (weights ${(trained.weights.byteLength / 1024).toFixed(0)} KiB)\n`);
  if (path.dirname(path.dirname(out)) === modelsRoot) writeModelIndex(modelsRoot);
  return 0;
}
