import { ariaSort, nextSort, type TableQuery } from './tableQuery';
import './table.css';

/**
 * A sortable column's header: a button that cycles ascending, descending, unsorted, and the
 * `aria-sort` screen readers announce. `data-testid="sort-<column>"` on the button.
 */
export function SortHeader({
  column,
  label,
  query,
  onSort,
}: {
  column: string;
  label: string;
  query: TableQuery;
  onSort: (sort: Pick<TableQuery, 'sort' | 'dir'>) => void;
}) {
  const state = ariaSort(query, column);
  return (
    <th scope="col" aria-sort={state}>
      <button
        type="button"
        className="sort-header"
        data-testid={`sort-${column}`}
        onClick={() => onSort(nextSort(query, column))}
      >
        {label}
        <span className="sort-header__mark" aria-hidden="true">
          {state === 'ascending' ? '▲' : state === 'descending' ? '▼' : '↕'}
        </span>
      </button>
    </th>
  );
}
