import type { ReactNode } from 'react';
import { SortHeader } from './SortHeader';
import type { TableQuery } from './tableQuery';

/** One column of a table's head. */
export interface HeadColumn {
  /** The header's words, and the cell's React key. */
  readonly label: string;
  /** Drawn instead of the label, for a header that is not plain words (a visually hidden name). */
  readonly content?: ReactNode;
  /** The column's sort key: the header is a SortHeader (`sort-<column>`) when the table sorts. */
  readonly column?: string;
  readonly className?: string;
}

/**
 * The head cells of a table, in order: a sortable column's SortHeader, a plain `<th scope="col">`
 * otherwise. The tables list their columns as data instead of repeating the cells.
 */
export function HeadCells({
  columns,
  query,
  onSort,
}: {
  columns: readonly HeadColumn[];
  query?: TableQuery;
  onSort?: (sort: Pick<TableQuery, 'sort' | 'dir'>) => void;
}) {
  return columns.map((c) =>
    c.column !== undefined && query && onSort ? (
      <SortHeader key={c.label} column={c.column} label={c.label} query={query} onSort={onSort} />
    ) : (
      <th key={c.label} scope="col" className={c.className}>
        {c.content ?? c.label}
      </th>
    ),
  );
}
