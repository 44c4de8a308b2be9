import { hashForRoute, routeFromHash } from './routes';
import { searchFromSettings, settingsFromSearch } from './settings';
import type { AppStore } from './store';

/**
 * Keeps the URL and the store in step: the query holds the puzzle's settings (so a link
 * reproduces the puzzle), the hash holds the view. Reads the URL once at start and loads the
 * puzzle it describes. User changes push a history entry; back and forward load the old puzzle.
 * Returns a function that stops the sync.
 */
export function startUrlSync(store: AppStore, win: Window = window): () => void {
  const fromUrl = () => {
    const { settings, warnings } = settingsFromSearch(win.location.search);
    store.getState().replaceSettings(settings, warnings);
  };
  const writeSearch = (mode: 'push' | 'replace') => {
    const search = searchFromSettings(store.getState().settings);
    if (search === win.location.search) return;
    const url = `${win.location.pathname}${search}${win.location.hash}`;
    if (mode === 'push') win.history.pushState(null, '', url);
    else win.history.replaceState(null, '', url);
  };
  const onHash = () => {
    const route = routeFromHash(win.location.hash);
    if (store.getState().route !== route) store.getState().setRoute(route);
  };

  store.setState({ route: routeFromHash(win.location.hash) });
  fromUrl();
  // The first visit may have no seed: write the one chosen, without a history entry.
  writeSearch('replace');

  // History writes are slow-ish (a few ms): they wait until the click that changed the settings
  // has sent its request, so they never delay the new puzzle.
  let pending: ReturnType<typeof setTimeout> | null = null;
  const unsubscribe = store.subscribe((state, prev) => {
    if (state.settings !== prev.settings && pending === null) {
      pending = setTimeout(() => {
        pending = null;
        writeSearch('push');
      }, 0);
    }
    if (state.route !== prev.route && routeFromHash(win.location.hash) !== state.route) {
      const hash = hashForRoute(state.route);
      win.history.pushState(null, '', `${win.location.pathname}${win.location.search}${hash}`);
    }
  });
  const onPop = () => {
    if (pending !== null) {
      clearTimeout(pending);
      pending = null;
    }
    onHash();
    const { settings } = settingsFromSearch(win.location.search);
    if (searchFromSettings(settings) !== searchFromSettings(store.getState().settings)) fromUrl();
  };
  win.addEventListener('popstate', onPop);
  win.addEventListener('hashchange', onHash);
  return () => {
    if (pending !== null) clearTimeout(pending);
    unsubscribe();
    win.removeEventListener('popstate', onPop);
    win.removeEventListener('hashchange', onHash);
  };
}
