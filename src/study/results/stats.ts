/**
 * The small statistics the results dashboard needs: the Wilson interval for proportions, the
 * t interval for means (with its own Student t quantile, no package), intervals that stay on
 * their scale (the geometric mean with a t interval on log times; a mean rating with a t
 * interval on the logit of its place on the scale), the percentile bootstrap, and bootstrap over
 * participants (clusters) for figures made of several trials per person.
 *
 * Why clusters: one participant answers many trials, and their trials are alike (a strong
 * reader gets most right). Intervals that treat every trial as independent are then too narrow.
 * Resampling whole participants keeps that likeness; comparing the two widths tells whether it
 * matters for a figure (`clusteringMatters`).
 *
 * All randomness comes from an `Rng` argument, so every interval is reproducible from its seed.
 */
import type { Rng } from '../../core/random/rng';

/** The normal quantile for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

/** An estimate with a two-sided interval. */
export interface Interval {
  readonly estimate: number;
  readonly lo: number;
  readonly hi: number;
}

/**
 * Wilson score interval for `successes` out of `n` (Wilson 1927): unlike p ± z·se it stays inside
 * [0, 1] and keeps its coverage near 0 and 1 and for small n. n = 0 gives NaNs.
 */
export function wilson(successes: number, n: number, z = Z95): Interval {
  if (n <= 0) return { estimate: NaN, lo: NaN, hi: NaN };
  if (successes < 0 || successes > n) throw new RangeError(`wilson: ${successes} successes out of ${n}`);
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At 0 and n the interval touches the edge exactly (rounding would leave a hair off it).
  return {
    estimate: p,
    lo: successes === 0 ? 0 : Math.max(0, centre - half),
    hi: successes === n ? 1 : Math.min(1, centre + half),
  };
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: about 15 digits). */
function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const c = [
    0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406,
    12.507343278686905, -0.13857109526572012, 9.984369578019572e-6, 1.5056327351493116e-7,
  ];
  const xx = x - 1;
  let a = c[0]!;
  const t = xx + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (xx + i);
  return 0.5 * Math.log(2 * Math.PI) + (xx + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
function betaFraction(x: number, a: number, b: number): number {
  const TINY = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

/** The regularised incomplete beta function I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The fraction converges fast on the side of the mean; use the symmetry on the other side.
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(x, a, b)) / a : 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom (df > 0, not necessarily whole). */
export function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The p-quantile of Student's t with `df` degrees of freedom, by bisection on the CDF. */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`studentTQuantile: p = ${p} is not in (0, 1)`);
  if (!(df > 0)) throw new RangeError(`studentTQuantile: df = ${df} is not positive`);
  if (p === 0.5) return 0;
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (studentTCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (studentTCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export function mean(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/** Sample standard deviation (n − 1 in the denominator); NaN below 2 values. */
export function sampleSd(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return NaN;
  const m = mean(values);
  let ss = 0;
  for (const v of values) ss += (v - m) * (v - m);
  return Math.sqrt(ss / (n - 1));
}

/** Mean with the t interval (mean ± t_{0.975, n−1} · s/√n). One value: the mean, NaN ends. */
export function meanT(values: readonly number[], level = 0.95): Interval {
  const n = values.length;
  const m = mean(values);
  if (n < 2) return { estimate: m, lo: NaN, hi: NaN };
  const half = studentTQuantile(1 - (1 - level) / 2, n - 1) * (sampleSd(values) / Math.sqrt(n));
  return { estimate: m, lo: m - half, hi: m + half };
}

/** The smallest response time a log interval takes: 1 ms, the resolution rows are recorded at. */
export const MIN_RT_S = 0.001;

/**
 * The geometric mean of positive values with the t interval of their logarithms, back-transformed:
 * exp(m ± t_{0.975, n−1} · s/√n), with m and s the mean and sd of ln x. For response times, which
 * are skewed and positive: the interval is never below 0 and is wider above than below, as the
 * times are. Values below `floor` (a 0 ms time) count as `floor`. One value: the value, NaN ends.
 */
export function geometricMeanT(values: readonly number[], level = 0.95, floor = MIN_RT_S): Interval {
  const logs = values.map((v) => Math.log(Math.max(floor, v)));
  const t = meanT(logs, level);
  return { estimate: Math.exp(t.estimate), lo: Math.exp(t.lo), hi: Math.exp(t.hi) };
}

const logit = (p: number) => Math.log(p / (1 - p));
const expit = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * The mean of values on a bounded scale [min, max] (ratings 1–5) with an interval that stays on
 * the scale: the mean is taken to p = (m − min)/(max − min) in [0, 1], the t interval is built on
 * logit(p) with the delta method (se of logit p = se of p / (p(1 − p))) and mapped back. Where
 * every value sits on one end (p = 0 or 1, no spread) the interval is that end. One value: the
 * value, NaN ends. Values outside the scale are a caller's bug and throw.
 */
export function boundedMeanT(values: readonly number[], min: number, max: number, level = 0.95): Interval {
  for (const v of values)
    if (!(v >= min && v <= max)) throw new RangeError(`boundedMeanT: ${v} is outside the scale [${min}, ${max}]`);
  const n = values.length;
  const m = mean(values);
  if (n < 2) return { estimate: m, lo: NaN, hi: NaN };
  const span = max - min;
  const p = (m - min) / span;
  if (p <= 0 || p >= 1) return { estimate: m, lo: m, hi: m };
  const seP = sampleSd(values) / span / Math.sqrt(n);
  const half = (studentTQuantile(1 - (1 - level) / 2, n - 1) * seP) / (p * (1 - p));
  const centre = logit(p);
  const back = (x: number) => Math.min(max, Math.max(min, min + span * expit(x)));
  return { estimate: m, lo: back(centre - half), hi: back(centre + half) };
}

/** An interval through an increasing function (e.g. exp after working on log times). */
export function mapInterval(i: Interval, f: (v: number) => number): Interval {
  return { estimate: f(i.estimate), lo: f(i.lo), hi: f(i.hi) };
}

/** The q-quantile of sorted values, linear between order statistics (R's type 7). */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const h = (sorted.length - 1) * q;
  const i = Math.floor(h);
  const lo = sorted[i]!;
  return i + 1 < sorted.length ? lo + (h - i) * (sorted[i + 1]! - lo) : lo;
}

export const BOOTSTRAP_REPLICATES = 2000;

/**
 * Percentile bootstrap interval around `estimate`: `replicate` draws one resample's statistic
 * (it holds the generator, so replicates are drawn in order), `replicates` times. Fewer than 2
 * things to resample (`size`): NaN ends, and the generator is left untouched.
 */
function bootstrap(
  estimate: number,
  size: number,
  replicates: number,
  level: number,
  replicate: () => number,
): Interval {
  if (size < 2) return { estimate, lo: NaN, hi: NaN };
  const reps: number[] = [];
  for (let r = 0; r < replicates; r++) reps.push(replicate());
  const finite = reps.filter(Number.isFinite).sort((a, b) => a - b);
  const a = (1 - level) / 2;
  return { estimate, lo: quantileSorted(finite, a), hi: quantileSorted(finite, 1 - a) };
}

/** Percentile bootstrap interval of the mean, resampling single values. */
export function bootstrapMean(
  values: readonly number[],
  rng: Rng,
  replicates = BOOTSTRAP_REPLICATES,
  level = 0.95,
): Interval {
  const n = values.length;
  const m = mean(values);
  return bootstrap(m, n, replicates, level, () => {
    let s = 0;
    for (let i = 0; i < n; i++) s += values[rng.int(n)]!;
    return s / n;
  });
}

/**
 * One participant's part of a figure: the sum of their values and how many there are (for a
 * proportion, successes and trials).
 */
export interface Cluster {
  readonly sum: number;
  readonly n: number;
}

/** The clusters' values pooled: Σsum and Σn. */
function pooled(clusters: readonly Cluster[]): { total: number; count: number } {
  let total = 0;
  let count = 0;
  for (const c of clusters) {
    total += c.sum;
    count += c.n;
  }
  return { total, count };
}

/** Groups values by a key into clusters (key order of first appearance). */
export function clustersOf<T>(items: readonly T[], key: (item: T) => string, value: (item: T) => number): Cluster[] {
  const by = new Map<string, { sum: number; n: number }>();
  for (const item of items) {
    const k = key(item);
    let c = by.get(k);
    if (!c) by.set(k, (c = { sum: 0, n: 0 }));
    c.sum += value(item);
    c.n++;
  }
  return [...by.values()];
}

/**
 * Cluster (participant) bootstrap of the pooled mean Σsum / Σn: each replicate draws as many
 * participants as there are, with replacement, and pools all their trials. Percentile interval.
 * Fewer than 2 clusters: NaN ends (one person says nothing about people).
 */
export function clusterBootstrap(
  clusters: readonly Cluster[],
  rng: Rng,
  replicates = BOOTSTRAP_REPLICATES,
  level = 0.95,
): Interval {
  const { total, count } = pooled(clusters);
  const estimate = count > 0 ? total / count : NaN;
  const g = clusters.length;
  return bootstrap(estimate, g, replicates, level, () => {
    let s = 0;
    let n = 0;
    for (let i = 0; i < g; i++) {
      const c = clusters[rng.int(g)]!;
      s += c.sum;
      n += c.n;
    }
    return n > 0 ? s / n : NaN;
  });
}

/**
 * The cluster-robust (sandwich) standard error of the pooled mean Σsum / Σn, with the G/(G−1)
 * small-sample factor: an analytic figure the cluster bootstrap should come close to.
 */
export function clusterRobustSe(clusters: readonly Cluster[]): number {
  const g = clusters.length;
  if (g < 2) return NaN;
  const { total, count } = pooled(clusters);
  const est = total / count;
  let ss = 0;
  for (const c of clusters) ss += (c.sum - est * c.n) ** 2;
  return Math.sqrt((g / (g - 1)) * ss) / count;
}

/** Clustered intervals this much wider than the trial-level ones get a note. */
export const CLUSTER_NOTE_RATIO = 1.2;

/**
 * How much wider the participant-clustered interval is than the trial-level one (ratio of
 * widths; the square is roughly the design effect). NaN when either is undefined or the
 * trial-level interval has no width.
 */
export function clusterWidthRatio(trialLevel: Interval, clustered: Interval): number {
  const w = trialLevel.hi - trialLevel.lo;
  const wc = clustered.hi - clustered.lo;
  return w > 0 && Number.isFinite(wc) ? wc / w : NaN;
}

/** Whether clustering matters for a figure: its clustered interval is CLUSTER_NOTE_RATIO times as wide or more. */
export function clusteringMatters(ratio: number): boolean {
  return Number.isFinite(ratio) && ratio >= CLUSTER_NOTE_RATIO;
}

export function median(values: readonly number[]): number {
  return quantileSorted(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}
