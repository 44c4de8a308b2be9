/** The app's views; hash routing keeps the puzzle's query parameters untouched. */
export const ROUTES = ['puzzle', 'classroom', 'dataset', 'audit', 'study', 'results', 'models'] as const;
export type Route = (typeof ROUTES)[number];

const HASH: Record<Route, string> = {
  puzzle: '',
  classroom: '#/classroom',
  dataset: '#/dataset',
  audit: '#/audit',
  study: '#/study',
  results: '#/results',
  models: '#/models',
};

export function routeFromHash(hash: string): Route {
  const name = hash.replace(/^#\/?/, '').split(/[/?]/)[0] ?? '';
  return (ROUTES as readonly string[]).includes(name) && name !== 'puzzle' ? (name as Route) : 'puzzle';
}

export function hashForRoute(route: Route): string {
  return HASH[route];
}

/** The full link of a view: the current query (the puzzle's settings) plus the route's hash. */
export function hrefForRoute(route: Route, search: string): string {
  return `${search || '?'}${HASH[route] || '#/'}`;
}
