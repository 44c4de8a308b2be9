import type { PuzzleWithStory } from '../worker/protocol';
import { puzzleService } from './service';
import { nextSeed, previousSeed } from './settings';
import { requestText } from './slices/settings';
import type { AppStore } from './store';

/**
 * The puzzles of a printed handout: `count` puzzles from the current settings, the current seed
 * first and then the seeds New puzzle would give (so the handout is the classroom's next
 * puzzles, reproducible from its first seed).
 */
export async function handoutPuzzles(store: Pick<AppStore, 'getState'>, count: number): Promise<PuzzleWithStory[]> {
  const { settings, templates, templatesId } = store.getState();
  const text = requestText(settings.text, templates, templatesId);
  const { k, task, family, strict } = settings;
  const out: PuzzleWithStory[] = [];
  let seed = settings.seed;
  for (let i = 0; i < count; i++) {
    out.push(await puzzleService().generateOne({ seed, k, task, family, text, strict: strict === true }));
    seed = nextSeed(seed);
  }
  return out;
}

/** Moves the store to the puzzle before the current one (the seed New puzzle came from), if any. */
export function previousPuzzle(store: Pick<AppStore, 'getState'>): boolean {
  const s = store.getState();
  const seed = previousSeed(s.settings.seed);
  if (seed === null) return false;
  s.setSettings({ seed });
  return true;
}
