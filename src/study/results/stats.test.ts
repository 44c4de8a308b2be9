import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/random/rng';
import {
  boundedMeanT,
  bootstrapMean,
  clusterBootstrap,
  clusteringMatters,
  clusterRobustSe,
  clustersOf,
  clusterWidthRatio,
  geometricMeanT,
  incompleteBeta,
  mapInterval,
  mean,
  meanT,
  median,
  quantileSorted,
  sampleSd,
  studentTCdf,
  studentTQuantile,
  wilson,
  MIN_RT_S,
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

describe('intervals that stay on their scale', () => {
  it('geometric mean of 1, 2, 4 s with the t interval on log time, worked by hand', () => {
    // ln: 0, ln 2, ln 4 = 0, 0.693147, 1.386294; mean ln 2 (geometric mean 2 s); sd of the logs
    // ln 2 · sd(0, 1, 2) = 0.693147; se = 0.693147/√3 = 0.400189; t(0.975, 2) = 4.302653;
    // half-width 1.721873; exp(0.693147 − 1.721873) = exp(−1.028726) = 0.357462,
    // exp(0.693147 + 1.721873) = exp(2.415020) = 11.190 s. (The plain t interval on the times,
    // 2.333 ± 4.3027·1.5275/√3 = [−1.46, 6.13], would go below 0 s.)
    const r = geometricMeanT([1, 2, 4]);
    expect(r.estimate).toBeCloseTo(2, 12);
    expect(r.lo).toBeCloseTo(0.357462, 5);
    expect(r.hi).toBeCloseTo(11.19, 2);
    expect(meanT([1, 2, 4]).lo).toBeLessThan(0);
  });

  it('a 0 ms time counts as 1 ms, so the log is finite', () => {
    const r = geometricMeanT([0, 1]);
    // ln 0.001 = −6.907755, ln 1 = 0: mean −3.453878, geometric mean e^−3.453878 = √0.001 = 0.031623.
    expect(r.estimate).toBeCloseTo(Math.sqrt(MIN_RT_S), 9);
    expect(r.lo).toBeGreaterThan(0);
  });

  it('mean rating of 2, 3, 4, 5 on 1–5 with the t interval on the logit, worked by hand', () => {
    // mean 3.5, p = (3.5 − 1)/4 = 0.625, sd 1.290994, se of p = 1.290994/(4·√4) = 0.161374;
    // logit 0.625 = ln(0.625/0.375) = 0.510826; se of the logit 0.161374/(0.625·0.375) = 0.688530;
    // t(0.975, 3) = 3.182446, half-width 2.191211; expit(0.510826 − 2.191211) = expit(−1.680385)
    // = 0.157044 → 1 + 4·0.157044 = 1.628178; expit(2.702037) = 0.937147 → 4.748587.
    // (The plain t interval 3.5 ± 3.182446·0.645497 = [1.446, 5.554] leaves the scale.)
    const r = boundedMeanT([2, 3, 4, 5], 1, 5);
    expect(r.estimate).toBe(3.5);
    expect(r.lo).toBeCloseTo(1.628178, 5);
    expect(r.hi).toBeCloseTo(4.748587, 5);
    expect(meanT([2, 3, 4, 5]).hi).toBeGreaterThan(5);
  });

  it('ratings all on one end of the scale: the interval is that end; one rating: no interval', () => {
    expect(boundedMeanT([1, 1, 1], 1, 5)).toEqual({ estimate: 1, lo: 1, hi: 1 });
    expect(boundedMeanT([5, 5], 1, 5)).toEqual({ estimate: 5, lo: 5, hi: 5 });
    const one = boundedMeanT([3], 1, 5);
    expect(one.estimate).toBe(3);
    expect(Number.isNaN(one.lo)).toBe(true);
    expect(() => boundedMeanT([0, 3], 1, 5)).toThrow(/0 is outside the scale \[1, 5\]/);
  });

  it('mapInterval carries an interval through an increasing function', () => {
    expect(mapInterval({ estimate: 0, lo: -1, hi: 1 }, Math.exp)).toEqual({
      estimate: 1,
      lo: Math.exp(-1),
      hi: Math.exp(1),
    });
  });

  const within = (r: { estimate: number; lo: number; hi: number }, min: number, max: number) =>
    r.lo >= min && r.hi <= max && r.lo <= r.estimate + 1e-9 && r.estimate <= r.hi + 1e-9;

  it('property: a rating interval lies within 1–5 and holds its mean, for any ratings', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 2, maxLength: 300 }), (xs) =>
        within(boundedMeanT(xs, 1, 5), 1, 5),
      ),
      { numRuns: 500 },
    );
    // Ratings that are not whole numbers too (a mean over a participant's ratings).
    fc.assert(
      fc.property(fc.array(fc.double({ min: 1, max: 5, noNaN: true }), { minLength: 2, maxLength: 50 }), (xs) =>
        within(boundedMeanT(xs, 1, 5), 1, 5),
      ),
      { numRuns: 300 },
    );
  });

  it('property: a response-time interval is above 0 and holds its geometric mean', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 600, noNaN: true }), { minLength: 2, maxLength: 200 }), (xs) => {
        const r = geometricMeanT(xs);
        return r.lo > 0 && Number.isFinite(r.hi) && within(r, 0, Infinity);
      }),
      { numRuns: 500 },
    );
  });

  it('property: the participant bootstrap stays within the values it resamples', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 10 }).map((xs) => ({
            sum: xs.reduce((s, v) => s + v, 0),
            n: xs.length,
          })),
          { minLength: 2, maxLength: 30 },
        ),
        fc.integer(),
        (clusters, seed) => within(clusterBootstrap(clusters, createRng(seed), 200), 1, 5),
      ),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(
        fc.array(fc.record({ n: fc.integer({ min: 1, max: 10 }), share: fc.double({ min: 0, max: 1, noNaN: true }) }), {
          minLength: 2,
          maxLength: 30,
        }),
        fc.integer(),
        (people, seed) => {
          const clusters = people.map((p) => ({ sum: Math.round(p.share * p.n), n: p.n }));
          return within(clusterBootstrap(clusters, createRng(seed), 200), 0, 1);
        },
      ),
      { numRuns: 200 },
    );
  });
});
