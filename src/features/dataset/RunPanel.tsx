import { useMemo } from 'react';
import { datasetStem } from '../../core/formats/datasetFolder';
import { useDatasetBuilder } from './store';
import { formatCount as fmt } from '../../core/util/format';
import { countsPerK, factsToldSummary, fellBackToPlain, totalDone } from './summary';

const secs = (ms: number | null) => (ms === null ? '' : `${(ms / 1000).toFixed(1)} s`);

/** Progress of the current run, the live count per k, the run's error, and the downloads. */
export function RunPanel() {
  const status = useDatasetBuilder((s) => s.status);
  const plan = useDatasetBuilder((s) => s.plan);
  const progress = useDatasetBuilder((s) => s.progress);
  const finished = useDatasetBuilder((s) => s.finished);
  const workers = useDatasetBuilder((s) => s.workers);
  const elapsed = useDatasetBuilder((s) => s.elapsedMs);
  const runError = useDatasetBuilder((s) => s.runError);
  const run = useDatasetBuilder((s) => s.run);
  const download = useDatasetBuilder((s) => s.download);
  const downloadZip = useDatasetBuilder((s) => s.downloadZip);
  const downloadCsv = useDatasetBuilder((s) => s.downloadCsv);

  const perK = useMemo(
    () => (plan ? countsPerK(plan, progress, finished).filter((c) => c.planned > 0) : []),
    [plan, progress, finished],
  );
  const done = plan ? totalDone(plan, progress, finished) : 0;
  const total = plan?.totalRows ?? 0;

  const refused = useDatasetBuilder((s) => Object.keys(s.errors).length > 0);
  const statusText =
    status === 'idle'
      ? refused
        ? 'Not generated: fix the settings listed by Generate.'
        : 'No dataset yet: choose settings and press Generate.'
      : status === 'running'
        ? `Generating ${fmt(total)} rows with ${workers} worker${workers === 1 ? '' : 's'}…`
        : status === 'done'
          ? `Done: ${fmt(total)} rows in ${secs(elapsed)}${run ? `; text: ${run.renderer}` : ''}.`
          : status === 'cancelled'
            ? `Cancelled after ${secs(elapsed)}; nothing was kept.`
            : 'Generation stopped: see the message below.';

  return (
    <section className="dataset__run" aria-labelledby="ds-run-title">
      <h2 id="ds-run-title">Generation</h2>
      <p className="dataset__status" role="status" data-testid="dataset-status" data-status={status}>
        {statusText}
      </p>
      {plan && (
        <div className="dataset__progress-row">
          <progress
            data-testid="dataset-progress"
            aria-label="Rows generated"
            max={Math.max(1, total)}
            value={done}
            data-done={done}
            data-total={total}
          />
          <span className="dataset__progress-text" aria-hidden="true">
            {fmt(done)} / {fmt(total)}
          </span>
        </div>
      )}
      {perK.length > 0 && (
        <ul className="dataset__per-k" aria-label="Rows per k" data-testid="dataset-count-k">
          {perK.map((c) => (
            <li key={c.k} data-k={c.k} data-done={c.done}>
              <span className="dataset__k">k = {c.k}</span> {fmt(c.done)} / {fmt(c.planned)}
            </li>
          ))}
        </ul>
      )}
      {status === 'done' && run && (
        <p
          className="hint"
          data-testid="dataset-facts-told"
          data-file={run.told.file}
          data-bank={run.told.bank}
          data-plain={run.told.plain}
        >
          {factsToldSummary(run.told)}
          {fellBackToPlain(run.told) && ' Facts no paraphrase tells were written as plain sentences.'}
        </p>
      )}
      {runError && (
        <div className="dataset__alert" role="alert" data-testid="dataset-run-error">
          <strong>The engine could not make this dataset.</strong> {runError}
        </div>
      )}
      <div className="dataset__actions">
        <button
          type="button"
          data-testid="dataset-download-zip"
          disabled={!run || download.busy !== null}
          onClick={() => void downloadZip()}
        >
          {download.busy === 'zip' ? 'Zipping…' : 'Download dataset folder (.zip)'}
        </button>
        <button
          type="button"
          data-testid="dataset-download-csv"
          disabled={!run || download.busy !== null}
          onClick={() => void downloadCsv()}
        >
          {download.busy === 'csv' ? 'Writing…' : 'Download all rows (.csv)'}
        </button>
      </div>
      {run && (
        <p className="hint">
          The zip holds <code>{datasetStem(run.spec)}/</code> with {run.plan.files.map((f) => f.name).join(', ')} and
          config.json, as the CLI writes them; the CSV holds every row, train then test.
        </p>
      )}
      {download.error && (
        <p className="dataset__alert" role="alert">
          {download.error}
        </p>
      )}
    </section>
  );
}
