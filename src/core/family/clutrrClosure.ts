import { PRED_CODE } from '../kinship/relations';
import { COMPOSE, COMPOSE_STRIDE } from '../kinship/rules';
import type { KinGraph } from './closure';
import type { Family } from './family';

/**
 * The family closed as CLUTRR's original generator closes it (its `almost_complete`), for the
 * `--labels clutrr` compatibility mode. It differs from the truth (closeFamily) in three ways,
 * all reproduced here because they decide the labels of the released data:
 *
 * - all sixteen rules compose, the two assumption rules included (a child's uncle is "my
 *   sibling", a child's grandparent is "my parent"), so it states relations that are false in
 *   the family;
 * - a pair keeps the first relation any composition gives it (later derivations of the same pair
 *   are dropped), so the order of derivation decides between a true and a false relation;
 * - inverses are written only from child, grand, un and in-law (and symmetry from sibling and
 *   spouse), overwriting whatever the reverse pair held.
 *
 * The order is the original's: its base edges in the order its family simulation makes them;
 * then, for every ordered pair (i, j) in turn, a depth-first completion that first re-applies the
 * inverse and symmetric rules to the whole graph, then composes the pair with every edge ending
 * where it starts and every edge starting where it ends (in the graph's insertion order), and
 * completes each new edge the same way. The inverse and symmetric passes are applied here only to
 * the edges added since the previous pass, which gives the same graph (a pass changes nothing that
 * the previous one already wrote; see clutrrClosure.test.ts, which compares against a literal
 * whole-graph rendering of the passes).
 */
export function closeFamilyAsClutrr(family: Family): KinGraph {
  return new ClutrrClosure(family, false).run();
}

/** The same closure with the inverse and symmetric passes over the whole graph each time (slow; tests only). */
export function closeFamilyAsClutrrLiterally(family: Family): KinGraph {
  return new ClutrrClosure(family, true).run();
}

const C = PRED_CODE;
/** Relations the original writes an inverse from, and that inverse. */
const INVERT_FROM: Uint8Array = (() => {
  const t = new Uint8Array(COMPOSE_STRIDE);
  t[C.child] = C['inv-child'];
  t[C.grand] = C['inv-grand'];
  t[C.un] = C['inv-un'];
  t[C['in-law']] = C['inv-in-law'];
  return t;
})();
const SYMMETRIC: Uint8Array = (() => {
  const t = new Uint8Array(COMPOSE_STRIDE);
  t[C.sibling] = 1;
  t[C.SO] = 1;
  return t;
})();

class ClutrrClosure {
  private readonly n: number;
  private readonly rel: Uint8Array;
  /** Pair indices (x * n + y) in insertion order. */
  private keys: number[] = [];
  /** Per person, the insertion numbers of the edges leaving / entering them, ascending. */
  private readonly out: number[][];
  private readonly inn: number[][];
  /** Keys before this insertion number have been through the inverse and symmetric passes. */
  private passed = 0;

  constructor(
    private readonly family: Family,
    private readonly literal: boolean,
  ) {
    this.n = family.people.length;
    this.rel = new Uint8Array(this.n * this.n);
    this.out = Array.from({ length: this.n }, () => []);
    this.inn = Array.from({ length: this.n }, () => []);
  }

  /** Sets pair (x, y) to c, appending the key when it is new (an existing key keeps its place). */
  private write(x: number, y: number, c: number): void {
    const i = x * this.n + y;
    if (this.rel[i] === 0) {
      this.out[x]!.push(this.keys.length);
      this.inn[y]!.push(this.keys.length);
      this.keys.push(i);
    }
    this.rel[i] = c;
  }

  run(): KinGraph {
    const { n, family } = this;
    // The original's simulation makes, per couple in order: the marriage (from the member it
    // started from to the new spouse), then per child an edge from each parent.
    for (const p of family.people) {
      if (p.spouse === null || p.spouse < p.id) continue;
      this.write(p.id, p.spouse, C.SO);
      for (const c of p.children) {
        this.write(p.id, c, C.child);
        this.write(p.spouse, c, C.child);
      }
    }
    const stack: number[] = [];
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        if (i === j) continue;
        stack.push(i * n + j);
        while (stack.length > 0) {
          const children = this.complete(stack.pop()!);
          for (let t = children.length - 1; t >= 0; t--) stack.push(children[t]!);
        }
      }
    }
    return { n, rel: this.rel };
  }

  /** One call of the original's completion: the passes, then the new edges it composes (in order). */
  private complete(edge: number): number[] {
    if (this.literal) this.passesOverAll();
    else this.passesSince(this.passed);
    this.passed = this.keys.length;
    const { n, rel } = this;
    const r = rel[edge]!;
    if (r === 0) return [];
    const x = (edge / n) | 0;
    const y = edge - x * n;
    const known = this.keys.length;
    const made: number[] = [];
    // Edges (w, x) composed with (x, y), then (x, y) with (y, z); only edges known at the start.
    const into = this.inn[x]!;
    for (let t = 0; t < into.length && into[t]! < known; t++) {
      const w = (this.keys[into[t]!]! / n) | 0;
      if (w === y || rel[w * n + y] !== 0) continue;
      const c = COMPOSE[rel[w * n + x]! * COMPOSE_STRIDE + r]!;
      if (c === 0) continue;
      this.write(w, y, c);
      made.push(w * n + y);
    }
    const from = this.out[y]!;
    for (let t = 0; t < from.length && from[t]! < known; t++) {
      const z = this.keys[from[t]!]! % n;
      if (z === x || rel[x * n + z] !== 0) continue;
      const c = COMPOSE[r * COMPOSE_STRIDE + rel[y * n + z]!]!;
      if (c === 0) continue;
      this.write(x, z, c);
      made.push(x * n + z);
    }
    return made;
  }

  /** The inverse pass then the symmetric pass, over the keys from insertion number `start` on. */
  private passesSince(start: number): void {
    const { n, rel, keys } = this;
    const end = keys.length;
    if (start === end) return;
    // Each pass reads the graph as it was before the pass (the original copies it).
    const before = new Uint8Array(end - start);
    for (let i = start; i < end; i++) before[i - start] = rel[keys[i]!]!;
    for (let i = start; i < end; i++) {
      const inv = INVERT_FROM[before[i - start]!]!;
      if (inv === 0) continue;
      const x = (keys[i]! / n) | 0;
      this.write(keys[i]! - x * n, x, inv);
    }
    const end2 = keys.length;
    const mid = new Uint8Array(end2 - start);
    for (let i = start; i < end2; i++) mid[i - start] = rel[keys[i]!]!;
    for (let i = start; i < end2; i++) {
      const c = mid[i - start]!;
      if (!SYMMETRIC[c]) continue;
      const x = (keys[i]! / n) | 0;
      this.write(keys[i]! - x * n, x, c);
    }
  }

  private passesOverAll(): void {
    this.passesSince(0);
  }
}

const cache = new Map<string, KinGraph>();
const CACHE_LIMIT = 256;

/**
 * closeFamilyAsClutrr, remembered by the family's shape: the closure depends only on who is whose
 * spouse and child (never on names or genders), and with fixed family settings (the defaults:
 * four children per couple, everyone married) every family has the same shape. The returned
 * graph is shared: callers must not write to it.
 */
export function closeFamilyAsClutrrCached(family: Family): KinGraph {
  let key = '';
  for (const p of family.people) key += `${p.spouse ?? '-'}:${p.children[0] ?? '-'}:${p.children.length},`;
  let g = cache.get(key);
  if (!g) {
    g = closeFamilyAsClutrr(family);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(key, g);
  }
  return g;
}
