import { path } from 'd3';
import { type KinGraph, relationOf } from '../../core/family/closure';
import { predicateOf, wordFor } from '../../core/kinship/relations';
import type { Puzzle } from '../../core/puzzle/puzzle';
import { curvedEdge } from './geometry';
import { queryMark } from './placement';
import { createRouter, pairKey } from './routing';
import { HIDDEN_NODE_HEIGHT, hiddenNodeWidth, NODE_HEIGHT, NODE_WIDTH, nodeWidth, ROW_HEIGHT } from './sizes';
import type { LayoutEdge, LayoutNode } from './types';

/** One slot of the whole-family tree (columns holding none of the story's people shrink). */
const FAMILY_SLOT = NODE_WIDTH + 18;
/** Share of a slot kept by columns away from the story's people. */
const FAMILY_SLOT_SHRUNK = 0.66;

/**
 * Maps tree slots to pixels: full FAMILY_SLOT width within half a slot of a story person's
 * column, FAMILY_SLOT_SHRUNK of it elsewhere, so the story's people keep room for their labels
 * while the rest of the family packs tighter. Monotone, so no two people change order.
 */
function compressColumns(storySlots: readonly number[]): (slot: number) => number {
  const dense = [...storySlots].sort((a, b) => a - b).map((s) => [s - 0.5, s + 0.5] as const);
  // Overlapping dense intervals would count their shared part twice.
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

/**
 * The whole family at its tree slots, in family order: story people as full nodes (id
 * `e<entity>`), everyone else as small hidden nodes (id `p<person>`). The story's people stand
 * here too, since they share the tree's coordinates with their hidden relatives.
 */
export function placeFamily(puzzle: Puzzle, slots: ReadonlyMap<number, number>): LayoutNode[] {
  const family = puzzle.family;
  const entityOf = new Map(puzzle.entities.map((e) => [e.person as number, e.index]));
  const minGen = Math.min(...family.people.map((p) => p.generation));
  const toX = compressColumns(puzzle.entities.map((e) => slots.get(e.person)!));
  const xs = [...slots.values()].map(toX);
  const mid = (Math.min(...xs) + Math.max(...xs)) / 2;
  return family.people.map((p) => {
    const ent = entityOf.get(p.id);
    return {
      id: ent !== undefined ? `e${ent}` : `p${p.id}`,
      entity: ent ?? null,
      person: p.id,
      name: p.name,
      gender: p.gender,
      generation: p.generation,
      hidden: ent === undefined,
      query: ent !== undefined ? queryMark(puzzle, ent) : null,
      x: toX(slots.get(p.id)!) - mid,
      y: (p.generation - minGen) * ROW_HEIGHT,
      width: ent !== undefined ? nodeWidth(p.name) : hiddenNodeWidth(p.name),
      height: ent !== undefined ? NODE_HEIGHT : HIDDEN_NODE_HEIGHT,
    };
  });
}

/**
 * The hidden family's edges, drawn behind the story: the family tree (a line between spouses, a
 * connector from each couple down to each child) and, among the story's people, every relation
 * the closure knows that the story does not state. `nodes` are placeFamily's, one per person.
 * Background edges carry no label (their word is for the tooltip), so their label point is
 * simply the midpoint. Derived edges are routed by `route` (around the boxes of the people between).
 */
export function backgroundEdges(
  puzzle: Puzzle,
  nodes: readonly LayoutNode[],
  closure: KinGraph,
  route: ReturnType<typeof createRouter> = createRouter(nodes),
): LayoutEdge[] {
  const family = puzzle.family;
  const edges: LayoutEdge[] = [];
  const personNode = new Map(nodes.map((n) => [n.person!, n]));
  const storyNode = (entity: number) => personNode.get(puzzle.entities[entity]!.person)!;
  const stated = new Set(puzzle.facts.map((f) => pairKey(storyNode(f.from).id, storyNode(f.to).id)));
  const relWord = (a: LayoutNode, b: LayoutNode) => {
    const code = relationOf(closure, a.person!, b.person!);
    return code ? wordFor(predicateOf(code), b.gender) : '';
  };
  const background = (a: LayoutNode, b: LayoutNode, relation: LayoutEdge['relation'], d: string) =>
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
      // The connector belongs to the parent born in the family (its tooltip names that relation).
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
  for (let i = 0; i < puzzle.entities.length; i++) {
    for (let j = i + 1; j < puzzle.entities.length; j++) {
      const a = storyNode(i);
      const b = storyNode(j);
      const k = pairKey(a.id, b.id);
      if (stated.has(k) || treePairs.has(k) || !relWord(a, b)) continue;
      background(a, b, 'derived', route(a, b).d);
    }
  }
  return edges;
}
