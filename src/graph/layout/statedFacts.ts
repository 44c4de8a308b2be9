import {
  forceCollide,
  forceLink,
  forceManyBody,
  forceSimulation,
  forceX,
  forceY,
  type SimulationLinkDatum,
  type SimulationNodeDatum,
} from 'd3';
import type { Puzzle } from '../../core/puzzle/puzzle';
import { createRng, type Rng } from '../../core/random/rng';
import { type Bounds, type Box, boundsOf, curvedEdge, type Point } from './geometry';
import { placeLabels } from './routing';
import { labelBox, labelWidth, NODE_HEIGHT, nodeBox, nodeWidth } from './sizes';

/**
 * The study's drawing of a story (the `text+drawing` condition): the story's people and the
 * facts it states, and nothing the participant should work out. Unlike `layoutPuzzle` (the
 * explorer's, rows by generation), nothing here reads the family or the relations' meaning: a
 * force layout of the fact graph (people joined by a fact pull together, everyone pushes apart)
 * from seeded starting points, so a grandmother is no more likely above her grandson than below
 * him. The seed is the puzzle's, so a reload draws the same picture.
 *
 * Pure: positions and path strings only (d3-force run to a fixed number of ticks, with its
 * random source taken from the seeded Rng).
 */

/** What the layout reads from a puzzle: the people, the stated facts and the question's pair. */
export type StatedFactsPuzzle = Pick<Puzzle, 'seed' | 'entities' | 'facts' | 'query'>;

export interface StatedFactsNode extends Box {
  readonly entity: number;
  readonly name: string;
  /** 'A' for the question's first person, 'B' for its second. */
  readonly query: 'A' | 'B' | null;
}

export interface StatedFactsEdge {
  /** `f<fact id>`. */
  readonly id: string;
  readonly from: number;
  readonly to: number;
  /** "to is from's word". */
  readonly word: string;
  readonly d: string;
  /** The label's centre. */
  readonly label: Point;
}

export interface StatedFactsLayout {
  readonly nodes: readonly StatedFactsNode[];
  readonly edges: readonly StatedFactsEdge[];
  /** Everything drawn (nodes with their query marks, and labels), with a margin: the SVG's viewBox. */
  readonly bounds: Bounds;
}

export interface StatedFactsOptions {
  /** The width (layout px) the people must fit in: about the drawing's width on screen, so type stays readable. */
  readonly width: number;
}

/** Starting points tried; the layout with the fewest edges through people and crossings is kept. */
const ATTEMPTS = 8;
const TICKS = 300;
/** Free space kept between two people's boxes. */
const GAP = 18;
/** Room around the drawing. */
const MARGIN = 8;
/** Parallel facts between the same two people bow apart by this much. */
const PARALLEL_BEND = 26;

interface SimNode extends SimulationNodeDatum {
  readonly index: number;
  readonly width: number;
  readonly height: number;
  x: number;
  y: number;
}

interface SimLink extends SimulationLinkDatum<SimNode> {
  readonly word: string;
}

const boxOf = (n: { x: number; y: number; width: number; height: number }, pad = 0): Box => ({
  x: n.x,
  y: n.y,
  width: n.width + 2 * pad,
  height: n.height + 2 * pad,
});

/** Whether segment p–q passes through box b (Liang–Barsky clipping). */
function segmentHitsBox(p: Point, q: Point, b: Box): boolean {
  const dx = q.x - p.x;
  const dy = q.y - p.y;
  let t0 = 0;
  let t1 = 1;
  const edges: [number, number][] = [
    [-dx, p.x - (b.x - b.width / 2)],
    [dx, b.x + b.width / 2 - p.x],
    [-dy, p.y - (b.y - b.height / 2)],
    [dy, b.y + b.height / 2 - p.y],
  ];
  for (const [pp, qq] of edges) {
    if (pp === 0) {
      if (qq < 0) return false;
      continue;
    }
    const r = qq / pp;
    if (pp < 0) t0 = Math.max(t0, r);
    else t1 = Math.min(t1, r);
    if (t0 > t1) return false;
  }
  return true;
}

