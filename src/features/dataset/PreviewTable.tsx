import { useId, useMemo, useState } from 'react';
import { unbracket } from '../../core/text/render';
import { useDatasetBuilder } from './store';
import { countRows, filterPreview, isNoFilter, orderedRows, type PreviewFilter, sliceInOrder } from './summary';
import { FilterSelect } from '../../ui/FilterSelect';
import { formatCount as fmt } from '../../core/util/format';
import { Pager, pageWindow } from '../../ui/Pager';
import { HeadCells, type HeadColumn } from '../../ui/HeadCells';
import { sortRows, tableQueryHash, textMatches, type TableQuery } from '../../ui/tableQuery';
import { useHashTable } from '../../ui/useHashTable';
import type { PreviewRow } from '../../worker/datasetProtocol';
import { TableSearch } from '../../ui/TableSearch';

const SPLITS = ['train', 'test'] as const;

const PAGE = 25;
const ROUTE = '#/dataset';
const FILTERS = ['k', 'task', 'split', 'pattern', 'row'] as const;

/** The sortable columns and the value each sorts by. */
const SORTS: Record<string, (r: PreviewRow & { n: number }) => string | number> = {
  row: (r) => r.n,
  split: (r) => r.split,
  task: (r) => r.task * 100 + r.k,
  pattern: (r) => r.pattern,
  answer: (r) => r.target,
};

/** The filter the URL's table view names (bad values mean any). */
function filterOf(q: TableQuery): PreviewFilter {
  const num = (v: string | undefined) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : null);
  const split = q.filters.split;
  return {
    k: num(q.filters.k),
    task: num(q.filters.task),
    split: split === 'train' || split === 'test' ? split : null,
    pattern: q.filters.pattern ?? '',
  };
}

/** The view as URL filters: only what is set. */
function filtersOf(f: PreviewFilter, row: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (f.k !== null) out.k = String(f.k);
  if (f.task !== null) out.task = String(f.task);
  if (f.split !== null) out.split = f.split;
  if (f.pattern) out.pattern = f.pattern;
  if (row) out.row = row;
  return out;
}

/**
 * The generated rows, filterable by k, task, split and pattern, 25 to a page (so the DOM stays
 * small however many rows there are).
 */
const PREVIEW_COLUMNS: readonly HeadColumn[] = [
  { label: '#', column: 'row' },
  { label: 'Split', column: 'split' },
  { label: 'Task', column: 'task' },
  { label: 'Pattern (f_comb)', column: 'pattern' },
  { label: 'Question' },
  { label: 'Answer', column: 'answer' },
  { label: 'Story' },
];

