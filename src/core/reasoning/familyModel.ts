import { kinshipBySemantics } from '../family/closure';
import type { Family, Person, PersonId } from '../family/family';
import { type Gender, PRED_CODE, type PredCode } from '../kinship/relations';
import type { SolverFact } from './solver';

/**
 * Can some family make a set of kinship facts true? The families are CLUTRR's family model, the
 * one its generator draws from (with any number of generations and children): every child has
 * one father and one mother, married to each other; no one is married twice; a couple's two
 * members are never both born in the family (a spouse comes from outside, so no one marries a
 * sibling or a cousin); generations are consistent (spouses share one, a child is one below its
 * parents). A relation holds exactly when closeFamily's meaning of it holds (kinshipBySemantics):
 * full siblings only, an uncle is a parent's brother (not an aunt's husband), in-laws through a
 * child's spouse or a spouse's parent.
 *
 * The decision procedure. Each fact is written with three functions of a person, father, mother
 * and spouse, and equality:
 *   child        x = father(y) or mother(y), by x's gender
 *   sibling      father(x) = father(y), mother(x) = mother(y), x ≠ y
 *   grand        p = father(y) or p = mother(y) (two cases), x a parent of p
 *   in-law       x a parent of spouse(y)
 *   un           s = father(y) or s = mother(y) (two cases), s a sibling of x, s ≠ x
 *   the inverse predicates by swapping x and y, SO by spouse(x) = y.
 * The search tries every combination of cases (depth first, pruning as soon as a case
 * contradicts), closing each under congruence (equal people have equal fathers, mothers and
 * spouses; a person's parents are each other's spouses) with a union–find, and rejects it when two
 * different story people become one, genders clash, someone marries themself, both members of
 * a couple are born, or the generations cannot be numbered. These are all necessary in the model,
 * so a combination that survives is the only kind that can describe a family; the one that
 * survives is then built as a Family (each class of equal people one person, missing parents
 * added) and checked with kinshipBySemantics, so a "possible" answer always comes with a family
 * that makes every fact true. "impossible" means every combination was contradictory.
 */

export type FamilyModelAnswer =
  | { readonly verdict: 'possible'; readonly witness: Family; readonly people: readonly PersonId[] }
  | { readonly verdict: 'impossible' }
  /** A combination survived the checks but its family did not verify (a defect: never expected). */
  | { readonly verdict: 'undecided' };

/** Combinations tried before the search gives up with `undecided` (a story of 20 facts with 15 grand or un facts). */
const MAX_STATES = 1 << 16;

/**
 * Decides whether some family of CLUTRR's family model has distinct people, one per story
 * entity with its gender, for whom every fact holds. On `possible`, `witness` is
 * such a family and `people[i]` the person of entity i.
 */
export function satisfiableInFamily(genders: readonly Gender[], facts: readonly SolverFact[]): FamilyModelAnswer {
  const start = new State();
  for (const g of genders) start.node(g, true);
  let steps = 0;
  let unverified = false;
  const search = (s: State, i: number): FamilyModelAnswer | null => {
    if (++steps > MAX_STATES) return null;
    if (i === facts.length) {
      const built = s.build(genders.length);
      if (built && verify(built, facts)) return { verdict: 'possible', ...built };
      unverified = true;
      return null;
    }
    const cases = casesOf(facts[i]!);
    for (let c = 0; c < cases; c++) {
      const next = cases === 1 ? s : s.clone();
      if (apply(next, facts[i]!, c) && next.consistent()) {
        const found = search(next, i + 1);
        if (found) return found;
      }
      if (steps > MAX_STATES) return null;
    }
    return null;
  };
  const found = search(start, 0);
  if (found) return found;
  return unverified || steps > MAX_STATES ? { verdict: 'undecided' } : { verdict: 'impossible' };
}

const P = PRED_CODE;

/** How many alternative readings a fact has (which parent links the generations). */
function casesOf(f: SolverFact): number {
  const p = f.predicate;
  return p === P.grand || p === P['inv-grand'] || p === P.un || p === P['inv-un'] ? 2 : 1;
}

/** Writes reading `c` of fact f into the state; false when it contradicts at once. */
function apply(s: State, f: SolverFact, c: number): boolean {
  const p = f.predicate;
  const [x, y] =
    p === P['inv-child'] || p === P['inv-grand'] || p === P['inv-in-law'] || p === P['inv-un']
      ? [f.to, f.from]
      : [f.from, f.to];
  switch (p) {
    case P.child:
    case P['inv-child']:
      return s.parentOf(y, x);
    case P.SO:
      return s.marry(x, y);
    case P.sibling:
      return s.siblings(x, y);
    case P.grand:
    case P['inv-grand']: {
      const mid = s.parent(y, c === 0 ? 'male' : 'female');
      return s.parentOf(mid, x);
    }
    case P['in-law']:
    case P['inv-in-law']:
      return s.parentOf(s.spouseOf(y), x);
    case P.un:
    case P['inv-un']: {
      const sib = s.parent(y, c === 0 ? 'male' : 'female');
      s.differ(sib, x);
      return s.siblings(sib, x);
    }
    default:
      return false;
  }
}

