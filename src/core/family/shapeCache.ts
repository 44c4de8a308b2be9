import { COMPOSE, COMPOSE_SOUND, COMPOSE_STRIDE } from '../kinship/rules';
import { type KinGraph, kinshipBySemantics } from './closure';
import type { Family } from './family';

/**
 * The closure of a family depends on its shape alone — who is whose spouse, parent and child —
 * not on names or genders (the predicates are gender-neutral). With the default settings (four
 * children per couple, everyone married) every family has the same shape, so a run of puzzles
 * closes the same graph again and again. A ShapeCache keeps the last shape's closed graph and,
 * filled as they are asked for, the middle people of each pair (`middles`): what backwardChain
 * scans a whole row of the graph for at every step. A family of another shape replaces both.
 * Callers must not write to the graph it returns.
 */
export class ShapeCache {
  private shape = new Int32Array(256);
  private shapeLength = -1;
  private graph: KinGraph | null = null;
  /** The graph's table, rewritten when the shape changes. */
  private buffer = new Uint8Array(0);
  private readonly tables: [MiddleTable | null, MiddleTable | null] = [null, null];

  /** closeFamily(family): the cached graph when the family has the last family's shape. */
  close(family: Family): KinGraph {
    if (this.graph && this.sameShape(family)) return this.graph;
    const n = family.people.length;
    if (this.buffer.length < n * n) this.buffer = new Uint8Array(n * n);
    this.graph = kinshipBySemantics(family, this.buffer);
    this.tables[0] = this.tables[1] = null;
    return this.graph;
  }

  /**
   * The middle-people table of the graph `close` last returned, for the sound rules (`strict`) or
   * the full rule base; null for any other graph.
   */
  middles(g: KinGraph, strict: boolean): MiddleTable | null {
    if (g !== this.graph) return null;
    const i = strict ? 1 : 0;
    return (this.tables[i] ??= new MiddleTable(g, strict));
  }

  /** Whether the family has the shape last recorded; records its shape when not. */
  private sameShape(family: Family): boolean {
    const people = family.people;
    const n = people.length;
    // Per person: id, spouse, parents, child count and children (a child is listed by both parents).
    let bound = 1 + 5 * n;
    for (let i = 0; i < n; i++) bound += people[i]!.children.length;
    if (this.shape.length < bound) {
      const grown = new Int32Array(bound * 2);
      grown.set(this.shape);
      this.shape = grown;
    }
    const s = this.shape;
    // `diff` gathers any difference from the last shape while the new one is written over it.
    let diff = bound - this.shapeLength;
    let at = 0;
    diff |= s[at]! ^ n;
    s[at++] = n;
    for (let i = 0; i < n; i++) {
      const p = people[i]!;
      const spouse = p.spouse ?? -1;
      // Father and mother in either order: the closure reads a parent's children, which are both's.
      const ps = p.parents;
      const p0 = ps ? Math.min(ps[0], ps[1]) : -1;
      const p1 = ps ? Math.max(ps[0], ps[1]) : -1;
      const kids = p.children;
      diff |=
        (s[at]! ^ p.id) | (s[at + 1]! ^ spouse) | (s[at + 2]! ^ p0) | (s[at + 3]! ^ p1) | (s[at + 4]! ^ kids.length);
      s[at] = p.id;
      s[at + 1] = spouse;
      s[at + 2] = p0;
      s[at + 3] = p1;
      s[at + 4] = kids.length;
      at += 5;
      for (let c = 0; c < kids.length; c++) {
        diff |= s[at]! ^ kids[c]!;
        s[at++] = kids[c]!;
      }
    }
    this.shapeLength = bound;
    return diff === 0;
  }
}

/**
 * For each pair (x, y) of a graph, the people z, ascending, with "z is x's r1", "y is z's r2" and
 * r1 ∘ r2 = the relation of (x, y) under the rules: exactly the z backwardChain looks for when it
 * expands the edge (x, y) (before it leaves out the people already on the path). Each pair's list
 * is found the first time it is asked for.
 */
export class MiddleTable {
  private readonly start: Int32Array;
  private readonly count: Int32Array;
  private pool = new Int16Array(1024);
  private used = 0;
  private readonly compose: Uint8Array;

  constructor(
    private readonly g: KinGraph,
    strict: boolean,
  ) {
    this.start = new Int32Array(g.n * g.n).fill(-1);
    this.count = new Int32Array(g.n * g.n);
    this.compose = strict ? COMPOSE_SOUND : COMPOSE;
  }

  /** Where the list of (x, y) starts in `list()`, after which `countOf(x, y)` entries follow. */
  of(x: number, y: number): number {
    const { n, rel } = this.g;
    const i = x * n + y;
    const known = this.start[i]!;
    if (known >= 0) return known;
    const r = rel[i]!;
    const compose = this.compose;
    const stride = COMPOSE_STRIDE;
    if (this.pool.length - this.used < n) {
      const grown = new Int16Array(Math.max(this.pool.length * 2, this.used + n));
      grown.set(this.pool.subarray(0, this.used));
      this.pool = grown;
    }
    const pool = this.pool;
    const from = this.used;
    let at = from;
    const xRow = x * n;
    for (let z = 0; z < n; z++) {
      const r1 = rel[xRow + z]!;
      if (r1 === 0) continue;
      const r2 = rel[z * n + y]!;
      if (r2 !== 0 && compose[r1 * stride + r2] === r) pool[at++] = z;
    }
    this.used = at;
    this.start[i] = from;
    this.count[i] = at - from;
    return from;
  }

  countOf(x: number, y: number): number {
    return this.count[x * this.g.n + y]!;
  }

  /** The lists, back to back (valid until the next `of`). */
  list(): Int16Array {
    return this.pool;
  }
}
