import type { Puzzle } from '../../core/puzzle/puzzle';
import type { RenderedStory } from '../../core/text/render';
import { puzzleService } from '../service';
import { requestText } from './settings';
import type { SliceCreator } from './types';

export type PuzzleStatus = 'idle' | 'loading' | 'ready' | 'error';

export interface PuzzleSlice {
  readonly status: PuzzleStatus;
  readonly puzzle: Puzzle | null;
  readonly story: RenderedStory | null;
  /** The renderer that wrote the story (`synthetic` while paraphrases are not available). */
  readonly renderer: string | null;
  /** The last error, in words, for the alert region; the previous puzzle stays on screen. */
  readonly error: string | null;
  /** `generated` from the settings (the URL reproduces it) or `external` (opened from elsewhere). */
  readonly origin: 'generated' | 'external';
  /** Loads the puzzle the settings describe; resolves with it (null when failed or superseded). */
  requestPuzzle(): Promise<Puzzle | null>;
  /** Stops the generation in progress and keeps the current puzzle. */
  cancelRequest(): void;
  /** Shows a puzzle made elsewhere; its story is written when not given. */
  showExternal(puzzle: Puzzle, story?: RenderedStory): Promise<void>;
}

/** Per-puzzle view state that must start fresh with every new puzzle. */
const freshView = {
  revealed: false,
  guess: null,
  missed: null,
  hover: null,
  proofStep: null,
  classroomCursor: -1,
  classGuess: null,
  guessOpen: false,
} as const;

export const createPuzzleSlice: SliceCreator<PuzzleSlice> = (set, get) => {
  let seq = 0;
  return {
    status: 'idle',
    puzzle: null,
    story: null,
    renderer: null,
    error: null,
    origin: 'generated',
    requestPuzzle: async () => {
      const id = ++seq;
      const { settings, templates, templatesId } = get();
      const { seed, k, task, family, strict } = settings;
      const text = requestText(settings.text, templates, templatesId);
      set({ status: 'loading' });
      try {
        const r = await puzzleService().generate({ seed, k, task, family, text, strict: strict === true });
        if (id !== seq) return null;
        set({
          status: 'ready',
          puzzle: r.puzzle,
          story: r.story,
          renderer: r.renderer,
          error: null,
          origin: 'generated',
          ...freshView,
        });
        return r.puzzle;
      } catch (e) {
        if (id !== seq) return null;
        const err = e instanceof Error ? e : new Error(String(e));
        if (err.name === 'CancelledError') {
          set({ status: get().puzzle ? 'ready' : 'idle' });
          return null;
        }
        set({ status: 'error', error: describeError(err) });
        return null;
      }
    },
    cancelRequest: () => {
      seq++;
      puzzleService().cancel();
      set({
        status: get().puzzle ? 'ready' : 'idle',
        error: 'the generation was cancelled; the previous puzzle stays on screen.',
      });
    },
    showExternal: async (puzzle, story) => {
      const id = ++seq;
      let text = story ?? null;
      let renderer = story ? 'external' : null;
      if (!text) {
        set({ status: 'loading' });
        try {
          const { settings, templates, templatesId } = get();
          const r = await puzzleService().render(puzzle, requestText(settings.text, templates, templatesId));
          text = r.story;
          renderer = r.renderer;
        } catch (e) {
          if (id !== seq) return;
          set({ status: 'error', error: describeError(e instanceof Error ? e : new Error(String(e))) });
          return;
        }
      }
      if (id !== seq) return;
      set({ status: 'ready', puzzle, story: text, renderer, error: null, origin: 'external', ...freshView });
    },
  };
};

function describeError(e: Error): string {
  // The core's messages name the setting (`k = 10 needs 11 different people…`): shown as they are.
  if (e.name === 'GenerationError') return `${e.message}.`;
  if (e.name === 'WorkerCrash')
    return `The generator stopped unexpectedly (${e.message}). Try again or reload the page.`;
  return e.message;
}
