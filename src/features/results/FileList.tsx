import { formatCount } from '../../core/util/format';
import { useResults } from './store';

/** The files loaded (rows, sessions, remove) and one alert per file refused, naming row and column. */
export function FileList() {
  const files = useResults((s) => s.files);
  const merged = useResults((s) => s.merged);
  const lastLoadMs = useResults((s) => s.lastLoadMs);
  const remove = useResults((s) => s.remove);
  const clear = useResults((s) => s.clear);
  const readError = useResults((s) => s.readError);
  if (files.length === 0) return null;
  const good = files.filter((f) => f.ok);
  const { sessions } = merged;
  return (
    <section className="results__files" aria-labelledby="rs-files-h">
      <h2 id="rs-files-h">Files</h2>
      {files.map((f) =>
        f.ok ? null : (
          <div
            key={f.name}
            className="results__alert"
            role="alert"
            data-testid="results-error"
            data-file={f.problem.file}
            data-row={f.problem.row ?? ''}
            data-column={f.problem.column ?? ''}
          >
            <p>
              <strong>{f.problem.file}</strong> was not loaded (none of its rows count).{' '}
              <button type="button" onClick={() => void remove(f.name)} aria-label={`Dismiss ${f.name}`}>
                Dismiss
              </button>
            </p>
            <p className="mono">{f.problem.message}</p>
          </div>
        ),
      )}
      {readError !== null && (
        <div className="results__alert" role="alert" data-testid="results-read-error">
          <p>{readError}</p>
        </div>
      )}
      {good.length > 0 && (
        <ul className="results__file-list">
          {good.map((f) =>
            f.ok ? (
              <li key={f.name} data-testid="results-file" data-file={f.name} data-rows={f.rows}>
                <span className="mono">{f.name}</span> — {f.format.toUpperCase()}, {formatCount(f.rows)}{' '}
                {f.rows === 1 ? 'row' : 'rows'}, {formatCount(f.sessions)} {f.sessions === 1 ? 'session' : 'sessions'}{' '}
                <button type="button" onClick={() => void remove(f.name)} aria-label={`Remove ${f.name}`}>
                  Remove
                </button>
              </li>
            ) : null,
          )}
        </ul>
      )}
      <p
        className="hint"
        data-testid="results-summary"
        data-sessions={sessions}
        data-rows={merged.rows}
        data-duplicates={merged.duplicates}
        data-conflicts={merged.conflicts}
      >
        {formatCount(sessions)} {sessions === 1 ? 'session' : 'sessions'}, {formatCount(merged.rows)}{' '}
        {merged.rows === 1 ? 'row' : 'rows'} after merging
        {merged.duplicates > 0
          ? `; ${formatCount(merged.duplicates)} duplicate rows (same session and trial) counted once`
          : ''}
        {lastLoadMs !== null
          ? ` (read, merged and summarised in ${lastLoadMs < 10_000 ? `${Math.round(lastLoadMs)} ms` : `${(lastLoadMs / 1000).toFixed(1)} s`}, off the page's thread)`
          : ''}
        .
      </p>
      {merged.conflicts > 0 && (
        <div className="results__alert" role="alert" data-testid="results-conflicts">
          <p>
            {formatCount(merged.conflicts)} rows appear in two files with different content; the first file&apos;s row
            is used. First:{' '}
            <span className="mono">
              session {merged.firstConflicts[0]!.session_id}, trial {merged.firstConflicts[0]!.trial_index} (
              {merged.firstConflicts[0]!.column} differs; kept {merged.firstConflicts[0]!.kept}, dropped{' '}
              {merged.firstConflicts[0]!.dropped})
            </span>
          </p>
        </div>
      )}
      <button type="button" onClick={clear} data-testid="results-clear">
        Clear all files
      </button>
    </section>
  );
}
