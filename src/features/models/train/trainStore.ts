import { unzipSync, zipSync } from 'fflate';
import { create } from 'zustand';
import { parseClutrrCsv } from '../../../core/formats/clutrrCsv';
import { bestClass, type ModelIndexEntry } from '../../../ml/model';
import { CLASSES, questionFromRow } from '../../../ml/encoding';
import type { ModelsClient } from '../../../worker/modelsClient';
import { isCancelled } from '../../../worker/rpc';
import type {
  DataFile,
  EpochRecord,
  TestScore,
  TrainBackend,
  TrainClient,
  TrainResult,
} from '../../../worker/trainClient';

/**
 * The Train panel's state (feature-local): files, model and epochs; the run's start facts and
 * its epochs as they stream; the test files' accuracy by k; the model folder's download; and
 * folders loaded back, registered with the models worker for the session (so the puzzle view's
 * "Ask the models", the results comparison and the report list them), each checked by answering
 * the first rows of the test file.
 */

export const DEFAULT_MODEL = 'gat';
export const DEFAULT_EPOCHS = 10;
export const MAX_EPOCHS = 200;
/**
 * Rows of the test file a loaded folder answers as its check, in one call: `cli eval` answers a
 * file 100 rows to a call, and the paper GAT's random identities are drawn per call, so the
 * first 100 rows get the very answers `eval --model-dir` gives the same folder.
 */
export const CHECK_ROWS = 100;

export type TrainStatus = 'idle' | 'training' | 'done' | 'stopped' | 'error';

/** A loaded folder's answers to the first rows of the test file. */
export interface FolderCheck {
  readonly file: string;
  readonly answers: readonly { readonly predicted: string; readonly p: number; readonly gold: string }[];
}

export interface LoadedFolder {
  readonly entry: ModelIndexEntry;
  readonly check: FolderCheck | null;
}

export interface TrainState {
  readonly files: readonly File[];
  readonly model: string;
  readonly epochs: number;
  readonly status: TrainStatus;
  readonly message: string;
  readonly backend: TrainBackend | null;
  readonly webglNote: string | null;
  readonly trainFiles: readonly DataFile[];
  readonly rows: { readonly train: number; readonly validation: number } | null;
  readonly history: readonly EpochRecord[];
  /** The epochs asked for in the run shown. */
  readonly epochsOf: number;
  readonly steps: { readonly done: number; readonly total: number };
  readonly result: TrainResult | null;
  /** The model trained (the run shown). */
  readonly trainedModel: string | null;
  readonly test: {
    readonly status: 'idle' | 'running' | 'done' | 'error';
    readonly byK: readonly TestScore[];
    readonly files: readonly DataFile[];
    readonly message: string;
  };
  readonly testFiles: readonly File[];
  readonly loaded: readonly LoadedFolder[];
  readonly loadMessage: { readonly error: boolean; readonly text: string } | null;
}

export interface TrainActions {
  setFiles(files: readonly File[]): void;
  setModel(model: string): void;
  setEpochs(epochs: number): void;
  start(): Promise<void>;
  cancel(): void;
  testOn(files: readonly File[]): Promise<void>;
  /** The model folder as one zip: `<model>-browser/{model.json, weights.bin, metadata.json}`. */
  folderZip(): Promise<{ name: string; bytes: Uint8Array }>;
  /** Registers a model folder (one zip, or its files) for the session. */
  loadFolder(files: readonly File[]): Promise<void>;
}

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Why the settings cannot run, or null. */
export function trainProblem(s: Pick<TrainState, 'files' | 'epochs'>): string | null {
  if (s.files.length === 0) return 'Drop one or more CLUTRR CSV files to train on first.';
  if (!Number.isInteger(s.epochs) || s.epochs < 1 || s.epochs > MAX_EPOCHS)
    return `Epochs must be a whole number from 1 to ${MAX_EPOCHS}.`;
  return null;
}

/** A folder's files by base name, from one zip or from the files themselves. */
export async function folderFilesOf(
  files: readonly File[],
): Promise<{ name: string; files: Record<string, ArrayBuffer> }> {
  const out: Record<string, ArrayBuffer> = {};
  const base = (p: string) => p.split('/').pop() ?? p;
  const copy = (b: Uint8Array) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  if (files.length === 1 && /\.zip$/i.test(files[0]!.name)) {
    let entries: Record<string, Uint8Array>;
    try {
      entries = unzipSync(new Uint8Array(await files[0]!.arrayBuffer()));
    } catch (e) {
      throw new Error(`${files[0]!.name} is not a zip file (${messageOf(e)})`, { cause: e });
    }
    for (const [path, bytes] of Object.entries(entries)) if (!path.endsWith('/')) out[base(path)] = copy(bytes);
    return { name: files[0]!.name.replace(/\.zip$/i, ''), files: out };
  }
  // A folder chosen whole carries each file's path inside it (not every browser, nor Node, sets it).
  const relative = (f: File): string => ('webkitRelativePath' in f ? f.webkitRelativePath : '');
  for (const f of files) out[base(relative(f) || f.name)] = await f.arrayBuffer();
  const folder = files[0] ? relative(files[0]).split('/')[0] : '';
  return { name: folder || files.map((f) => f.name).join(', '), files: out };
}

/** The first rows of a CLUTRR CSV as model questions with their gold answers. */
async function checkRows(file: File) {
  const rows = parseClutrrCsv(await file.text(), file.name).slice(0, CHECK_ROWS);
  return rows.map((row) => ({ question: questionFromRow(row).question, gold: row.target }));
}

