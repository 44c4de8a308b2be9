import type { KinGraph } from '../family/closure';
import type { PredCode } from '../kinship/relations';
import { COMPOSE, COMPOSE_SOUND, COMPOSE_STRIDE } from '../kinship/rules';
import type { Rng } from '../random/rng';
import type { MiddleTable } from '../family/shapeCache';

/** An edge of the family graph: "y is x's r". */
export interface ChainEdge {
  readonly x: number;
  readonly y: number;
  readonly r: PredCode;
}

/** One backward step: the head edge was replaced by the two body edges (a rule read backwards). */
export interface ChainStep {
  readonly head: ChainEdge;
  readonly body: readonly [ChainEdge, ChainEdge];
}

export interface Chain {
  /** The k facts, in path order from the first query entity to the second. */
  readonly edges: readonly ChainEdge[];
  /** The k+1 people on the path, in order. */
  readonly people: readonly number[];
  /** The expansions, outermost first (CLUTRR's proof_state order). */
  readonly steps: readonly ChainStep[];
}

/**
 * Backward chaining from the target edge (a, b) for k-1 expansions, as CLUTRR does, with one
 * difference: a middle person z must not already be on the path, so the result is always a
 * simple path of k facts (no person twice). At each step an edge of the current list is chosen
 * at random, and among the people z with (x, r1, z), (z, r2, y) in the graph and r1 ∘ r2 = r, one
 * is chosen at random. Returns null when no edge of the list can be expanded any further.
 * With `strict`, a step may only read a sound rule backwards (COMPOSE_SOUND), so every step of
 * the proof holds in the family; the random draws are the same as without it. With `middles`
 * (ShapeCache.middles of `g` and `strict`), each edge's candidates come from its list there
 * instead of a scan of the graph's row: the same people in the same order, so the same chain.
 */
export function backwardChain(
  g: KinGraph,
  a: number,
  b: number,
  k: number,
  rng: Rng,
  strict = false,
  middles: MiddleTable | null = null,
): Chain | null {
  const { n, rel } = g;
  const compose = strict ? COMPOSE_SOUND : COMPOSE;
  const stride = COMPOSE_STRIDE;
  const r0 = rel[a * n + b]!;
  if (r0 === 0 || a === b || k < 1) return null;
  const edges: ChainEdge[] = [{ x: a, y: b, r: r0 }];
  const onPath = new Uint8Array(n);
  onPath[a] = 1;
  onPath[b] = 1;
  const steps: ChainStep[] = [];
  const order: number[] = [];
  const zs: number[] = [];
  // Both lists are rewritten, not emptied (setting an array's length is a slow call): `order`
  // grows with the edge list, one more each step; `zs` holds `count` candidates at its start.
  for (let step = 1; step < k; step++) {
    for (let i = 0; i < edges.length; i++) order[i] = i;
    rng.shuffle(order);
    let expanded = false;
    for (const idx of order) {
      const e = edges[idx]!;
      let count = 0;
      const xRow = e.x * n;
      if (middles) {
        const from = middles.of(e.x, e.y);
        const to = from + middles.countOf(e.x, e.y);
        const list = middles.list();
        for (let m = from; m < to; m++) {
          const z = list[m]!;
          if (!onPath[z]) zs[count++] = z;
        }
      } else {
        for (let z = 0; z < n; z++) {
          if (onPath[z]) continue;
          const r1 = rel[xRow + z]!;
          if (r1 === 0) continue;
          const r2 = rel[z * n + e.y]!;
          if (r2 !== 0 && compose[r1 * stride + r2] === e.r) zs[count++] = z;
        }
      }
      if (count === 0) continue;
      // The draw of rng.pick(zs) over the first `count` entries.
      const z = zs[rng.int(count)]!;
      const left: ChainEdge = { x: e.x, y: z, r: rel[xRow + z]! };
      const right: ChainEdge = { x: z, y: e.y, r: rel[z * n + e.y]! };
      onPath[z] = 1;
      steps.push({ head: e, body: [left, right] });
      // Replaces edge idx by left and right, in place (spread and slice, or splice, are
      // measurably slower here, and the list is this call's own until it is returned).
      edges.push(right);
      for (let i = edges.length - 1; i > idx + 1; i--) edges[i] = edges[i - 1]!;
      edges[idx] = left;
      edges[idx + 1] = right;
      expanded = true;
      break;
    }
    if (!expanded) return null;
  }
  const people = [a];
  for (let i = 0; i < edges.length; i++) people.push(edges[i]!.y);
  return { edges, people, steps };
}
