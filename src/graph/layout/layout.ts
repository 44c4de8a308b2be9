import { path, scaleLinear } from 'd3';
import { closeFamily, type KinGraph } from '../../core/family/closure';
import { type Gender, type Predicate, predicateOf, wordFor } from '../../core/kinship/relations';
import type { FactKind, Puzzle } from '../../core/puzzle/puzzle';
import { familyTreeSlots } from './familyTree';
import {
  type Bounds,
  boundsOf,
  type Box,
  curvedEdge,
  LABEL_HEIGHT,
  labelWidth,
  placeLabels,
  type Point,
} from './geometry';

/** The widest node (nine letters, the longest names of the pool, fit). */
export const NODE_WIDTH = 96;
export const NODE_HEIGHT = 34;
/** Vertical distance between generations. */
export const ROW_HEIGHT = 140;
/**
 * Free space between two neighbours in a row (room for a relation label), and between spouses,
 * who always stand exactly this far apart.
 */
export const MIN_SPACE = 62;
export const SPOUSE_SPACE = 58;
/** Free space between row neighbours that no fact joins (no label to make room for). */
export const TIGHT_SPACE = 22;
/** One slot of the whole-family tree (columns holding none of the story's people shrink). */
export const FAMILY_SLOT = NODE_WIDTH + 18;
/** Share of a slot kept by columns away from the story's people. */
const FAMILY_SLOT_SHRUNK = 0.66;
/** The family's other people are drawn smaller (11px type). */
export const HIDDEN_NODE_HEIGHT = 24;
export function hiddenNodeWidth(name: string): number {
  return Math.min(72, Math.max(40, Math.round(6.3 * name.length + 14)));
}

/**
 * Maps tree slots to pixels: full FAMILY_SLOT width within half a slot of a story person's
 * column, FAMILY_SLOT_SHRUNK of it elsewhere, so the story's people keep room for their labels
 * while the rest of the family packs tighter. Monotone, so no two people change order.
 */
