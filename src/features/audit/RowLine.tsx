import { useState } from 'react';
import type { AuditedRow } from '../../core/formats/audit';
import type { Verdict } from '../../core/reasoning/solver';
import { basisLine } from '../../core/reasoning/assumptions';
import { unbracket } from '../../core/text/render';
import type { TableQuery } from '../../ui/tableQuery';
import { openRowInExplorer } from './openRow';
import { HeadCells, type HeadColumn } from '../../ui/HeadCells';

const BADGE_TITLE: Record<Verdict, string> = {
  entailed: 'The rule base derives exactly the label from the typed facts',
  ambiguous: 'The rule base derives the label and other answers',
  unsupported: 'The rule base does not derive the label',
};

function Badge({ verdict }: { verdict: Verdict }) {
  return (
    <span className={`audit__badge audit__badge--${verdict}`} title={BADGE_TITLE[verdict]} data-testid="audit-verdict">
      {verdict}
    </span>
  );
}

/** How an entailed row is decided: by the sound rules, or through an assumption (which, and whether any family agrees). */
function BasisBadge({ r }: { r: AuditedRow }) {
  const b = r.basis;
  if (!b) return null;
  if (b.kind === 'sound') {
    return (
      <span
        className="audit__basis audit__basis--sound"
        data-testid="audit-basis"
        data-basis="sound"
        title="The rules that hold in every family decide it"
      >
        sound
      </span>
    );
  }
  return (
    <span
      className={`audit__basis audit__basis--${b.family}`}
      data-testid="audit-basis"
      data-basis={b.family === 'impossible' ? 'impossible' : 'assumed'}
      title={basisLine(b)}
    >
      {basisLine(b)}
    </span>
  );
}

/** Opens the row in the puzzle view; a row that cannot be drawn says why in place. */
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
        <span className="audit__cell-error" role="alert">
          {problem}
        </span>
      )}
    </>
  );
}

/** The sortable columns (the `sort` of the URL) and each row's value in them. */
export const ROW_SORTS: Readonly<Record<string, (r: AuditedRow) => string | number>> = {
  file: (r) => r.file,
  row: (r) => r.n,
  task: (r) => r.row.taskName.replace(/^task_/, ''),
  pattern: (r) => r.row.fComb,
  label: (r) => r.row.target,
  verdict: (r) => r.verdict,
};

const ROW_COLUMNS: readonly HeadColumn[] = [
  { label: 'File', column: 'file' },
  { label: 'Row', column: 'row' },
  { label: 'Task', column: 'task' },
  { label: 'Pattern (f_comb)', column: 'pattern' },
  { label: 'Question' },
  { label: 'Label', column: 'label' },
  { label: 'Solver' },
  { label: 'Verdict', column: 'verdict' },
  { label: 'Puzzle view', content: <span className="visually-hidden">Puzzle view</span> },
];

/** The head of the rows table, matching RowLine's cells; sortable columns cycle on a click. */
export function RowHead({
  query,
  onSort,
}: {
  query: TableQuery;
  onSort: (sort: Pick<TableQuery, 'sort' | 'dir'>) => void;
}) {
  return (
    <thead>
      <tr>
        <HeadCells columns={ROW_COLUMNS} query={query} onSort={onSort} />
      </tr>
    </thead>
  );
}

/** One audited row: where it is, its question and label, the solver's answers and the verdict. */
export function RowLine({ r }: { r: AuditedRow }) {
  return (
    <tr
      data-testid="audit-row"
      data-verdict={r.verdict}
      data-basis={
        r.basis ? (r.basis.kind === 'sound' ? 'sound' : r.basis.family === 'impossible' ? 'impossible' : 'assumed') : ''
      }
      data-file={r.file}
      data-n={r.n}
    >
      <td className="audit__file">{r.file}</td>
      <td>{r.n}</td>
      <td>{r.row.taskName.replace(/^task_/, '')}</td>
      <td className="mono">{r.row.fComb}</td>
      <td title={unbracket(r.row.story)}>
        How is {r.row.query[1]} related to {r.row.query[0]}?
      </td>
      <td>{r.row.target}</td>
      <td>
        {r.derived.length === 0 ? 'no answer' : r.derived.join(', ')}
        {r.truncated ? ' (search cut short)' : ''}
      </td>
      <td>
        <Badge verdict={r.verdict} /> <BasisBadge r={r} />
      </td>
      <td>
        <OpenButton r={r} />
      </td>
    </tr>
  );
}