/** Whether the built family makes every fact true (kinshipBySemantics gives each pair one relation). */
function verify(built: { witness: Family; people: readonly PersonId[] }, facts: readonly SolverFact[]): boolean {
  const g = kinshipBySemantics(built.witness);
  return facts.every((f) => g.rel[built.people[f.from]! * g.n + built.people[f.to]!] === f.predicate);
}

type G = 0 | 1 | 2; // unknown, male, female
const genderCode = (g: Gender | null): G => (g === 'male' ? 1 : g === 'female' ? 2 : 0);

/**
 * People as union–find classes with father, mother and spouse links (read through `find`).
 * Small (a story's people and a few more), so a branch of the search copies it whole.
 */
class State {
  up: number[] = [];
  gender: G[] = [];
  /** Story entity of the class (its lowest-numbered node), or -1. */
  entity: number[] = [];
  father: number[] = [];
  mother: number[] = [];
  spouse: number[] = [];
  /** Pairs that must stay different people. */
  differs: [number, number][] = [];
  failed = false;

  clone(): State {
    const s = new State();
    s.up = this.up.slice();
    s.gender = this.gender.slice();
    s.entity = this.entity.slice();
    s.father = this.father.slice();
    s.mother = this.mother.slice();
    s.spouse = this.spouse.slice();
    s.differs = this.differs.slice();
    s.failed = this.failed;
    return s;
  }

  node(g: Gender | null, isEntity = false): number {
    const id = this.up.length;
    this.up.push(id);
    this.gender.push(genderCode(g));
    this.entity.push(isEntity ? id : -1);
    this.father.push(-1);
    this.mother.push(-1);
    this.spouse.push(-1);
    return id;
  }

  find(x: number): number {
    let r = x;
    while (this.up[r] !== r) r = this.up[r]!;
    while (this.up[x] !== r) {
      const next = this.up[x]!;
      this.up[x] = r;
      x = next;
    }
    return r;
  }

  /** Makes a and b one person (and, by congruence, their parents and spouses); false on a clash. */
  union(a0: number, b0: number): boolean {
    const work: [number, number][] = [[a0, b0]];
    while (work.length > 0 && !this.failed) {
      const [a1, b1] = work.pop()!;
      const a = this.find(a1);
      const b = this.find(b1);
      if (a === b) continue;
      if (this.entity[a]! >= 0 && this.entity[b]! >= 0) return this.fail();
      const ga = this.gender[a]!;
      const gb = this.gender[b]!;
      if (ga !== 0 && gb !== 0 && ga !== gb) return this.fail();
      this.up[b] = a;
      if (ga === 0) this.gender[a] = gb;
      if (this.entity[a]! < 0) this.entity[a] = this.entity[b]!;
      for (const link of [this.father, this.mother, this.spouse]) {
        const la = link[a]!;
        const lb = link[b]!;
        if (la < 0) link[a] = lb;
        else if (lb >= 0) work.push([la, lb]);
      }
    }
    return !this.failed;
  }

  private fail(): false {
    this.failed = true;
    return false;
  }

  /** The parent of x of gender g, made (with the other parent, married to it) if x has none yet. */
  parent(x: number, g: 'male' | 'female'): number {
    const r = this.find(x);
    if (this.father[r]! < 0) {
      const f = this.node('male');
      const m = this.node('female');
      this.spouse[f] = m;
      this.spouse[m] = f;
      this.father[r] = f;
      this.mother[r] = m;
    }
    return g === 'male' ? this.father[r]! : this.mother[r]!;
  }

  /** p is a parent of c: the father or the mother, by p's gender (every person here has one). */
  parentOf(c: number, p: number): boolean {
    const g = this.gender[this.find(p)]!;
    return this.union(this.parent(c, g === 2 ? 'female' : 'male'), p);
  }

  spouseOf(x: number): number {
    const r = this.find(x);
    if (this.spouse[r]! < 0) {
      const g = this.gender[r]!;
      const s = this.node(g === 1 ? 'female' : g === 2 ? 'male' : null);
      this.spouse[r] = s;
      this.spouse[s] = r;
    }
    return this.spouse[r]!;
  }

  marry(x: number, y: number): boolean {
    if (this.find(x) === this.find(y)) return this.fail();
    return this.union(this.spouseOf(x), y) && this.union(this.spouseOf(y), x);
  }

