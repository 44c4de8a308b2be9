import { useStore as useZustandStore } from 'zustand';
import type { Store } from './slices/types';
import { appStore } from './store';

function useAppStore<T>(selector: (s: Store) => T): T {
  return useZustandStore(appStore, selector);
}

/**
 * The React hook over the app's store: `useStore(selectPuzzle)` subscribes a component to one
 * slice of state (use the module-level selectors); `useStore.getState().reveal()` calls an action
 * without subscribing, as event handlers should.
 */
export const useStore = Object.assign(useAppStore, {
  getState: appStore.getState,
  setState: appStore.setState,
  subscribe: appStore.subscribe,
});
