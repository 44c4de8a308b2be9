import { useId, useMemo, useState } from 'react';
import type { Verdict } from '../../core/reasoning/solver';
import { unbracket } from '../../core/text/render';
import type { AuditedRow } from '../../worker/datasetProtocol';
import { openRowInExplorer } from './openRow';
import { useAudit } from './store';
import {
  type AuditFilter,
  entailedShare,
  formatCount as fmt,
  filterAudited,
  NO_AUDIT_FILTER,
  summariseByFile,
  summariseByK,
  type VerdictCounts,
  VERDICTS,
} from './summary';
import './audit.css';
import { FilterSelect } from '../../ui/FilterSelect';

const PAGE = 25;

/** The drop zone: drag files onto it, or choose them with the file input inside it. */
function DropZone() {
  const id = useId();
  const importFiles = useAudit((s) => s.importFiles);
  const reading = useAudit((s) => s.reading);
  const progress = useAudit((s) => s.progress);
  const [over, setOver] = useState(false);
  return (
    <div
      className={`au-drop${over ? ' au-drop--over' : ''}`}
      data-testid="audit-dropzone"
      onDragEnter={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragOver={(e) => {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        void importFiles([...e.dataTransfer.files]);
      }}
    >
      <p className="au-drop-title">Drop CLUTRR CSV files or a dataset folder zip here</p>
      <label htmlFor={id} className="au-drop-label">
        or choose files (.csv, .zip)
      </label>
      <input
        id={id}
        data-testid="audit-drop"
        type="file"
        multiple
        accept=".csv,.zip,text/csv,application/zip"
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          void importFiles(files);
        }}
      />
      {reading.length > 0 && (
        <p className="au-hint" role="status">
          Reading {reading.join(', ')}…
          {progress && <progress aria-label="Files read" max={Math.max(1, progress.total)} value={progress.done} />}
        </p>
      )}
    </div>
  );
}

/** One alert per malformed file, naming its file, data row and column. */
function FileErrors() {
  const files = useAudit((s) => s.files);
  const failure = useAudit((s) => s.failure);
  const bad = files.filter((f) => f.error);
  if (bad.length === 0 && !failure) return null;
  return (
    <div className="au-errors">
      {failure && (
        <p className="au-alert" role="alert">
          {failure}
        </p>
      )}
      {bad.map((f) => {
        const e = f.error!;
        return (
          <div
            key={f.name}
            className="au-alert"
            role="alert"
            data-testid="audit-error"
            data-file={e.file ?? f.name}
            data-row={e.row ?? ''}
            data-column={e.column ?? ''}
          >
            <p className="au-alert-title">
              <strong>{e.file ?? f.name}</strong> is not a valid CLUTRR file; none of its rows were imported.
            </p>
            <dl className="au-where">
              <div>
                <dt>File</dt>
                <dd>{e.file ?? f.name}</dd>
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
            <p className="au-alert-message">{e.message}</p>
          </div>
        );
      })}
    </div>
  );
}

function CountCells({ c }: { c: VerdictCounts }) {
  return (
    <>
      <td>{fmt(c.rows)}</td>
      <td>{fmt(c.entailed)}</td>
      <td>{fmt(c.ambiguous)}</td>
      <td>{fmt(c.unsupported)}</td>
      <td>{entailedShare(c)}</td>
    </>
  );
}

const COUNT_HEADS = (
  <>
    <th scope="col">Rows</th>
    <th scope="col">Entailed</th>
    <th scope="col">Ambiguous</th>
    <th scope="col">Unsupported</th>
    <th scope="col">Entailed share</th>
  </>
);

