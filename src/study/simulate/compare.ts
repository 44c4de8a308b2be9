/**
 * A paired comparison of two procedures run on the same simulated participants (the trials each
 * needs to reach its stopping rule): mean difference, paired t, and a two-sided p from the normal
 * approximation (fine for the 30+ pairs a simulation runs; said in the result).
 */
export interface PairedComparison {
  readonly n: number;
  readonly meanA: number;
  readonly meanB: number;
  /** Mean of a − b. */
  readonly meanDifference: number;
  readonly t: number;
  /** Two-sided, normal approximation to t with n − 1 degrees of freedom. */
  readonly p: number;
}

/** The standard normal CDF (Abramowitz & Stegun 7.1.26 through erf). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Paired comparison of equal-length samples; throws on unequal lengths or fewer than two pairs. */
export function pairedComparison(a: readonly number[], b: readonly number[]): PairedComparison {
  if (a.length !== b.length || a.length < 2)
    throw new RangeError('a paired comparison needs two samples of the same length ≥ 2');
  const n = a.length;
  const d = a.map((x, i) => x - b[i]!);
  const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const md = mean(d);
  const sd = Math.sqrt(d.reduce((s, x) => s + (x - md) ** 2, 0) / (n - 1));
  const t = sd === 0 ? (md === 0 ? 0 : Math.sign(md) * Infinity) : md / (sd / Math.sqrt(n));
  const p = Number.isFinite(t) ? 2 * (1 - normalCdf(Math.abs(t))) : 0;
  return { n, meanA: mean(a), meanB: mean(b), meanDifference: md, t, p };
}
