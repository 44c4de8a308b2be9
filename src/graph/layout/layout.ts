import { familyClosure, familyDescribes } from './familyClosure';
import { familyTreeSlots } from './familyTree';
import { backgroundEdges, placeFamily } from './background';
import { boundsOf } from './geometry';
import { placeStory } from './placement';
import { createRouter, factEdges, untypedLinks } from './routing';
import type { DrawnPuzzle, GraphLayout, LayoutNode, LayoutOptions } from './types';

/**
 * Lays a puzzle out as a family: generations top to bottom, spouses side by side. Without
 * `showHidden`, only the story's people, packed (placement); with it, the whole family at its
 * tree slots and the hidden edges: parent–child, spouses, and every relation the closure knows
 * among the story's people that the story does not state (background). Fact edges and their
 * labels are routed last, over either (routing). Pure: same puzzle, same layout.
 */
export function layoutPuzzle(puzzle: DrawnPuzzle, opts: LayoutOptions = {}): GraphLayout {
  const closure = opts.closure ?? familyClosure(puzzle.family);
  const familyKnown = closure !== null && familyDescribes(puzzle, closure);
  const slots = familyKnown ? familyTreeSlots(puzzle.family) : new Map<number, number>();
  const hidden = familyKnown && opts.showHidden === true;

  const nodes = hidden ? placeFamily(puzzle, slots) : placeStory(puzzle, familyKnown, slots);
  const byEntity = new Map<number, LayoutNode>();
  for (const n of nodes) if (n.entity !== null) byEntity.set(n.entity, n);
  const nodeOf = (entity: number) => byEntity.get(entity)!;

  // Background first, so that story facts are drawn over it.
  const route = createRouter(nodes);
  const edges = [
    ...(hidden && closure ? backgroundEdges(puzzle, nodes, closure, route) : []),
    ...factEdges(puzzle, nodes, nodeOf, route),
  ];
  const links = untypedLinks(opts.untyped ?? puzzle.untypedEdges ?? [], (e) => byEntity.get(e), route);

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
