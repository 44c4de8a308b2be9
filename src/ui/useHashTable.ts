import { useEffect, useState } from 'react';
import { mergeTableQuery, readTableQuery, type TableQuery } from './tableQuery';

/**
 * A table's view (search, sort, its filters) kept in the hash's query of its route
 * (`#/dataset?q=son&sort=k`), so a filtered, sorted view can be shared as a link and survives
 * Open → Back. Two tables on one route give each its own `prefix` (`#/results?items_q=…&people_sort=…`);
 * the other names of the query stay where they are. Written with replaceState: no history entry
 * per keystroke. A hash change (back, forward, a link) is read back.
 */
const NO_FILTERS: readonly string[] = [];

export function useHashTable(
  route: string,
  filterNames: readonly string[] = NO_FILTERS,
  prefix = '',
): [TableQuery, (update: (old: TableQuery) => TableQuery) => void] {
  const [query, setQuery] = useState<TableQuery>(() => readTableQuery(window.location.hash, filterNames, prefix));
  useEffect(() => {
    const onHash = () => setQuery(readTableQuery(window.location.hash, filterNames, prefix));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [filterNames, prefix]);
  useEffect(() => {
    const now = window.location.hash;
    if (!now.startsWith(route)) return;
    const hash = mergeTableQuery(now, query, prefix, filterNames);
    if (hash !== now) {
      window.history.replaceState(
        window.history.state,
        '',
        `${window.location.pathname}${window.location.search}${hash}`,
      );
    }
  }, [query, route, prefix, filterNames]);
  return [query, setQuery];
}
