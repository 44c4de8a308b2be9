import { describe, expect, it } from 'vitest';
import { incompleteBeta, oneSample, twoSidedP, welch } from './tTest';

describe("Student's t", () => {
  it('gives the two-sided p of known quantiles', () => {
    // t(0.975; 10) = 2.228, t(0.975; 30) = 2.042, t(0.995; 5) = 4.032.
    expect(twoSidedP(2.228, 10)).toBeCloseTo(0.05, 3);
    expect(twoSidedP(2.042, 30)).toBeCloseTo(0.05, 3);
    expect(twoSidedP(4.032, 5)).toBeCloseTo(0.01, 3);
    expect(twoSidedP(0, 7)).toBeCloseTo(1, 10);
    expect(incompleteBeta(0.5, 2, 2)).toBeCloseTo(0.5, 10);
  });

  it('one-sample and Welch tests: t, p, and the degenerate cases', () => {
    const r = oneSample([1, 2, 3, 4, 5]);
    // mean 3, sd 1.5811: t = 3 / (1.5811 / √5) = 4.243 on 4 df.
    expect(r.t).toBeCloseTo(4.2426, 3);
    expect(r.p).toBeCloseTo(0.01324, 4);
    expect(oneSample([0, 0, 0])).toEqual({ t: 0, p: 1 });
    expect(oneSample([2])).toEqual({ t: 0, p: 1 });
    const w = welch([1, 2, 3, 4], 4, [3, 4, 5, 6], 4);
    expect(w.t).toBeCloseTo(2.1909, 3);
    expect(w.p).toBeGreaterThan(0.05);
    expect(w.p).toBeLessThan(0.1);
  });
});
