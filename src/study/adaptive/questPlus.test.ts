import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/random/rng';
import { pCorrect } from './psychometric';
import { questConfig, questEstimate, questGrid, questNextK, questPosterior } from './questPlus';

const LEVELS = [2, 3, 4, 5, 6, 7, 8, 9, 10];

describe('QUEST+ over k', () => {
  it('the psychometric function: right at k ≤ threshold, guessing beyond, for a steep respondent', () => {
    const p = { threshold: 4, slope: 10, lapse: 0.05 };
    expect(pCorrect(p, 4)).toBeGreaterThan(0.9);
    expect(pCorrect(p, 5)).toBeLessThan(0.1);
    expect(pCorrect(p, 2)).toBeLessThanOrEqual(1 - 0.05 + 1e-9);
  });

  it('starts with a uniform prior and asks for a middle k first', () => {
    const grid = questGrid(questConfig(LEVELS));
    const post = questPosterior(grid, []);
    expect(post.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
    const k = questNextK(grid, post);
    expect(k).toBeGreaterThan(2);
    expect(k).toBeLessThan(10);
  });

  it('moves the posterior toward the answers and narrows the interval', () => {
    const grid = questGrid(questConfig(LEVELS));
    const rng = createRng(5);
    const truth = { threshold: 6, slope: 3, lapse: 0.02 };
    const answers: { k: number; correct: boolean }[] = [];
    const widths: number[] = [];
    for (let i = 0; i < 40; i++) {
      const post = questPosterior(grid, answers);
      const e = questEstimate(grid, post, answers.length);
      widths.push(e.high - e.low);
      const k = questNextK(grid, post);
      answers.push({ k, correct: rng.next() < pCorrect(truth, k) });
    }
    const e = questEstimate(grid, questPosterior(grid, answers), answers.length);
    expect(Math.abs(e.threshold - 6)).toBeLessThan(1);
    expect(e.low).toBeLessThanOrEqual(e.threshold);
    expect(e.high).toBeGreaterThanOrEqual(e.threshold);
    expect(widths[widths.length - 1]!).toBeLessThan(widths[0]! / 2);
  });

  it('is a pure function of the answers (the same answers, the same next k), and refuses a k off the grid', () => {
    const grid = questGrid(questConfig(LEVELS));
    const a = [
      { k: 6, correct: true },
      { k: 8, correct: false },
    ];
    expect(questNextK(grid, questPosterior(grid, a))).toBe(questNextK(grid, questPosterior(grid, [...a])));
    expect(Array.from(questPosterior(grid, a))).toEqual(Array.from(questPosterior(questGrid(questConfig(LEVELS)), a)));
    expect(() => questPosterior(grid, [{ k: 11, correct: true }])).toThrow(/k 11 is not one of the procedure's levels/);
  });
});
