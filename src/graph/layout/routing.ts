import type { Puzzle } from '../../core/puzzle/puzzle';
import { polylineCrossesBox } from './edgeClearance';
import { type Box, boxesOverlap, curvedEdge, type EdgeGeometry, type Point } from './geometry';
import { labelBox, MIN_SPACE, nodeBox, ROW_HEIGHT } from './sizes';
import { edgeKindOf, type GraphLayout, type LayoutEdge, type LayoutLink, type LayoutNode } from './types';

/** One key for both directions of a pair of node ids. */
export function pairKey(a: string, b: string): string {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}

/** Extra bow of the memory fact, so its double line never hides the path fact it parallels. */
const MEMORY_BEND = 30;
/** Distance between parallel edges joining the same two people. */
const PARALLEL_STEP = 26;

/** Pieces each candidate curve is cut into when checked against the boxes it must clear. */
const CLEAR_STEPS = 24;

/** Whether a curve runs through any of `boxes`. */
function crossesAny(g: EdgeGeometry, boxes: readonly Box[]): boolean {
  if (boxes.length === 0) return false;
  const points: Point[] = [];
  for (let s = 0; s <= CLEAR_STEPS; s++) points.push(g.at(s / CLEAR_STEPS));
  return boxes.some((b) => polylineCrossesBox(points, b));
}

/** Bends tried after the preferred one, as multiples of the distance between the two ends. */
const DETOURS = [0.12, -0.12, 0.22, -0.22, 0.32, -0.32, 0.45, -0.45, 0.6, -0.6, 0.8, -0.8, 1.05, -1.05] as const;
/** Where the control point may stand along the line, the middle first (a lopsided bow last). */
const ALONG_LINE = [0.5, 0.3, 0.7] as const;

/**
 * A router for one layout: each call draws one edge between two nodes. Edges between the same
 * pair fan out (alternately to each side), so the router counts the pairs it has drawn. Given
 * `obstacles` (every drawn node), an edge keeps its preferred bow when that clears every box but
 * its own two ends' (`nodeBox`), else takes the first of a fixed list of wider bows, to either
 * side, then lopsided ones, that does; the pair's later parallels fan out from the bow chosen.
 */
export function createRouter(
  obstacles: readonly LayoutNode[] = [],
): (a: LayoutNode, b: LayoutNode, extraBend?: number) => EdgeGeometry {
  const pairCount = new Map<string, number>();
  const pairBase = new Map<string, { bend: number; along: number }>();
  const boxes = obstacles.map((n) => ({ id: n.id, box: nodeBox(n) }));
  return (a, b, extraBend = 0) => {
    const k = pairKey(a.id, b.id);
    const nth = pairCount.get(k) ?? 0;
    pairCount.set(k, nth + 1);
    const parallel = nth === 0 ? 0 : (nth % 2 === 1 ? 1 : -1) * Math.ceil(nth / 2) * PARALLEL_STEP;
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len = Math.hypot(dx, dy) || 1;
    const sameRow = Math.abs(dy) < 1;
    // Same row: arc over anyone standing between; neighbours get a straight line. Across rows:
    // a slight bow, always to the same side of the line's direction. Bends are measured along
    // `normal`, oriented from a to b, so one pair's parallels agree whichever way they are drawn.
    const flip = sameRow ? 1 : -dy / len >= 0 ? 1 : -1;
    const normal = sameRow ? { x: 0, y: -1 } : { x: (-dy / len) * flip, y: (dx / len) * flip };
    let preferred: number;
    if (sameRow) {
      const neighbours = Math.abs(dx) <= (a.width + b.width) / 2 + MIN_SPACE * 1.5;
      preferred = neighbours ? 0 : Math.min(0.28 * Math.abs(dx), 110);
    } else {
      preferred = Math.abs(dy) > ROW_HEIGHT * 1.5 ? 0.18 * len : 0.08 * len;
    }
    const others = boxes.filter((o) => o.id !== a.id && o.id !== b.id).map((o) => o.box);
    const draw = (base: number, along: number) => curvedEdge(a, b, base + parallel + extraBend, normal, along);
    let chosen = pairBase.get(k);
    if (chosen === undefined) {
      chosen = { bend: preferred, along: 0.5 };
      if (crossesAny(draw(preferred, 0.5), others)) {
        search: for (const along of ALONG_LINE) {
          for (const f of along === 0.5 ? DETOURS : [0, ...DETOURS]) {
            const bend = preferred + f * len;
            if (!crossesAny(draw(bend, along), others)) {
              chosen = { bend, along };
              break search;
            }
          }
        }
      }
      pairBase.set(k, chosen);
    }
    return draw(chosen.bend, chosen.along);
  };
}

