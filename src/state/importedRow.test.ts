import { describe, expect, it } from 'vitest';
import { puzzleToRow } from '../core/formats/fromPuzzle';
import { labelIsAnswer, rowToPuzzle } from '../core/formats/toPuzzle';
import { generatePuzzle } from '../core/puzzle/puzzle';
import { createRng } from '../core/random/rng';
import { renderPlain } from '../core/text/plain';
import { createAppStore } from './store';

describe('an imported row whose label the facts do not entail (issue 21)', () => {
  const p = generatePuzzle({ seed: 'imported', k: 3, task: 1 });
  const row = puzzleToRow(p, renderPlain(p, 'train', createRng(p.seed, 'text')), { index: 0, id: 'r', split: 'train' });
  const entailed = rowToPuzzle(row);
  const wrongLabel = row.target === 'aunt' ? 'uncle' : 'aunt';
  const unsupported = rowToPuzzle({ ...row, target: wrongLabel });

  it('is no answer to judge a pick against: with a second try on, the first pick reveals', () => {
    expect(labelIsAnswer(entailed)).toBe(true);
    expect(labelIsAnswer(unsupported)).toBe(false);
    const store = createAppStore();
    store.setState({ puzzle: unsupported, revealed: false, guess: null, missed: null });
    store.getState().setSecondTry(true);
    store.getState().pickGuess(p.target.word);
    expect(store.getState()).toMatchObject({ revealed: true, guess: p.target.word, missed: null });
  });

  it('an entailed imported row keeps the second try', () => {
    const store = createAppStore();
    store.setState({ puzzle: entailed, revealed: false, guess: null, missed: null });
    store.getState().setSecondTry(true);
    store.getState().pickGuess(wrongLabel);
    expect(store.getState()).toMatchObject({ revealed: false, missed: wrongLabel });
  });
});
