import type { Puzzle } from '../core/puzzle/puzzle';
import type { RenderedStory } from '../core/text/render';
import { appStore } from './store';

/**
 * Shows a puzzle made elsewhere (an audit row, an imported CSV line) in the puzzle view. When no
 * story is given, the current renderer writes one. The URL keeps its settings: the puzzle view
 * marks the puzzle as opened from outside and offers to go back to the generated one. Resolves
 * once the puzzle is in the store.
 */
export function openPuzzleInExplorer(puzzle: Puzzle, story?: RenderedStory): Promise<void> {
  const s = appStore.getState();
  s.setRoute('puzzle');
  return s.showExternal(puzzle, story);
}