function segmentsCross(a: Point, b: Point, c: Point, d: Point): boolean {
  const o = (p: Point, q: Point, r: Point) => Math.sign((q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x));
  return o(a, b, c) * o(a, b, d) < 0 && o(c, d, a) * o(c, d, b) < 0;
}

/** Lower is better: facts drawn through a third person weigh most, then crossing facts. */
function score(nodes: readonly SimNode[], facts: StatedFactsPuzzle['facts']): number {
  let s = 0;
  for (const f of facts) {
    const a = nodes[f.from]!;
    const b = nodes[f.to]!;
    for (const n of nodes) {
      if (n.index !== f.from && n.index !== f.to && segmentHitsBox(a, b, boxOf(n, 6))) s += 10;
    }
  }
  for (let i = 0; i < facts.length; i++) {
    for (let j = i + 1; j < facts.length; j++) {
      const f = facts[i]!;
      const g = facts[j]!;
      if (new Set([f.from, f.to, g.from, g.to]).size < 4) continue;
      if (segmentsCross(nodes[f.from]!, nodes[f.to]!, nodes[g.from]!, nodes[g.to]!)) s += 1;
    }
  }
  return s;
}

/** One force layout of the fact graph from seeded random starting points, centred on 0. */
function simulate(puzzle: StatedFactsPuzzle, rng: Rng): SimNode[] {
  const n = puzzle.entities.length;
  const spread = 60 * Math.sqrt(n);
  const nodes: SimNode[] = puzzle.entities.map((e) => ({
    index: e.index,
    width: nodeWidth(e.name),
    height: NODE_HEIGHT,
    x: (rng.next() - 0.5) * 2 * spread,
    y: (rng.next() - 0.5) * 2 * spread,
  }));
  const links: SimLink[] = puzzle.facts.map((f) => ({ source: f.from, target: f.to, word: f.word }));
  const simulation = forceSimulation(nodes)
    .randomSource(() => rng.next())
    .force(
      'link',
      forceLink<SimNode, SimLink>(links)
        .id((d) => d.index)
        // Room for the label between the two boxes.
        .distance((l) => {
          const s = l.source as SimNode;
          const t = l.target as SimNode;
          return (s.width + t.width) / 2 + labelWidth(l.word) + 16;
        })
        .strength(0.6),
    )
    .force('charge', forceManyBody<SimNode>().strength(-420))
    .force(
      'collide',
      forceCollide<SimNode>((d) => d.width / 2 + GAP),
    )
    .force('x', forceX<SimNode>(0).strength(0.05))
    .force('y', forceY<SimNode>(0).strength(0.05))
    .stop();
  simulation.tick(TICKS);
  return nodes;
}

/**
 * Squeezes the positions (not the boxes) into `width` if they are wider, then pushes overlapping
 * boxes apart (vertically, where the width leaves no room sideways) until none overlaps.
 */
function fitWidth(nodes: SimNode[], width: number): void {
  const widest = Math.max(...nodes.map((n) => n.width));
  const usable = Math.max(1, width - widest);
  const xs = nodes.map((n) => n.x);
  const x0 = Math.min(...xs);
  const span = Math.max(...xs) - x0;
  const squeeze = span > usable ? usable / span : 1;
  const offset = (width - span * squeeze) / 2 - x0 * squeeze;
  for (const n of nodes) {
    n.x = n.x * squeeze + offset;
    // Squeezing sideways: stretch up and down a little so the people keep room for labels.
    n.y = n.y * Math.max(1, Math.sqrt(1 / squeeze));
  }
  const clamp = (n: SimNode) => {
    n.x = Math.min(width - n.width / 2, Math.max(n.width / 2, n.x));
  };
  for (let round = 0; round < 400; round++) {
    let moved = false;
    for (let i = 0; i < nodes.length; i++) {
      for (let j = i + 1; j < nodes.length; j++) {
        const a = nodes[i]!;
        const b = nodes[j]!;
        const ox = (a.width + b.width) / 2 + GAP - Math.abs(a.x - b.x);
        const oy = (a.height + b.height) / 2 + GAP - Math.abs(a.y - b.y);
        if (ox <= 0 || oy <= 0) continue;
        moved = true;
        // Apart along the shallower overlap; ties (same point) go by index so the result is fixed.
        if (oy <= ox || width - Math.max(a.width, b.width) < 4) {
          const dir = a.y < b.y || (a.y === b.y && i < j) ? -1 : 1;
          a.y += (dir * oy) / 2 + dir * 0.5;
          b.y -= (dir * oy) / 2 + dir * 0.5;
        } else {
          const dir = a.x < b.x || (a.x === b.x && i < j) ? -1 : 1;
          a.x += (dir * ox) / 2 + dir * 0.5;
          b.x -= (dir * ox) / 2 + dir * 0.5;
          clamp(a);
          clamp(b);
        }
      }
    }
    if (!moved) return;
  }
}

