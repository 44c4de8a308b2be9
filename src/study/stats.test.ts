import { describe, expect, it } from 'vitest';
import { createRng } from '../core/random/rng';
import {
  bootstrapMean,
  clusterBootstrap,
  clusteringMatters,
  clusterRobustSe,
  clustersOf,
  clusterWidthRatio,
  incompleteBeta,
  mean,
  meanT,
  median,
  quantileSorted,
  sampleSd,
  studentTCdf,
  studentTQuantile,
  wilson,
  type Cluster,
} from './stats';

// Reference figures below come from outside this module: printed t tables, closed forms of the
// t distribution for 1 and 2 degrees of freedom, and Wilson intervals worked by hand (and as R's
// binom.wilson prints them).

describe('wilson', () => {
  it('matches intervals worked by hand', () => {
    // 8/10: centre (0.8 + z²/20)/(1 + z²/10), half-width z/(1 + z²/10)·√(0.016 + z²/400).
    const a = wilson(8, 10);
    expect(a.estimate).toBe(0.8);
    expect(a.lo).toBeCloseTo(0.4901625, 6);
    expect(a.hi).toBeCloseTo(0.9433178, 6);
    // 50/100: symmetric about 0.5, half-width 0.096169.
    const b = wilson(50, 100);
    expect(b.lo).toBeCloseTo(0.403832, 5);
    expect(b.hi).toBeCloseTo(0.596168, 5);
  });

  it('stays inside [0, 1] at the edges: 0/n tops out at z²/(n + z²)', () => {
    const z2 = 1.959963984540054 ** 2;
    expect(wilson(0, 10)).toEqual({ estimate: 0, lo: 0, hi: expect.closeTo(z2 / (10 + z2), 9) });
    const all = wilson(10, 10);
    expect(all.hi).toBe(1);
    expect(all.lo).toBeCloseTo(10 / (10 + z2), 9);
  });

  it('gives NaNs for no trials and refuses impossible counts', () => {
    expect(Number.isNaN(wilson(0, 0).estimate)).toBe(true);
    expect(() => wilson(11, 10)).toThrow(/11 successes out of 10/);
  });
});

describe('Student t', () => {
  it('has the closed-form CDFs at 1 and 2 degrees of freedom', () => {
    for (const t of [-7, -1.5, -0.2, 0, 0.3, 1, 2.5, 12]) {
      expect(studentTCdf(t, 1)).toBeCloseTo(0.5 + Math.atan(t) / Math.PI, 12);
      expect(studentTCdf(t, 2)).toBeCloseTo(0.5 + t / (2 * Math.sqrt(2 + t * t)), 12);
    }
  });

  it('has the 97.5% quantiles of printed t tables', () => {
    const table: [number, number][] = [
      [1, 12.7062],
      [2, 4.3027],
      [4, 2.7764],
      [5, 2.5706],
      [10, 2.2281],
      [30, 2.0423],
      [100, 1.984],
    ];
    for (const [df, q] of table) expect(studentTQuantile(0.975, df)).toBeCloseTo(q, 3);
    expect(studentTQuantile(0.995, 10)).toBeCloseTo(3.1693, 3);
    expect(studentTQuantile(0.025, 10)).toBeCloseTo(-2.2281, 3);
    expect(studentTQuantile(0.975, 1e6)).toBeCloseTo(1.96, 3);
  });

  it('incomplete beta: known special cases', () => {
    expect(incompleteBeta(0.5, 3, 3)).toBeCloseTo(0.5, 12);
    expect(incompleteBeta(0.3, 1, 1)).toBeCloseTo(0.3, 12);
    expect(incompleteBeta(0.7, 4, 1)).toBeCloseTo(0.7 ** 4, 12);
    expect(incompleteBeta(0.2, 1, 3)).toBeCloseTo(1 - 0.8 ** 3, 12);
  });

  it('refuses p outside (0, 1) and df ≤ 0', () => {
    expect(() => studentTQuantile(1, 3)).toThrow(/p = 1/);
    expect(() => studentTQuantile(0.9, 0)).toThrow(/df = 0/);
  });
});

