import type { Box, Point } from './geometry';

/**
 * The sizes everything is drawn at. Placement, routing and the renderer all read them from here,
 * so the boxes the layout keeps apart are the boxes the SVG draws.
 */

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
/** The family's other people are drawn smaller (11px type). */
export const HIDDEN_NODE_HEIGHT = 24;

/** The dashed ring around the question's two people stands this far outside their shape. */
export const QUERY_RING_GAP = 5;
/** The A/B badge is a circle of this radius centred on the shape's top-left corner. */
export const BADGE_RADIUS = 10;

/** A node just wide enough for its name (14px semibold), within [56, NODE_WIDTH]. */
export function nodeWidth(name: string): number {
  return Math.min(NODE_WIDTH, Math.max(56, Math.round(7.9 * name.length + 24)));
}

/** A hidden-family node just wide enough for its name (11px type), within [40, 72]. */
export function hiddenNodeWidth(name: string): number {
  return Math.min(72, Math.max(40, Math.round(6.3 * name.length + 14)));
}

/** Rough width of an edge label in pixels (12.5px semibold system font, plus its halo). */
export const labelWidth = (text: string): number => 7.4 * text.length + 10;
export const LABEL_HEIGHT = 18;

/**
 * Everything a node draws: its shape, and for the question's people the ring and the badge that
 * pokes out of the top-left corner. One box (a little generous at the other corners) keeps label
 * placement and its test simple.
 */
export function nodeBox(node: Box & { readonly query?: 'A' | 'B' | null }): Box {
  if (!node.query) return { x: node.x, y: node.y, width: node.width, height: node.height };
  const left = node.x - node.width / 2 - Math.max(QUERY_RING_GAP, BADGE_RADIUS);
  const right = node.x + node.width / 2 + QUERY_RING_GAP;
  const top = node.y - node.height / 2 - Math.max(QUERY_RING_GAP, BADGE_RADIUS);
  const bottom = node.y + node.height / 2 + QUERY_RING_GAP;
  return { x: (left + right) / 2, y: (top + bottom) / 2, width: right - left, height: bottom - top };
}

/** The box an edge label centred at `at` covers; `scale` for labels set in larger type. */
export function labelBox(at: Point, text: string, scale = 1): Box {
  return { x: at.x, y: at.y, width: labelWidth(text) * scale, height: LABEL_HEIGHT * scale };
}
