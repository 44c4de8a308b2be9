import { describe, expect, it } from 'vitest';
import { sharedScale } from './drawn';

describe('sharedScale', () => {
  const b = (w: number, h: number) => ({ x0: 0, y0: 0, x1: w, y1: h });
  it('is the scale the largest drawing needs, for every drawing', () => {
    expect(sharedScale([b(300, 100), b(1200, 200), b(600, 300)], { width: 600, height: 400 }, 0.1)).toBe(0.5);
    expect(sharedScale([b(300, 800)], { width: 600, height: 400 }, 0.1)).toBe(0.5);
  });
  it('never enlarges, and never goes below the floor', () => {
    expect(sharedScale([b(100, 100)], { width: 600, height: 400 }, 0.1)).toBe(1);
    expect(sharedScale([b(6000, 100)], { width: 600, height: 400 }, 0.86)).toBe(0.86);
  });
});
