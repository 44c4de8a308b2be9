import { describe, expect, it } from 'vitest';
import { fleissKappa, withinClauseJaccard } from './agreement';

describe('fleissKappa', () => {
  it('matches a small example computed by hand', () => {
    // Four stories, three reviewers each, [good, bad]:
    // P_i = (Σ n² − 3) / 6: 1, 1/3, 1, 1/3 → P̄ = 2/3; p = (6/12, 6/12) → P̄e = 1/2;
    // κ = (2/3 − 1/2) / (1 − 1/2) = 1/3.
    const r = fleissKappa([
      [3, 0],
      [2, 1],
      [0, 3],
      [1, 2],
    ]);
    expect(r.observed).toBeCloseTo(2 / 3, 12);
    expect(r.expected).toBeCloseTo(1 / 2, 12);
    expect(r.kappa).toBeCloseTo(1 / 3, 12);
    expect(r.items).toBe(4);
  });

  it("matches Fleiss' worked example (10 subjects, 14 raters, 5 categories: κ ≈ 0.210)", () => {
    const r = fleissKappa([
      [0, 0, 0, 0, 14],
      [0, 2, 6, 4, 2],
      [0, 0, 3, 5, 6],
      [0, 3, 9, 2, 0],
      [2, 2, 8, 1, 1],
      [7, 7, 0, 0, 0],
      [3, 2, 6, 3, 0],
      [2, 5, 3, 2, 2],
      [6, 5, 2, 1, 0],
      [0, 2, 2, 3, 7],
    ]);
    expect(r.observed).toBeCloseTo(0.378, 3);
    expect(r.expected).toBeCloseTo(0.213, 3);
    expect(r.kappa).toBeCloseTo(0.21, 2);
  });

  it('takes items with different numbers of ratings, and leaves out items with fewer than two', () => {
    // [2,0]: 1; [1,1]: 0; [0,3]: 1 → P̄ = 2/3; shares 3/7, 4/7 → P̄e = 25/49;
    // κ = (2/3 − 25/49) / (24/49) = 23/72.
    const r = fleissKappa([
      [2, 0],
      [1, 1],
      [0, 3],
      [1, 0],
      [0, 0],
    ]);
    expect(r.items).toBe(3);
    expect(r.kappa).toBeCloseTo(23 / 72, 12);
  });

  it('is 1 for perfect agreement, undefined when one category is all there is or nothing is rated', () => {
    expect(
      fleissKappa([
        [3, 0],
        [3, 0],
        [0, 3],
      ]).kappa,
    ).toBeCloseTo(1, 12);
    expect(
      fleissKappa([
        [3, 0],
        [3, 0],
      ]).kappa,
    ).toBeNull();
    expect(fleissKappa([]).kappa).toBeNull();
    expect(fleissKappa([[1, 0]]).items).toBe(0);
  });

  it('names the item with a bad count', () => {
    expect(() => fleissKappa([[1, 1], [1]])).toThrow('item 2 has 1 categories, the first item 2');
    expect(() =>
      fleissKappa([
        [1, 1],
        [1, -1],
      ]),
    ).toThrow('item 2 has a count of -1');
    expect(() => fleissKappa([[1.5, 1]])).toThrow('item 1 has a count of 1.5');
  });
});

describe('withinClauseJaccard', () => {
  it('averages pairwise overlap within each clause, then over clauses (hand-computed)', () => {
    const r = withinClauseJaccard({
      // {saw, his, dad} vs {saw, his, father}: 2/4; bigrams {saw his, his dad} vs {saw his, his father}: 1/3.
      x: ['ENT_0_male saw his dad ENT_1_male.', 'ENT_0_male saw his father ENT_1_male.'],
      // Unigram pairs 2/4, 0, 0 → 1/6; bigram pairs 1/3, 0, 0 → 1/9.
      y: ['We ran home.', 'We ran away.', 'They sat.'],
      // One story: no pair, not averaged.
      z: ['Alone here.'],
    });
    expect(r.unigram).toBeCloseTo((1 / 2 + 1 / 6) / 2, 12);
    expect(r.bigram).toBeCloseTo((1 / 3 + 1 / 9) / 2, 12);
    expect(r.clauses).toBe(2);
    expect(r.stories).toBe(6);
    const m = withinClauseJaccard(new Map([['x', ['a b', 'a b']]]));
    expect([m.unigram, m.bigram]).toEqual([1, 1]);
    expect(withinClauseJaccard({})).toEqual({ unigram: 0, bigram: 0, clauses: 0, stories: 0 });
  });
});
