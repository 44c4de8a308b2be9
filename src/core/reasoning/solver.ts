import { INVERSE_CODE, PREDICATES, type PredCode, type Predicate } from '../kinship/relations';
import { COMPOSE, COMPOSE_SOUND, COMPOSE_STRIDE } from '../kinship/rules';

/**
 * The solver: what does the rule base entail about the query pair, given a story's facts?
 *
 * Sets of predicates are 10-bit masks (bit c-1 for predicate code c). For every simple path
 * between the two query entities in the undirected story graph (an edge walked backwards reads
 * as its inverse), CYK over the path's spans collects every predicate derivable for the whole
 * path under every bracketing; the answer set is the union over paths.
 *
 * Strict mode (`strict = true` below) composes with the sound rules only (COMPOSE_SOUND): what
 * a careful reader may conclude about a generated family, rather than what CLUTRR's rule base
 * entails.
 */

export type PredMask = number;

export const bit = (code: PredCode): PredMask => 1 << (code - 1);

/**
 * bits[a * 1024 + B] = mask of a ∘ b for every b in B, under one composition table. Built from
 * the set without its lowest member (already filled: it is a smaller number) and that member.
 */
function composeBitsOf(table: Uint8Array): Uint16Array {
  const t = new Uint16Array(COMPOSE_STRIDE * 1024);
  for (let a = 1; a < COMPOSE_STRIDE; a++) {
    const row = a * 1024;
    for (let B = 1; B < 1024; B++) {
      const rest = B & (B - 1);
      const b = 32 - Math.clz32(B & -B);
      const c = table[a * COMPOSE_STRIDE + b]!;
      t[row + B] = t[row + rest]! | (c ? 1 << (c - 1) : 0);
    }
  }
  return t;
}

const composeBits: Uint16Array = composeBitsOf(COMPOSE);
const composeBitsSound: Uint16Array = composeBitsOf(COMPOSE_SOUND);

/** A rule set other than the full one (false) or the sound one (true): see ruleSet. */
export interface RuleSet {
  readonly bits: Uint16Array;
}

/**
 * Which rules compose: `false` the full rule base (CLUTRR's sixteen), `true` the rules sound in
 * families, or a RuleSet built from any composition table.
 */
export type Rules = boolean | RuleSet;

/** A rule set from a composition table indexed as COMPOSE. */
export const ruleSet = (table: Uint8Array): RuleSet => ({ bits: composeBitsOf(table) });

/** Every a ∘ b with a in A and b in B (with the sound rules only when `strict`). */
export function composeMasks(A: PredMask, B: PredMask, strict: Rules = false): PredMask {
  if (A === 0 || B === 0) return 0;
  const bits = strict === false ? composeBits : strict === true ? composeBitsSound : strict.bits;
  let m = 0;
  for (let a = 1; A !== 0; a++, A >>>= 1) if (A & 1) m |= bits[a * 1024 + B]!;
  return m;
}

const spanTable = new Uint16Array(64 * 64);

/**
 * CYK over one path of predicate codes: the mask of predicates derivable for the whole span.
 * Paths longer than 64 facts are refused. With `strict`, only the sound rules compose.
 */
export function cykPath(codes: ArrayLike<PredCode>, strict: Rules = false): PredMask {
  const L = codes.length;
  if (L === 0) return 0;
  if (L > 64) throw new RangeError(`path of ${L} facts is longer than the solver's limit of 64`);
  const T = spanTable;
  for (let i = 0; i < L; i++) T[i * 64 + i] = bit(codes[i]!);
  for (let len = 2; len <= L; len++) {
    for (let i = 0; i + len <= L; i++) {
      const j = i + len - 1;
      let m = 0;
      for (let s = i; s < j; s++) m |= composeMasks(T[i * 64 + s]!, T[(s + 1) * 64 + j]!, strict);
      T[i * 64 + j] = m;
    }
  }
  return T[L - 1]!;
}

/** A fact of a story: "to is from's predicate". */
export interface SolverFact {
  readonly from: number;
  readonly to: number;
  readonly predicate: PredCode;
}

export interface Derivation {
  /** Every predicate derivable for (a, b). */
  readonly mask: PredMask;
  /** Simple paths between a and b that were examined. */
  readonly paths: number;
  /** True when the path limit cut the search short (the mask may then be incomplete). */
  readonly truncated: boolean;
}

export const DEFAULT_PATH_LIMIT = 20000;

/**
 * Everything the rule base derives for "b is a's ?" from the facts, over every simple path
 * from a to b (nodes are numbered 0..nodeCount-1). With `strict`, only the sound rules compose.
 */
export function derive(
  nodeCount: number,
  facts: readonly SolverFact[],
  a: number,
  b: number,
  pathLimit = DEFAULT_PATH_LIMIT,
  strict: Rules = false,
): Derivation {
  if (a === b) return { mask: 0, paths: 0, truncated: false };
  // A path story needs no search: the common case stays allocation-light.
  const adj: { to: number; code: PredCode }[][] = Array.from({ length: nodeCount }, () => []);
  for (const f of facts) {
    if (f.from === f.to) continue;
    adj[f.from]!.push({ to: f.to, code: f.predicate });
    adj[f.to]!.push({ to: f.from, code: INVERSE_CODE[f.predicate]! });
  }
  const visited = new Uint8Array(nodeCount);
  const codes: PredCode[] = [];
  let mask = 0;
  let paths = 0;
  let truncated = false;
  const dfs = (v: number) => {
    if (truncated) return;
    if (v === b) {
      paths++;
      if (paths > pathLimit) {
        truncated = true;
        return;
      }
      mask |= cykPath(codes, strict);
      return;
    }
    visited[v] = 1;
    for (const e of adj[v]!) {
      if (visited[e.to]) continue;
      codes.push(e.code);
      dfs(e.to);
      codes.pop();
    }
    visited[v] = 0;
  };
  dfs(a);
  return { mask, paths: Math.min(paths, pathLimit), truncated };
}

export function maskToPredicates(mask: PredMask): Predicate[] {
  return PREDICATES.filter((_, i) => mask & (1 << i));
}

export type Verdict = 'entailed' | 'ambiguous' | 'unsupported';

/** entailed: exactly the target is derivable; ambiguous: it is one of several; else unsupported. */
export function verdictFor(mask: PredMask, target: PredCode): Verdict {
  const t = bit(target);
  if (mask === t) return 'entailed';
  if (mask & t) return 'ambiguous';
  return 'unsupported';
}