describe('means', () => {
  it('t interval of 1..5: 3 ± 2.7764·√2.5/√5', () => {
    const r = meanT([1, 2, 3, 4, 5]);
    expect(r.estimate).toBe(3);
    expect(r.lo).toBeCloseTo(1.03676, 4);
    expect(r.hi).toBeCloseTo(4.96324, 4);
    expect(sampleSd([1, 2, 3, 4, 5])).toBeCloseTo(Math.sqrt(2.5), 12);
  });

  it('one value has a mean and no interval; none has neither', () => {
    const one = meanT([4]);
    expect(one.estimate).toBe(4);
    expect(Number.isNaN(one.lo)).toBe(true);
    expect(Number.isNaN(mean([]))).toBe(true);
  });

  it('quantiles and the median interpolate like R type 7', () => {
    expect(quantileSorted([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantileSorted([10, 20, 30, 40, 50], 0.1)).toBe(14);
    expect(median([5, 1, 3])).toBe(3);
  });
});

/** Normal draws by Box–Muller from the seeded generator. */
function normals(seed: number, n: number, mu = 0, sd = 1): number[] {
  const rng = createRng(seed, 'normals');
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const u = 1 - rng.next();
    out.push(mu + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next()));
  }
  return out;
}

describe('bootstrap', () => {
  it('is reproducible from the seed, and differs between seeds', () => {
    const xs = normals(1, 40);
    expect(bootstrapMean(xs, createRng(7))).toEqual(bootstrapMean(xs, createRng(7)));
    expect(bootstrapMean(xs, createRng(7)).lo).not.toBe(bootstrapMean(xs, createRng(8)).lo);
  });

  it('comes close to the t interval for a normal sample of 200', () => {
    const xs = normals(2, 200, 10, 3);
    const t = meanT(xs);
    const b = bootstrapMean(xs, createRng(3));
    expect(b.estimate).toBe(t.estimate);
    const tw = t.hi - t.lo;
    expect(Math.abs(b.lo - t.lo)).toBeLessThan(0.1 * tw);
    expect(Math.abs(b.hi - t.hi)).toBeLessThan(0.1 * tw);
  });
});

describe('participant clusters', () => {
  it('groups values by key', () => {
    const items = [
      { p: 'a', v: 1 },
      { p: 'b', v: 0 },
      { p: 'a', v: 1 },
    ];
    expect(
      clustersOf(
        items,
        (i) => i.p,
        (i) => i.v,
      ),
    ).toEqual([
      { sum: 2, n: 2 },
      { sum: 0, n: 1 },
    ]);
  });

  it('the sandwich standard error worked by hand: √(1.5·2)/6', () => {
    const cs: Cluster[] = [
      { sum: 1, n: 2 },
      { sum: 2, n: 2 },
      { sum: 0, n: 2 },
    ];
    expect(clusterRobustSe(cs)).toBeCloseTo(Math.sqrt(3) / 6, 12);
  });

  /** 50 participants × 20 trials; each participant's accuracy drawn around 0.6 with spread `spread`. */
  function people(seed: number, spread: number): Cluster[] {
    const rng = createRng(seed, 'people');
    return normals(seed, 50, 0, spread).map((shift) => {
      const p = 1 / (1 + Math.exp(-(0.4 + shift)));
      let sum = 0;
      for (let i = 0; i < 20; i++) sum += rng.chance(p) ? 1 : 0;
      return { sum, n: 20 };
    });
  }

  it('the cluster bootstrap agrees with the analytic cluster-robust interval', () => {
    for (const spread of [0, 1.5]) {
      const cs = people(11, spread);
      const b = clusterBootstrap(cs, createRng(5));
      const half = 1.959963984540054 * clusterRobustSe(cs);
      expect((b.hi - b.lo) / (2 * half)).toBeGreaterThan(0.85);
      expect((b.hi - b.lo) / (2 * half)).toBeLessThan(1.15);
    }
  });

  it('notes clustering when participants differ, not when trials are independent', () => {
    for (const [spread, matters] of [
      [0, false],
      [1.5, true],
    ] as const) {
      const cs = people(12, spread);
      const successes = cs.reduce((s, c) => s + c.sum, 0);
      const ratio = clusterWidthRatio(wilson(successes, 1000), clusterBootstrap(cs, createRng(6)));
      expect(clusteringMatters(ratio)).toBe(matters);
    }
  });

  it('one participant gives no clustered interval', () => {
    const r = clusterBootstrap([{ sum: 3, n: 4 }], createRng(1));
    expect(r.estimate).toBe(0.75);
    expect(Number.isNaN(r.lo)).toBe(true);
    expect(Number.isNaN(clusterWidthRatio(wilson(3, 4), r))).toBe(true);
  });
});
