/**
 * `npm run train -- --describe`: rewrites every shipped folder's descriptive facts (label, reads,
 * supervision, attention, paper model, description) from src/ml/modelKinds.ts, and index.json;
 * nothing measured changes.
 *
 * `npm run train -- --model gat|gat-improved|lstm [--seed S] [--noise clean|supporting|irrelevant|disconnected]
 * [--preset emnlp-systematic|…|none] [--labels family|clutrr] [--epochs N] [--train-rows N] [--test-rows N] [--batch N] [--lr X] [--version V] [--out DIR]
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
import { modelFacts, modelKind } from '../../src/ml/modelKinds';
import { DATASET_PRESETS, PRESET_NAMES, type PresetName, unknownPreset } from '../../src/core/puzzle/datasetOptions';
import { parseTaskList } from '../../src/core/puzzle/tasks';
import { type Example, makeTrainData, NOISE_KINDS, NOISE_TASK } from './data';
import { GAT_MODELS, trainGat } from './gat';
import { LSTM_MODELS, trainLstm } from './lstm';
import { MAC_MODELS, trainMac } from './mac';
import { describeFolders, writeModelIndex } from './modelIndex';
import { RN_MODELS, trainRn } from './rn';
import type { Trainer, TrainOptions } from './trainer';

const TRAINERS: Record<string, Trainer> = {
  ...Object.fromEntries(Object.keys(GAT_MODELS).map((m) => [m, trainGat])),
  ...Object.fromEntries(Object.keys(LSTM_MODELS).map((m) => [m, trainLstm])),
  ...Object.fromEntries(Object.keys(RN_MODELS).map((m) => [m, trainRn])),
  ...Object.fromEntries(Object.keys(MAC_MODELS).map((m) => [m, trainMac])),
};

const USAGE = `usage: npm run train -- --model ${Object.keys(TRAINERS).join('|')} [--seed S]
       [--noise ${NOISE_KINDS.join('|')}] [--preset ${PRESET_NAMES.join('|')}|none]
       [--labels family|clutrr] [--epochs N] [--train-rows N] [--test-rows N]
       [--batch N] [--lr X] [--version V] [--out DIR] [--backend wasm|cpu]
   or: npm run train -- --describe [--out DIR]   (refresh the folders' descriptive facts)`;

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

/** The preset a noise kind's models are trained on by default: the release's shape for that kind. */
export const defaultPreset = (noise: NoiseKind): PresetName =>
  noise === 'clean' ? 'emnlp-systematic' : (`emnlp-robust-${noise}` as PresetName);

/**
 * `--noise` and `--preset` together: either alone decides the other (a preset's noise kind is
 * its training tasks' task id); both must agree. Neither: clean data, `emnlp-systematic`.
 */
export function readData(
  noiseArg: string | undefined,
  presetArg: string | undefined,
): { noise: NoiseKind; preset: PresetName | 'none' } | string {
  if (noiseArg !== undefined && !NOISE_KINDS.includes(noiseArg as NoiseKind))
    return `--noise must be one of ${NOISE_KINDS.join(', ')} (got ${noiseArg})`;
  const noise = (noiseArg ?? 'clean') as NoiseKind;
  if (presetArg === undefined) return { noise, preset: defaultPreset(noise) };
  if (presetArg === 'none') return { noise, preset: 'none' };
  if (!(PRESET_NAMES as string[]).includes(presetArg)) return `${unknownPreset(presetArg)}, none`;
  const preset = presetArg as PresetName;
  const ids = new Set(parseTaskList(DATASET_PRESETS[preset].trainTasks).map((t) => t.task));
  const presetNoise = NOISE_KINDS.find((n) => ids.size === 1 && ids.has(NOISE_TASK[n]));
  if (!presetNoise) return `--preset ${preset} trains on tasks the models do not read`;
  if (noiseArg !== undefined && presetNoise !== noise)
    return `--preset ${preset} trains on ${presetNoise} stories, but --noise says ${noise}`;
  return { noise: presetNoise, preset };
}

function readOptions(argv: string[]): TrainOptions | { describe: true; out?: string } | string {
  const { values } = parseArgs({
    args: argv,
    options: {
      model: { type: 'string' },
      seed: { type: 'string', default: '1' },
      noise: { type: 'string' },
      preset: { type: 'string' },
      labels: { type: 'string', default: 'family' },
      epochs: { type: 'string', default: '30' },
      'train-rows': { type: 'string', default: '5000' },
      'test-rows': { type: 'string', default: '500' },
      batch: { type: 'string', default: '100' },
      lr: { type: 'string', default: '0.001' },
      version: { type: 'string', default: '1' },
      out: { type: 'string' },
      backend: { type: 'string', default: 'wasm' },
      describe: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return USAGE;
  if (values.describe) return { describe: true, ...(values.out ? { out: values.out } : {}) };
  const model = values.model ?? '';
  if (!TRAINERS[model]) return `--model must be one of ${Object.keys(TRAINERS).join(', ')} (got ${model || 'nothing'})`;
  if (!modelKind(model)) return `--model ${model} has no descriptor in src/ml/modelKinds.ts (MODEL_KINDS)`;
  const read = readData(values.noise, values.preset);
  if (typeof read === 'string') return read;
  const { noise, preset } = read;
  if (values.labels !== 'family' && values.labels !== 'clutrr')
    return `--labels must be family or clutrr (got ${values.labels})`;
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
    preset,
    ...(values.labels === 'clutrr' ? { labels: 'clutrr' as const } : {}),
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
  const modelsRoot = path.resolve('public', 'models');
  if ('describe' in read) {
    const root = path.resolve(read.out ?? modelsRoot);
    const changed = describeFolders(root);
    log(
      `${root}: descriptive facts refreshed in ${changed.length ? changed.join(', ') : 'no folder'}; index.json written\n`,
    );
    return 0;
  }
  const options = read;
  const outArg = (options as { out?: string }).out;
  const out = path.resolve(outArg ?? path.join(modelsRoot, options.model, options.version));

  await useBackend(options.backend);
  log(
    `backend ${tf.getBackend()}; model ${options.model}; noise ${options.noise}; preset ${options.preset}; labels ${options.labels ?? 'family'}; seed ${options.seed}\n`,
  );
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
    ...modelFacts(options.model),
    version: options.version,
    seed: options.seed,
    madeBy: `npm run train -- ${argv.join(' ')}`,
    classes: CLASSES,
    encoding: trained.encoding,
    config: trained.config,
    training: {
      noise: options.noise,
      preset: options.preset,
      labels: options.labels ?? 'family',
      balancedPatterns: data.spec.equal,
      tasks: data.spec.trainTasks,
      ks: [...new Set(data.spec.trainTasks.map((t) => t.k))],
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
    test: {
      tasks: data.spec.testTasks,
      rows: options.testRows,
      balancedPatterns: data.spec.equal,
      labels: options.labels ?? 'family',
      accuracy,
    },
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