/** Verdict counts per file (with the total) and per k. */
function Summary() {
  const files = useAudit((s) => s.files);
  const rows = useAudit((s) => s.rows);
  const byFile = useMemo(() => summariseByFile(files, rows), [files, rows]);
  const byK = useMemo(() => summariseByK(rows), [rows]);
  if (files.length === 0) return null;
  const t = byFile.total;
  return (
    <section className="au-summary" aria-labelledby="au-summary-h" data-testid="audit-summary">
      <h2 id="au-summary-h">Summary</h2>
      <p
        className="au-total"
        data-testid="audit-total"
        data-rows={t.rows}
        data-entailed={t.entailed}
        data-ambiguous={t.ambiguous}
        data-unsupported={t.unsupported}
      >
        {fmt(t.rows)} rows: {fmt(t.entailed)} entailed, {fmt(t.ambiguous)} ambiguous, {fmt(t.unsupported)} unsupported.
      </p>
      <div className="au-tables">
        <table className="au-table">
          <caption>Per file</caption>
          <thead>
            <tr>
              <th scope="col">File</th>
              {COUNT_HEADS}
            </tr>
          </thead>
          <tbody>
            {byFile.files.map((f) => (
              <tr key={f.file} data-testid="audit-summary-file" data-file={f.file}>
                <th scope="row" className="au-file">
                  {f.file}
                </th>
                {f.error ? (
                  <td colSpan={5} className="au-malformed">
                    malformed: {f.error.row !== undefined ? `row ${f.error.row}, ` : ''}
                    {f.error.column !== undefined ? `column ${f.error.column}` : ''}
                  </td>
                ) : (
                  <CountCells c={f} />
                )}
              </tr>
            ))}
          </tbody>
          {byFile.files.length > 1 && (
            <tfoot>
              <tr>
                <th scope="row">All files</th>
                <CountCells c={t} />
              </tr>
            </tfoot>
          )}
        </table>
        {byK.length > 0 && (
          <table className="au-table">
            <caption>Per story length k</caption>
            <thead>
              <tr>
                <th scope="col">k</th>
                {COUNT_HEADS}
              </tr>
            </thead>
            <tbody>
              {byK.map((c) => (
                <tr key={c.k} data-testid="audit-summary-k" data-k={c.k}>
                  <th scope="row">{c.k}</th>
                  <CountCells c={c} />
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </section>
  );
}

const BADGE_TEXT: Record<Verdict, string> = {
  entailed: 'entailed',
  ambiguous: 'ambiguous',
  unsupported: 'unsupported',
};
const BADGE_TITLE: Record<Verdict, string> = {
  entailed: 'The rule base derives exactly the label from the typed facts',
  ambiguous: 'The rule base derives the label and other answers',
  unsupported: 'The rule base does not derive the label',
};

function Badge({ verdict }: { verdict: Verdict }) {
  return (
    <span className={`au-badge au-badge--${verdict}`} title={BADGE_TITLE[verdict]} data-testid="audit-verdict">
      {BADGE_TEXT[verdict]}
    </span>
  );
}

function OpenButton({ r }: { r: AuditedRow }) {
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <>
      <button
        type="button"
        data-testid="audit-open-row"
        aria-label={`Open row ${r.n} of ${r.file} in the puzzle view`}
        onClick={() => {
          setProblem(null);
          openRowInExplorer(r.row).catch((e: Error) => setProblem(e.message));
        }}
      >
        Open
      </button>
      {problem && (
        <span className="au-cell-error" role="alert">
          {problem}
        </span>
      )}
    </>
  );
}

/** The imported rows with their verdicts, filterable by file, verdict and k, 25 to a page. */
function RowsTable() {
  const rows = useAudit((s) => s.rows);
  const files = useAudit((s) => s.files);
  const [filter, setFilter] = useState<AuditFilter>(NO_AUDIT_FILTER);
  const [page, setPage] = useState(0);
  const ks = useMemo(() => [...new Set(rows.map((r) => r.k))].sort((a, b) => a - b), [rows]);
  const matching = useMemo(() => filterAudited(rows, filter), [rows, filter]);
  if (rows.length === 0) return null;
  const pages = Math.max(1, Math.ceil(matching.length / PAGE));
  const p = Math.min(page, pages - 1);
  const shown = matching.slice(p * PAGE, p * PAGE + PAGE);
  const update = (f: Partial<AuditFilter>) => {
    setFilter((old) => ({ ...old, ...f }));
    setPage(0);
  };
  return (
    <section className="au-rows" aria-labelledby="au-rows-h">
      <h2 id="au-rows-h">Rows</h2>
      <div className="au-filters" role="group" aria-label="Filter rows">
        <FilterSelect
          label="File"
          value={filter.file}
          options={files.filter((f) => !f.error).map((f) => f.name)}
          onChange={(file) => update({ file })}
          testId="audit-filter-file"
          anyLabel="all files"
        />
        <FilterSelect
          label="Verdict"
          value={filter.verdict}
          options={VERDICTS}
          onChange={(verdict) => update({ verdict })}
          testId="audit-filter-verdict"
        />
        <FilterSelect label="k" value={filter.k} options={ks} onChange={(k) => update({ k })} testId="audit-filter-k" />
      </div>
      <p className="au-hint" data-testid="audit-row-count" data-count={matching.length}>
        {matching.length === 0
          ? 'No row matches these filters.'
          : `Rows ${fmt(p * PAGE + 1)}–${fmt(p * PAGE + shown.length)} of ${fmt(matching.length)}${matching.length !== rows.length ? ` matching (${fmt(rows.length)} in all)` : ''}`}
      </p>
      {shown.length > 0 && (
        <div className="au-table-wrap">
          <table className="au-table au-table--rows">
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Row</th>
                <th scope="col">Task</th>
                <th scope="col">Pattern (f_comb)</th>
                <th scope="col">Question</th>
                <th scope="col">Label</th>
                <th scope="col">Solver</th>
                <th scope="col">Verdict</th>
                <th scope="col">
                  <span className="au-visually-hidden">Puzzle view</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {shown.map((r) => (
                <tr
                  key={`${r.file}#${r.n}`}
                  data-testid="audit-row"
                  data-verdict={r.verdict}
                  data-file={r.file}
                  data-n={r.n}
                >
                  <td className="au-file">{r.file}</td>
                  <td>{r.n}</td>
                  <td>{r.row.taskName.replace(/^task_/, '')}</td>
                  <td className="au-mono">{r.row.fComb}</td>
                  <td title={unbracket(r.row.story)}>
                    How is {r.row.query[1]} related to {r.row.query[0]}?
                  </td>
                  <td>{r.row.target}</td>
                  <td>
                    {r.derived.length === 0 ? 'no answer' : r.derived.join(', ')}
                    {r.truncated ? ' (search cut short)' : ''}
                  </td>
                  <td>
                    <Badge verdict={r.verdict} />
                  </td>
                  <td>
                    <OpenButton r={r} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <nav className="au-pager" aria-label="Row pages">
          <button type="button" onClick={() => setPage(0)} disabled={p === 0}>
            First
          </button>
          <button type="button" onClick={() => setPage(p - 1)} disabled={p === 0}>
            Previous
          </button>
          <span>
            Page {fmt(p + 1)} of {fmt(pages)}
          </span>
          <button type="button" onClick={() => setPage(p + 1)} disabled={p >= pages - 1}>
            Next
          </button>
          <button type="button" onClick={() => setPage(pages - 1)} disabled={p >= pages - 1}>
            Last
          </button>
        </nav>
      )}
    </section>
  );
}

/**
 * Import and audit (`#/audit`): drop CLUTRR CSV files or a dataset zip; every row is solved from
 * its symbolic columns in a worker and shown with its verdict; any row opens in the puzzle view.
 */
export function AuditView() {
  const files = useAudit((s) => s.files);
  const clear = useAudit((s) => s.clear);
  return (
    <div className="au" data-testid="audit-view">
      <header className="au-head">
        <h1 data-view-heading tabIndex={-1}>
          Import and audit
        </h1>
        <p className="au-hint">
          As <code>npm run cli -- check</code>: each row is solved from story_edges, edge_types, genders and query_edge
          (edges without a type are left out). <em>Entailed</em>: the rule base derives exactly the label;{' '}
          <em>ambiguous</em>: the label among other answers; <em>unsupported</em>: not the label.
        </p>
      </header>
      <DropZone />
      <FileErrors />
      <Summary />
      <RowsTable />
      {files.length > 0 && (
        <div>
          <button type="button" onClick={clear} data-testid="audit-clear">
            Clear all files
          </button>
        </div>
      )}
    </div>
  );
}
