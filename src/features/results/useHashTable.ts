import { useEffect, useState } from 'react';
import { mergeTableQuery, readTableQuery, type TableQuery } from '../../ui/tableQuery';

const ROUTE = '#/results';

/**
 * A results table's view (search, sort, its filters) kept in the hash's query under its own
 * prefix (`#/results?items_q=…&people_sort=session`), so the two tables of the route share the
 * URL and a filtered, sorted view can be shared as a link. Written with replaceState: no history
 * entry per keystroke.
 */
export function useHashTable(
  prefix: string,
  filterNames: readonly string[] = [],
): [TableQuery, (update: (old: TableQuery) => TableQuery) => void] {
  const [query, setQuery] = useState<TableQuery>(() => readTableQuery(window.location.hash, filterNames, prefix));
  useEffect(() => {
    const onHash = () => setQuery(readTableQuery(window.location.hash, filterNames, prefix));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [prefix]);
  useEffect(() => {
    const now = window.location.hash;
    if (!now.startsWith(ROUTE)) return;
    const hash = mergeTableQuery(now, query, prefix, filterNames);
    if (hash !== now) {
      window.history.replaceState(
        window.history.state,
        '',
        `${window.location.pathname}${window.location.search}${hash}`,
      );
    }
  }, [query, prefix]);
  return [query, setQuery];
}
