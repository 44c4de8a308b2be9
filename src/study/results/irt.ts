/**
 * Item response theory for a participants × items matrix of right (1) and wrong (0) answers,
 * missing cells allowed: the Rasch model and the two-parameter logistic model (2PL), fitted by
 * marginal maximum likelihood with the EM algorithm of Bock and Aitkin (1981) over a fixed grid
 * of 41 quadrature points for a normal ability.
 *
 * - Rasch: P(right) = logistic(θ − b), θ ~ N(0, σ²) with σ estimated (the logit scale of the
 *   Rasch model; discrimination 1 for every item).
 * - 2PL: P(right) = logistic(a(θ − b)), θ ~ N(0, 1); log a gets a N(0, 1) prior (Bayes modal
 *   estimation, Mislevy 1986) so that an item with few answers cannot take an infinite slope.
 *
 * Abilities are EAP (posterior means over the grid) with the posterior SD as their SE;
 * reliability is the EAP (marginal) reliability, var(EAP) / (var(EAP) + mean posterior variance).
 * Item SEs come from the cross-product of the participants' score vectors (the XPD estimate of
 * the information). Infit and outfit are the usual mean squares of the residuals at the EAP
 * abilities (outfit: unweighted mean of squared standardised residuals; infit: information
 * weighted). An item nobody answered, or everyone got right (or wrong), has no finite
 * difficulty: it is flagged, left out of the fit, and reported without estimates.
 *
 * Pure and deterministic (no randomness): the same matrix gives the same numbers everywhere.
 */

export type IrtModel = 'rasch' | '2pl';

export const IRT_MODELS: readonly IrtModel[] = ['rasch', '2pl'];

/** What the output says the estimates are. */
export const IRT_METHOD = {
  estimation: 'marginal maximum likelihood, EM (Bock–Aitkin), 41-point quadrature over a normal ability',
  ability: 'EAP (posterior mean), SE = posterior SD',
  reliability: 'EAP (marginal) reliability',
  se: 'cross-product (XPD) information of the marginal likelihood',
  fit: 'infit and outfit mean squares at the EAP abilities',
} as const;

/** A matrix of answers: `responses[p * items.length + j]` is 1 (right), 0 (wrong) or -1 (not asked). */
export interface IrtData {
  readonly persons: readonly string[];
  readonly items: readonly string[];
  readonly responses: Int8Array;
}

/** Why an item has no estimates. */
export type ItemFlag = 'all-correct' | 'all-wrong' | 'unanswered';

export interface IrtItem {
  readonly id: string;
  /** Answers and right answers. */
  readonly n: number;
  readonly correct: number;
  /** null for a flagged item. */
  readonly difficulty: number | null;
  /** 1 for every Rasch item; null for a flagged item. */
  readonly discrimination: number | null;
  /** SE of the difficulty. */
  readonly se: number | null;
  readonly infit: number | null;
  readonly outfit: number | null;
  readonly flag: ItemFlag | null;
}

export interface IrtPerson {
  readonly id: string;
  readonly answered: number;
  readonly correct: number;
  /** Answers to fitted items (0: the ability is the prior's, and says nothing). */
  readonly fittedAnswers: number;
  /** EAP; the prior mean (0) for a person with no answer to a fitted item. */
  readonly ability: number;
  readonly se: number;
}

export interface IrtFit {
  readonly model: IrtModel;
  readonly method: typeof IRT_METHOD;
  readonly items: readonly IrtItem[];
  readonly persons: readonly IrtPerson[];
  /** SD of the ability distribution: estimated for Rasch, 1 for 2PL (the scale's unit). */
  readonly abilitySd: number;
  /** EAP reliability over the persons with at least one answer to a fitted item. */
  readonly reliability: number;
  /** Test information Σ a²P(1 − P) over the fitted items, on a grid of abilities. */
  readonly information: readonly { readonly ability: number; readonly information: number }[];
  readonly iterations: number;
  readonly converged: boolean;
  readonly logLikelihood: number;
}

export interface IrtOptions {
  readonly model?: IrtModel;
  readonly maxIterations?: number;
  /** Largest change of any parameter between iterations that counts as converged. */
  readonly tolerance?: number;
}

/** Input the model cannot be fitted to (too few people or items, a malformed matrix). */
export class IrtError extends Error {
  override name = 'IrtError';
}

/** Fewest participants with an answer to a fitted item. */
export const MIN_IRT_PERSONS = 3;
/** Fewest items that are neither all right nor all wrong. */
export const MIN_IRT_ITEMS = 2;

