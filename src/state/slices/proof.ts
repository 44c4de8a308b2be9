import type { Puzzle } from '../../core/puzzle/puzzle';
import type { SliceCreator } from './types';

export interface ProofSlice {
  /** The proof step lit in the tree and the graph (index into puzzle.proof), or null. */
  readonly proofStep: number | null;
  /**
   * The puzzle the reader asked to see the proof of (before revealing the answer), or null.
   * Kept as the puzzle itself rather than a flag so that every new puzzle, however it arrives,
   * starts with its proof closed (see `selectProofOpen`).
   */
  readonly proofShownFor: Puzzle | null;
  setProofStep(step: number | null): void;
  /** Moves one rule forward (+1) or back (−1); stepping back from the first step turns it off. */
  stepProof(delta: 1 | -1): void;
  /** Opens (or closes again) the current puzzle's proof before the answer is revealed. */
  showProof(on: boolean): void;
}

export const createProofSlice: SliceCreator<ProofSlice> = (set, get) => ({
  proofStep: null,
  proofShownFor: null,
  setProofStep: (proofStep) => set({ proofStep }),
  stepProof: (delta) => {
    const n = get().puzzle?.proof.length ?? 0;
    if (n === 0) return;
    const cur = get().proofStep;
    const next = cur === null ? (delta > 0 ? 0 : null) : cur + delta;
    set({ proofStep: next === null || next < 0 ? null : Math.min(next, n - 1) });
  },
  // Closing the proof also turns off the lit step, so the drawing loses its derived edge too.
  showProof: (on) => set(on ? { proofShownFor: get().puzzle } : { proofShownFor: null, proofStep: null }),
});
