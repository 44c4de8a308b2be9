import { createStore, type StoreApi } from 'zustand/vanilla';
import { createClassroomSlice } from './slices/classroom';
import { createProofSlice } from './slices/proof';
import { createPuzzleSlice } from './slices/puzzle';
import { createSettingsSlice } from './slices/settings';
import type { Store } from './slices/types';
import { createUiSlice } from './slices/ui';

/**
 * Builds a store from the slices; the app uses `appStore`, tests build their own. The store is
 * zustand's vanilla store (no React), so the page's entry can start the first puzzle before
 * React is even loaded; components use the hook in useStore.ts.
 */
export const createAppStore = (): AppStore =>
  createStore<Store>()((...a) => ({
    ...createSettingsSlice(...a),
    ...createPuzzleSlice(...a),
    ...createUiSlice(...a),
    ...createProofSlice(...a),
    ...createClassroomSlice(...a),
  }));

export type AppStore = StoreApi<Store>;

/** The app's one store. */
export const appStore: AppStore = createAppStore();
