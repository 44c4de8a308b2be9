import type {
  ModelAnswer,
  ModelIndex,
  ModelIndexEntry,
  ModelKind,
  ModelMetadata,
  ModelQuestion,
  NoiseKind,
} from '../ml/model';

/**
 * Messages of the models worker (`models.worker.ts`), served through `rpc.ts`. The worker is the
 * only place tfjs runs in the app: it reads the shipped model folders of our own build
 * (`<baseUrl>models/…`), keeps the loaded models on one tfjs backend, and answers questions.
 * Model ids are index.json's `<model>/<version>`.
 */

export type BackendName = 'webgl' | 'wasm' | 'cpu';

/** Whether each backend can run here: true, or a sentence saying why not. */
export interface BackendAvailability {
  readonly webgl: true | string;
  readonly wasm: true | string;
  readonly cpu: true;
}

export interface IndexBody {
  /** The app's base URL, absolute, ending in `/` (models are at `<baseUrl>models/`). */
  readonly baseUrl: string;
}

export interface LoadBody {
  /** `<model>/<version>`, e.g. `gat/1`. */
  readonly id: string;
  readonly baseUrl: string;
}

export interface LoadResult {
  readonly id: string;
  readonly kind: ModelKind;
  readonly backend: BackendName;
  /** Fetching and building the model (ms). */
  readonly loadMs: number;
  /** The one warm-up answer after loading (ms). */
  readonly warmupMs: number;
  readonly weightBytes: number;
}

export interface BackendBody {
  /** Switch to this backend (loaded models are rebuilt on it and warmed up again); omit to ask. */
  readonly name?: BackendName;
}

export interface BackendResult {
  readonly backend: BackendName;
  readonly available: BackendAvailability;
}

export interface AnswerBody {
  readonly id: string;
  readonly questions: readonly ModelQuestion[];
}

export interface AnswerResult {
  /** In question order. */
  readonly answers: readonly ModelAnswer[];
  /** The model's time for the whole batch, inside the worker (ms). */
  readonly ms: number;
  readonly backend: BackendName;
}

export interface EvaluateBody {
  readonly id: string;
  readonly noise: NoiseKind;
  readonly ks: readonly number[];
  /** Test rows per k. */
  readonly rows: number;
  /** The dataset seed: the training script's seed gives its very test rows (the first `rows` of each k). */
  readonly seed: string;
}

export interface KScore {
  readonly k: number;
  readonly rows: number;
  readonly correct: number;
}

export interface EvaluateResult {
  readonly byK: readonly KScore[];
  readonly ms: number;
}

export interface MetadataBody {
  readonly id: string;
  /** Where to read it from when the model is not loaded (default: the last `index` or `load` base URL). */
  readonly baseUrl?: string;
}

export interface MemoryResult {
  /** tf.memory(): tensors alive and their bytes. */
  readonly numTensors: number;
  readonly numBytes: number;
}

export interface BenchBody {
  readonly id: string;
  readonly ks: readonly number[];
  /** Puzzles per k (clean test rows, as `evaluate` makes them). */
  readonly rows: number;
  readonly seed: string;
}

export interface BenchResult {
  /** One model call per puzzle, inside the worker (ms), in k then row order. */
  readonly ms: readonly number[];
  readonly backend: BackendName;
}

/**
 * A model folder the user hands the page (the Train panel's "load a model folder"): its files by
 * name (model.json, weights.bin, metadata.json; others ignored). Registered for the session: the
 * worker lists it after index.json's models, loads it from these bytes and serves its metadata.
 */
export interface RegisterBody {
  /** What to call the folder in messages and its label (a zip's or folder's name). */
  readonly name: string;
  readonly files: Readonly<Record<string, ArrayBuffer>>;
  /** The id to give it (`<model>/<version>`, version without `-`); omit for a fresh `<model>/loaded<n>`. */
  readonly id?: string;
}

export type ModelsCommands = {
  /** Checks a model folder, builds it once, and lists it for the session (see RegisterBody). */
  register: { body: RegisterBody; chunk: never; result: ModelIndexEntry };
  index: { body: IndexBody; chunk: never; result: ModelIndex };
  /** Progress: bytes of weights.bin read so far, of its size. */
  load: { body: LoadBody; chunk: never; result: LoadResult };
  backend: { body: BackendBody; chunk: never; result: BackendResult };
  answer: { body: AnswerBody; chunk: never; result: AnswerResult };
  /** Progress: rows answered of all rows; one chunk per k when its rows are done. */
  evaluate: { body: EvaluateBody; chunk: KScore; result: EvaluateResult };
  metadata: { body: MetadataBody; chunk: never; result: ModelMetadata };
  memory: { body: Record<string, never>; chunk: never; result: MemoryResult };
  /** Latency per puzzle, one puzzle per call (scripts/bench-models.mjs). */
  bench: { body: BenchBody; chunk: never; result: BenchResult };
};
