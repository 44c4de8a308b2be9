import { useAudit } from './store';

/** One alert per malformed file, naming its file, data row and column; and a failure of the worker. */
export function FileErrors() {
  const files = useAudit((s) => s.files);
  const failure = useAudit((s) => s.failure);
  const bad = files.filter((f) => f.error);
  if (bad.length === 0 && !failure) return null;
  return (
    <div className="audit__errors">
      {failure && (
        <p className="audit__alert" role="alert">
          {failure}
        </p>
      )}
      {bad.map((f) => {
        const e = f.error!;
        const file = e.file ?? f.name;
        return (
          <div
            key={f.name}
            className="audit__alert"
            role="alert"
            data-testid="audit-error"
            data-file={file}
            data-row={e.row ?? ''}
            data-column={e.column ?? ''}
          >
            <p className="audit__alert-title">
              <strong>{file}</strong> is not a valid CLUTRR file; none of its rows were imported.
            </p>
            <dl className="audit__where">
              <div>
                <dt>File</dt>
                <dd>{file}</dd>
              </div>
              {e.row !== undefined && (
                <div>
                  <dt>Data row</dt>
                  <dd>{e.row}</dd>
                </div>
              )}
              {e.column !== undefined && (
                <div>
                  <dt>Column</dt>
                  <dd>{e.column === '' ? '(index)' : e.column}</dd>
                </div>
              )}
            </dl>
            <p className="audit__alert-message">{e.message}</p>
          </div>
        );
      })}
    </div>
  );
}