/**
 * The study drawing of a puzzle: its people and its stated facts, laid out from the fact graph
 * alone (seeded by the puzzle's seed, the same on every reload), people kept `width` wide and
 * apart, labels placed clear of people and of each other, the question's two people marked.
 */
export function layoutStatedFacts(puzzle: StatedFactsPuzzle, opts: StatedFactsOptions): StatedFactsLayout {
  const rng = createRng(puzzle.seed, 'stated-facts-layout');
  let best: SimNode[] | null = null;
  let bestScore = Infinity;
  for (let attempt = 0; attempt < ATTEMPTS && bestScore > 0; attempt++) {
    const nodes = simulate(puzzle, rng);
    fitWidth(nodes, opts.width);
    const s = score(nodes, puzzle.facts);
    if (s < bestScore) {
      best = nodes;
      bestScore = s;
    }
  }
  const placed = best!;
  const query = (i: number): 'A' | 'B' | null => (i === puzzle.query[0] ? 'A' : i === puzzle.query[1] ? 'B' : null);
  const nodes: StatedFactsNode[] = puzzle.entities.map((e) => {
    const p = placed[e.index]!;
    return { entity: e.index, name: e.name, query: query(e.index), x: p.x, y: p.y, width: p.width, height: p.height };
  });

  // Facts between the same two people (either direction) bow apart; a single fact is a straight line.
  const pairTotal = new Map<string, number>();
  const pairKeyOf = (a: number, b: number) => (a < b ? `${a},${b}` : `${b},${a}`);
  for (const f of puzzle.facts)
    pairTotal.set(pairKeyOf(f.from, f.to), (pairTotal.get(pairKeyOf(f.from, f.to)) ?? 0) + 1);
  const pairSeen = new Map<string, number>();
  const routed = puzzle.facts.map((f) => {
    const a = nodes[f.from]!;
    const b = nodes[f.to]!;
    const key = pairKeyOf(f.from, f.to);
    const nth = pairSeen.get(key) ?? 0;
    pairSeen.set(key, nth + 1);
    const total = pairTotal.get(key)!;
    // Bends measured on the pair's own direction (low index to high), so both directions agree.
    const [lo, hi] = f.from < f.to ? [a, b] : [b, a];
    const len = Math.hypot(hi.x - lo.x, hi.y - lo.y) || 1;
    const normal = { x: -(hi.y - lo.y) / len, y: (hi.x - lo.x) / len };
    // The control point is the midpoint moved along the pair's normal: the same for both directions.
    const offset = (nth - (total - 1) / 2) * PARALLEL_BEND * 2;
    return { fact: f, geometry: curvedEdge(a, b, offset, normal) };
  });
  const labels = placeLabels(
    routed.map((r) => ({ text: r.fact.word, at: r.geometry.at })),
    nodes.map((n) => nodeBox(n)),
  );
  const edges: StatedFactsEdge[] = routed.map((r, i) => ({
    id: `f${r.fact.id}`,
    from: r.fact.from,
    to: r.fact.to,
    word: r.fact.word,
    d: r.geometry.d,
    label: labels[i]!,
  }));
  const bounds = boundsOf([...nodes.map((n) => nodeBox(n)), ...edges.map((e) => labelBox(e.label, e.word))], MARGIN);
  return { nodes, edges, bounds };
}
