import { create } from 'zustand';
import type { ModelIndexEntry, ModelMetadata, NoiseKind } from '../../ml/model';
import type { ModelsClient } from '../../worker/modelsClient';
import { isCancelled } from '../../worker/rpc';
import { mainModels, REPORT_KS, withCount, type KCount } from './report';

/** The part of the models worker client the report uses (tests pass a fake). */
export type ReportClient = Pick<ModelsClient, 'index' | 'metadata' | 'load' | 'evaluate' | 'reset'>;

export interface RunSettings {
  /** Test puzzles per k. */
  readonly rows: number;
  readonly seed: string;
  readonly noise: NoiseKind;
}

/** 100 rows per k as the paper's test sets; seed 1 is the training script's own test rows. */
export const DEFAULT_SETTINGS: RunSettings = { rows: 100, seed: '1', noise: 'clean' };
export const MAX_ROWS = 1000;

/** Why the settings cannot run, or null. */
export function settingsProblem(s: RunSettings): string | null {
  if (!Number.isInteger(s.rows) || s.rows < 1 || s.rows > MAX_ROWS)
    return `Rows per k must be a whole number from 1 to ${MAX_ROWS}.`;
  if (s.seed.trim() === '') return 'The seed must not be empty.';
  return null;
}

export type RunStatus = 'idle' | 'running' | 'done' | 'cancelled' | 'error';

export interface RunState {
  readonly status: RunStatus;
  /** The settings of the run shown (the form may have changed since). */
  readonly settings: RunSettings;
  /** Model ids in run order. */
  readonly plan: readonly string[];
  readonly current: string | null;
  readonly phase: 'loading' | 'evaluating' | null;
  readonly loadBytes: { readonly done: number; readonly total: number };
  /** Test rows answered, by model id. */
  readonly rowsDone: Readonly<Record<string, number>>;
  readonly counts: Readonly<Record<string, readonly KCount[]>>;
  /** Evaluation time by model id (ms, inside the worker). */
  readonly ms: Readonly<Record<string, number>>;
  readonly backend: string | null;
  readonly message: string;
}

export interface ReportState {
  readonly index:
    | { readonly status: 'idle' | 'loading' }
    | { readonly status: 'ready'; readonly models: readonly ModelIndexEntry[] }
    | { readonly status: 'error'; readonly message: string };
  readonly metadata: Readonly<Record<string, ModelMetadata>>;
  readonly metadataErrors: Readonly<Record<string, string>>;
  readonly form: RunSettings;
  readonly run: RunState;
}

export interface ReportActions {
  /** Reads index.json and every folder's metadata (once; again after an error). */
  open(): Promise<void>;
  /** Reads the model list again (a model folder was loaded for the session); a run in progress keeps going. */
  reload(): Promise<void>;
  setForm(patch: Partial<RunSettings>): void;
  /** Loads each main model in turn and evaluates it on fresh test puzzles of k = 2..10. */
  start(): Promise<void>;
  /** Stops the run (the worker is stopped with its models; counts so far stay). */
  cancel(): void;
}