/** Spots along the curve, from the middle outwards. */
const ALONG = [0.5, 0.4, 0.6, 0.32, 0.68, 0.25, 0.75] as const;
/** Distances beside the curve (along its normal), nearest first, for labels the curve has no room for. */
const BESIDE = [14, 26, 38, 50] as const;
/** Last resort: rings around the curve's middle (radius, then 16 directions from straight up). */
const AROUND = [64, 84, 108, 136] as const;
const AROUND_STEPS = 16;

/**
 * Candidate label centres for one curve, best first: on the curve, then beside it (above, or
 * right of a vertical line, before the other side), then around its middle. Finite (127 spots),
 * deterministic.
 */
export function* labelSpots(at: (t: number) => Point): Generator<Point> {
  for (const t of ALONG) yield at(t);
  for (const d of BESIDE) {
    for (const t of ALONG) {
      const p = at(t);
      const a = at(Math.max(0, t - 0.02));
      const b = at(Math.min(1, t + 0.02));
      const len = Math.hypot(b.x - a.x, b.y - a.y);
      if (len === 0) continue;
      let nx = -(b.y - a.y) / len;
      let ny = (b.x - a.x) / len;
      if (ny > 1e-9 || (Math.abs(ny) <= 1e-9 && nx < 0)) {
        nx = -nx;
        ny = -ny;
      }
      yield { x: p.x + nx * d, y: p.y + ny * d };
      yield { x: p.x - nx * d, y: p.y - ny * d };
    }
  }
  const mid = at(0.5);
  for (const r of AROUND) {
    for (let i = 0; i < AROUND_STEPS; i++) {
      const angle = -Math.PI / 2 + (2 * Math.PI * i) / AROUND_STEPS;
      yield { x: mid.x + r * Math.cos(angle), y: mid.y + r * Math.sin(angle) };
    }
  }
}

function overlapArea(a: Box, b: Box): number {
  const w = Math.min(a.x + a.width / 2, b.x + b.width / 2) - Math.max(a.x - a.width / 2, b.x - b.width / 2);
  const h = Math.min(a.y + a.height / 2, b.y + b.height / 2) - Math.max(a.y - a.height / 2, b.y - b.height / 2);
  return w > 0 && h > 0 ? w * h : 0;
}

/**
 * Places labels greedily in the order given: each takes the first spot of `labelSpots` whose box
 * (`labelBox`) overlaps neither an obstacle nor a label already placed, or, when all of them are
 * taken, the spot that overlaps least. `scale` widens labels set in larger type.
 */
export function placeLabels(
  items: readonly { readonly text: string; readonly at: (t: number) => Point; readonly scale?: number }[],
  obstacles: readonly Box[],
): Point[] {
  const placed: Box[] = [];
  return items.map(({ text, at, scale = 1 }) => {
    let best: Box | null = null;
    let bestScore = Infinity;
    for (const spot of labelSpots(at)) {
      const box = labelBox(spot, text, scale);
      const hits = (o: Box) => boxesOverlap(o, box);
      if (!obstacles.some(hits) && !placed.some(hits)) {
        best = box;
        break;
      }
      let score = 0;
      for (const o of obstacles) score += overlapArea(o, box);
      for (const o of placed) score += overlapArea(o, box);
      if (score < bestScore) {
        best = box;
        bestScore = score;
      }
    }
    placed.push(best!);
    return { x: best!.x, y: best!.y };
  });
}

