import { INVERSE_CODE, PRED_CODE, type PredCode } from '../kinship/relations';
import { COMPOSE_SOUND, COMPOSE_STRIDE } from '../kinship/rules';
import type { Family } from './family';

/**
 * A kinship graph over the people of one family: `rel[x * n + y]` is the code of the predicate
 * p such that "y is x's p", or 0 when the vocabulary has no word for them.
 */
export interface KinGraph {
  readonly n: number;
  readonly rel: Uint8Array;
}

export function relationOf(g: KinGraph, x: number, y: number): PredCode {
  return g.rel[x * g.n + y] as PredCode;
}

/** The stated facts of a family: parent–child and spouse edges, both directions. */
export function baseGraph(family: Family): KinGraph {
  const n = family.people.length;
  const rel = new Uint8Array(n * n);
  for (const p of family.people) {
    for (const c of p.children) {
      rel[p.id * n + c] = PRED_CODE.child;
      rel[c * n + p.id] = PRED_CODE['inv-child'];
    }
    if (p.spouse !== null) rel[p.id * n + p.spouse] = PRED_CODE.SO;
  }
  return { n, rel };
}

/** A derivation reached a pair that already holds another relation: the family is inconsistent. */
export class ClosureConflictError extends Error {}

/**
 * The family closed under the rule base: every pair that the sound rules, inverses and symmetry
 * derive from the parent and spouse facts, with its relation. Built directly from the tree
 * (kinshipBySemantics), which is about ten times faster than forward chaining; the property
 * tests check over thousands of families that both give the same graph.
 */
export function closeFamily(family: Family, scratch?: Uint8Array): KinGraph {
  return kinshipBySemantics(family, scratch);
}

/**
 * Reference closure by semi-naive forward chaining: each new edge is joined once with the edges
 * already known on either side, using the rules that are sound in generated families (see
 * RULES). A conflicting derivation throws ClosureConflictError.
 */
export function closeFamilyByRules(family: Family): KinGraph {
  const g = baseGraph(family);
  const { n, rel } = g;
  // Module imports can be live-binding getters (tsx, some bundlers): read them once.
  const compose = COMPOSE_SOUND;
  const stride = COMPOSE_STRIDE;
  const inverse = INVERSE_CODE;
  // Out- and in-neighbour lists grow as edges are added; they spare the joins a scan of n.
  const out: number[][] = Array.from({ length: n }, () => []);
  const inn: number[][] = Array.from({ length: n }, () => []);
  const queue: number[] = [];
  for (let i = 0; i < n * n; i++) {
    if (rel[i] !== 0) {
      const x = (i / n) | 0;
      const y = i - x * n;
      out[x]!.push(y);
      inn[y]!.push(x);
      queue.push(i);
    }
  }
  const set = (x: number, y: number, c: number) => {
    if (x === y) return;
    const i = x * n + y;
    const old = rel[i]!;
    if (old === c) return;
    if (old !== 0) {
      const a = family.people[x]!.name;
      const b = family.people[y]!.name;
      throw new ClosureConflictError(`closure derives two relations (${old} and ${c}) for ${a} → ${b}`);
    }
    rel[i] = c;
    out[x]!.push(y);
    inn[y]!.push(x);
    queue.push(i);
  };
  for (let q = 0; q < queue.length; q++) {
    const i = queue[q]!;
    const x = (i / n) | 0;
    const y = i - x * n;
    const r = rel[i]!;
    set(y, x, inverse[r]!);
    // (x r y) ∘ (y r2 z)
    const fromY = out[y]!;
    for (let t = 0; t < fromY.length; t++) {
      const z = fromY[t]!;
      const c = compose[r * stride + rel[y * n + z]!]!;
      if (c !== 0) set(x, z, c);
    }
    // (w r0 x) ∘ (x r y)
    const intoX = inn[x]!;
    for (let t = 0; t < intoX.length; t++) {
      const w = intoX[t]!;
      const c = compose[rel[w * n + x]! * stride + r]!;
      if (c !== 0) set(w, y, c);
    }
  }
  return g;
}

/**
 * The relation of every pair computed straight from the family tree (the meaning of each
 * predicate), used to check closeFamily and the soundness of the rules. With `scratch` of at
 * least n² bytes, the graph is written there (cleared first) instead of a new array, so that a
 * caller closing many families in a row allocates none; `rel` is then that array, indexed as usual.
 */
export function kinshipBySemantics(family: Family, scratch?: Uint8Array): KinGraph {
  const n = family.people.length;
  const rel = scratch && scratch.length >= n * n ? scratch.fill(0, 0, n * n) : new Uint8Array(n * n);
  const P = family.people;
  const C = PRED_CODE;
  const CHILD = C.child;
  const INV_CHILD = C['inv-child'];
  const SO = C.SO;
  const SIBLING = C.sibling;
  const GRAND = C.grand;
  const INV_GRAND = C['inv-grand'];
  const IN_LAW = C['in-law'];
  const INV_IN_LAW = C['inv-in-law'];
  const UN = C.un;
  const INV_UN = C['inv-un'];
  // Written with plain loops and no helper closures: this runs once per generated puzzle. Each
  // person writes the relations to the people below or beside them in the tree together with
  // the inverse (a child's parents are their father's and mother's children lists, read anyway),
  // so the tree is walked downwards only.
  for (let x = 0; x < n; x++) {
    const px = P[x]!;
    const row = x * n;
    const kids = px.children;
    for (let i = 0; i < kids.length; i++) {
      const c = kids[i]!;
      rel[row + c] = CHILD;
      rel[c * n + x] = INV_CHILD;
      const pc = P[c]!;
      const gkids = pc.children;
      for (let j = 0; j < gkids.length; j++) {
        const g = gkids[j]!;
        rel[row + g] = GRAND;
        rel[g * n + x] = INV_GRAND;
      }
      const s = pc.spouse;
      if (s !== null && s !== x) {
        rel[row + s] = IN_LAW;
        rel[s * n + x] = INV_IN_LAW;
      }
    }
    const ps = px.parents;
    if (ps) {
      // Siblings both ways (each sibling writes its own row), nephews and nieces with their
      // uncle or aunt.
      const sibs = P[ps[0]!]!.children;
      for (let i = 0; i < sibs.length; i++) {
        const sib = sibs[i]!;
        if (sib === x) continue;
        rel[row + sib] = SIBLING;
        const nk = P[sib]!.children;
        for (let j = 0; j < nk.length; j++) {
          const c = nk[j]!;
          if (c === x) continue;
          rel[row + c] = UN;
          rel[c * n + x] = INV_UN;
        }
      }
    }
    if (px.spouse !== null && px.spouse !== x) rel[row + px.spouse] = SO;
    // Grandchildren and children through the spouse are the same people: no step-families.
  }
  return { n, rel };
}