  siblings(x: number, y: number): boolean {
    this.differ(x, y);
    return (
      this.union(this.parent(x, 'male'), this.parent(y, 'male')) &&
      this.union(this.parent(x, 'female'), this.parent(y, 'female'))
    );
  }

  differ(x: number, y: number): void {
    this.differs.push([x, y]);
  }

  /**
   * The model's conditions on the classes: no one their own spouse, spouses of different genders
   * and not both born, the required differences, and generations that can be numbered.
   */
  consistent(): boolean {
    if (this.failed) return false;
    for (const [a, b] of this.differs) if (this.find(a) === this.find(b)) return false;
    const n = this.up.length;
    for (let x = 0; x < n; x++) {
      if (this.up[x] !== x) continue;
      const s = this.spouse[x]!;
      if (s < 0) continue;
      const rs = this.find(s);
      if (rs === x) return false;
      if (this.spouse[rs]! < 0 || this.find(this.spouse[rs]!) !== x) return false;
      const g1 = this.gender[x]!;
      const g2 = this.gender[rs]!;
      if (g1 !== 0 && g1 === g2) return false;
      if (this.father[x]! >= 0 && this.father[rs]! >= 0) return false;
    }
    return this.generations() !== null;
  }

  /** A generation number per class (spouses equal, parents one less), or null when none exists. */
  generations(): Map<number, number> | null {
    const n = this.up.length;
    const gen = new Map<number, number>();
    const adj = new Map<number, [number, number][]>();
    const link = (a: number, b: number, d: number) => {
      const ra = this.find(a);
      const rb = this.find(b);
      if (!adj.has(ra)) adj.set(ra, []);
      if (!adj.has(rb)) adj.set(rb, []);
      adj.get(ra)!.push([rb, d]);
      adj.get(rb)!.push([ra, -d]);
    };
    for (let x = 0; x < n; x++) {
      if (this.up[x] !== x) continue;
      if (this.father[x]! >= 0) link(x, this.father[x]!, -1);
      if (this.mother[x]! >= 0) link(x, this.mother[x]!, -1);
      if (this.spouse[x]! >= 0) link(x, this.spouse[x]!, 0);
    }
    for (let x = 0; x < n; x++) {
      if (this.up[x] !== x || gen.has(x)) continue;
      gen.set(x, 0);
      const queue = [x];
      while (queue.length > 0) {
        const v = queue.pop()!;
        for (const [w, d] of adj.get(v) ?? []) {
          const want = gen.get(v)! + d;
          const has = gen.get(w);
          if (has === undefined) {
            gen.set(w, want);
            queue.push(w);
          } else if (has !== want) return null;
        }
      }
    }
    return gen;
  }

  /** The classes as a Family (every child with both parents), and the person of each entity. */
  build(entities: number): { witness: Family; people: PersonId[] } | null {
    const gen = this.generations();
    if (!gen) return null;
    const roots: number[] = [];
    for (let x = 0; x < this.up.length; x++) if (this.up[x] === x) roots.push(x);
    const id = new Map<number, number>();
    roots.forEach((r, i) => id.set(r, i));
    const low = Math.min(...roots.map((r) => gen.get(r)!));
    const children = roots.map(() => [] as PersonId[]);
    for (const r of roots) {
      if (this.father[r]! >= 0) {
        const f = id.get(this.find(this.father[r]!))!;
        const m = id.get(this.find(this.mother[r]!))!;
        children[f]!.push(id.get(r)! as PersonId);
        if (children[m] !== children[f]) children[m] = children[f]!;
      }
    }
    const people: Person[] = roots.map((r, i) => {
      const s = this.spouse[r]!;
      let g = this.gender[r]!;
      if (g === 0) g = s >= 0 && this.gender[this.find(s)] === 1 ? 2 : 1;
      return {
        id: i as PersonId,
        name: `P${i}`,
        gender: g === 1 ? 'male' : 'female',
        generation: gen.get(r)! - low,
        parents:
          this.father[r]! >= 0
            ? [id.get(this.find(this.father[r]!))! as PersonId, id.get(this.find(this.mother[r]!))! as PersonId]
            : null,
        spouse: s >= 0 ? (id.get(this.find(s))! as PersonId) : null,
        children: children[i]!,
      };
    });
    const of: PersonId[] = [];
    for (let e = 0; e < entities; e++) of.push(id.get(this.find(e))! as PersonId);
    return { witness: { people }, people: of };
  }
}

/** The facts' answer to "is `label` true of (a, b) in some family where all the facts hold?". */
export function labelPossible(
  genders: readonly Gender[],
  facts: readonly SolverFact[],
  a: number,
  b: number,
  label: PredCode,
): FamilyModelAnswer {
  return satisfiableInFamily(genders, [...facts, { from: a, to: b, predicate: label }]);
}
