import { create } from 'zustand';
import { type DatasetPlan, datasetStem, planDataset } from '../../core/formats/datasetFolder';
import { createDatasetPool, type DatasetPool, type DatasetRun } from '../../worker/datasetClient';
import { isCancelled } from '../../worker/rpc';
import type { PreviewRow } from '../../worker/datasetProtocol';
import type { TemplateReading } from '../../worker/templatesClient';
import { matchingPreset, presetValues } from '../../core/puzzle/datasetOptions';
import { saveFile } from '../../ui/saveFile';
import { DEFAULT_FORM, type DatasetField, type DatasetFormValues, type FormErrors, readDatasetForm } from './form';
import type { JobProgress } from './summary';

/**
 * The dataset builder's state. A feature-local store (it lives as long as the page, so a dataset
 * survives a visit to another view); the workers live beside it, outside React.
 */
export type RunStatus = 'idle' | 'running' | 'done' | 'cancelled' | 'failed';

export interface DatasetBuilderState {
  readonly values: DatasetFormValues;
  /** A template file read by the picker (`--templates`); null is our bank. */
  readonly templates: TemplateReading | null;
  /**
   * `--templates-only`: with a template file, a fact none of its paraphrases tells stops the run
   * (its MissingTemplateError naming the fact is the run's error) instead of a plain sentence.
   */
  readonly templatesOnly: boolean;
  readonly errors: FormErrors;
  readonly status: RunStatus;
  /** The engine's message when a run failed (e.g. a GenerationError). */
  readonly runError: string | null;
  readonly plan: DatasetPlan | null;
  readonly progress: Readonly<Record<string, JobProgress>>;
  readonly finished: Readonly<Record<string, boolean>>;
  readonly rowsByJob: Readonly<Record<string, readonly PreviewRow[]>>;
  /** Pattern counts of each finished job, as its worker counted them. */
  readonly patternsByJob: Readonly<Record<string, readonly (readonly [string, number])[]>>;
  /** The last finished run: what the download buttons save. */
  readonly run: DatasetRun | null;
  readonly workers: number;
  readonly startedAt: number | null;
  readonly elapsedMs: number | null;
  readonly download: { readonly busy: 'zip' | 'csv' | null; readonly error: string | null };
}

export interface DatasetBuilderActions {
  /** Starts the workers ahead of the first generation (their start-up then costs the click nothing). */
  warm(): void;
  setValue<F extends DatasetField>(field: F, value: DatasetFormValues[F]): void;
  setTemplates(reading: TemplateReading | null): void;
  setTemplatesOnly(on: boolean): void;
  /** Sets the fields of a preset (`--preset`). */
  applyPreset(name: string): void;
  resetForm(): void;
  generate(): void;
  cancel(): void;
  downloadZip(): Promise<void>;
  downloadCsv(): Promise<void>;
}

/** No run's result: what a fresh builder shows, and what a refused submit goes back to. */
const NO_RESULT: Pick<
  DatasetBuilderState,
  | 'status'
  | 'runError'
  | 'plan'
  | 'progress'
  | 'finished'
  | 'rowsByJob'
  | 'patternsByJob'
  | 'run'
  | 'elapsedMs'
  | 'download'
> = {
  status: 'idle',
  runError: null,
  plan: null,
  progress: {},
  finished: {},
  rowsByJob: {},
  patternsByJob: {},
  run: null,
  elapsedMs: null,
  download: { busy: null, error: null },
};

const INITIAL: DatasetBuilderState = {
  values: DEFAULT_FORM,
  templates: null,
  templatesOnly: false,
  errors: {},
  workers: 0,
  startedAt: null,
  ...NO_RESULT,
};

/** Runs `fn` after the next frame is painted (or after 100 ms in a hidden tab, which paints none). */
function afterPaint(fn: () => void): void {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    fn();
  };
  requestAnimationFrame(() => setTimeout(run, 0));
  setTimeout(run, 100);
}

let pool: DatasetPool | null = null;
const getPool = () => (pool ??= createDatasetPool());
let cancelRun: (() => void) | null = null;
const PROGRESS_FLUSH_MS = 100;
const ROWS_FLUSH_MS = 250;

