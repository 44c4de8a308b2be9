import { useEffect, useId, useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { formatBytes } from '../../core/util/format';
import { AccuracyChart } from './AccuracyChart';
import { AccuracyTable } from './AccuracyTable';
import { LlmRun, useLlmRun } from './LlmRun';
import { wilson } from '../../study/results/stats';
import { ModelList } from './ModelList';
import { RobustnessTable } from './RobustnessTable';
import {
  ablationPairs,
  chartSeries,
  type ChartSeries,
  MODEL_SLOTS,
  isMainVersion,
  mainModels,
  NOISE_KINDS,
  NOISE_LABEL,
  REPORT_KS,
  robustnessTable,
  runProgress,
} from './report';
import { SupervisionEffect } from './SupervisionEffect';
import { TrainPanel } from './train/TrainPanel';
import { MAX_ROWS } from './store';
import { useReport } from './useReport';
import './models.css';
import { ViewHeader } from '../../ui/ViewHeader';

function RunForm() {
  const id = useId();
  const form = useReport((s) => s.form);
  const setForm = useReport((s) => s.setForm);
  const start = useReport((s) => s.start);
  const cancel = useReport((s) => s.cancel);
  const running = useReport((s) => s.run.status === 'running');
  const ready = useReport((s) => s.index.status === 'ready');
  return (
    <form
      className="model-report__form"
      aria-label="Evaluation settings"
      onSubmit={(e) => {
        e.preventDefault();
        void start();
      }}
    >
      <label htmlFor={`${id}-rows`}>
        Puzzles per k
        <input
          id={`${id}-rows`}
          type="number"
          min={1}
          max={MAX_ROWS}
          step={1}
          value={Number.isFinite(form.rows) ? form.rows : ''}
          disabled={running}
          data-testid="models-rows"
          onChange={(e) => setForm({ rows: e.currentTarget.valueAsNumber })}
        />
      </label>
      <label htmlFor={`${id}-seed`}>
        Seed
        <input
          id={`${id}-seed`}
          type="text"
          value={form.seed}
          disabled={running}
          data-testid="models-seed"
          spellCheck={false}
          onChange={(e) => setForm({ seed: e.currentTarget.value })}
        />
      </label>
      <label htmlFor={`${id}-noise`}>
        Noise
        <select
          id={`${id}-noise`}
          value={form.noise}
          disabled={running}
          data-testid="models-noise"
          onChange={(e) => setForm({ noise: e.currentTarget.value as (typeof NOISE_KINDS)[number] })}
        >
          {NOISE_KINDS.map((n) => (
            <option key={n} value={n}>
              {NOISE_LABEL[n]}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="model-report__primary" disabled={!ready || running} data-testid="models-run">
        Run in this browser
      </button>
      <button type="button" disabled={!running} onClick={cancel} data-testid="models-cancel">
        Cancel
      </button>
    </form>
  );
}

function RunProgress() {
  const run = useReport((s) => s.run);
  const models = useReport(useShallow((s) => (s.index.status === 'ready' ? s.index.models : [])));
  const perModel = run.settings.rows * REPORT_KS.length;
  const { done, total } = runProgress(run.plan, new Map(Object.entries(run.rowsDone)), perModel);
  const current = models.find((m) => m.id === run.current);
  const step =
    run.status === 'running' && current
      ? run.phase === 'loading'
        ? `Loading ${current.label}: ${formatBytes(run.loadBytes.done)} of ${formatBytes(run.loadBytes.total)}`
        : `Evaluating ${current.label} (${run.plan.indexOf(current.id) + 1} of ${run.plan.length})${run.backend ? ` on ${run.backend}` : ''}: ${run.rowsDone[current.id] ?? 0} of ${perModel} puzzles`
      : '';
  return (
    <div
      className="model-report__progress"
      data-testid="models-progress"
      data-status={run.status}
      data-done={done}
      data-total={total}
    >
      {run.status !== 'idle' && (
        <progress value={done} max={total || 1} aria-label="Puzzles answered by all models">
          {done} of {total}
        </progress>
      )}
      <p role="status" className={run.status === 'error' ? 'model-report__error' : 'hint'}>
        {run.status === 'idle'
          ? 'Not run yet: the figures below are the training script’s until you run.'
          : run.message}
        {step && (
          <>
            <br />
            {step}
          </>
        )}
      </p>
      {Object.keys(run.ms).length > 0 && (
        <p className="hint" data-testid="models-times">
          Time in the worker:{' '}
          {Object.entries(run.ms)
            .map(([id, ms]) => `${id} ${(ms / 1000).toFixed(1)} s (${(ms / perModel).toFixed(1)} ms per puzzle)`)
            .join('; ')}
        </p>
      )}
    </div>
  );
}

/**
 * The model report (`#/models`): the shipped models' accuracy by k on fresh test puzzles,
 * generated and answered in the models worker of this page, beside the training script's own
 * curve and the paper's figures; then the robustness table from every folder's metadata.
 */
export function ModelsView() {
  const open = useReport((s) => s.open);
  const index = useReport((s) => s.index);
  const metadata = useReport((s) => s.metadata);
  const metadataErrors = useReport((s) => s.metadataErrors);
  const counts = useReport((s) => s.run.counts);
  const current = useReport((s) => (s.run.status === 'running' ? s.run.current : null));
  const runSettings = useReport((s) => s.run.settings);
  const ran = useReport((s) => s.run.status !== 'idle');

  useEffect(() => {
    void open();
  }, [open]);

  const all = useMemo(() => (index.status === 'ready' ? index.models : []), [index]);
  const models = useMemo(() => mainModels({ models: all }), [all]);
  const others = useMemo(() => all.filter((m) => !models.includes(m) && !isMainVersion(m.version)), [all, models]);
  // Folders loaded this session (the Train panel) are main versions of a model already shown:
  // listed after the shipped ones.
  const listed = useMemo(
    () => [...models, ...all.filter((m) => !models.includes(m) && isMainVersion(m.version))],
    [all, models],
  );
  const pairs = useMemo(() => ablationPairs(models), [models]);
  const llm = useLlmRun(useShallow((s) => ({ run: s.run, byK: s.byK })));
  const series = useMemo(() => {
    const shipped = chartSeries(models, new Map(Object.entries(counts)), new Map(Object.entries(metadata)));
    // The language model asked here (LlmRun) joins the k curve, with its Wilson intervals.
    const points = llm.byK
      .filter((r) => r.rows > 0)
      .map((r) => {
        const { lo, hi } = wilson(r.correct, r.rows);
        return { k: r.k, value: r.correct / r.rows, lo, hi };
      });
    if (!llm.run || points.length === 0) return shipped;
    const llmSeries: ChartSeries = {
      key: 'llm',
      label: `${llm.run.model} (language model, this browser)`,
      source: 'browser',
      slot: models.length % MODEL_SLOTS,
      group: 'ours',
      points,
    };
    return [...shipped, llmSeries];
  }, [models, counts, metadata, llm]);
  const robustness = useMemo(
    () => robustnessTable({ models: all }, new Map(Object.entries(metadata))),
    [all, metadata],
  );

  return (
    <div className="model-report page" data-testid="models-report">
      <ViewHeader title="Models">
        Each model below says what it reads (the story&apos;s graph of stated facts, or its text), what supervised its
        training (the answer only, or the answer plus every pair&apos;s relation as the rule base derives it), what it
        was trained on and which of the paper&apos;s models it reimplements. They were trained by{' '}
        <code>npm run train</code> on clean k = 2, 3 puzzles of our engine; here they answer fresh puzzles of k = 2 to
        10, drawn and labelled as each one&apos;s training data was, made and answered in a worker of this page (nothing
        is sent anywhere). Seed 1 makes the training script&apos;s own test puzzles, so the two curves should agree (up
        to a few puzzles per k: the paper&apos;s GAT draws its people&apos;s random identities per batch); another seed
        makes new ones.
      </ViewHeader>
      {index.status === 'error' && (
        <p className="model-report__error" role="alert" data-testid="models-error">
          {index.message}
        </p>
      )}
      {index.status === 'loading' && (
        <p className="hint" role="status">
          Reading the model list…
        </p>
      )}
      {index.status === 'ready' && models.length === 0 && (
        <p className="model-report__error" role="alert" data-testid="models-error">
          The model list has no main model (a version without a “-” suffix).
        </p>
      )}
      <ModelList models={listed} others={others} metadata={metadata} />
      <section className="model-report__section" aria-label="Accuracy by k">
        <h2>Accuracy by k</h2>
        <RunForm />
        <RunProgress />
        {ran && (
          <p className="hint">
            This browser: {runSettings.rows} {runSettings.noise} puzzles per k, seed {runSettings.seed}.
          </p>
        )}
        <div className="model-report__results">
          <AccuracyChart series={series} />
          <AccuracyTable models={models} counts={counts} metadata={metadata} current={current} />
        </div>
        <LlmRun />
      </section>
      <SupervisionEffect pairs={pairs} counts={counts} metadata={metadata} />
      {index.status === 'ready' && <RobustnessTable table={robustness} errors={Object.values(metadataErrors)} />}
      <TrainPanel />
    </div>
  );
}
