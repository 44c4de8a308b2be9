/**
 * Simulated respondents: a person described by a psychometric function of k (psychometric.ts),
 * or a shipped model answering the very puzzles (the CLI wires that one, since loading a model
 * needs Node's files). `readRespondent` reads the CLI's `--respondent` text.
 */
import type { RelationWord } from '../../core/kinship/relations';
import type { Rng } from '../../core/random/rng';
import { pCorrect, type Psychometric } from '../adaptive/psychometric';
import { wrongWord } from './simulate';

export type RespondentSpec =
  { readonly kind: 'threshold'; readonly params: Psychometric } | { readonly kind: 'model'; readonly model: string };

/**
 * `threshold=K,slope=S,lapse=P` (slope default 2, lapse default 0.05) or `model=<name>`; a text
 * naming what is wrong otherwise.
 */
export function readRespondent(text: string): RespondentSpec | string {
  const parts = new Map<string, string>();
  for (const piece of text.split(',')) {
    const m = /^\s*([a-z]+)\s*=\s*(.+?)\s*$/.exec(piece);
    if (!m) return `--respondent: "${piece}" is not name=value (threshold=K,slope=S,lapse=P or model=<name>)`;
    parts.set(m[1]!, m[2]!);
  }
  if (parts.has('model')) {
    if (parts.size > 1) return '--respondent: model=<name> takes no other setting';
    return { kind: 'model', model: parts.get('model')! };
  }
  for (const key of parts.keys()) {
    if (!['threshold', 'slope', 'lapse'].includes(key)) {
      return `--respondent: "${key}" is not a respondent setting (threshold, slope, lapse, or model)`;
    }
  }
  const num = (key: string, fallback: number | undefined, lo: number, hi: number): number | string => {
    const raw = parts.get(key);
    if (raw === undefined) return fallback ?? `--respondent: threshold=K is required (or model=<name>)`;
    const v = Number(raw);
    if (!Number.isFinite(v) || v < lo || v > hi)
      return `--respondent: ${key}=${raw} must be a number from ${lo} to ${hi}`;
    return v;
  };
  const threshold = num('threshold', undefined, 0, 20);
  const slope = num('slope', 2, 0.01, 100);
  const lapse = num('lapse', 0.05, 0, 0.5);
  for (const v of [threshold, slope, lapse]) if (typeof v === 'string') return v;
  return {
    kind: 'threshold',
    params: { threshold: threshold as number, slope: slope as number, lapse: lapse as number },
  };
}

/**
 * One answer of a simulated respondent: right with the chance `chance(k)` gives, one draw of
 * `rng`. Every simulated respondent answers through this (`study simulate`'s threshold respondent,
 * the power planner's participants), so they draw alike.
 */
export const respond = (chance: (k: number) => number, k: number, rng: Rng): boolean =>
  respondMany(chance, k, 1, rng) === 1;

/** The right answers among `n` answers at k (the chance is asked once): what `respond` draws n times. */
export function respondMany(chance: (k: number) => number, k: number, n: number, rng: Rng): number {
  const p = chance(k);
  let right = 0;
  for (let i = 0; i < n; i++) if (rng.next() < p) right++;
  return right;
}

/** Whether a respondent with these parameters answers a story of length k right (one draw). */
export const answersRight = (p: Psychometric, k: number, rng: Rng): boolean => respond((x) => pCorrect(p, x), k, rng);

const logit = (p: number) => Math.log(p / (1 - p));

/**
 * A respondent of the power planner: the study's expected accuracy by k, moved by the person's
 * own offset on the log-odds scale (between-person spread, and a condition's effect).
 */
export function curveChance(accuracy: ReadonlyMap<number, number>, offset: number): (k: number) => number {
  return (k) => {
    const a = Math.min(0.999, Math.max(0.001, accuracy.get(k) ?? 0.5));
    return 1 / (1 + Math.exp(-(logit(a) + offset)));
  };
}

/** A respondent described by a psychometric function: the right word with p(k), else a wrong one. */
export const thresholdRespondent =
  (p: Psychometric) =>
  (_participant: number, rng: Rng) =>
  (item: { readonly k: number }, content: { readonly gold: string }): RelationWord =>
    answersRight(p, item.k, rng) ? (content.gold as RelationWord) : wrongWord(content.gold, rng);