export const useDatasetBuilder = create<DatasetBuilderState & DatasetBuilderActions>()((set, get) => ({
  ...INITIAL,

  setValue: (field, value) =>
    set((s) => {
      const errors = { ...s.errors };
      delete errors[field];
      return { values: { ...s.values, [field]: value }, errors };
    }),

  setTemplates: (templates) => set({ templates }),

  setTemplatesOnly: (templatesOnly) => set({ templatesOnly }),

  resetForm: () => set({ values: DEFAULT_FORM, templates: null, templatesOnly: false, errors: {} }),

  applyPreset: (name) => {
    const preset = presetValues(name);
    if (!preset) return;
    set((s) => {
      const errors = { ...s.errors };
      for (const field of Object.keys(preset)) delete errors[field as DatasetField];
      return { values: { ...s.values, ...preset }, errors };
    });
  },

  warm: () => getPool().warm(),

  generate: () => {
    if (get().status === 'running') return;
    const reading = readDatasetForm(get().values, { templates: Boolean(get().templates?.source) });
    // config.json names the preset when the fields still hold it, as the CLI's does.
    const preset = matchingPreset(get().values);
    if (!reading.ok) {
      // A refused submit clears the previous result: its status, preview and downloads describe
      // settings that are no longer the form's.
      set({ errors: reading.errors, ...NO_RESULT });
      return;
    }
    const p = getPool();
    const templates = reading.text.synthetic ? undefined : (get().templates?.source ?? undefined);
    // Only with a file's paraphrases (as the CLI, which refuses it with plain sentences).
    const templatesOnly = templates !== undefined && get().templatesOnly;
    const plan = planDataset(reading.spec);
    const startedAt = performance.now();
    set({
      errors: {},
      status: 'running',
      runError: null,
      plan,
      progress: {},
      finished: {},
      rowsByJob: {},
      patternsByJob: {},
      run: null,
      workers: Math.min(p.size, plan.jobs.length),
      startedAt,
      elapsedMs: null,
      download: { busy: null, error: null },
    });
    // Worker messages only fill this buffer; the store (and React) take it in on timers, so
    // however many workers report, the page renders a few times a second, and each render's work
    // does not grow with the rows (the chart uses the workers' pattern counts; the preview slices).
    const buffer = {
      progress: {} as Record<string, JobProgress>,
      rows: {} as Record<string, PreviewRow[]>,
      finished: {} as Record<string, boolean>,
      patterns: {} as Record<string, readonly (readonly [string, number])[]>,
    };
    const timers: { progress: ReturnType<typeof setTimeout> | null; rows: ReturnType<typeof setTimeout> | null } = {
      progress: null,
      rows: null,
    };
    const drop = () => {
      for (const t of [timers.progress, timers.rows]) if (t !== null) clearTimeout(t);
      timers.progress = timers.rows = null;
    };
    const flushProgress = () => {
      timers.progress = null;
      const { progress, finished, patterns } = buffer;
      buffer.progress = {};
      buffer.finished = {};
      buffer.patterns = {};
      set((s) => ({
        progress: { ...s.progress, ...progress },
        finished: { ...s.finished, ...finished },
        patternsByJob: Object.keys(patterns).length > 0 ? { ...s.patternsByJob, ...patterns } : s.patternsByJob,
      }));
    };
    const flushRows = () => {
      timers.rows = null;
      const { rows } = buffer;
      buffer.rows = {};
      set((s) => {
        const rowsByJob = { ...s.rowsByJob };
        for (const [key, more] of Object.entries(rows)) rowsByJob[key] = (rowsByJob[key] ?? []).concat(more);
        return { rowsByJob };
      });
    };
    const flush = () => {
      drop();
      flushProgress();
      flushRows();
    };
    const later = (what: 'progress' | 'rows') => {
      timers[what] ??= setTimeout(
        what === 'progress' ? flushProgress : flushRows,
        what === 'progress' ? PROGRESS_FLUSH_MS : ROWS_FLUSH_MS,
      );
    };
    // The workers start once the page has shown the run starting: the click's render does not
    // compete with a busy worker for the CPU.
    const launch = () => {
      const { promise, cancel } = p.generate(
        reading.spec,
        reading.text,
        {
          onProgress: (job, done, total) => {
            buffer.progress[job.key] = { done, total };
            later('progress');
          },
          onRows: (job, rows) => {
            (buffer.rows[job.key] ??= []).push(...rows);
            later('rows');
          },
          onJobDone: (job, result) => {
            buffer.finished[job.key] = true;
            buffer.patterns[job.key] = result.patterns;
            later('progress');
          },
        },
        templates,
        { templatesOnly },
      );
      cancelRun = cancel;
      promise.then(
        (run) => {
          if (cancelRun !== cancel) return drop();
          cancelRun = null;
          flush();
          set({
            status: 'done',
            run: preset ? { ...run, describe: { ...run.describe, preset } } : run,
            elapsedMs: performance.now() - startedAt,
          });
        },
        (e: Error) => {
          drop();
          if (cancelRun !== cancel) return;
          cancelRun = null;
          set(
            isCancelled(e)
              ? { status: 'cancelled', rowsByJob: {}, patternsByJob: {}, elapsedMs: performance.now() - startedAt }
              : {
                  status: 'failed',
                  runError: e.message,
                  rowsByJob: {},
                  patternsByJob: {},
                  elapsedMs: performance.now() - startedAt,
                },
          );
        },
      );
    };
    const pending = () => {
      // Cancelled before the workers started.
      cancelRun = null;
      set({ status: 'cancelled', elapsedMs: performance.now() - startedAt });
    };
    cancelRun = pending;
    afterPaint(() => {
      if (cancelRun === pending) launch();
    });
  },

  cancel: () => cancelRun?.(),

  downloadZip: async () => {
    const { run, download } = get();
    if (!run || download.busy) return;
    set({ download: { busy: 'zip', error: null } });
    try {
      const zip = await getPool().folderZip(run);
      saveFile([zip], `${datasetStem(run.spec)}.zip`, 'application/zip');
      set({ download: { busy: null, error: null } });
    } catch (e) {
      set({ download: { busy: null, error: `The zip could not be made: ${(e as Error).message}` } });
    }
  },

  downloadCsv: async () => {
    const { run, download } = get();
    if (!run || download.busy) return;
    set({ download: { busy: 'csv', error: null } });
    try {
      const csv = await getPool().allRowsCsv(run);
      saveFile([csv], `${datasetStem(run.spec)}_all.csv`, 'text/csv');
      set({ download: { busy: null, error: null } });
    } catch (e) {
      set({ download: { busy: null, error: `The CSV could not be made: ${(e as Error).message}` } });
    }
  },
}));
