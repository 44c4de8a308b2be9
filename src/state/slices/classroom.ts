import type { RelationWord } from '../../core/kinship/relations';
import { classroomBeats } from '../classroom';
import type { SliceCreator } from './types';

export interface ClassroomSlice {
  /** Index of the last beat shown (see classroomBeats); −1 before the first. */
  readonly classroomCursor: number;
  readonly classGuess: RelationWord | null;
  readonly guessOpen: boolean;
  /** Next (+1) or previous (−1) beat. */
  classroomStep(delta: 1 | -1): void;
  /** Jumps to the answer (everything before it shown). */
  classroomReveal(): void;
  setGuessOpen(open: boolean): void;
  setClassGuess(word: RelationWord | null): void;
  classroomRestart(): void;
}

export const createClassroomSlice: SliceCreator<ClassroomSlice> = (set, get) => {
  const beats = () => {
    const { puzzle, story } = get();
    return puzzle && story ? classroomBeats(puzzle, story) : [];
  };
  return {
    classroomCursor: -1,
    classGuess: null,
    guessOpen: false,
    classroomStep: (delta) => {
      const n = beats().length;
      const cur = get().classroomCursor;
      set({ classroomCursor: Math.max(-1, Math.min(n - 1, cur + delta)) });
    },
    classroomReveal: () => {
      const i = beats().findIndex((b) => b.type === 'answer');
      if (i >= 0 && get().classroomCursor < i) set({ classroomCursor: i, guessOpen: false });
    },
    setGuessOpen: (guessOpen) => set({ guessOpen }),
    setClassGuess: (classGuess) => set({ classGuess, guessOpen: false }),
    classroomRestart: () => set({ classroomCursor: -1, classGuess: null, guessOpen: false }),
  };
};