const Z = Array.from({ length: 41 }, (_, q) => -4 + q * 0.2);
const LOG_W = (() => {
  const raw = Z.map((z) => Math.exp((-z * z) / 2));
  const sum = raw.reduce((s, w) => s + w, 0);
  return raw.map((w) => Math.log(w / sum));
})();
const Q = Z.length;
/** SD of the N(0, τ²) prior on log a (2PL). */
const LOG_A_PRIOR_SD = 1;

const logistic = (x: number) => 1 / (1 + Math.exp(-x));
/** log P and log(1 − P) of a logit, without overflow. */
const logP = (x: number) => (x >= 0 ? -Math.log1p(Math.exp(-x)) : x - Math.log1p(Math.exp(x)));

/** Standard normal CDF (Abramowitz–Stegun 7.1.26 through erf; error below 2e-7). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(x)) / Math.SQRT2);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp((-x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Item parameters on the quadrature's z scale: logit = slope·z + intercept. */
interface Params {
  slope: Float64Array;
  intercept: Float64Array;
}

/** Pearson correlation; NaN when either side has no spread or fewer than 2 pairs. */
export function correlation(x: readonly number[], y: readonly number[]): number {
  const n = Math.min(x.length, y.length);
  if (n < 2) return NaN;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i]!;
    my += y[i]!;
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : NaN;
}

/** Inverts a symmetric positive definite matrix (Gauss–Jordan, partial pivoting); null when singular. */
function invert(m: Float64Array, n: number): Float64Array | null {
  const a = Float64Array.from(m);
  const inv = new Float64Array(n * n);
  for (let i = 0; i < n; i++) inv[i * n + i] = 1;
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r * n + c]!) > Math.abs(a[pivot * n + c]!)) pivot = r;
    const pv = a[pivot * n + c]!;
    if (!(Math.abs(pv) > 1e-12)) return null;
    if (pivot !== c) {
      for (let k = 0; k < n; k++) {
        [a[c * n + k], a[pivot * n + k]] = [a[pivot * n + k]!, a[c * n + k]!];
        [inv[c * n + k], inv[pivot * n + k]] = [inv[pivot * n + k]!, inv[c * n + k]!];
      }
    }
    for (let k = 0; k < n; k++) {
      a[c * n + k]! /= pv;
      inv[c * n + k]! /= pv;
    }
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = a[r * n + c]!;
      if (f === 0) continue;
      for (let k = 0; k < n; k++) {
        a[r * n + k]! -= f * a[c * n + k]!;
        inv[r * n + k]! -= f * inv[c * n + k]!;
      }
    }
  }
  return inv;
}

/**
 * Fits the Rasch model or the 2PL to `data` (see the file's comment for the method). Throws
 * IrtError when fewer than MIN_IRT_PERSONS participants answered a fittable item or fewer than
 * MIN_IRT_ITEMS items are fittable.
 */
