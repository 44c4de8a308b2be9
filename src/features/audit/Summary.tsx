import { useMemo } from 'react';
import { formatCount as fmt } from '../../core/util/format';
import { FileSummary } from './FileSummary';
import { KSummary } from './KSummary';
import { useAudit } from './store';
import '../../ui/table.css';
import { summariseByFile, summariseByK } from './summary';
import { TableScroll } from '../../ui/TableScroll';

/** The totals, then verdict counts per file and per k: every row of every file, kept or not. */
export function Summary() {
  const files = useAudit((s) => s.files);
  const byFile = useMemo(() => summariseByFile(files), [files]);
  const byK = useMemo(() => summariseByK(files), [files]);
  if (files.length === 0) return null;
  const t = byFile.total;
  return (
    <section className="audit__summary" aria-labelledby="au-summary-h" data-testid="audit-summary">
      <h2 id="au-summary-h">Summary</h2>
      <p
        className="audit__total"
        data-testid="audit-total"
        data-rows={t.rows}
        data-entailed={t.entailed}
        data-ambiguous={t.ambiguous}
        data-unsupported={t.unsupported}
        data-assumed={t.assumed}
        data-impossible={t.impossible}
      >
        {fmt(t.rows)} rows: {fmt(t.entailed)} entailed, {fmt(t.ambiguous)} ambiguous, {fmt(t.unsupported)} unsupported.
        Of the entailed rows, {fmt(t.assumed)} follow only through an assumption rule, and {fmt(t.impossible)} of those
        have a label true in no family.
      </p>
      <div className="audit__tables">
        <TableScroll className="audit__table-wrap" sticky="first" label="Verdicts per file (scrolls sideways)">
          <FileSummary files={byFile.files} total={t} />
        </TableScroll>
        {byK.length > 0 && (
          <TableScroll
            className="audit__table-wrap"
            sticky="first"
            label="Verdicts per story length k (scrolls sideways)"
          >
            <KSummary byK={byK} />
          </TableScroll>
        )}
      </div>
    </section>
  );
}
