import { useBackend } from '../ml/backend';
import { loadModel } from '../ml/load';
import type { ClutrrModel, ModelMetadata } from '../ml/model';
import { modelKind } from '../ml/modelKinds';
import type { Trained } from '../ml/train/context';
import { csvExampleReader, type DataFile, examplesByK, type FileExamples, filesTrainData } from '../ml/train/csvFiles';
import { folderFiles } from '../ml/train/folder';
import { filesMetadata, type FilesRun } from '../ml/train/metadata';
import { scoreExamples } from '../ml/train/score';
import { TRAINERS } from '../ml/train/trainers';
import { type Handlers, installWorker } from './rpc';
import { probeWebgl, workerWasmPaths } from './tfjsEnv';
import type { CsvInput, TestScore, TrainBackend, TrainCommands } from './trainProtocol';

/**
 * The train worker: reads dropped CLUTRR CSV files (src/ml/train/csvFiles.ts, the audit's row
 * reader), trains one model with src/ml/train's trainers on WebGL (a real GPU) or WebAssembly,
 * streams each epoch's figures, and keeps the last model for tests and its folder. It yields
 * between steps, so `cancel` is heard mid-epoch. Tests drive `trainHandlers` in Node.
 */

/** What the worker needs from where it runs (the browser, or a test in Node). */
export interface TrainEnv {
  /** The .wasm files, file name → URL; undefined: the wasm backend is not offered. */
  readonly wasmPaths?: Readonly<Record<string, string>>;
  readonly probeWebgl: () => true | string;
  /** Lets messages in between two steps (a macrotask in a worker). */
  readonly pause: () => Promise<void>;
}

class TrainError extends Error {
  override name = 'TrainError';
}

/** Most epochs a run may ask for. */
export const MAX_EPOCHS = 200;
/** Bytes decoded at a time: the file's bytes, then its rows, never the whole file as text too. */
const SLICE = 1 << 20;
/** A text model's step is packed in parts of at most this many story characters (see TrainSettings.stepChars). */
const STEP_CHARS = 4000;

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** One dropped file's examples and its record (name, rows, k, SHA-256). */
export async function readCsvInput({ name, data }: CsvInput): Promise<FileExamples> {
  const bytes = new Uint8Array(await data.arrayBuffer());
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  const reader = csvExampleReader(name);
  const decoder = new TextDecoder();
  for (let at = 0; at < bytes.length; at += SLICE)
    reader.push(decoder.decode(bytes.subarray(at, at + SLICE), { stream: at + SLICE < bytes.length }));
  reader.push(decoder.decode());
  return reader.end(hex(digest));
}

interface Last {
  readonly trained: Trained;
  readonly run: FilesRun;
  metadata: ModelMetadata;
  model: ClutrrModel | null;
}

