import { type Bounds, type Box, boundsOf } from './geometry';
import { labelBox, nodeBox } from './sizes';
import type { EdgeKind } from './types';

/** Everything drawn: every person's box (the hidden family's too, when shown) and every fact's label. */
export function drawnBounds(
  nodes: readonly (Box & { readonly query?: 'A' | 'B' | null })[],
  edges: readonly { readonly kind: EdgeKind; readonly word: string; readonly label: { x: number; y: number } }[],
): Bounds {
  const boxes: Box[] = nodes.map((n) => nodeBox(n));
  for (const e of edges) if (e.kind !== 'background') boxes.push(labelBox(e.label, e.word));
  return boundsOf(boxes, 8);
}

/**
 * One scale (screen px per layout unit) for several still drawings printed together: the largest
 * at which every drawing fits `width` × `height`, never above 1, and never below `minScale` (the
 * names' floor; a drawing wider than the page at that scale is then the one that overflows).
 */
export function sharedScale(
  drawings: readonly Bounds[],
  box: { readonly width: number; readonly height: number },
  minScale: number,
): number {
  let scale = 1;
  for (const b of drawings) {
    scale = Math.min(scale, box.width / Math.max(1, b.x1 - b.x0), box.height / Math.max(1, b.y1 - b.y0));
  }
  return Math.max(minScale, scale);
}