/**
 * One edge per story fact (in fact order, ids `f<fact id>`), routed by `route`, with labels
 * placed clear of `nodes` (every drawn node, by `nodeBox`) and of each other; path facts choose
 * their spots first. `nodeOf` maps an entity to its node.
 */
export function factEdges(
  puzzle: Puzzle,
  nodes: readonly LayoutNode[],
  nodeOf: (entity: number) => LayoutNode,
  route: ReturnType<typeof createRouter>,
): LayoutEdge[] {
  const routed = puzzle.facts.map((f) => {
    const a = nodeOf(f.from);
    const b = nodeOf(f.to);
    const g = route(a, b, f.kind === 'memory' ? MEMORY_BEND : 0);
    const edge: LayoutEdge = {
      id: `f${f.id}`,
      factId: f.id,
      kind: edgeKindOf(f.kind),
      factKind: f.kind,
      source: a.id,
      target: b.id,
      word: f.word,
      relation: 'fact',
      d: g.d,
      label: g.label,
    };
    return { edge, at: g.at };
  });
  const order = routed.map((_, i) => i);
  order.sort((x, y) => (routed[x]!.edge.kind === 'path' ? 0 : 1) - (routed[y]!.edge.kind === 'path' ? 0 : 1) || x - y);
  const spots = placeLabels(
    order.map((i) => ({ text: routed[i]!.edge.word, at: routed[i]!.at })),
    nodes.map(nodeBox),
  );
  const edges = routed.map((r) => r.edge);
  order.forEach((i, j) => (edges[i] = { ...edges[i]!, label: spots[j]! }));
  return edges;
}

/** Bare links for story edges without a relation, routed after the facts (so they fan out from them). */
export function untypedLinks(
  pairs: readonly (readonly [number, number])[],
  nodeOf: (entity: number) => LayoutNode | undefined,
  route: ReturnType<typeof createRouter>,
): LayoutLink[] {
  const links: LayoutLink[] = [];
  for (const [from, to] of pairs) {
    const a = nodeOf(from);
    const b = nodeOf(to);
    if (a && b) links.push({ id: `u${links.length}`, source: a.id, target: b.id, d: route(a, b).d });
  }
  return links;
}

/** The conclusion's label is set in 14px type, fact labels in 12.5px. */
const CONCLUSION_SCALE = 14 / 12.5;

/**
 * The derived edge a proof step concludes (drawn while the step is lit): a wider bow than the
 * facts', its label kept clear of every drawn node and every fact label.
 */
export function derivedEdge(
  layout: GraphLayout,
  from: number,
  to: number,
  word: string,
): { d: string; label: Point } | null {
  const a = layout.nodes.find((n) => n.entity === from);
  const b = layout.nodes.find((n) => n.entity === to);
  if (!a || !b) return null;
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len = Math.hypot(dx, dy) || 1;
  const g =
    Math.abs(dy) < 1
      ? curvedEdge(a, b, Math.min(0.35 * Math.abs(dx), 140) + 30, { x: 0, y: -1 })
      : curvedEdge(a, b, -(0.25 * len + 20) * (-dy / len >= 0 ? 1 : -1), { x: -dy / len, y: dx / len });
  const obstacles: Box[] = [
    ...layout.nodes.map(nodeBox),
    ...layout.edges.filter((e) => e.factId !== null).map((e) => labelBox(e.label, e.word)),
  ];
  const [label] = placeLabels([{ text: word, at: g.at, scale: CONCLUSION_SCALE }], obstacles);
  return { d: g.d, label: label! };
}
