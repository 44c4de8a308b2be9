/**
 * Student's t distribution for the power planner's analyses: the two-sided p of a t statistic
 * (through the regularised incomplete beta function, Numerical Recipes' continued fraction), a
 * one-sample t test and Welch's two-sample test.
 */

function logGamma(x: number): number {
  // Lanczos approximation (g = 7, n = 9).
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0]!;
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 200; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 3e-12) break;
  }
  return h;
}

/** The regularised incomplete beta function I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** The two-sided p of t with df degrees of freedom. */
export function twoSidedP(t: number, df: number): number {
  if (!Number.isFinite(t)) return Number.isNaN(t) ? 1 : 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** A test's statistic and two-sided p. */
export interface TestResult {
  readonly t: number;
  readonly p: number;
}

/** One-sample t test of mean 0 (t = 0, p = 1 when it cannot be computed: fewer than 2 values, or no spread and mean 0). */
export function oneSample(xs: ArrayLike<number>, n = xs.length): TestResult {
  if (n < 2) return { t: 0, p: 1 };
  let mean = 0;
  for (let i = 0; i < n; i++) mean += xs[i]!;
  mean /= n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (xs[i]! - mean) ** 2;
  const sd = Math.sqrt(ss / (n - 1));
  if (sd === 0) return mean === 0 ? { t: 0, p: 1 } : { t: Math.sign(mean) * Infinity, p: 0 };
  const t = mean / (sd / Math.sqrt(n));
  return { t, p: twoSidedP(t, n - 1) };
}

/** Welch's two-sample t test (t = 0, p = 1 when a group has fewer than 2 values). */
export function welch(a: ArrayLike<number>, na: number, b: ArrayLike<number>, nb: number): TestResult {
  if (na < 2 || nb < 2) return { t: 0, p: 1 };
  const stats = (xs: ArrayLike<number>, n: number) => {
    let m = 0;
    for (let i = 0; i < n; i++) m += xs[i]!;
    m /= n;
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (xs[i]! - m) ** 2;
    return { m, v: ss / (n - 1) };
  };
  const x = stats(a, na);
  const y = stats(b, nb);
  const se2 = x.v / na + y.v / nb;
  if (se2 === 0) return x.m === y.m ? { t: 0, p: 1 } : { t: Math.sign(y.m - x.m) * Infinity, p: 0 };
  // Positive when the second group is higher (the condition effect's direction).
  const t = (y.m - x.m) / Math.sqrt(se2);
  const df = se2 ** 2 / ((x.v / na) ** 2 / (na - 1) + (y.v / nb) ** 2 / (nb - 1));
  return { t, p: twoSidedP(t, df) };
}
