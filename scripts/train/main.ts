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
 *
 * `--train-csv FILE… [--test-csv FILE…]` trains on CLUTRR CSV files (ours or the released ones)
 * instead (csvData.ts): a seeded tenth of the training rows is the per-epoch validation, the
 * test files give the k lines. `--max-seconds N` stops training between two steps after N
 * seconds and saves what it has; `--resume DIR` goes on from a folder this script wrote (its
 * weights, tokeniser and history; the optimiser's moments start afresh).
 *
 * `--keep-best` keeps the weights of the epoch with the best held-out figure instead of the last
 * epoch's; on generated data that figure is then measured on validation rows of their own
 * (data.ts `validation`: another dataset seed), never on the test sets.
 */
import * as tf from '@tensorflow/tfjs';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { useBackend as useModelBackend } from '../../src/ml/backend';
import { CLASSES } from '../../src/ml/encoding';
import { loadModel } from '../../src/ml/load';
import type { ClutrrModel, ModelMetadata, NoiseKind } from '../../src/ml/model';
import { modelFacts, modelKind } from '../../src/ml/modelKinds';
import { DATASET_PRESETS, PRESET_NAMES, type PresetName, unknownPreset } from '../../src/core/puzzle/datasetOptions';
import { parseTaskList } from '../../src/core/puzzle/tasks';
import { filesTraining } from '../../src/ml/train/metadata';
import { scoreExamples } from '../../src/ml/train/score';
import { TRAINERS } from '../../src/ml/train/trainers';
import { type CsvSource, makeCsvData } from './csvData';
import { type Example, makeTrainData, NOISE_KINDS, NOISE_TASK, type TrainData, TRAIN_KS, validationSeed } from './data';
import { describeFolders, writeModelIndex } from './modelIndex';
import type { EpochRecord, ResumeFrom, TrainOptions } from './trainer';

const USAGE = `usage: npm run train -- --model ${Object.keys(TRAINERS).join('|')} [--seed S]
       [--noise ${NOISE_KINDS.join('|')}] [--preset ${PRESET_NAMES.join('|')}|none]
       [--labels family|clutrr] [--bank ours|wide] [--epochs N] [--train-rows N] [--test-rows N]
       [--batch N] [--lr X] [--version V] [--out DIR] [--backend wasm|cpu]
       [--train-csv FILE... [--test-csv FILE...]] [--max-seconds N] [--resume DIR] [--keep-best]
   or: npm run train -- --describe [--out DIR]   (refresh the folders' descriptive facts)`;

const log = (s: string) => process.stderr.write(s);

/** tfjs on `name`; wasm reads its .wasm files from the package's dist folder on disk, never fetched. */
export async function useBackend(name: string): Promise<void> {
  const dist = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
  await useModelBackend(name, dist + path.sep);
}

/** Correct answers of a model on examples, in batches. */
export function score(model: ClutrrModel, examples: readonly Example[], batch = 250): Promise<number> {
  return scoreExamples(model, examples, batch);
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

/** What the command line asks for beyond the trainer's options. */
interface CliOptions extends TrainOptions {
  readonly out?: string;
  /** `--train-csv`: train on these CLUTRR files instead of generated data. */
  readonly trainCsv?: readonly string[];
  readonly testCsv?: readonly string[];
  readonly resume?: string;
}

/** The flags that take every following word up to the next flag (FILE…). */
const FILE_LISTS = ['--train-csv', '--test-csv'] as const;

/** Takes `--train-csv A B --test-csv C` out of argv as lists; the rest is parseArgs's. */
function fileLists(argv: readonly string[]): { rest: string[]; lists: Map<string, string[]> } {
  const rest: string[] = [];
  const lists = new Map<string, string[]>();
  let into: string[] | null = null;
  for (const arg of argv) {
    if ((FILE_LISTS as readonly string[]).includes(arg)) {
      into = lists.get(arg) ?? [];
      lists.set(arg, into);
    } else if (into && !arg.startsWith('--')) into.push(arg);
    else {
      into = null;
      rest.push(arg);
    }
  }
  return { rest, lists };
}

/** Flags that shape generated data, refused beside --train-csv (the files decide those). */
const GENERATION_FLAGS = ['noise', 'preset', 'train-rows', 'test-rows'] as const;

function readOptions(argv: string[]): CliOptions | { describe: true; out?: string } | string {
  const { rest, lists } = fileLists(argv);
  const { values } = parseArgs({
    args: rest,
    options: {
      model: { type: 'string' },
      seed: { type: 'string', default: '1' },
      noise: { type: 'string' },
      preset: { type: 'string' },
      labels: { type: 'string' },
      bank: { type: 'string' },
      epochs: { type: 'string', default: '30' },
      'train-rows': { type: 'string' },
      'test-rows': { type: 'string' },
      batch: { type: 'string', default: '100' },
      lr: { type: 'string', default: '0.001' },
      version: { type: 'string', default: '1' },
      out: { type: 'string' },
      backend: { type: 'string', default: 'wasm' },
      'max-seconds': { type: 'string' },
      resume: { type: 'string' },
      'keep-best': { type: 'boolean' },
      describe: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return USAGE;
  if (values.describe) return { describe: true, ...(values.out ? { out: values.out } : {}) };
  const model = values.model ?? '';
  if (!TRAINERS[model]) return `--model must be one of ${Object.keys(TRAINERS).join(', ')} (got ${model || 'nothing'})`;
  if (!modelKind(model)) return `--model ${model} has no descriptor in src/ml/modelKinds.ts (MODEL_KINDS)`;
  const trainCsv = lists.get('--train-csv');
  const testCsv = lists.get('--test-csv');
  if (trainCsv?.length === 0) return '--train-csv needs at least one CLUTRR CSV file';
  if (testCsv?.length === 0) return '--test-csv needs at least one CLUTRR CSV file';
  if (testCsv && !trainCsv) return '--test-csv goes with --train-csv (generated data makes its own test sets)';
  if (trainCsv) {
    const given = GENERATION_FLAGS.find((f) => values[f] !== undefined);
    if (given) return `--${given} shapes generated data; with --train-csv every row of the files is used as it is`;
  }
  const read = readData(values.noise, values.preset);
  if (typeof read === 'string') return read;
  const { noise, preset } = read;
  // The files' own labels: CLUTRR's, unless the files were made with our family labels.
  const labels = values.labels ?? (trainCsv ? 'clutrr' : 'family');
  if (labels !== 'family' && labels !== 'clutrr') return `--labels must be family or clutrr (got ${labels})`;
  const bank = values.bank ?? 'ours';
  if (bank !== 'ours' && bank !== 'wide') return `--bank must be ours or wide (got ${bank})`;
  if (trainCsv && values.bank !== undefined)
    return '--bank tells generated stories; with --train-csv the files are read as they are';
  const int = (name: string, v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number ≥ 1 (got ${v})`);
    return n;
  };
  const learningRate = Number(values.lr);
  if (!(learningRate > 0)) return `--lr must be a positive number (got ${values.lr})`;
  if (!/^[\w.-]+$/.test(values.version))
    return `--version may hold letters, digits, '.', '_' and '-' only (got ${values.version})`;
  const maxSeconds = values['max-seconds'];
  if (maxSeconds !== undefined && !(Number(maxSeconds) > 0))
    return `--max-seconds must be a positive number of seconds (got ${maxSeconds})`;
  return {
    model,
    seed: values.seed,
    noise,
    preset,
    ...(labels === 'clutrr' ? { labels: 'clutrr' as const } : {}),
    ...(bank === 'wide' ? { bank: 'wide' as const } : {}),
    epochs: int('epochs', values.epochs),
    trainRows: int('train-rows', values['train-rows'] ?? '5000'),
    testRows: int('test-rows', values['test-rows'] ?? '500'),
    batchSize: int('batch', values.batch),
    learningRate,
    version: values.version,
    backend: values.backend,
    ...(maxSeconds !== undefined ? { maxSeconds: Number(maxSeconds) } : {}),
    ...(values.out !== undefined ? { out: values.out } : {}),
    ...(trainCsv ? { trainCsv } : {}),
    ...(testCsv ? { testCsv } : {}),
    ...(values.resume !== undefined ? { resume: values.resume } : {}),
    ...(values['keep-best'] ? { keepBest: true } : {}),
  };
}

/** The folder `--resume` goes on from: its model must be the one asked for. */
function readResume(dir: string, model: string): ResumeFrom {
  const file = (name: string) => path.join(dir, name);
  if (!existsSync(file('model.json')) || !existsSync(file('weights.bin')))
    throw new Error(`--resume ${dir}: no model.json and weights.bin there`);
  const modelJson = JSON.parse(readFileSync(file('model.json'), 'utf8')) as { name?: unknown };
  if (modelJson.name !== model)
    throw new Error(`--resume ${dir}: its model is ${String(modelJson.name)}, not --model ${model}`);
  const bin = readFileSync(file('weights.bin'));
  const meta = existsSync(file('metadata.json'))
    ? (JSON.parse(readFileSync(file('metadata.json'), 'utf8')) as { training?: { history?: EpochRecord[] } })
    : {};
  return {
    modelJson,
    weights: bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength),
    history: meta.training?.history ?? [],
  };
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
  const out = path.resolve(options.out ?? path.join(modelsRoot, options.model, options.version));
  let resume: ResumeFrom | undefined;
  let data: TrainData & { readonly csv?: CsvSource };
  try {
    resume = options.resume === undefined ? undefined : readResume(options.resume, options.model);
    await useBackend(options.backend);
    log(
      `backend ${tf.getBackend()}; model ${options.model}; ${options.trainCsv ? `files ${options.trainCsv.join(', ')}` : `noise ${options.noise}; preset ${options.preset}`}; labels ${options.labels ?? 'family'}; seed ${options.seed}${resume ? `; resuming ${options.resume} after ${resume.history.length} epochs` : ''}\n`,
    );
    log(options.trainCsv ? 'reading data\n' : 'generating data\n');
    data = options.trainCsv
      ? makeCsvData(options.trainCsv, options.testCsv ?? [], options.seed, log)
      : makeTrainData({ ...options, ...(options.keepBest ? { validation: true } : {}), log });
  } catch (e) {
    console.error((e as Error).message);
    return 1;
  }
  const trained = await TRAINERS[options.model]!({ options, data, log, ...(resume ? { resume } : {}) });

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

  const labels = options.labels ?? 'family';
  const extra = {
    ...(options.maxSeconds !== undefined ? { maxSeconds: options.maxSeconds } : {}),
    ...(resume ? { resumedFrom: { epochs: resume.history.length } } : {}),
    // --keep-best on generated data: what the held-out figure of each epoch was measured on.
    ...(options.keepBest && !options.trainCsv
      ? {
          validation: {
            datasetSeed: validationSeed(options.seed),
            rowsPerK: options.testRows,
            ks: TRAIN_KS,
            told: 'with the held-out paraphrases, as the test sets',
          },
        }
      : {}),
  };
  const common = {
    rows: data.train.length,
    epochs: trained.training.history.length,
    batchSize: options.batchSize,
    learningRate: options.learningRate,
    backend: tf.getBackend(),
    seconds: 0,
    ...extra,
    ...trained.training,
  };
  const spec = data.spec;
  const csv = data.csv;
  const training: ModelMetadata['training'] = csv
    ? filesTraining(
        {
          settings: options,
          version: options.version,
          madeBy: '',
          backend: tf.getBackend(),
          labels,
          train: data.train,
          trainFiles: csv.trainFiles,
          validationRows: csv.validationRows,
          testFiles: csv.testFiles,
          accuracy,
          extra,
        },
        trained,
      )
    : {
        noise: options.noise,
        preset: options.preset,
        labels,
        // Only for the wide bank, so that the metadata of a default run keeps its shape.
        ...(options.bank === 'wide' ? { bank: 'wide' } : {}),
        balancedPatterns: spec!.equal,
        tasks: spec!.trainTasks,
        ks: [...new Set(spec!.trainTasks.map((t) => t.k))],
        data: {
          engine: 'src/core/puzzle/dataset.ts',
          family: spec!.family,
          text: `scripts/train/data.ts TEXT_SETTINGS${options.bank === 'wide' ? ', our bank plus its wide files (src/core/text/wideBank.ts)' : ''}`,
        },
        ...common,
        rows: options.trainRows,
      };
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
    training,
    test: csv
      ? { files: csv.testFiles, rows: csv.testFiles.reduce((n, f) => n + f.used, 0), labels, accuracy }
      : {
          tasks: spec!.testTasks,
          rows: options.testRows,
          balancedPatterns: spec!.equal,
          labels,
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
