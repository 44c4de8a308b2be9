import type { KinGraph } from '../../core/family/closure';
import type { Gender } from '../../core/kinship/relations';
import type { ImportedPuzzle } from '../../core/formats/toPuzzle';
import type { FactKind, Puzzle } from '../../core/puzzle/puzzle';
import type { Bounds, Box, Point } from './geometry';

/** The kinds an edge can be drawn as: the fact kinds of the contract plus the hidden family. */
export type EdgeKind = 'path' | 'supporting' | 'irrelevant' | 'disconnected' | 'background';

/** A fact's drawn kind. The memory fact joins two path people, as supporting facts do. */
export function edgeKindOf(kind: FactKind): EdgeKind {
  return kind === 'memory' ? 'supporting' : kind;
}

/**
 * What the layout draws: a puzzle, which may be one read back from a file and so carry story
 * edges without a relation (drawn as bare links).
 */
export type DrawnPuzzle = Puzzle & { readonly untypedEdges?: ImportedPuzzle['untypedEdges'] };

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
  /** The family's closure, when the caller has it (else the one cached for the family object). */
  readonly closure?: KinGraph | null;
  /** Links without a relation, as [from, to] entities; the puzzle's own `untypedEdges` by default. */
  readonly untyped?: readonly (readonly [number, number])[];
}
