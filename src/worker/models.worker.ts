import * as tf from '@tensorflow/tfjs';
import { useBackend } from '../ml/backend';
import { loadModel } from '../ml/load';
import { modelKind } from '../ml/modelKinds';
import { readModelFolder } from '../ml/train/folder';
import { dataOptionsFor, testQuestions } from '../ml/testData';
import {
  bestClass,
  type ClutrrModel,
  type ModelIndex,
  type ModelIndexEntry,
  type ModelKind,
  type ModelMetadata,
  type ModelQuestion,
  trainedOn,
} from '../ml/model';
import type {
  BackendAvailability,
  BackendName,
  BackendResult,
  KScore,
  LoadResult,
  ModelsCommands,
} from './modelsProtocol';
import { type Handlers, installWorker, type ServeContext } from './rpc';
import { probeWebgl, workerWasmPaths } from './tfjsEnv';

export { probeWebgl, SOFTWARE_RENDERER, WASM_PATHS } from './tfjsEnv';

/**
 * The models worker: the only code of the app that imports tfjs. It reads model folders from our
 * own build, keeps them on one backend (WebGL on a real GPU, else wasm, else cpu; the user may
 * switch), warms each up once, and answers questions; tests drive `modelsHandlers` in Node.
 * Requests run one at a time (a backend switch must not interleave with an answer).
 */

/** What the worker needs from where it runs (the browser, or a test in Node). */
export interface ModelsEnv {
  readonly fetch: (url: string) => Promise<Response>;
  /** The .wasm files, file name → URL; undefined: the wasm backend is not offered. */
  readonly wasmPaths?: Readonly<Record<string, string>>;
  /** Whether a hardware WebGL context can be made here, or why not. */
  readonly probeWebgl: () => true | string;
}

// ---------------------------------------------------------------------------------------------

interface Loaded {
  readonly id: string;
  readonly kind: ModelKind;
  readonly modelJson: unknown;
  /** Kept to rebuild the model on another backend. */
  readonly weights: ArrayBuffer;
  readonly metadata: ModelMetadata;
  model: ClutrrModel;
}

const ID_RE = /^\w[\w.-]*\/\w[\w.-]*$/;
const ORDER: readonly BackendName[] = ['webgl', 'wasm', 'cpu'];

class ModelsError extends Error {
  override name = 'ModelsError';
}

