import type { Store } from './slices/types';

/**
 * Module-level selectors: stable functions, so components re-render only when their slice of
 * the state changes. Actions are stable too and can be selected one by one.
 */
export const selectSettings = (s: Store) => s.settings;
export const selectUrlWarnings = (s: Store) => s.urlWarnings;
export const selectTemplates = (s: Store) => s.templates;
export const selectPuzzle = (s: Store) => s.puzzle;
export const selectStory = (s: Store) => s.story;
export const selectStatus = (s: Store) => s.status;
export const selectError = (s: Store) => s.error;
export const selectOrigin = (s: Store) => s.origin;
export const selectRoute = (s: Store) => s.route;
export const selectHover = (s: Store) => s.hover;
export const selectShowHidden = (s: Store) => s.showHidden;
export const selectGraphWide = (s: Store) => s.graphWide;
export const selectRevealed = (s: Store) => s.revealed;
export const selectGuess = (s: Store) => s.guess;
export const selectSecondTry = (s: Store) => s.secondTry;
export const selectMissed = (s: Store) => s.missed;
export const selectProofStep = (s: Store) => s.proofStep;
/**
 * Whether what gives the answer away (the proof, derived relations, the hidden family) may be
 * shown: once the answer is revealed, or when the reader asked for the proof of this very puzzle.
 */
export const selectProofOpen = (s: Store) => s.revealed || (s.proofShownFor !== null && s.proofShownFor === s.puzzle);
export const selectClassroomCursor = (s: Store) => s.classroomCursor;
export const selectClassGuess = (s: Store) => s.classGuess;
export const selectGuessOpen = (s: Store) => s.guessOpen;

/** Actions are not selected: event handlers call them through `useStore.getState()`. */
