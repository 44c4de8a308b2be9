import { useMemo, useState } from 'react';
import { VERDICTS } from '../../core/formats/audit';
import { FilterSelect } from '../../ui/FilterSelect';
import { formatCount as fmt } from '../../core/util/format';
import { Pager, pageWindow } from '../../ui/Pager';
import { sortRows, textMatches, type TableQuery } from '../../ui/tableQuery';
import '../../ui/table.css';
import { useHashTable } from '../../ui/useHashTable';
import type { AuditedRow } from '../../core/formats/audit';
import { RowHead, RowLine, ROW_SORTS } from './RowLine';
import { KEEP_FIRST, KEEP_MAX, useAudit } from './store';
import { type AuditFilter, BASES, type BasisFilter, countMatching, filterAudited, summariseByK } from './summary';
import { TableSearch } from '../../ui/TableSearch';
import { TableScroll } from '../../ui/TableScroll';

const PAGE = 25;
const ROUTE = '#/audit';
const FILTERS = ['file', 'verdict', 'basis', 'k'] as const;

/**
 * The filters the URL's table view names (bad values mean any): the view lives in the hash's
 * query, so it survives Open → Back and can be shared as a link.
 */
function filterOf(q: TableQuery): AuditFilter {
  const f = q.filters;
  return {
    file: f.file ?? null,
    verdict: (VERDICTS as readonly string[]).includes(f.verdict ?? '') ? (f.verdict as AuditFilter['verdict']) : null,
    basis: (BASES as readonly string[]).includes(f.basis ?? '') ? (f.basis as BasisFilter) : null,
    k: f.k !== undefined && /^\d+$/.test(f.k) ? Number(f.k) : null,
  };
}

function filtersOf(f: AuditFilter): Record<string, string> {
  const out: Record<string, string> = {};
  if (f.file !== null) out.file = f.file;
  if (f.verdict !== null) out.verdict = f.verdict;
  if (f.basis !== null) out.basis = f.basis;
  if (f.k !== null) out.k = String(f.k);
  return out;
}

/** Says that the table lists only part of the rows, and which part. */
function SubsetNotice({ listed, total }: { listed: number; total: number }) {
  return (
    <p className="audit__notice" data-testid="audit-subset" data-listed={listed} data-rows={total}>
      The table lists a subset of {fmt(listed)} of the {fmt(total)} rows: the first {fmt(KEEP_FIRST)} read, then only
      rows that are not entailed or are entailed only through an assumption rule, up to {fmt(KEEP_MAX)} in all. The
      summary and the counts below cover every row.
    </p>
  );
}

/** The kept rows with their verdicts, searchable, filterable by file, verdict and k, sortable by column, 25 to a page. */
export function RowsTable() {
  const rows = useAudit((s) => s.rows);
  const files = useAudit((s) => s.files);
  const [query, setQuery] = useHashTable(ROUTE, FILTERS);
  const filter = useMemo(() => filterOf(query), [query]);
  const [page, setPage] = useState(0);
  const ks = useMemo(() => summariseByK(files).map((c) => c.k), [files]);
  const listed = useMemo(() => {
    const kept = filterAudited(rows, filter).filter((r) =>
      textMatches([r.row.id, r.row.index, r.row.story, r.row.query.join(' '), r.row.target, r.row.fComb], query.q),
    );
    const by: ((r: AuditedRow) => string | number) | undefined = query.sort ? ROW_SORTS[query.sort] : undefined;
    return by ? sortRows(kept, by, query.dir) : kept;
  }, [rows, filter, query.q, query.sort, query.dir]);
  const matching = useMemo(() => countMatching(files, filter), [files, filter]);
  const total = useMemo(() => files.reduce((s, f) => s + f.rows, 0), [files]);
  if (total === 0) return null;
  const subset = rows.length < total;
  const win = pageWindow(listed.length, page, PAGE);
  const shown = listed.slice(win.start, win.start + PAGE);
  const update = (f: Partial<AuditFilter>) => {
    setQuery((old) => ({ ...old, filters: filtersOf({ ...filterOf(old), ...f }) }));
    setPage(0);
  };
  const sortBy = (sort: Pick<TableQuery, 'sort' | 'dir'>) => {
    setQuery((old) => ({ ...old, ...sort }));
    setPage(0);
  };
  let count: string;
  if (listed.length === 0) {
    count =
      matching === 0
        ? 'No row matches these filters.'
        : `No listed row matches these filters (${fmt(matching)} rows of the files do).`;
  } else {
    const span = `Rows ${fmt(win.start + 1)}–${fmt(win.start + shown.length)} of ${fmt(listed.length)}`;
    if (subset) count = `${span} listed; ${fmt(matching)} rows of the files match these filters`;
    else count = listed.length !== rows.length ? `${span} matching (${fmt(rows.length)} in all)` : span;
  }
  return (
    <section className="audit__rows" aria-labelledby="au-rows-h">
      <h2 id="au-rows-h">Rows</h2>
      {subset && <SubsetNotice listed={rows.length} total={total} />}
      <div className="audit__filters" role="group" aria-label="Filter rows">
        <TableSearch
          label="Search"
          value={query.q}
          placeholder="story, names, row id"
          onSearch={(q) => {
            setQuery((old) => ({ ...old, q }));
            setPage(0);
          }}
          testId="audit-search"
        />
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
        <FilterSelect
          label="Decided by"
          value={filter.basis}
          options={BASES}
          onChange={(basis) => update({ basis })}
          testId="audit-filter-basis"
        />
        <FilterSelect label="k" value={filter.k} options={ks} onChange={(k) => update({ k })} testId="audit-filter-k" />
      </div>
      <p className="hint" data-testid="audit-row-count" data-count={listed.length} data-matching={matching}>
        {count}
      </p>
      {shown.length > 0 && (
        <TableScroll
          className="audit__table-wrap"
          sticky="last"
          label="Audited rows (scrolls sideways; each row's Open button stays in view)"
        >
          <table className="audit__table audit__table--rows">
            <RowHead query={query} onSort={sortBy} />
            <tbody>
              {shown.map((r) => (
                <RowLine key={`${r.file}#${r.n}`} r={r} />
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      <Pager page={win.page} pages={win.pages} onPage={setPage} label="Row pages" />
    </section>
  );
}