function compressColumns(storySlots: readonly number[]): (slot: number) => number {
  const dense = [...storySlots].sort((a, b) => a - b).map((s) => [s - 0.5, s + 0.5] as const);
  // Merge overlapping dense intervals.
  const merged: [number, number][] = [];
  for (const [a, b] of dense) {
    const last = merged[merged.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else merged.push([a, b]);
  }
  const denseBefore = (x: number) => merged.reduce((sum, [a, b]) => sum + Math.max(0, Math.min(x, b) - a), 0);
  return (x) => {
    const d = denseBefore(x);
    return (d + (x - d) * FAMILY_SLOT_SHRUNK) * FAMILY_SLOT;
  };
}

/** A node just wide enough for its name (14px semibold), within [56, NODE_WIDTH]. */
export function nodeWidth(name: string): number {
  return Math.min(NODE_WIDTH, Math.max(56, Math.round(7.9 * name.length + 24)));
}
/** One column of the compact story layout (less than MIN_GAP: rows may interleave). */
const STORY_COLUMN = 72;

/** The kinds an edge can be drawn as: the fact kinds of the contract plus the hidden family. */
export type EdgeKind = 'path' | 'supporting' | 'irrelevant' | 'disconnected' | 'background';

/** A fact's drawn kind. The memory fact joins two path people, as supporting facts do. */
export function edgeKindOf(kind: FactKind): EdgeKind {
  return kind === 'memory' ? 'supporting' : kind;
}

export interface LayoutNode extends Box {
  /** `e<entity index>` for story people, `p<person id>` for the rest of the family. */
  readonly id: string;
  readonly entity: number | null;
  readonly person: number | null;
  readonly name: string;
  readonly gender: Gender;
  readonly generation: number;
  readonly hidden: boolean;
  /** 'A' for the first query person, 'B' for the second. */
  readonly query: 'A' | 'B' | null;
}

export interface LayoutEdge {
  readonly id: string;
  /** The story fact drawn, or null for hidden-family edges. */
  readonly factId: number | null;
  readonly kind: EdgeKind;
  /** The fact's own kind (memory included); null for hidden-family edges. */
  readonly factKind: FactKind | null;
  readonly source: string;
  readonly target: string;
  /** "target is source's word". */
  readonly word: string;
  readonly d: string;
  readonly label: Point;
  /** Hidden-family edges are parent–child, spouse or derived (the closure among story people). */
  readonly relation: 'fact' | 'parent' | 'spouse' | 'derived';
}

/** A link between two story people that the story gives no relation for. */
export interface LayoutLink {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  readonly d: string;
}

export interface GraphLayout {
  readonly nodes: readonly LayoutNode[];
  readonly edges: readonly LayoutEdge[];
  readonly links: readonly LayoutLink[];
  /** Everything drawn. */
  readonly bounds: Bounds;
  /** The story's people only: what a view fits to (the hidden family may run off the edges). */
  readonly storyBounds: Bounds;
  /** True when the puzzle's family describes its people (puzzles imported from files may not). */
  readonly familyKnown: boolean;
}

export interface LayoutOptions {
  /** Lays the whole family out and adds its people and edges (the closure) behind the story. */
  readonly showHidden?: boolean;
  /** The family's closure, when the caller has it (computed here otherwise). */
  readonly closure?: KinGraph | null;
  /** Links without a relation (imported rows' untyped story edges), as [from, to] entities. */
  readonly untyped?: readonly (readonly [number, number])[];
}

/** Generation difference (to − from) that each predicate implies. */
const GENERATION_STEP: Record<Predicate, number> = {
  child: 1,
  'inv-child': -1,
  SO: 0,
  sibling: 0,
  grand: 2,
  'inv-grand': -2,
  'in-law': 1,
  'inv-in-law': -1,
  un: 1,
  'inv-un': -1,
};

/**
 * Whether `puzzle.family` is the family behind the story: it holds the story's people and its
 * closure relates every fact's two people by the fact's predicate. Puzzles imported from files
 * carry a stand-in family (everyone in one generation, unrelated), which fails this test.
 */
export function familyDescribes(puzzle: Puzzle, closure: KinGraph | null = null): boolean {
  const people = puzzle.family?.people ?? [];
  if (people.length === 0) return false;
  if (!puzzle.entities.every((e) => people[e.person]?.name === e.name && people[e.person]?.gender === e.gender))
    return false;
  const g = closure ?? closeFamily(puzzle.family);
  const person = (i: number) => puzzle.entities[i]!.person;
  return puzzle.facts.every((f) => {
    const code = g.rel[person(f.from) * g.n + person(f.to)] ?? 0;
    return code !== 0 && predicateOf(code) === f.predicate;
  });
}

interface Placed {
  readonly generation: number;
  /** Horizontal order key (family slot or fallback column). */
  readonly order: number;
  readonly spouseOf: number | null;
}

/** Generations and order from the family tree. */
function placeFromFamily(puzzle: Puzzle, slots: Map<number, number>): Placed[] {
  const people = puzzle.family.people;
  const byPerson = new Map(puzzle.entities.map((e) => [e.person as number, e.index]));
  return puzzle.entities.map((e) => {
    const p = people[e.person]!;
    const spouse = p.spouse !== null ? byPerson.get(p.spouse) : undefined;
    return { generation: p.generation, order: slots.get(e.person) ?? 0, spouseOf: spouse ?? null };
  });
}

/**
 * Generations and order from the facts alone: a walk over each connected group of people,
 * stepping generations by each predicate, then the groups side by side.
 */
function placeFromFacts(puzzle: Puzzle): Placed[] {
  const n = puzzle.entities.length;
  const adj: { to: number; step: number; spouse: boolean }[][] = Array.from({ length: n }, () => []);
  for (const f of puzzle.facts) {
    const step = GENERATION_STEP[f.predicate];
    adj[f.from]?.push({ to: f.to, step, spouse: f.predicate === 'SO' });
    adj[f.to]?.push({ to: f.from, step: -step, spouse: f.predicate === 'SO' });
  }
  const gen = new Array<number | null>(n).fill(null);
  const visit = new Array<number>(n).fill(0);
  const spouseOf = new Array<number | null>(n).fill(null);
  const order = new Array<number>(n).fill(0);
  let offset = 0;
  let stamp = 0;
  for (let s = 0; s < n; s++) {
    if (gen[s] !== null) continue;
    const group: number[] = [s];
    gen[s] = 0;
    visit[s] = stamp++;
    for (let q = 0; q < group.length; q++) {
      const v = group[q]!;
      for (const e of adj[v]!) {
        if (e.spouse) spouseOf[v] = e.to;
        if (gen[e.to] !== null) continue;
        gen[e.to] = gen[v]! + e.step;
        visit[e.to] = stamp++;
        group.push(e.to);
      }
    }
    const low = Math.min(...group.map((v) => gen[v]!));
    const rows = new Map<number, number[]>();
    for (const v of group) {
      gen[v] = gen[v]! - low;
      const row = rows.get(gen[v]!) ?? [];
      row.push(v);
      rows.set(gen[v]!, row);
    }
    let width = 0;
    for (const row of rows.values()) {
      row.sort((a, b) => visit[a]! - visit[b]!);
      // Spouses next to each other.
      const arranged: number[] = [];
      for (const v of row) {
        if (arranged.includes(v)) continue;
        arranged.push(v);
        const sp = spouseOf[v];
        if (sp !== null && sp !== undefined && gen[sp] === gen[v] && !arranged.includes(sp)) arranged.push(sp);
      }
      arranged.forEach((v, i) => (order[v] = offset + i * 2));
      width = Math.max(width, arranged.length * 2);
    }
    offset += width + 1;
  }
  return puzzle.entities.map((_, i) => ({ generation: gen[i] ?? 0, order: order[i]!, spouseOf: spouseOf[i] ?? null }));
}

/**
 * Compact positions: rows by generation; columns follow the order keys (so relatives stay
 * roughly above each other); within a row, neighbours joined by a fact are at least MIN_SPACE
 * apart (room for its label), others TIGHT_SPACE, and spouses exactly SPOUSE_SPACE, side by side.
 */
function compactPositions(
  placed: readonly Placed[],
  widths: readonly number[],
  linked: (a: number, b: number) => boolean,
): Point[] {
  const columns = [...new Set(placed.map((p) => p.order))].sort((a, b) => a - b);
  const rank = new Map(columns.map((c, i) => [c, i]));
  const gens = placed.map((p) => p.generation);
  const y = scaleLinear()
    .domain([Math.min(...gens), Math.min(...gens) + 1])
    .range([0, ROW_HEIGHT]);
  const xs = placed.map((p) => rank.get(p.order)! * STORY_COLUMN);
  const rows = new Map<number, number[]>();
  placed.forEach((p, i) => rows.set(p.generation, [...(rows.get(p.generation) ?? []), i]));
  for (const row of rows.values()) {
    row.sort((a, b) => placed[a]!.order - placed[b]!.order);
    for (let j = 1; j < row.length; j++) {
      const prev = row[j - 1]!;
      const cur = row[j]!;
      const half = (widths[prev]! + widths[cur]!) / 2;
      const spouses = placed[cur]!.spouseOf === prev;
      const space = linked(prev, cur) ? MIN_SPACE : TIGHT_SPACE;
      xs[cur] = spouses ? xs[prev]! + half + SPOUSE_SPACE : Math.max(xs[cur]!, xs[prev]! + half + space);
    }
  }
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  return placed.map((p, i) => ({ x: xs[i]! - (x0 + x1) / 2, y: y(p.generation) }));
}

/**
 * Lays a puzzle out as a family: generations top to bottom, spouses side by side. Without
 * `hidden`, only the story's people, packed; with it, the whole family at its tree slots and
 * the hidden edges (parent–child, spouses, and every relation the closure knows among the
 * story's people that the story does not state). Pure: same puzzle, same layout.
 */
export function layoutPuzzle(puzzle: Puzzle, opts: LayoutOptions = {}): GraphLayout {
  const closure = opts.closure ?? (puzzle.family?.people.length ? closeFamily(puzzle.family) : null);
  const familyKnown = closure !== null && familyDescribes(puzzle, closure);
  const slots = familyKnown ? familyTreeSlots(puzzle.family) : new Map<number, number>();
  const placed = familyKnown ? placeFromFamily(puzzle, slots) : placeFromFacts(puzzle);
  const hidden = familyKnown && opts.showHidden && closure ? { closure } : null;

  const nodes: LayoutNode[] = [];
  const storyIds = new Map<number, string>();
  const query = (i: number): 'A' | 'B' | null => (i === puzzle.query[0] ? 'A' : i === puzzle.query[1] ? 'B' : null);

  if (hidden) {
    const family = puzzle.family;
    const entityOf = new Map(puzzle.entities.map((e) => [e.person as number, e.index]));
    const minGen = Math.min(...family.people.map((p) => p.generation));
    const storySlots = puzzle.entities.map((e) => slots.get(e.person)!);
    const toX = compressColumns(storySlots);
    const xs = [...slots.values()].map(toX);
    const mid = (Math.min(...xs) + Math.max(...xs)) / 2;
    for (const p of family.people) {
      const ent = entityOf.get(p.id);
      const id = ent !== undefined ? `e${ent}` : `p${p.id}`;
      if (ent !== undefined) storyIds.set(ent, id);
      nodes.push({
        id,
        entity: ent ?? null,
        person: p.id,
        name: p.name,
        gender: p.gender,
        generation: p.generation,
        hidden: ent === undefined,
        query: ent !== undefined ? query(ent) : null,
        x: toX(slots.get(p.id)!) - mid,
        y: (p.generation - minGen) * ROW_HEIGHT,
        width: ent !== undefined ? nodeWidth(p.name) : hiddenNodeWidth(p.name),
        height: ent !== undefined ? NODE_HEIGHT : HIDDEN_NODE_HEIGHT,
      });
    }
  } else {
    const widths = puzzle.entities.map((e) => nodeWidth(e.name));
    const pairs = new Set(puzzle.facts.flatMap((f) => [`${f.from},${f.to}`, `${f.to},${f.from}`]));
    const pos = compactPositions(placed, widths, (a, b) => pairs.has(`${a},${b}`));
    for (const e of puzzle.entities) {
      const id = `e${e.index}`;
      storyIds.set(e.index, id);
      nodes.push({
        id,
        entity: e.index,
        person: familyKnown ? e.person : null,
        name: e.name,
        gender: e.gender,
        generation: placed[e.index]!.generation,
        hidden: false,
        query: query(e.index),
        x: pos[e.index]!.x,
        y: pos[e.index]!.y,
        width: widths[e.index]!,
        height: NODE_HEIGHT,
      });
    }
  }

  const byId = new Map(nodes.map((n) => [n.id, n]));
  const edges: LayoutEdge[] = [];
  const curves: ((t: number) => Point)[] = [];
  const pairCount = new Map<string, number>();
  const pairKey = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);
  const route = (a: LayoutNode, b: LayoutNode, extraBend = 0) => {
    const k = pairKey(a.id, b.id);
    const nth = pairCount.get(k) ?? 0;
    pairCount.set(k, nth + 1);
    const parallel = nth === 0 ? 0 : (nth % 2 === 1 ? 1 : -1) * Math.ceil(nth / 2) * 26;
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len = Math.hypot(dx, dy) || 1;
    if (Math.abs(dy) < 1) {
      // Same row: arc over anyone standing between; neighbours get a straight line.
      const neighbours = Math.abs(dx) <= (a.width + b.width) / 2 + MIN_SPACE * 1.5;
      const over = neighbours ? 0 : Math.min(0.28 * Math.abs(dx), 110);
      return curvedEdge(a, b, over + parallel + extraBend, { x: 0, y: -1 });
    }
    // Across rows: a slight bow, always to the same side of the line's direction.
    const normal = { x: -dy / len, y: dx / len };
    const sign = normal.x >= 0 ? 1 : -1;
    const bow = Math.abs(dy) > ROW_HEIGHT * 1.5 ? 0.18 * len : 0.08 * len;
    return curvedEdge(a, b, sign * (bow + parallel + extraBend), normal);
  };

  if (hidden) {
    // Background first, so that story facts are drawn over it: the family tree (a line between
    // spouses, a connector from each couple down to each child) and, among the story's people,
    // every relation the closure knows that the story does not state.
    const family = puzzle.family;
    const { closure } = hidden;
    const stated = new Set(puzzle.facts.map((f) => pairKey(storyIds.get(f.from)!, storyIds.get(f.to)!)));
    const personNode = new Map(nodes.map((n) => [n.person!, n]));
    const relWord = (a: LayoutNode, b: LayoutNode) => {
      const code = closure.rel[a.person! * closure.n + b.person!] ?? 0;
      return code ? wordFor(predicateOf(code), b.gender) : '';
    };
    const background = (a: LayoutNode, b: LayoutNode, relation: LayoutEdge['relation'], d: string) => {
      edges.push({
        id: `b${edges.length}`,
        factId: null,
        kind: 'background',
        factKind: null,
        source: a.id,
        target: b.id,
        word: relWord(a, b),
        relation,
        d,
        label: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 },
      });
      curves.push(() => ({ x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }));
    };
    const treePairs = new Set<string>();
    for (const p of family.people) {
      const me = personNode.get(p.id)!;
      if (p.spouse !== null && p.id < p.spouse) {
        const sp = personNode.get(p.spouse)!;
        treePairs.add(pairKey(me.id, sp.id));
        if (!stated.has(pairKey(me.id, sp.id))) background(me, sp, 'spouse', curvedEdge(me, sp, 0, { x: 0, y: -1 }).d);
      }
      if (p.parents) {
        const [father, mother] = p.parents.map((q) => personNode.get(q)!) as [LayoutNode, LayoutNode];
        treePairs.add(pairKey(father.id, me.id));
        treePairs.add(pairKey(mother.id, me.id));
        const born = family.people[father.person!]!.parents ? father : mother;
        const top = father.y;
        const drop = (top + me.y) / 2;
        const d = path();
        d.moveTo((father.x + mother.x) / 2, top);
        d.lineTo((father.x + mother.x) / 2, drop);
        d.lineTo(me.x, drop);
        d.lineTo(me.x, me.y - me.height / 2);
        background(born, me, 'parent', d.toString());
      }
    }
    const story = puzzle.entities;
    for (let i = 0; i < story.length; i++) {
      for (let j = i + 1; j < story.length; j++) {
        const a = byId.get(storyIds.get(i)!)!;
        const b = byId.get(storyIds.get(j)!)!;
        const k = pairKey(a.id, b.id);
        if (stated.has(k) || treePairs.has(k) || !relWord(a, b)) continue;
        background(a, b, 'derived', curvedEdge(a, b, 0, { x: 0, y: -1 }).d);
      }
    }
  }

  for (const f of puzzle.facts) {
    const a = byId.get(storyIds.get(f.from)!)!;
    const b = byId.get(storyIds.get(f.to)!)!;
    edges.push({
      id: `f${f.id}`,
      factId: f.id,
      kind: edgeKindOf(f.kind),
      factKind: f.kind,
      source: a.id,
      target: b.id,
      word: f.word,
      relation: 'fact',
      ...geometryOf(route(a, b, f.kind === 'memory' ? 30 : 0), curves),
    });
  }

  // Fact labels, path first, kept off the nodes and off each other.
  const facts = edges.map((e, i) => ({ e, i })).filter(({ e }) => e.factId !== null);
  facts.sort((x, y) => (x.e.kind === 'path' ? 0 : 1) - (y.e.kind === 'path' ? 0 : 1) || x.i - y.i);
  const spots = placeLabels(
    facts.map(({ e, i }) => ({ text: e.word, at: curves[i]! })),
    nodes.filter((n) => !n.hidden),
  );
  facts.forEach(({ i }, j) => (edges[i] = { ...edges[i]!, label: spots[j]! }));

  const links: LayoutLink[] = [];
  for (const [from, to] of opts.untyped ?? []) {
    const a = byId.get(storyIds.get(from) ?? '');
    const b = byId.get(storyIds.get(to) ?? '');
    if (a && b) links.push({ id: `u${links.length}`, source: a.id, target: b.id, d: route(a, b).d });
  }

  return {
    nodes,
    edges,
    links,
    bounds: boundsOf(nodes, 40),
    storyBounds: boundsOf(
      nodes.filter((n) => !n.hidden),
      40,
    ),
    familyKnown,
  };
}

function geometryOf(g: ReturnType<typeof curvedEdge>, curves: ((t: number) => Point)[]) {
  curves.push(g.at);
  return { d: g.d, label: g.label };
}

/** The derived edge a proof step concludes (drawn while the step is lit), its label kept clear. */
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
    ...layout.nodes.filter((n) => !n.hidden),
    ...layout.edges
      .filter((e) => e.factId !== null)
      .map((e) => ({ ...e.label, width: labelWidth(e.word), height: LABEL_HEIGHT })),
  ];
  const [label] = placeLabels([{ text: word, at: g.at, scale: 14 / 12.5 }], obstacles);
  return { d: g.d, label: label! };
}