const IDLE_RUN: RunState = {
  status: 'idle',
  settings: DEFAULT_SETTINGS,
  plan: [],
  current: null,
  phase: null,
  loadBytes: { done: 0, total: 0 },
  rowsDone: {},
  counts: {},
  ms: {},
  backend: null,
  message: '',
};

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The report's state, feature-local, over a models worker client. */
export function createReportStore(client: () => ReportClient, baseUrl: () => string) {
  // Each run gets a number; answers of an older (cancelled) run are dropped.
  let generation = 0;
  return create<ReportState & ReportActions>()((set, get) => ({
    index: { status: 'idle' },
    metadata: {},
    metadataErrors: {},
    form: DEFAULT_SETTINGS,
    run: IDLE_RUN,

    async open() {
      const status = get().index.status;
      if (status === 'loading' || status === 'ready') return;
      set({ index: { status: 'loading' } });
      const base = baseUrl();
      let models: readonly ModelIndexEntry[];
      try {
        const index = await client().index(base);
        if (!index || !Array.isArray(index.models)) throw new Error('it has no "models" list');
        models = index.models;
      } catch (e) {
        set({
          index: {
            status: 'error',
            message: `Could not read the model list ${base}models/index.json: ${messageOf(e)}. The models ship in public/models/ of the build (written by npm run train).`,
          },
        });
        return;
      }
      set({ index: { status: 'ready', models } });
      for (const m of models) {
        try {
          const meta = await client().metadata(m.id, base);
          set((s) => ({ metadata: { ...s.metadata, [m.id]: meta } }));
        } catch (e) {
          set((s) => ({
            metadataErrors: {
              ...s.metadataErrors,
              [m.id]: `${base}models/${m.id}/metadata.json could not be read: ${messageOf(e)}`,
            },
          }));
        }
      }
    },

    async reload() {
      if (get().index.status === 'loading') return;
      set({ index: { status: 'idle' } });
      await get().open();
    },

    setForm: (patch) => set((s) => ({ form: { ...s.form, ...patch } })),

    async start() {
      const index = get().index;
      if (index.status !== 'ready' || get().run.status === 'running') return;
      const settings = get().form;
      const problem = settingsProblem(settings);
      if (problem) {
        set({ run: { ...IDLE_RUN, status: 'error', settings, message: problem } });
        return;
      }
      const plan = mainModels({ models: index.models });
      if (plan.length === 0) {
        set({ run: { ...IDLE_RUN, status: 'error', settings, message: 'The model list has no main model to run.' } });
        return;
      }
      const run = ++generation;
      const live = () => run === generation;
      const patch = (f: (r: RunState) => Partial<RunState>) => {
        if (live()) set((s) => ({ run: { ...s.run, ...f(s.run) } }));
      };
      set({
        run: {
          ...IDLE_RUN,
          status: 'running',
          settings,
          plan: plan.map((m) => m.id),
          message: `Running ${plan.length} model${plan.length === 1 ? '' : 's'} on ${settings.rows} ${settings.noise} puzzles per k…`,
        },
      });
      const base = baseUrl();
      for (const m of plan) {
        if (!live()) return;
        patch(() => ({ current: m.id, phase: 'loading', loadBytes: { done: 0, total: m.weightBytes } }));
        try {
          const loaded = await client().load(
            m.id,
            (done, total) => patch(() => ({ loadBytes: { done, total } })),
            base,
          );
          patch(() => ({ phase: 'evaluating', backend: loaded.backend }));
          const result = await client().evaluate(
            { id: m.id, noise: settings.noise, ks: REPORT_KS, rows: settings.rows, seed: settings.seed },
            {
              onProgress: (done) => patch((r) => ({ rowsDone: { ...r.rowsDone, [m.id]: done } })),
              onChunk: (score) =>
                patch((r) => ({ counts: { ...r.counts, [m.id]: withCount(r.counts[m.id] ?? [], score) } })),
            },
          );
          patch((r) => ({
            counts: { ...r.counts, [m.id]: result.byK.reduce<KCount[]>((acc, c) => withCount(acc, c), []) },
            rowsDone: { ...r.rowsDone, [m.id]: settings.rows * REPORT_KS.length },
            ms: { ...r.ms, [m.id]: result.ms },
          }));
        } catch (e) {
          if (!live() || isCancelled(e)) return;
          patch(() => ({
            status: 'error',
            current: m.id,
            phase: null,
            message: `${m.label} (${m.id}) stopped: ${messageOf(e)}`,
          }));
          return;
        }
      }
      patch((r) => ({
        status: 'done',
        current: null,
        phase: null,
        message: `Done: ${r.plan.length} model${r.plan.length === 1 ? '' : 's'}, ${settings.rows} puzzles per k on ${r.backend ?? 'the worker'}.`,
      }));
    },

    cancel() {
      if (get().run.status !== 'running') return;
      generation++;
      // The worker answers one command at a time; stopping it is the only way to end a long
      // evaluation now. Its loaded models go with it; the next request starts a fresh worker.
      client().reset();
      set((s) => ({
        run: {
          ...s.run,
          status: 'cancelled',
          phase: null,
          message: `Cancelled${s.run.current ? ` during ${s.run.current}` : ''}; the accuracies counted so far stay.`,
        },
      }));
    },
  }));
}
