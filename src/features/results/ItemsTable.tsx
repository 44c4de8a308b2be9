import { useId, useMemo } from 'react';
import '../../ui/table.css';
import { SortHeader } from '../../ui/SortHeader';
import { sortRows, textMatches, type TableQuery } from '../../ui/tableQuery';
import { useHashTable } from '../../ui/useHashTable';
import { fixed, range } from './format';
import { useResults } from './store';
import { TableSearch } from '../../ui/TableSearch';
import { itemsShown } from '../../study/results/figures';
import { TableScroll } from '../../ui/TableScroll';

type Item = ReturnType<typeof useResults.getState>['figures']['items'][number];
const n = (v: number | null | undefined) => v ?? -1;
const ITEM_SORTS: Record<string, (it: Item) => string | number> = {
  puzzle: (it) => it.puzzle_id,
  k: (it) => it.k,
  task: (it) => it.task,
  answer: (it) => it.gold,
  n: (it) => it.n,
  resumed: (it) => it.resumed,
  accuracy: (it) => n(it.accuracy.estimate),
  time: (it) => n(it.meanRt),
  difficulty: (it) => n(it.meanDifficulty),
};

/** One line per puzzle: how many answered it, accuracy with its Wilson interval, the usual wrong answer. */
const RESULTS_ROUTE = '#/results';

export function ItemsTable() {
  const id = useId();
  // Computed in the results worker with the figures (flagged participants left out with them).
  const all = useResults((s) => s.figures.items);
  const excludeFlagged = useResults((s) => s.figures.view.excludeFlagged);
  const resumedMode = useResults((s) => s.resumedMode);
  const list = useMemo(() => itemsShown(all, resumedMode), [all, resumedMode]);
  const marking = resumedMode === 'mark';
  // Search and sort live in the URL (items_q, items_sort, items_dir): a view is a link.
  const [query, setQuery] = useHashTable(RESULTS_ROUTE, undefined, 'items_');
  const shown = useMemo(() => {
    const kept = list.filter((it) =>
      textMatches([it.puzzle_id, it.gold, String(it.task), `k${it.k}`, it.commonError?.word ?? ''], query.q),
    );
    const by = query.sort ? ITEM_SORTS[query.sort] : undefined;
    return by ? sortRows(kept, by, query.dir) : kept;
  }, [list, query]);
  if (list.length === 0) return null;
  const sortBy = (s: Pick<TableQuery, 'sort' | 'dir'>) => setQuery((q) => ({ ...q, ...s }));
  return (
    <section className="results__items" aria-labelledby={`${id}-h`} data-testid="results-items">
      <h2 id={`${id}-h`}>Items</h2>
      <p className="hint">
        Main items by k, hardest first; attention checks at the end. Practice items are left out
        {excludeFlagged ? ', and so are flagged participants' : ''}
        {resumedMode === 'omit' ? ', and resumed answers' : ''}. Accuracy with its 95% Wilson interval; time and
        difficulty are plain means of the item&apos;s answers, without an interval.
        {marking ? ' Resumed: how many of the answers were given to a trial shown again after an interruption.' : ''}
      </p>
      <TableSearch
        label="Search items"
        value={query.q}
        placeholder="puzzle id, answer, wrong answer"
        onSearch={(q) => {
          setQuery((old) => ({ ...old, q }));
        }}
        testId="results-items-search"
      />
      <TableScroll className="results__table-wrap results__scroll" sticky="first" labelledBy={`${id}-cap`}>
        <table className="results__table">
          <caption id={`${id}-cap`}>
            Items ({shown.length === list.length ? list.length : `${shown.length} of ${list.length}`})
          </caption>
          <thead>
            <tr>
              <SortHeader column="puzzle" label="Puzzle" query={query} onSort={sortBy} />
              <SortHeader column="k" label="k" query={query} onSort={sortBy} />
              <SortHeader column="task" label="Task" query={query} onSort={sortBy} />
              <SortHeader column="answer" label="Answer" query={query} onSort={sortBy} />
              <SortHeader column="n" label="Answers" query={query} onSort={sortBy} />
              {marking && <SortHeader column="resumed" label="Resumed" query={query} onSort={sortBy} />}
              <SortHeader column="accuracy" label="Accuracy [95% Wilson]" query={query} onSort={sortBy} />
              <SortHeader column="time" label="Mean time (s, arithmetic)" query={query} onSort={sortBy} />
              <SortHeader column="difficulty" label="Mean difficulty" query={query} onSort={sortBy} />
              <th scope="col">Most common wrong answer</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((it) => (
              <tr key={it.puzzle_id} data-testid="results-item" data-puzzle={it.puzzle_id}>
                <th scope="row" className="mono">
                  {it.puzzle_id}
                </th>
                <td>{it.k}</td>
                <td>{it.task}</td>
                <td>{it.gold}</td>
                <td>{it.n}</td>
                {marking && (
                  <td data-testid="results-item-resumed" data-value={it.resumed}>
                    {it.resumed}
                  </td>
                )}
                <td data-testid="results-item-accuracy">
                  {fixed(it.accuracy.estimate, 3)}{' '}
                  <span className="results__ci">{range(it.accuracy.lo, it.accuracy.hi, 3)}</span>
                </td>
                <td>{fixed(it.meanRt, 1)}</td>
                <td>{fixed(it.meanDifficulty, 2)}</td>
                <td>{it.commonError ? `${it.commonError.word} (${it.commonError.count})` : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
    </section>
  );
}
