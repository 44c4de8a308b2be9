import type { Puzzle } from '../core/puzzle/puzzle';
import type { TaskId } from '../core/puzzle/tasks';
import type { RenderedStory } from '../core/text/render';
import { openPuzzleInExplorer } from '../state/open';
import type { AppStore } from '../state/store';

/**
 * What end-to-end tests may ask of the app, on `window.__clutrr`: load a seeded puzzle (resolves
 * once it is in the store, i.e. on its way to the screen), read the current one, open an
 * external puzzle. Nothing else: tests drive the UI through its data-testids.
 */
export interface ClutrrTestHook {
  loadPuzzle(seed: string | number, k: number, task: TaskId): Promise<Puzzle | null>;
  getPuzzle(): Puzzle | null;
  getStory(): RenderedStory | null;
  openPuzzle(puzzle: Puzzle, story?: RenderedStory): Promise<void>;
}

declare global {
  interface Window {
    __clutrr?: ClutrrTestHook;
  }
}

export function installTestHook(store: AppStore): void {
  window.__clutrr = {
    async loadPuzzle(seed, k, task) {
      const s = store.getState();
      s.setRoute(s.route === 'classroom' ? 'classroom' : 'puzzle');
      store.setState({ settings: { ...s.settings, seed: String(seed), k, task } });
      return store.getState().requestPuzzle();
    },
    getPuzzle: () => store.getState().puzzle,
    getStory: () => store.getState().story,
    openPuzzle: (puzzle, story) => openPuzzleInExplorer(puzzle, story),
  };
}