const IDLE_TEST: TrainState['test'] = { status: 'idle', byK: [], files: [], message: '' };

export function createTrainStore(
  train: () => Pick<TrainClient, 'train' | 'test' | 'folder' | 'cancel'>,
  models: () => Pick<ModelsClient, 'register' | 'ensureLoaded' | 'answer'>,
  onRegistered: () => void,
) {
  let generation = 0;
  return create<TrainState & TrainActions>()((set, get) => ({
    files: [],
    model: DEFAULT_MODEL,
    epochs: DEFAULT_EPOCHS,
    status: 'idle',
    message: '',
    backend: null,
    webglNote: null,
    trainFiles: [],
    rows: null,
    history: [],
    epochsOf: 0,
    steps: { done: 0, total: 0 },
    result: null,
    trainedModel: null,
    test: IDLE_TEST,
    testFiles: [],
    loaded: [],
    loadMessage: null,

    setFiles: (files) => set({ files: [...files] }),
    setModel: (model) => set({ model }),
    setEpochs: (epochs) => set({ epochs }),

    async start() {
      const s = get();
      if (s.status === 'training') return;
      const problem = trainProblem(s);
      if (problem) {
        set({ status: 'error', message: problem });
        return;
      }
      const run = ++generation;
      const live = () => run === generation;
      set({
        status: 'training',
        message: `Reading ${s.files.map((f) => f.name).join(', ')}…`,
        backend: null,
        webglNote: null,
        trainFiles: [],
        rows: null,
        history: [],
        epochsOf: s.epochs,
        steps: { done: 0, total: 0 },
        result: null,
        trainedModel: s.model,
        test: IDLE_TEST,
      });
      try {
        const result = await train().train(
          { model: s.model, epochs: s.epochs, files: s.files.map((f) => ({ name: f.name, data: f })) },
          {
            onProgress: (done, total) => live() && set({ steps: { done, total } }),
            onChunk: (c) => {
              if (!live()) return;
              if (c.type === 'start')
                set({
                  backend: c.backend,
                  webglNote: c.webglNote,
                  trainFiles: c.files,
                  rows: { train: c.trainRows, validation: c.validationRows },
                  message: `Training on ${c.trainRows} rows (${c.validationRows} held out for validation) on ${c.backend === 'wasm' ? 'WebAssembly' : c.backend === 'webgl' ? 'WebGL' : 'the CPU'}…`,
                });
              else set((st) => ({ history: [...st.history, c.record] }));
            },
          },
        );
        if (!live()) return;
        set({
          status: result.end === 'stopped' ? 'stopped' : 'done',
          result,
          history: result.history,
          message:
            result.end === 'stopped'
              ? `Stopped after ${result.history.length} epoch${result.history.length === 1 ? '' : 's'}: the model is what it learned so far.`
              : `Done: ${result.history.length} epochs in ${result.seconds.toFixed(1)} s on ${result.backend}.`,
        });
      } catch (e) {
        if (!live() || isCancelled(e)) return;
        set({ status: 'error', message: messageOf(e) });
      }
    },

    cancel() {
      if (get().status !== 'training') return;
      set({ message: 'Stopping after the current step…' });
      void train()
        .cancel()
        .catch(() => {});
    },

    async testOn(files) {
      if (files.length === 0) return;
      set({
        testFiles: [...files],
        test: { ...IDLE_TEST, status: 'running', message: `Testing on ${files.map((f) => f.name).join(', ')}…` },
      });
      try {
        const r = await train().test(files.map((f) => ({ name: f.name, data: f })));
        const rows = r.byK.reduce((n, s) => n + s.rows, 0);
        set({ test: { status: 'done', byK: r.byK, files: r.files, message: `${rows} test rows answered.` } });
      } catch (e) {
        set({ test: { ...IDLE_TEST, status: 'error', message: messageOf(e) } });
      }
    },

    async folderZip() {
      const f = await train().folder();
      const dir = `${f.metadata.model}-browser`;
      const bytes = zipSync({
        [`${dir}/model.json`]: new Uint8Array(f.modelJson),
        [`${dir}/weights.bin`]: new Uint8Array(f.weights),
        [`${dir}/metadata.json`]: new Uint8Array(f.metadataJson),
      });
      return { name: `${dir}.zip`, bytes };
    },

    async loadFolder(files) {
      if (files.length === 0) return;
      set({ loadMessage: { error: false, text: `Loading ${files.map((f) => f.name).join(', ')}…` } });
      try {
        const folder = await folderFilesOf(files);
        const entry = await models().register(folder.name, folder.files);
        onRegistered();
        let check: FolderCheck | null = null;
        const testFile = get().testFiles[0];
        if (testFile) {
          const rows = await checkRows(testFile);
          await models().ensureLoaded(entry.id);
          const { answers } = await models().answer(
            entry.id,
            rows.map((r) => r.question),
          );
          check = {
            file: testFile.name,
            answers: answers.map((a, i) => {
              const c = bestClass(a.probs);
              return { predicted: CLASSES[c]!, p: a.probs[c]!, gold: rows[i]!.gold };
            }),
          };
        }
        set((s) => ({
          loaded: [...s.loaded, { entry, check }],
          loadMessage: {
            error: false,
            text: `Loaded ${entry.label} as ${entry.id}: it answers in “Ask the models”, the results comparison and the report on this page until you leave it.`,
          },
        }));
      } catch (e) {
        set({ loadMessage: { error: true, text: messageOf(e) } });
      }
    },
  }));
}