export function PreviewTable() {
  const id = useId();
  const plan = useDatasetBuilder((s) => s.plan);
  const rowsByJob = useDatasetBuilder((s) => s.rowsByJob);
  // The table's view (search, sort, filters, one row) lives in the hash's query, so a view is a link.
  const [query, setQuery] = useHashTable(ROUTE, FILTERS);
  const filter = useMemo(() => filterOf(query), [query]);
  const onlyRow = query.filters.row;
  const [page, setPage] = useState(0);
  const [fullStories, setFullStories] = useState(false);
  const jobs = plan?.jobs ?? [];
  const ks = [...new Set(jobs.map((j) => j.task.k))].sort((a, b) => a - b);
  const tasks = [...new Set(jobs.map((j) => j.task.task))].sort((a, b) => a - b);
  const unfiltered = isNoFilter(filter) && !query.q.trim() && !query.sort && !onlyRow;
  const matching = useMemo(() => {
    if (!plan || unfiltered) return null;
    const numbered = orderedRows(plan, rowsByJob).map((r, n) => ({ ...r, n }));
    const kept = filterPreview(numbered, filter).filter(
      (r) =>
        (!onlyRow || r.id === onlyRow) &&
        textMatches([r.id, r.story, r.query[0], r.query[1], r.pattern, r.target, `${r.task}.${r.k}`], query.q),
    );
    const by = query.sort ? SORTS[query.sort] : undefined;
    return by ? sortRows(kept, by, query.dir) : kept;
  }, [plan, rowsByJob, filter, unfiltered, onlyRow, query.q, query.sort, query.dir]);
  const total = plan ? countRows(plan, rowsByJob) : 0;
  const matchCount = matching ? matching.length : total;
  const win = pageWindow(matchCount, page, PAGE);
  // Without a filter the page is sliced straight out of the per-task lists: no work per row.
  const items: (PreviewRow & { n: number })[] = matching
    ? matching.slice(win.start, win.start + PAGE)
    : plan
      ? sliceInOrder(plan, rowsByJob, win.start, PAGE).map((r, i) => ({ ...r, n: win.start + i }))
      : [];
  const update = (f: Partial<PreviewFilter>) => {
    setQuery((old) => ({ ...old, filters: filtersOf({ ...filterOf(old), ...f }, undefined) }));
    setPage(0);
  };
  const sortBy = (s: Pick<TableQuery, 'sort' | 'dir'>) => {
    setQuery((old) => ({ ...old, ...s }));
    setPage(0);
  };
  const first = win.start;

  return (
    <section className="dataset__preview" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Preview</h2>
      <div className="dataset__filters" role="group" aria-label="Filter rows">
        <TableSearch
          label="Search"
          value={query.q}
          placeholder="story, names, row id"
          onSearch={(q) => {
            setQuery((old) => ({ ...old, q }));
            setPage(0);
          }}
          testId="dataset-search"
        />
        <FilterSelect
          label="k"
          value={filter.k}
          options={ks}
          onChange={(k) => update({ k })}
          testId="dataset-filter-k"
        />
        <FilterSelect
          label="Task"
          value={filter.task}
          options={tasks}
          onChange={(task) => update({ task })}
          testId="dataset-filter-task"
        />
        <FilterSelect
          label="Split"
          value={filter.split}
          options={SPLITS}
          onChange={(split) => update({ split })}
          testId="dataset-filter-split"
        />
        <label>
          Pattern
          <input
            type="search"
            value={filter.pattern}
            placeholder="e.g. son-*-aunt"
            onChange={(e) => update({ pattern: e.target.value })}
            data-testid="dataset-filter-pattern"
          />
        </label>
        <label className="dataset__full">
          <input type="checkbox" checked={fullStories} onChange={(e) => setFullStories(e.target.checked)} />
          Show whole stories
        </label>
      </div>
      <p className="hint" aria-live="polite" data-testid="dataset-preview-count" data-count={matchCount}>
        {matchCount === 0
          ? total === 0
            ? 'No rows yet.'
            : 'No row matches these filters.'
          : `Rows ${fmt(first + 1)}–${fmt(first + items.length)} of ${fmt(matchCount)}${matchCount !== total ? ` matching (${fmt(total)} in all)` : ''}`}
      </p>
      {items.length > 0 && (
        <div className="dataset__table-wrap">
          <table className={`dataset__table${fullStories ? '' : ' dataset__table--clamped'}`}>
            <thead>
              <tr>
                <HeadCells columns={PREVIEW_COLUMNS} query={query} onSort={sortBy} />
              </tr>
            </thead>
            <tbody>
              {items.map((r) => (
                <tr
                  key={r.id}
                  data-testid="dataset-preview-row"
                  data-k={r.k}
                  data-task={r.task}
                  data-pattern={r.pattern}
                >
                  <td>
                    <a
                      href={tableQueryHash(ROUTE, { q: '', sort: null, dir: 'asc', filters: { row: r.id } })}
                      data-testid="dataset-row-link"
                      title="A link to this row"
                    >
                      {fmt(r.n + 1)}
                    </a>
                  </td>
                  <td>{r.split}</td>
                  <td>
                    {r.task}.{r.k}
                  </td>
                  <td className="mono">{r.pattern}</td>
                  <td>
                    How is {r.query[1]} related to {r.query[0]}?
                  </td>
                  <td>{r.target}</td>
                  <td>
                    <div className="dataset__story">{unbracket(r.story)}</div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={win.page} pages={win.pages} onPage={setPage} label="Preview pages" className="dataset__pager" />
    </section>
  );
}
