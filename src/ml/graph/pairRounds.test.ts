import { describe, expect, it } from 'vitest';
import { generatePuzzle, toRecord } from '../../core/puzzle/puzzle';
import { PAIR_CLASSES, pairLabelsFromPuzzle } from './pairRounds';

const puzzles = [1, 2, 3, 4, 5, 6].map((seed) => toRecord(generatePuzzle({ seed, k: 2 + (seed % 2), task: 1 })));

describe('the pair rounds of the relation composers (pairRounds.ts)', () => {
  it('the rule-base pair labels give the answer after k rounds, none before it is known', () => {
    for (const p of puzzles) {
      const labels = pairLabelsFromPuzzle(p, p.k);
      const n = p.entities.length;
      const [a, b] = p.query;
      expect(PAIR_CLASSES[labels[p.k - 1]![a * n + b]!]).toBe(p.target.word);
      expect(PAIR_CLASSES[labels[0]![a * n + b]!]).toBe(p.k === 2 ? p.target.word : 'none');
      // A stated fact is known from the first round on.
      const f = p.facts[0]!;
      expect(PAIR_CLASSES[labels[0]![f.from * n + f.to]!]).toBe(f.word);
    }
  });
});
