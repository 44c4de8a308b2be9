import { useId, useMemo, useState } from 'react';
import { unbracket } from '../../core/text/render';
import { useDatasetBuilder } from './store';
import {
  countRows,
  filterPreview,
  isNoFilter,
  NO_FILTER,
  orderedRows,
  type PreviewFilter,
  sliceInOrder,
} from './summary';
import { FilterSelect } from '../../ui/FilterSelect';
import { formatCount as fmt } from '../../core/util/format';
import { Pager, pageWindow } from '../../ui/Pager';

const SPLITS = ['train', 'test'] as const;

const PAGE = 25;

/**
 * The generated rows, filterable by k, task, split and pattern, 25 to a page (so the DOM stays
 * small however many rows there are).
 */
export function PreviewTable() {
  const id = useId();
  const plan = useDatasetBuilder((s) => s.plan);
  const rowsByJob = useDatasetBuilder((s) => s.rowsByJob);
  const [filter, setFilter] = useState<PreviewFilter>(NO_FILTER);
  const [page, setPage] = useState(0);
  const [fullStories, setFullStories] = useState(false);
  const jobs = plan?.jobs ?? [];
  const ks = [...new Set(jobs.map((j) => j.task.k))].sort((a, b) => a - b);
  const tasks = [...new Set(jobs.map((j) => j.task.task))].sort((a, b) => a - b);
  const unfiltered = isNoFilter(filter);
  const matching = useMemo(
    () => (plan && !unfiltered ? filterPreview(orderedRows(plan, rowsByJob), filter) : null),
    [plan, rowsByJob, filter, unfiltered],
  );
  const total = plan ? countRows(plan, rowsByJob) : 0;
  const matchCount = matching ? matching.length : total;
  const win = pageWindow(matchCount, page, PAGE);
  // Without a filter the page is sliced straight out of the per-task lists: no work per row.
  const items = matching
    ? matching.slice(win.start, win.start + PAGE)
    : plan
      ? sliceInOrder(plan, rowsByJob, win.start, PAGE)
      : [];
  const update = (f: Partial<PreviewFilter>) => {
    setFilter((old) => ({ ...old, ...f }));
    setPage(0);
  };
  const first = win.start;

  return (
    <section className="ds-preview" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>Preview</h2>
      <div className="ds-filters" role="group" aria-label="Filter rows">
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
        <label className="ds-full">
          <input type="checkbox" checked={fullStories} onChange={(e) => setFullStories(e.target.checked)} />
          Show whole stories
        </label>
      </div>
      <p className="ds-hint" aria-live="polite" data-testid="dataset-preview-count" data-count={matchCount}>
        {matchCount === 0
          ? total === 0
            ? 'No rows yet.'
            : 'No row matches these filters.'
          : `Rows ${fmt(first + 1)}–${fmt(first + items.length)} of ${fmt(matchCount)}${matchCount !== total ? ` matching (${fmt(total)} in all)` : ''}`}
      </p>
      {items.length > 0 && (
        <div className="ds-table-wrap">
          <table className={`ds-table${fullStories ? '' : ' ds-table--clamped'}`}>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Split</th>
                <th scope="col">Task</th>
                <th scope="col">Pattern (f_comb)</th>
                <th scope="col">Question</th>
                <th scope="col">Answer</th>
                <th scope="col">Story</th>
              </tr>
            </thead>
            <tbody>
              {items.map((r, i) => (
                <tr
                  key={r.id}
                  data-testid="dataset-preview-row"
                  data-k={r.k}
                  data-task={r.task}
                  data-pattern={r.pattern}
                >
                  <td>{fmt(first + i + 1)}</td>
                  <td>{r.split}</td>
                  <td>
                    {r.task}.{r.k}
                  </td>
                  <td className="ds-mono">{r.pattern}</td>
                  <td>
                    How is {r.query[1]} related to {r.query[0]}?
                  </td>
                  <td>{r.target}</td>
                  <td>
                    <div className="ds-story">{unbracket(r.story)}</div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={win.page} pages={win.pages} onPage={setPage} label="Preview pages" className="ds-pager" />
    </section>
  );
}
