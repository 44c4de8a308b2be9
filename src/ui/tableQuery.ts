/**
 * A table's view in words a URL can carry: a text search, a sort column and direction, and the
 * table's own filters. Pure; the views keep it in the hash's query (`#/dataset?q=…&sort=k`), so
 * a filtered, sorted view is a link that can be shared.
 */
export type SortDir = 'asc' | 'desc';

export interface TableQuery {
  readonly q: string;
  readonly sort: string | null;
  readonly dir: SortDir;
  /** The table's filters by name (absent: any). */
  readonly filters: Readonly<Record<string, string>>;
}

export const EMPTY_QUERY: TableQuery = { q: '', sort: null, dir: 'asc', filters: {} };

/** Whether every word of `q` appears (case-insensitive) in one of `fields`. */
export function textMatches(fields: readonly string[], q: string): boolean {
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = fields.join('\n').toLowerCase();
  return words.every((w) => hay.includes(w));
}

/** The rows sorted by a column's value (numbers as numbers, text in natural order); stable. */
export function sortRows<T>(rows: readonly T[], value: (row: T) => string | number, dir: SortDir): T[] {
  const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
  const sign = dir === 'asc' ? 1 : -1;
  return rows
    .map((row, i) => ({ row, i, v: value(row) }))
    .sort((a, b) => {
      const c =
        typeof a.v === 'number' && typeof b.v === 'number' ? a.v - b.v : collator.compare(String(a.v), String(b.v));
      return c !== 0 ? sign * c : a.i - b.i;
    })
    .map((x) => x.row);
}

/** The next sort on a click of `column`: ascending, then descending, then none. */
export function nextSort(query: TableQuery, column: string): Pick<TableQuery, 'sort' | 'dir'> {
  if (query.sort !== column) return { sort: column, dir: 'asc' };
  return query.dir === 'asc' ? { sort: column, dir: 'desc' } : { sort: null, dir: 'asc' };
}

/** `aria-sort` of a column header. */
export const ariaSort = (query: TableQuery, column: string): 'ascending' | 'descending' | 'none' =>
  query.sort === column ? (query.dir === 'asc' ? 'ascending' : 'descending') : 'none';

/**
 * Reads a table's view from a hash like `#/dataset?q=son&sort=k&dir=desc&k=3`. With a `prefix`
 * (two tables on one route), the names are prefixed: `items_q`, `items_sort`, `items_dir`, ….
 */
export function readTableQuery(hash: string, filterNames: readonly string[], prefix = ''): TableQuery {
  const at = hash.indexOf('?');
  const p = new URLSearchParams(at >= 0 ? hash.slice(at + 1) : '');
  const filters: Record<string, string> = {};
  for (const name of filterNames) {
    const v = p.get(prefix + name);
    if (v !== null && v !== '') filters[name] = v;
  }
  return {
    q: p.get(`${prefix}q`) ?? '',
    sort: p.get(`${prefix}sort`) || null,
    dir: p.get(`${prefix}dir`) === 'desc' ? 'desc' : 'asc',
    filters,
  };
}

/**
 * The hash with one prefixed table's view put in (its names replaced in place or dropped, every
 * other name kept where it was, so the URL does not reshuffle): how two tables on one route share the hash's query.
 */
export function mergeTableQuery(
  hash: string,
  query: TableQuery,
  prefix: string,
  filterNames: readonly string[],
): string {
  const at = hash.indexOf('?');
  const route = at >= 0 ? hash.slice(0, at) : hash;
  const p = new URLSearchParams(at >= 0 ? hash.slice(at + 1) : '');
  const put = (name: string, v: string | null | undefined) => {
    if (v)
      p.set(prefix + name, v); // in place when already there
    else p.delete(prefix + name);
  };
  put('q', query.q.trim() ? query.q : null);
  put('sort', query.sort);
  put('dir', query.sort && query.dir === 'desc' ? 'desc' : null);
  for (const name of filterNames) put(name, query.filters[name]);
  const s = p.toString();
  return s ? `${route}?${s}` : route;
}

/** The hash of a view: the route's own part, then the table's view (nothing when it is the default). */
export function tableQueryHash(
  routeHash: string,
  query: TableQuery,
  extra: Readonly<Record<string, string>> = {},
): string {
  const p = new URLSearchParams();
  if (query.q.trim()) p.set('q', query.q);
  if (query.sort) {
    p.set('sort', query.sort);
    if (query.dir === 'desc') p.set('dir', 'desc');
  }
  for (const [k, v] of Object.entries(query.filters)) if (v !== '') p.set(k, v);
  for (const [k, v] of Object.entries(extra)) if (v !== '') p.set(k, v);
  const s = p.toString();
  return s ? `${routeHash}?${s}` : routeHash;
}