export function modelsHandlers(env: ModelsEnv): Handlers<ModelsCommands> {
  const loaded = new Map<string, Loaded>();
  let backend: BackendName | null = null;
  let available: BackendAvailability | null = null;
  let lastBase: string | null = null;
  let warmup: ModelQuestion[] | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  /** Folders the user loaded this session (RegisterBody), by id: listed after index.json's. */
  const registered = new Map<
    string,
    { entry: ModelIndexEntry; modelJson: unknown; weights: ArrayBuffer; metadata: ModelMetadata }
  >();

  /** Runs jobs one after another, whatever the order their requests arrive in. */
  const serial =
    <B, C, R>(job: (body: B, ctx: ServeContext<C>) => Promise<R>) =>
    (body: B, ctx: ServeContext<C>): Promise<R> => {
      const run = queue.then(() => job(body, ctx));
      queue = run.catch(() => {});
      return run;
    };

  const availability = (): BackendAvailability => {
    if (!available) {
      let webgl: true | string;
      try {
        webgl = env.probeWebgl();
      } catch (e) {
        webgl = `WebGL probe failed: ${(e as Error).message}`;
      }
      available = {
        webgl,
        wasm: env.wasmPaths ? true : 'no .wasm files in this build',
        cpu: true,
      };
    }
    return available;
  };

  const start = async (name: BackendName): Promise<true | string> => {
    if (availability()[name] !== true) return availability()[name];
    try {
      await useBackend(name, name === 'wasm' ? { ...env.wasmPaths } : undefined);
      return true;
    } catch (e) {
      return (e as Error).message;
    }
  };

  const markUnavailable = (name: BackendName, why: string) => {
    if (name !== 'cpu') available = { ...availability(), [name]: why };
  };

  /** The backend in use; the first call picks the best that starts. */
  const ensureBackend = async (): Promise<BackendName> => {
    if (backend) return backend;
    for (const name of ORDER) {
      const ok = await start(name);
      if (ok === true) return (backend = name);
      markUnavailable(name, ok);
    }
    throw new ModelsError('no tfjs backend started, not even cpu');
  };

  const warmupQuestions = () => (warmup ??= testQuestions('warm-up', 'clean', 3, 1));

  /** Builds a model from its bytes on the current backend and answers once (shaders, wasm pages). */
  const build = async (entry: Omit<Loaded, 'model'>): Promise<{ model: ClutrrModel; warmupMs: number }> => {
    const model = loadModel(entry.modelJson, entry.weights.slice(0), entry.id.split('/')[0]);
    const t0 = performance.now();
    await model.answer(warmupQuestions());
    return { model, warmupMs: performance.now() - t0 };
  };

  const getJson = async (url: string): Promise<unknown> => {
    const r = await env.fetch(url);
    if (!r.ok) throw new ModelsError(`${url}: ${r.status} ${r.statusText}`.trim());
    return r.json();
  };

  /** The bytes of a file, reporting bytes read (of Content-Length, when the server gives it). */
  const getBytes = async (url: string, progress: (done: number, total: number) => void): Promise<ArrayBuffer> => {
    const r = await env.fetch(url);
    if (!r.ok) throw new ModelsError(`${url}: ${r.status} ${r.statusText}`.trim());
    const length = Number(r.headers.get('content-length'));
    if (!r.body) {
      const all = await r.arrayBuffer();
      progress(all.byteLength, all.byteLength);
      return all;
    }
    const reader = r.body.getReader();
    const parts: Uint8Array[] = [];
    let done = 0;
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      parts.push(next.value);
      done += next.value.length;
      progress(done, Math.max(done, length || 0));
    }
    const out = new Uint8Array(done);
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    progress(done, done);
    return out.buffer;
  };

  const folder = (id: string, baseUrl: string) => {
    if (!ID_RE.test(id)) throw new ModelsError(`"${id}" is not a model id (<model>/<version>)`);
    return `${baseUrl}models/${id}/`;
  };

  const model = (id: string): Loaded => {
    const m = loaded.get(id);
    if (!m) throw new ModelsError(`model ${id} is not loaded`);
    return m;
  };

  const backendResult = (): BackendResult => ({ backend: backend!, available: availability() });

  return {
    index: serial(async ({ baseUrl }) => {
      lastBase = baseUrl;
      const shipped = (await getJson(`${baseUrl}models/index.json`)) as ModelIndex;
      if (registered.size === 0 || !Array.isArray(shipped?.models)) return shipped;
      return { ...shipped, models: [...shipped.models, ...[...registered.values()].map((r) => r.entry)] };
    }),

    register: serial(async ({ name, files, id }) => {
      const folder = readModelFolder(new Map(Object.entries(files).map(([f, b]) => [f, new Uint8Array(b)])), name);
      const { metadata } = folder;
      const kind = modelKind(metadata.model);
      if (!kind) throw new ModelsError(`${name}: its model "${metadata.model}" is not one this app knows`);
      let n = registered.size + 1;
      while (registered.has(`${metadata.model}/loaded${n}`)) n++;
      const modelId = id ?? `${metadata.model}/loaded${n}`;
      if (!ID_RE.test(modelId) || modelId.split('/')[1]!.includes('-'))
        throw new ModelsError(`"${modelId}" is not a session model id (<model>/<version without ->)`);
      // Built once here, so a folder that cannot load is refused now rather than when asked.
      await ensureBackend();
      try {
        loadModel(folder.modelJson, folder.weights.slice(0), metadata.model).dispose();
      } catch (e) {
        throw new ModelsError(`${name} is not a model folder this app can load: ${(e as Error).message}`);
      }
      const entry: ModelIndexEntry = {
        id: modelId,
        model: metadata.model,
        version: modelId.split('/')[1]!,
        kind: metadata.kind,
        label: `${metadata.label ?? kind.label} (loaded: ${name})`,
        reads: metadata.reads ?? kind.reads,
        supervision: metadata.supervision ?? kind.supervision,
        attention: metadata.attention ?? kind.attention,
        paperModel: metadata.paperModel === undefined ? kind.paperModel : metadata.paperModel,
        description: metadata.description ?? kind.description,
        trainedOn: trainedOn(metadata),
        weightBytes: folder.weights.byteLength,
      };
      registered.set(modelId, { entry, modelJson: folder.modelJson, weights: folder.weights, metadata });
      return entry;
    }),

    load: serial(async ({ id, baseUrl }, ctx): Promise<LoadResult> => {
      const t0 = performance.now();
      const dir = folder(id, baseUrl);
      lastBase = baseUrl;
      await ensureBackend();
      const old = loaded.get(id);
      if (old) {
        loaded.delete(id);
        old.model.dispose();
      }
      const session = registered.get(id);
      if (session) ctx.progress(session.weights.byteLength, session.weights.byteLength);
      const [modelJson, metadata, weights] = session
        ? [session.modelJson, session.metadata, session.weights]
        : await Promise.all([
            getJson(`${dir}model.json`),
            getJson(`${dir}metadata.json`) as Promise<ModelMetadata>,
            getBytes(`${dir}weights.bin`, ctx.progress),
          ]);
      const entry = { id, kind: metadata.kind, modelJson, weights, metadata };
      const loadMs = performance.now() - t0;
      const { model, warmupMs } = await build(entry);
      loaded.set(id, { ...entry, model });
      return { id, kind: entry.kind, backend: backend!, loadMs, warmupMs, weightBytes: weights.byteLength };
    }),

    backend: serial(async ({ name }) => {
      const current = await ensureBackend();
      if (!name || name === current) return backendResult();
      if (!ORDER.includes(name)) throw new ModelsError(`unknown backend "${String(name)}"`);
      const why = availability()[name];
      if (why !== true) throw new ModelsError(`the ${name} backend is not available: ${why}`);
      const entries = [...loaded.values()];
      for (const e of entries) e.model.dispose();
      const ok = await start(name);
      if (ok !== true) {
        markUnavailable(name, ok);
        await start(current);
      } else backend = name;
      for (const e of entries) e.model = (await build(e)).model;
      if (ok !== true) throw new ModelsError(ok);
      return backendResult();
    }),

    answer: serial(async ({ id, questions }) => {
      const m = model(id);
      const t0 = performance.now();
      const answers = await m.model.answer(questions);
      return { answers, ms: performance.now() - t0, backend: backend! };
    }),

    evaluate: serial(async ({ id, noise, ks, rows, seed }, ctx) => {
      const m = model(id);
      const t0 = performance.now();
      const total = ks.length * rows;
      const byK: KScore[] = [];
      let done = 0;
      const BATCH = 50;
      // Rows drawn and labelled as the model's training data was (its preset's balanced
      // patterns, CLUTRR's labels), so seed 1 gives the training script's own test rows.
      const options = dataOptionsFor(m.metadata.training ?? {});
      for (const k of ks) {
        // Paraphrases split by the model's own training seed: held out from it whatever `seed` is.
        const questions = testQuestions(seed, noise, k, rows, m.metadata.seed, options);
        let correct = 0;
        for (let i = 0; i < questions.length; i += BATCH) {
          const part = questions.slice(i, i + BATCH);
          const answers = await m.model.answer(part);
          answers.forEach((a, j) => {
            if (bestClass(a.probs) === part[j]!.graph.label) correct++;
          });
          done += part.length;
          ctx.progress(done, total);
        }
        const score = { k, rows, correct };
        byK.push(score);
        ctx.chunk(score);
      }
      return { byK, ms: performance.now() - t0 };
    }),

    metadata: serial(async ({ id, baseUrl }) => {
      const m = loaded.get(id) ?? registered.get(id);
      if (m) return m.metadata;
      const base = baseUrl ?? lastBase;
      if (!base) throw new ModelsError(`model ${id} is not loaded and no base URL is known`);
      return (await getJson(`${folder(id, base)}metadata.json`)) as ModelMetadata;
    }),

    memory: serial(async () => {
      await ensureBackend();
      const { numTensors, numBytes } = tf.memory();
      return { numTensors, numBytes };
    }),

    bench: serial(async ({ id, ks, rows, seed }) => {
      const m = model(id);
      const ms: number[] = [];
      for (const k of ks) {
        for (const q of testQuestions(seed, 'clean', k, rows)) {
          const t0 = performance.now();
          await m.model.answer([q]);
          ms.push(performance.now() - t0);
        }
      }
      return { ms, backend: backend! };
    }),
  };
}

// Only inside a worker (the tests import this module in Node and build their own handlers).
if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
  installWorker<ModelsCommands>(
    modelsHandlers({
      fetch: (url) => fetch(url),
      wasmPaths: workerWasmPaths(),
      probeWebgl,
    }),
  );
}