export function fitIrt(data: IrtData, options: IrtOptions = {}): IrtFit {
  const model = options.model ?? 'rasch';
  const maxIterations = options.maxIterations ?? 500;
  const tolerance = options.tolerance ?? 1e-4;
  const N = data.persons.length;
  const J = data.items.length;
  const x = data.responses;
  if (x.length !== N * J) {
    throw new IrtError(`the matrix holds ${x.length} answers, not ${N} participants × ${J} items`);
  }

  // Items that can be fitted: answered, neither all right nor all wrong.
  const n = new Int32Array(J);
  const r = new Int32Array(J);
  for (let p = 0; p < N; p++)
    for (let j = 0; j < J; j++) {
      const v = x[p * J + j]!;
      if (v < 0) continue;
      if (v !== 0 && v !== 1)
        throw new IrtError(`participant ${data.persons[p]}, item ${data.items[j]}: ${v} is not 0 or 1`);
      n[j]!++;
      r[j]! += v;
    }
  const flags: (ItemFlag | null)[] = Array.from({ length: J }, (_, j) =>
    n[j] === 0 ? 'unanswered' : r[j] === n[j] ? 'all-correct' : r[j] === 0 ? 'all-wrong' : null,
  );
  let anyAnswer = 0;
  for (let p = 0; p < N; p++) if (x.subarray(p * J, (p + 1) * J).some((v) => v >= 0)) anyAnswer++;
  if (anyAnswer < MIN_IRT_PERSONS) {
    throw new IrtError(
      `only ${anyAnswer} participant${anyAnswer === 1 ? '' : 's'} answered; the model needs at least ${MIN_IRT_PERSONS}`,
    );
  }
  const fitted = [...Array(J).keys()].filter((j) => flags[j] === null);
  if (fitted.length < MIN_IRT_ITEMS) {
    throw new IrtError(
      `only ${fitted.length} item${fitted.length === 1 ? '' : 's'} of ${J} had both right and wrong answers; the model needs at least ${MIN_IRT_ITEMS}`,
    );
  }
  // Each person's answers to fitted items, as (item, answer) lists.
  const answers: { j: Int32Array; v: Int8Array }[] = [];
  const active: number[] = [];
  for (let p = 0; p < N; p++) {
    const js: number[] = [];
    const vs: number[] = [];
    for (const j of fitted) {
      const v = x[p * J + j]!;
      if (v >= 0) {
        js.push(j);
        vs.push(v);
      }
    }
    answers.push({ j: Int32Array.from(js), v: Int8Array.from(vs) });
    if (js.length > 0) active.push(p);
  }
  if (active.length < MIN_IRT_PERSONS) {
    throw new IrtError(
      `only ${active.length} participant${active.length === 1 ? '' : 's'} answered an item that had both right and wrong answers; the model needs at least ${MIN_IRT_PERSONS}`,
    );
  }

  // Start: intercepts from the proportions right, slope 1 (σ = 1 for Rasch).
  const prm: Params = { slope: new Float64Array(J).fill(1), intercept: new Float64Array(J) };
  for (const j of fitted) {
    const pr = Math.min(0.99, Math.max(0.01, r[j]! / n[j]!));
    prm.intercept[j] = Math.log(pr / (1 - pr));
  }

  const logPq = new Float64Array(J * Q);
  const log1mPq = new Float64Array(J * Q);
  const expected = { n: new Float64Array(J * Q), r: new Float64Array(J * Q) };
  const posterior = new Float64Array(N * Q);
  const logL = new Float64Array(Q);

  /** Fills the posterior of every person over the grid and the expected counts; returns the log-likelihood. */
  function eStep(): number {
    for (const j of fitted)
      for (let q = 0; q < Q; q++) {
        const eta = prm.slope[j]! * Z[q]! + prm.intercept[j]!;
        logPq[j * Q + q] = logP(eta);
        log1mPq[j * Q + q] = logP(-eta);
      }
    expected.n.fill(0);
    expected.r.fill(0);
    let total = 0;
    for (let p = 0; p < N; p++) {
      const { j: js, v: vs } = answers[p]!;
      // Item by item over the grid (rows of Q contiguous values), not node by node: far fewer cache misses.
      logL.set(LOG_W);
      for (let i = 0; i < js.length; i++) {
        const base = js[i]! * Q;
        const src = vs[i] ? logPq : log1mPq;
        for (let q = 0; q < Q; q++) logL[q]! += src[base + q]!;
      }
      let max = -Infinity;
      for (let q = 0; q < Q; q++) if (logL[q]! > max) max = logL[q]!;
      let sum = 0;
      for (let q = 0; q < Q; q++) sum += logL[q] = Math.exp(logL[q]! - max);
      total += max + Math.log(sum);
      const row = p * Q;
      for (let q = 0; q < Q; q++) posterior[row + q] = logL[q]! / sum;
      for (let i = 0; i < js.length; i++) {
        const base = js[i]! * Q;
        const right = vs[i] === 1;
        for (let q = 0; q < Q; q++) {
          const w = posterior[row + q]!;
          expected.n[base + q]! += w;
          if (right) expected.r[base + q]! += w;
        }
      }
    }
    return total;
  }

  /** One M-step (Fisher scoring); returns the largest parameter change. */
  function mStep(): number {
    let change = 0;
    const step = (d: number) => Math.max(-1, Math.min(1, d));
    if (model === 'rasch') {
      // logit = s·z + c_j: a common slope s = σ and item intercepts c_j = −b_j.
      for (let pass = 0; pass < 3; pass++) {
        for (const j of fitted) {
          let g = 0;
          let h = 0;
          for (let q = 0; q < Q; q++) {
            const nn = expected.n[j * Q + q]!;
            if (nn === 0) continue;
            const P = logistic(prm.slope[j]! * Z[q]! + prm.intercept[j]!);
            g += expected.r[j * Q + q]! - nn * P;
            h += nn * P * (1 - P);
          }
          const d = h > 0 ? step(g / h) : 0;
          prm.intercept[j]! += d;
          change = Math.max(change, Math.abs(d));
        }
        const s = prm.slope[fitted[0]!]!;
        let g = 0;
        let h = 0;
        for (const j of fitted)
          for (let q = 0; q < Q; q++) {
            const nn = expected.n[j * Q + q]!;
            if (nn === 0) continue;
            const P = logistic(s * Z[q]! + prm.intercept[j]!);
            g += (expected.r[j * Q + q]! - nn * P) * s * Z[q]!;
            h += nn * P * (1 - P) * s * s * Z[q]! * Z[q]!;
          }
        const d = h > 0 ? step(g / h) : 0;
        const next = Math.min(20, Math.max(0.05, s * Math.exp(d)));
        change = Math.max(change, Math.abs(next - s));
        for (const j of fitted) prm.slope[j] = next;
      }
      return change;
    }
    // 2PL: logit = a_j·z + c_j with α_j = log a_j under a N(0, τ²) prior.
    const tau2 = LOG_A_PRIOR_SD * LOG_A_PRIOR_SD;
    for (const j of fitted) {
      for (let pass = 0; pass < 3; pass++) {
        const a = prm.slope[j]!;
        const alpha = Math.log(a);
        let gc = 0;
        let ga = -alpha / tau2;
        let hcc = 0;
        let hca = 0;
        let haa = 1 / tau2;
        for (let q = 0; q < Q; q++) {
          const nn = expected.n[j * Q + q]!;
          if (nn === 0) continue;
          const z = Z[q]!;
          const P = logistic(a * z + prm.intercept[j]!);
          const res = expected.r[j * Q + q]! - nn * P;
          const w = nn * P * (1 - P);
          gc += res;
          ga += res * a * z;
          hcc += w;
          hca += w * a * z;
          haa += w * a * a * z * z;
        }
        const det = hcc * haa - hca * hca;
        if (!(det > 1e-12)) break;
        const dc = step((haa * gc - hca * ga) / det);
        const da = step((hcc * ga - hca * gc) / det);
        prm.intercept[j]! += dc;
        prm.slope[j] = Math.min(20, Math.max(0.02, Math.exp(alpha + da)));
        change = Math.max(change, Math.abs(dc), Math.abs(prm.slope[j]! - a));
      }
    }
    return change;
  }

  let iterations = 0;
  let converged = false;
  let logLikelihood = eStep();
  while (iterations < maxIterations) {
    iterations++;
    const change = mStep();
    logLikelihood = eStep();
    if (change < tolerance) {
      converged = true;
      break;
    }
  }

  // Abilities: the grid on the ability scale is σ·z (Rasch) or z (2PL).
  const sigma = model === 'rasch' ? prm.slope[fitted[0]!]! : 1;
  const persons: IrtPerson[] = data.persons.map((id, p) => {
    let m = 0;
    let m2 = 0;
    for (let q = 0; q < Q; q++) {
      const t = sigma * Z[q]!;
      m += posterior[p * Q + q]! * t;
      m2 += posterior[p * Q + q]! * t * t;
    }
    const { v } = answers[p]!;
    let answered = 0;
    let correct = 0;
    for (let j = 0; j < J; j++) {
      const val = x[p * J + j]!;
      if (val >= 0) {
        answered++;
        correct += val;
      }
    }
    return v.length > 0
      ? { id, answered, correct, fittedAnswers: v.length, ability: m, se: Math.sqrt(Math.max(0, m2 - m * m)) }
      : { id, answered, correct, fittedAnswers: 0, ability: 0, se: sigma };
  });

  // Item parameters on the ability scale: Rasch b = −c; 2PL a = slope, b = −c / a.
  const discrimination = (j: number) => (model === 'rasch' ? 1 : prm.slope[j]!);
  const difficulty = (j: number) => (model === 'rasch' ? -prm.intercept[j]! : -prm.intercept[j]! / prm.slope[j]!);

  const se = itemSes(model, fitted, prm, answers, posterior, N);

  // Fit at the EAP abilities.
  const infitNum = new Float64Array(J);
  const infitDen = new Float64Array(J);
  const outfitSum = new Float64Array(J);
  for (const p of active) {
    const { j: js, v: vs } = answers[p]!;
    const theta = persons[p]!.ability;
    for (let i = 0; i < js.length; i++) {
      const j = js[i]!;
      const P = logistic(discrimination(j) * (theta - difficulty(j)));
      const w = Math.max(P * (1 - P), 1e-12);
      const res2 = (vs[i]! - P) ** 2;
      infitNum[j]! += res2;
      infitDen[j]! += w;
      outfitSum[j]! += res2 / w;
    }
  }

  const items: IrtItem[] = data.items.map((id, j) => {
    const base = { id, n: n[j]!, correct: r[j]!, flag: flags[j]! };
    if (flags[j] !== null)
      return { ...base, difficulty: null, discrimination: null, se: null, infit: null, outfit: null };
    return {
      ...base,
      difficulty: difficulty(j),
      discrimination: discrimination(j),
      se: se.get(j) ?? null,
      infit: infitNum[j]! / infitDen[j]!,
      outfit: outfitSum[j]! / n[j]!,
    };
  });

  const eap = active.map((p) => persons[p]!.ability);
  const psd2 = active.map((p) => persons[p]!.se ** 2);
  const meanEap = eap.reduce((s, v) => s + v, 0) / eap.length;
  const varEap = eap.reduce((s, v) => s + (v - meanEap) ** 2, 0) / eap.length;
  const meanPsd2 = psd2.reduce((s, v) => s + v, 0) / psd2.length;
  const reliability = varEap + meanPsd2 > 0 ? varEap / (varEap + meanPsd2) : 0;

  const fittedItems = fitted.map((j) => ({ a: discrimination(j), b: difficulty(j) }));
  const span = 4 * Math.max(1, sigma);
  const information = Array.from({ length: 81 }, (_, i) => {
    const ability = -span + (i * 2 * span) / 80;
    return { ability, information: testInformation(fittedItems, ability) };
  });

  return {
    model,
    method: IRT_METHOD,
    items,
    persons,
    abilitySd: sigma,
    reliability,
    information,
    iterations,
    converged,
    logLikelihood,
  };
}

