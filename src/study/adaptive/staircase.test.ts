import { describe, expect, it } from 'vitest';
import {
  nearestLevel,
  replayStaircase,
  STAIRCASE_DEFAULTS,
  staircaseEstimate,
  staircaseNextK,
  targetOf,
  type StaircaseConfig,
} from './staircase';

const CONFIG: StaircaseConfig = { ...STAIRCASE_DEFAULTS, levels: [2, 3, 4, 5, 6, 7, 8, 9, 10], start: 2 };
const answers = (pattern: string, ks: number[] = []) =>
  [...pattern].map((c, i) => ({ k: ks[i] ?? 0, correct: c === '1' }));

describe('the 2-down-1-up staircase', () => {
  it('targets 70.7% right with equal steps, and other targets with weighted ones', () => {
    expect(targetOf(2, 1, 1)).toBeCloseTo(Math.SQRT1_2, 10);
    // 1-up-1-down weighted 1 : 3 settles at 75%.
    expect(targetOf(1, 1, 3)).toBeCloseTo(0.75, 10);
  });

  it('makes the story longer after two right in a row (doubled before the first reversal), shorter after one wrong', () => {
    const ks: number[] = [];
    let s = replayStaircase(CONFIG, []);
    const walk = '11110111';
    for (let i = 0; i <= walk.length; i++) {
      s = replayStaircase(CONFIG, answers(walk.slice(0, i)));
      ks.push(staircaseNextK(CONFIG, s));
    }
    // 2,2 → +2 → 4,4 → +2 → 6 → wrong: −2 (first reversal: steps 1 from now) → 4,4 → +1 → 5 → …
    expect(ks).toEqual([2, 2, 4, 4, 6, 4, 4, 5, 5]);
    expect(s.reversals).toEqual([6, 4]);
  });

  it('stays within the levels', () => {
    const down = replayStaircase(CONFIG, answers('0000'));
    expect(staircaseNextK(CONFIG, down)).toBe(2);
    const up = replayStaircase(CONFIG, answers('1'.repeat(40)));
    expect(staircaseNextK(CONFIG, up)).toBe(10);
    expect(nearestLevel([2, 4, 6], 5)).toBe(4);
  });

  it('estimates half a hop below the mean reversal k, with an interval at least ±0.5', () => {
    // Alternating between 4 and 5 after the approach: reversals 5,4,5,4… → threshold 4.
    const s = {
      position: 4,
      run: 0,
      direction: -1 as const,
      reversals: [6, 3, 5, 4, 5, 4, 5, 4],
      trials: 30,
      ks: [],
    };
    const e = staircaseEstimate(CONFIG, s);
    expect(e.threshold).toBeCloseTo(4, 10);
    expect(e.low).toBeLessThan(4);
    expect(e.high).toBeGreaterThan(4);
    expect(e.high - e.low).toBeGreaterThanOrEqual(1);
  });
});
