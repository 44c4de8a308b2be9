import { describe, expect, it } from 'vitest';
import { generatePuzzle } from '../core/puzzle/puzzle';
import { createAppStore } from './store';

describe('a second try before the answer (issue 23)', () => {
  const puzzle = generatePuzzle({ seed: '5', k: 3, task: 1 });
  const wrong = puzzle.target.word === 'aunt' ? 'uncle' : 'aunt';
  const fresh = (secondTry: boolean) => {
    const store = createAppStore();
    store.setState({ puzzle, revealed: false, guess: null, missed: null });
    store.getState().setSecondTry(secondTry);
    return store;
  };

  it('off (the default): the first pick reveals', () => {
    const store = createAppStore();
    expect(store.getState().secondTry).toBe(false);
    store.setState({ puzzle });
    store.getState().pickGuess(wrong);
    expect(store.getState()).toMatchObject({ revealed: true, guess: wrong, missed: null });
  });

  it('on: a wrong first pick is remembered and the answer stays hidden; the next pick reveals', () => {
    const store = fresh(true);
    store.getState().pickGuess(wrong);
    expect(store.getState()).toMatchObject({ revealed: false, guess: null, missed: wrong });
    store.getState().pickGuess(puzzle.target.word);
    expect(store.getState()).toMatchObject({ revealed: true, guess: puzzle.target.word });
  });

  it('on: a wrong second pick reveals too, and a right first pick reveals at once', () => {
    const twice = fresh(true);
    twice.getState().pickGuess(wrong);
    twice.getState().pickGuess(wrong);
    expect(twice.getState()).toMatchObject({ revealed: true, guess: wrong });
    const right = fresh(true);
    right.getState().pickGuess(puzzle.target.word);
    expect(right.getState()).toMatchObject({ revealed: true, guess: puzzle.target.word, missed: null });
  });
});