/** Σ a²P(1 − P) at `ability`. */
export function testInformation(items: readonly { a: number; b: number }[], ability: number): number {
  let info = 0;
  for (const { a, b } of items) {
    const P = logistic(a * (ability - b));
    info += a * a * P * (1 - P);
  }
  return info;
}

/**
 * Above this many parameters, or with fewer than twice as many people as parameters, the SEs use
 * each item's own block of the information (the whole matrix costs a cubic inversion and is
 * singular when people are few).
 */
const FULL_INFORMATION_MAX = 300;

/**
 * SEs of the difficulties (the Rasch σ's SE via log σ is not reported) from the XPD information Σ_p s_p s_pᵀ, s_p the gradient of person p's
 * log marginal likelihood. Rasch parameters: the intercepts and log σ; 2PL: (log a, c) per item
 * (plus the prior's curvature on log a), then the delta method for b = −c / a.
 */
function itemSes(
  model: IrtModel,
  fitted: readonly number[],
  prm: Params,
  answers: readonly { j: Int32Array; v: Int8Array }[],
  posterior: Float64Array,
  N: number,
): Map<number, number> {
  const per = model === 'rasch' ? 1 : 2;
  const index = new Map(fitted.map((j, i) => [j, i]));
  const dim = fitted.length * per + (model === 'rasch' ? 1 : 0);
  let people = 0;
  for (let p = 0; p < N; p++) if (answers[p]!.j.length > 0) people++;
  // The whole matrix needs many more people than parameters to be invertible and stable.
  const wantFull = dim <= FULL_INFORMATION_MAX && people >= 2 * dim;
  const info = wantFull ? new Float64Array(dim * dim) : new Float64Array(0);
  const blocks = new Float64Array(fitted.length * per * per);
  const s = new Float64Array(dim);
  const touched: number[] = [];
  for (let p = 0; p < N; p++) {
    const { j: js, v: vs } = answers[p]!;
    if (js.length === 0) continue;
    s.fill(0);
    for (let q = 0; q < Q; q++) {
      const w = posterior[p * Q + q]!;
      if (w < 1e-300) continue;
      const z = Z[q]!;
      for (let i = 0; i < js.length; i++) {
        const j = js[i]!;
        const a = prm.slope[j]!;
        const res = vs[i]! - logistic(a * z + prm.intercept[j]!);
        const k = index.get(j)! * per;
        if (model === 'rasch') {
          s[k]! += w * res;
          s[dim - 1]! += w * res * a * z;
        } else {
          s[k]! += w * res * a * z;
          s[k + 1]! += w * res;
        }
      }
    }
    if (wantFull) {
      touched.length = 0;
      for (let i = 0; i < dim; i++) if (s[i] !== 0) touched.push(i);
      for (const a of touched) for (const b of touched) info[a * dim + b]! += s[a]! * s[b]!;
    }
    for (let f = 0; f < fitted.length; f++)
      for (let u = 0; u < per; u++)
        for (let v = 0; v < per; v++) blocks[f * per * per + u * per + v]! += s[f * per + u]! * s[f * per + v]!;
  }
  const prior = 1 / (LOG_A_PRIOR_SD * LOG_A_PRIOR_SD);
  let fullInv: Float64Array | null = null;
  if (wantFull) {
    if (model === '2pl') for (let f = 0; f < fitted.length; f++) info[f * 2 * dim + f * 2]! += prior;
    fullInv = invert(info, dim);
  }
  const blockCov = (f: number): ((u: number, v: number) => number) => {
    const m = blocks.slice(f * per * per, (f + 1) * per * per);
    if (model === '2pl') m[0]! += prior;
    const inv = invert(m, per);
    return inv ? (u, v) => inv[u * per + v]! : () => NaN;
  };
  const out = new Map<number, number>();
  const root = (v: number) => (Number.isFinite(v) && v > 0 ? Math.sqrt(v) : NaN);
  fitted.forEach((j, f) => {
    const k = f * per;
    const inv = fullInv;
    const cov = inv ? (u: number, v: number) => inv[(k + u) * dim + k + v]! : blockCov(f);
    if (model === 'rasch') {
      out.set(j, root(cov(0, 0)));
      return;
    }
    const a = prm.slope[j]!;
    const c = prm.intercept[j]!;
    // b = −c / a with a = e^α: ∂b/∂α = c / a, ∂b/∂c = −1 / a.
    const ga = c / a;
    const gc = -1 / a;
    out.set(j, root(ga * ga * cov(0, 0) + gc * gc * cov(1, 1) + 2 * ga * gc * cov(0, 1)));
  });
  for (const [j, v] of out) if (Number.isNaN(v)) out.delete(j);
  return out;
}

