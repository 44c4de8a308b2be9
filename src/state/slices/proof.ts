import type { SliceCreator } from './types';

export interface ProofSlice {
  /** The proof step lit in the tree and the graph (index into puzzle.proof), or null. */
  readonly proofStep: number | null;
  setProofStep(step: number | null): void;
  /** Moves one rule forward (+1) or back (−1); stepping back from the first step turns it off. */
  stepProof(delta: 1 | -1): void;
}

export const createProofSlice: SliceCreator<ProofSlice> = (set, get) => ({
  proofStep: null,
  setProofStep: (proofStep) => set({ proofStep }),
  stepProof: (delta) => {
    const n = get().puzzle?.proof.length ?? 0;
    if (n === 0) return;
    const cur = get().proofStep;
    const next = cur === null ? (delta > 0 ? 0 : null) : cur + delta;
    set({ proofStep: next === null || next < 0 ? null : Math.min(next, n - 1) });
  },
});