export function trainHandlers(env: TrainEnv): Handlers<TrainCommands> {
  let running = false;
  let stop = false;
  let backend: TrainBackend | null = null;
  let last: Last | null = null;

  /** The backend asked for, or the best that starts: WebGL on a real GPU, then wasm, then cpu. */
  const start = async (asked?: TrainBackend): Promise<{ backend: TrainBackend; webglNote: string | null }> => {
    const webgl = asked === undefined || asked === 'webgl' ? safeProbe(env) : 'not asked for';
    const order: TrainBackend[] = asked ? [asked] : ['webgl', 'wasm', 'cpu'];
    const why: string[] = [];
    for (const name of order) {
      if (name === 'webgl' && webgl !== true) {
        why.push(`webgl: ${webgl}`);
        continue;
      }
      if (name === 'wasm' && !env.wasmPaths) {
        why.push('wasm: no .wasm files in this build');
        continue;
      }
      try {
        if (backend !== name) await useBackend(name, name === 'wasm' ? { ...env.wasmPaths } : undefined);
        backend = name;
        return { backend: name, webglNote: webgl === true ? null : webgl };
      } catch (e) {
        why.push(`${name}: ${(e as Error).message}`);
      }
    }
    throw new TrainError(`no tfjs backend started (${why.join('; ')})`);
  };

  const trained = (): Last => {
    if (!last) throw new TrainError('no model has been trained in this page yet');
    return last;
  };

  return {
    train: async (body, ctx) => {
      if (running) throw new TrainError('a model is training already');
      const { model, epochs } = body;
      if (!TRAINERS[model] || !modelKind(model))
        throw new TrainError(`unknown model "${model}" (one of ${Object.keys(TRAINERS).join(', ')})`);
      if (!Number.isInteger(epochs) || epochs < 1 || epochs > MAX_EPOCHS)
        throw new TrainError(`epochs must be a whole number from 1 to ${MAX_EPOCHS} (got ${epochs})`);
      if (body.files.length === 0) throw new TrainError('no training file: drop one or more CLUTRR CSV files');
      running = true;
      stop = false;
      try {
        last?.model?.dispose();
        last = null;
        const seed = body.seed ?? '1';
        const files = [];
        for (const f of body.files) files.push(await readCsvInput(f));
        const { train, dev, validationRows } = filesTrainData(files, seed);
        if (train.length === 0) throw new TrainError('the files hold no row to train on');
        const used = await start(body.backend);
        ctx.chunk({
          type: 'start',
          backend: used.backend,
          webglNote: used.webglNote,
          files: files.map((f) => f.record),
          trainRows: train.length,
          validationRows,
        });
        const settings = {
          model,
          seed,
          epochs,
          batchSize: body.batchSize ?? 100,
          learningRate: body.learningRate ?? 0.001,
          // A text model's step in parts of ≤ 4,000 story characters: a whole batch of 100 took
          // the tab to about 2 GB for lstm-mean on a 10,000-row file; in parts its peak is about
          // 0.77 GB (scripts/bench-train.mjs).
          stepChars: STEP_CHARS,
        };
        const steps = Math.ceil(train.length / settings.batchSize);
        const t0 = performance.now();
        const result = await TRAINERS[model]!({
          options: settings,
          data: { train, dev },
          log: () => {},
          hooks: {
            onStep: (n, done) => ctx.progress((n - 1) * steps + done, epochs * steps),
            onEpoch: (record) => ctx.chunk({ type: 'epoch', record, of: epochs }),
            shouldStop: () => stop,
            between: env.pause,
          },
        });
        const seconds = (performance.now() - t0) / 1000;
        const labels = body.labels ?? 'clutrr';
        const run: FilesRun = {
          settings,
          version: 'browser',
          madeBy: `the Train panel of #/models (${used.backend}): ${model}, ${epochs} epochs, files ${files.map((f) => f.record.name).join(', ')}`,
          backend: used.backend,
          labels,
          train,
          trainFiles: files.map((f) => f.record),
          validationRows,
          testFiles: [],
          accuracy: {},
        };
        const withTime = { ...result, training: { ...result.training, seconds: Math.round(seconds) } };
        last = { trained: withTime, run, metadata: filesMetadata(run, withTime), model: null };
        return { backend: used.backend, history: result.training.history, end: result.end, seconds };
      } finally {
        running = false;
      }
    },

    cancel: () => {
      stop = running;
      return { stopping: running };
    },

    test: async ({ files }) => {
      const l = trained();
      if (running) throw new TrainError('a model is training: test it when it is done');
      if (files.length === 0) throw new TrainError('no test file');
      const read: FileExamples[] = [];
      for (const f of files) read.push(await readCsvInput(f));
      l.model ??= loadModel(l.trained.modelJson, l.trained.weights.slice(0), l.run.settings.model);
      const byK: TestScore[] = [];
      for (const [k, examples] of examplesByK(read)) {
        byK.push({ k, rows: examples.length, correct: await scoreExamples(l.model, examples) });
      }
      const testFiles: DataFile[] = read.map((r) => r.record);
      const accuracy = Object.fromEntries(byK.map((s) => [String(s.k), s.correct / s.rows]));
      l.metadata = filesMetadata({ ...l.run, testFiles, accuracy }, l.trained);
      return { byK, files: testFiles };
    },

    folder: (_body, ctx) => {
      const l = trained();
      const files = folderFiles(l.trained.modelJson, l.trained.weights.slice(0), l.metadata);
      const buf = (b: Uint8Array) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
      const result = {
        modelJson: buf(files['model.json']),
        weights: buf(files['weights.bin']),
        metadataJson: buf(files['metadata.json']),
        metadata: l.metadata,
      };
      ctx.transferResult(result.modelJson, result.weights, result.metadataJson);
      return result;
    },
  };
}

function safeProbe(env: TrainEnv): true | string {
  try {
    return env.probeWebgl();
  } catch (e) {
    return `WebGL probe failed: ${(e as Error).message}`;
  }
}

// Only inside a worker (the tests import this module in Node and build their own handlers).
if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
  installWorker<TrainCommands>(
    trainHandlers({
      wasmPaths: workerWasmPaths(),
      probeWebgl,
      pause: () => new Promise((resolve) => setTimeout(resolve, 0)),
    }),
  );
}