/** A respondent scored against a fit without changing it (a model, or a new participant). */
export interface ScoredRespondent {
  /** Answers to fitted items, and right ones. */
  readonly answered: number;
  readonly correct: number;
  /** EAP ability on the fit's scale, posterior SD. */
  readonly ability: number;
  readonly se: number;
  /** Where the ability falls in the fitted ability distribution N(0, σ²), 0–100. */
  readonly percentile: number;
  /** Share of the fit's participants (with answers) whose ability is below, 0–1. */
  readonly belowShare: number;
}

/**
 * Scores answers (by item id; true = right) against `fit`'s items and ability distribution, by
 * EAP on the same grid. Items the fit flagged, or does not hold, are ignored; with none left the
 * result is null.
 */
export function scoreRespondent(
  fit: Pick<IrtFit, 'items' | 'persons' | 'abilitySd'>,
  answers: ReadonlyMap<string, boolean>,
): ScoredRespondent | null {
  const pairs: { a: number; b: number; right: boolean }[] = [];
  for (const item of fit.items) {
    const right = answers.get(item.id);
    if (right === undefined || item.difficulty === null || item.discrimination === null) continue;
    pairs.push({ a: item.discrimination, b: item.difficulty, right });
  }
  if (pairs.length === 0) return null;
  const sigma = fit.abilitySd;
  const ls = new Float64Array(Q);
  let max = -Infinity;
  for (let q = 0; q < Q; q++) {
    const t = sigma * Z[q]!;
    let s = LOG_W[q]!;
    for (const { a, b, right } of pairs) s += logP(right ? a * (t - b) : -a * (t - b));
    ls[q] = s;
    max = Math.max(max, s);
  }
  let sum = 0;
  let m = 0;
  let m2 = 0;
  for (let q = 0; q < Q; q++) {
    const w = Math.exp(ls[q]! - max);
    const t = sigma * Z[q]!;
    sum += w;
    m += w * t;
    m2 += w * t * t;
  }
  m /= sum;
  m2 /= sum;
  const others = fit.persons.filter((p) => p.fittedAnswers > 0);
  return {
    answered: pairs.length,
    correct: pairs.filter((p) => p.right).length,
    ability: m,
    se: Math.sqrt(Math.max(0, m2 - m * m)),
    percentile: 100 * normalCdf(m / sigma),
    belowShare: others.length ? others.filter((p) => p.ability < m).length / others.length : NaN,
  };
}
