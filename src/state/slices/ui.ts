import { labelIsAnswer } from '../../core/formats/toPuzzle';
import type { RelationWord } from '../../core/kinship/relations';
import type { Route } from '../routes';
import type { SliceCreator } from './types';

/** Facts lit because the pointer or the focus is on a sentence or an edge. */
export interface Highlight {
  readonly factIds: readonly number[];
  readonly source: 'sentence' | 'edge';
}

export interface UiSlice {
  readonly route: Route;
  readonly hover: Highlight | null;
  /** Draws the whole family (the closed graph) faintly behind the story's people. */
  readonly showHidden: boolean;
  /** The drawing spans the whole width of the explorer (for wide families). */
  readonly graphWide: boolean;
  readonly revealed: boolean;
  readonly guess: RelationWord | null;
  /** A setting: a wrong pick gets one more try before the answer is shown (off: the first pick reveals). */
  readonly secondTry: boolean;
  /** The wrong first pick, while the answer waits for the second try. */
  readonly missed: RelationWord | null;
  setRoute(route: Route): void;
  highlight(h: Highlight | null): void;
  setShowHidden(on: boolean): void;
  setGraphWide(on: boolean): void;
  reveal(): void;
  /**
   * Records the reader's answer and reveals the right one; with `secondTry`, a wrong first pick
   * is only remembered (`missed`) and the next pick reveals.
   */
  pickGuess(word: RelationWord): void;
  setSecondTry(on: boolean): void;
}

export const createUiSlice: SliceCreator<UiSlice> = (set, get) => ({
  route: 'puzzle',
  hover: null,
  showHidden: false,
  graphWide: false,
  revealed: false,
  guess: null,
  secondTry: false,
  missed: null,
  setRoute: (route) => set({ route }),
  highlight: (hover) => set({ hover }),
  setShowHidden: (showHidden) => set({ showHidden }),
  setGraphWide: (graphWide) => set({ graphWide }),
  reveal: () => set({ revealed: true }),
  pickGuess: (guess) => {
    const s = get();
    const first = !s.revealed && s.missed === null;
    // An imported row's label that the facts do not entail is no answer to judge a pick against.
    if (s.secondTry && first && s.puzzle && labelIsAnswer(s.puzzle) && guess !== s.puzzle.target.word)
      set({ missed: guess });
    else set({ guess, revealed: true });
  },
  setSecondTry: (secondTry) => set({ secondTry }),
});
