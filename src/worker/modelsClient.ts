import { CLASSES } from '../ml/encoding';
import type { ModelIndex, ModelIndexEntry, ModelMetadata, ModelQuestion } from '../ml/model';
import { modelKind, paperModelText, READS_TEXT, SUPERVISION_TEXT, trainedOnText } from '../ml/modelKinds';

// What the views need of src/ml besides the worker (pure code, no tfjs).
export { questionFromPuzzle } from '../ml/encoding';
export type { ModelAnswer, ModelIndex, ModelIndexEntry, ModelQuestion } from '../ml/model';
import type {
  AnswerResult,
  BackendName,
  BackendResult,
  BenchBody,
  BenchResult,
  EvaluateBody,
  EvaluateResult,
  KScore,
  LoadResult,
  MemoryResult,
  ModelsCommands,
  RegisterBody,
} from './modelsProtocol';
import { RpcClient, type WorkerLike } from './rpc';

/**
 * The page's side of the models worker: typed promises over `modelsProtocol.ts`. The worker (and
 * with it tfjs, a few hundred kB) starts on the first request, so nothing of it loads until a
 * view asks the models something. Use the shared `modelsClient()`.
 */
export class ModelsClient {
  private readonly rpc: RpcClient<ModelsCommands>;
  /** The models the current worker has loaded (or is loading); a new worker has none. */
  private readonly loaded = new Map<string, Promise<LoadResult>>();
  /** Folders registered this session, with their ids: handed again to each new worker. */
  private readonly registered = new Map<string, RegisterBody & { readonly id: string }>();

  constructor(spawn: () => WorkerLike) {
    this.rpc = new RpcClient<ModelsCommands>(spawn, 'models worker', (rpc) => {
      this.loaded.clear();
      // A fresh worker (after a cancel or a crash) knows the session's folders again before
      // any other request (the worker answers one request at a time, in order).
      for (const body of this.registered.values()) void rpc.request('register', body).promise.catch(() => {});
    });
  }

  /**
   * Lists a model folder for this page's session (model.json, weights.bin, metadata.json by
   * name): after it, `index()` includes it, and `load`/`answer`/`metadata` serve it, for every
   * view. Rejects, saying why, a folder that is not a model folder.
   */
  async register(name: string, files: Readonly<Record<string, ArrayBuffer>>): Promise<ModelIndexEntry> {
    const entry = await this.rpc.request('register', { name, files }).promise;
    this.registered.set(entry.id, { name, files, id: entry.id });
    return entry;
  }

  /** public/models/index.json of this build. */
  index(baseUrl = appBaseUrl()): Promise<ModelIndex> {
    return this.rpc.request('index', { baseUrl }).promise;
  }

  /** Loads (or reloads) one model folder and warms it up; `onProgress` hears weights.bin's bytes. */
  load(id: string, onProgress?: (bytes: number, total: number) => void, baseUrl = appBaseUrl()): Promise<LoadResult> {
    const p = this.rpc.request('load', { id, baseUrl }, { onProgress }).promise;
    this.loaded.set(id, p);
    p.catch(() => {
      if (this.loaded.get(id) === p) this.loaded.delete(id);
    });
    return p;
  }

  /**
   * Loads a model unless this worker already has it (or is loading it). Views share the worker,
   * and one may restart it (a cancelled evaluation): asking through here reloads what went.
   */
  ensureLoaded(
    id: string,
    onProgress?: (bytes: number, total: number) => void,
    baseUrl = appBaseUrl(),
  ): Promise<LoadResult> {
    this.rpc.warm(); // a worker stopped or crashed since is replaced now, and forgets its models
    return this.loaded.get(id) ?? this.load(id, onProgress, baseUrl);
  }

  /** The backend in use and which ones could run; with `name`, switches (loaded models follow). */
  backend(name?: BackendName): Promise<BackendResult> {
    return this.rpc.request('backend', name ? { name } : {}).promise;
  }

  answer(id: string, questions: readonly ModelQuestion[]): Promise<AnswerResult> {
    return this.rpc.request('answer', { id, questions }).promise;
  }

  /** Accuracy by k on fresh test puzzles made in the worker; one chunk per k as it finishes. */
  evaluate(
    body: EvaluateBody,
    on: { onProgress?: (done: number, total: number) => void; onChunk?: (score: KScore) => void } = {},
  ): Promise<EvaluateResult> {
    return this.rpc.request('evaluate', body, on).promise;
  }

  metadata(id: string, baseUrl?: string): Promise<ModelMetadata> {
    return this.rpc.request('metadata', baseUrl ? { id, baseUrl } : { id }).promise;
  }

  /** tf.memory() inside the worker. */
  memory(): Promise<MemoryResult> {
    return this.rpc.request('memory', {}).promise;
  }

  bench(body: BenchBody): Promise<BenchResult> {
    return this.rpc.request('bench', body).promise;
  }

  /** Stops the worker (its models go with it); the next request starts a fresh one. */
  reset(): void {
    this.rpc.reset();
  }
}

let shared: ModelsClient | null = null;

/** The app's one models worker client, made on first use. */
export function modelsClient(): ModelsClient {
  shared ??= new ModelsClient(
    () => new Worker(new URL('./models.worker.ts', import.meta.url), { type: 'module', name: 'models' }),
  );
  return shared;
}

/** The app's base URL, absolute (the build uses relative paths: it may be served under any folder). */
export function appBaseUrl(): string {
  return new URL(import.meta.env.BASE_URL, document.baseURI).href;
}

/** The app's main models: versions without a `-<noise>` suffix (those are robustness variants). */
export function mainModels(index: ModelIndex): ModelIndexEntry[] {
  return index.models.filter((m) => !m.version.includes('-'));
}

export interface Ranked {
  readonly word: (typeof CLASSES)[number];
  readonly p: number;
}

/**
 * What a model is, in words, for the views outside the model report (the ask panel, the results
 * dashboard): what it reads, what supervised its training (naming the model it is an ablation
 * of), what it was trained on, which paper model it reimplements. From the index entry, which
 * carries its descriptor's facts (src/ml/modelKinds.ts).
 */
export function modelFactsText(
  m: Pick<ModelIndexEntry, 'model' | 'reads' | 'supervision' | 'paperModel' | 'trainedOn'>,
): [string, string][] {
  const of = modelKind(m.model)?.ablationOf;
  const ablation = of ? ` (ablation of ${modelKind(of)?.label ?? of})` : '';
  return [
    ['Reads', READS_TEXT[m.reads] ?? m.reads],
    ['Supervised by', `${SUPERVISION_TEXT[m.supervision] ?? m.supervision}${ablation}`],
    ['Trained on', trainedOnText(m.trainedOn)],
    ['Paper model', paperModelText(m.paperModel)],
  ];
}

/** The `n` most probable answers, most probable first (ties in class order). */
export function topAnswers(probs: ArrayLike<number>, n = 5): Ranked[] {
  return CLASSES.map((word, i) => ({ word, p: probs[i] ?? 0, i }))
    .sort((a, b) => b.p - a.p || a.i - b.i)
    .slice(0, n)
    .map(({ word, p }) => ({ word, p }));
}

/** The median of some numbers (NaN for none). */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
