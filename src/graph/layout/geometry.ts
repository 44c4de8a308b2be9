import { path } from 'd3';

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface Bounds {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

/** Where the ray from a box's centre towards `toward` leaves the box (plus a small gap). */
export function exitPoint(box: Box, toward: Point, gap = 3): Point {
  const dx = toward.x - box.x;
  const dy = toward.y - box.y;
  if (dx === 0 && dy === 0) return { x: box.x, y: box.y };
  const hw = box.width / 2 + gap;
  const hh = box.height / 2 + gap;
  const t = Math.min(dx === 0 ? Infinity : hw / Math.abs(dx), dy === 0 ? Infinity : hh / Math.abs(dy));
  return { x: box.x + dx * t, y: box.y + dy * t };
}

export interface EdgeGeometry {
  readonly d: string;
  readonly label: Point;
  readonly start: Point;
  readonly end: Point;
  /** The point at parameter t ∈ [0, 1] along the curve. */
  readonly at: (t: number) => Point;
}

/**
 * A quadratic curve from box a to box b whose control point sits `bend` pixels off the
 * midpoint, along `normal` (a unit vector); ends are trimmed to the boxes' borders.
 */
export function curvedEdge(a: Box, b: Box, bend: number, normal: Point): EdgeGeometry {
  const c = { x: (a.x + b.x) / 2 + normal.x * bend, y: (a.y + b.y) / 2 + normal.y * bend };
  const start = exitPoint(a, bend === 0 ? b : c);
  const end = exitPoint(b, bend === 0 ? a : c);
  const p = path();
  p.moveTo(start.x, start.y);
  if (bend === 0) p.lineTo(end.x, end.y);
  else p.quadraticCurveTo(c.x, c.y, end.x, end.y);
  const ctrl = bend === 0 ? { x: (start.x + end.x) / 2, y: (start.y + end.y) / 2 } : c;
  const at = (t: number): Point => {
    const u = 1 - t;
    return {
      x: u * u * start.x + 2 * u * t * ctrl.x + t * t * end.x,
      y: u * u * start.y + 2 * u * t * ctrl.y + t * t * end.y,
    };
  };
  return { d: p.toString(), label: at(0.5), start, end, at };
}

export function boundsOf(boxes: readonly Box[], margin = 0): Bounds {
  if (boxes.length === 0) return { x0: 0, y0: 0, x1: 0, y1: 0 };
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const b of boxes) {
    x0 = Math.min(x0, b.x - b.width / 2);
    x1 = Math.max(x1, b.x + b.width / 2);
    y0 = Math.min(y0, b.y - b.height / 2);
    y1 = Math.max(y1, b.y + b.height / 2);
  }
  return { x0: x0 - margin, y0: y0 - margin, x1: x1 + margin, y1: y1 + margin };
}

export function unionBounds(a: Bounds, b: Bounds): Bounds {
  return { x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) };
}

export interface ZoomTransform {
  readonly x: number;
  readonly y: number;
  readonly k: number;
}

/** The zoom transform that shows `bounds` whole and centred in a viewport, never above maxScale. */
export function fitTransform(
  bounds: Bounds,
  width: number,
  height: number,
  padding = 24,
  maxScale = 1.4,
): ZoomTransform {
  const bw = Math.max(1, bounds.x1 - bounds.x0);
  const bh = Math.max(1, bounds.y1 - bounds.y0);
  const k = Math.max(0.05, Math.min(maxScale, (width - 2 * padding) / bw, (height - 2 * padding) / bh));
  return {
    k,
    x: width / 2 - k * (bounds.x0 + bw / 2),
    y: height / 2 - k * (bounds.y0 + bh / 2),
  };
}

export function boxesOverlap(a: Box, b: Box): boolean {
  return Math.abs(a.x - b.x) * 2 < a.width + b.width && Math.abs(a.y - b.y) * 2 < a.height + b.height;
}

/** Rough width of an edge label in pixels (12.5px semibold system font). */
export const labelWidth = (text: string): number => 7.4 * text.length + 10;
export const LABEL_HEIGHT = 18;

const LABEL_T = [0.5, 0.4, 0.6, 0.32, 0.68, 0.25, 0.75] as const;

function overlapArea(a: Box, b: Box): number {
  const w = Math.min(a.x + a.width / 2, b.x + b.width / 2) - Math.max(a.x - a.width / 2, b.x - b.width / 2);
  const h = Math.min(a.y + a.height / 2, b.y + b.height / 2) - Math.max(a.y - a.height / 2, b.y - b.height / 2);
  return w > 0 && h > 0 ? w * h : 0;
}

/**
 * Places labels along their curves, greedily in the order given: each takes the first spot
 * (from the middle outwards) that overlaps neither a node nor a label already placed, or, when
 * every spot is taken, the one that overlaps least. `scale` widens labels set in larger type.
 */
export function placeLabels(
  items: readonly { readonly text: string; readonly at: (t: number) => Point; readonly scale?: number }[],
  obstacles: readonly Box[],
): Point[] {
  const placed: Box[] = [];
  return items.map(({ text, at, scale = 1 }) => {
    const width = labelWidth(text) * scale;
    const height = LABEL_HEIGHT * scale;
    let best: Box | null = null;
    let bestScore = Infinity;
    for (const t of LABEL_T) {
      const p = at(t);
      const box = { x: p.x, y: p.y, width, height };
      let score = 0;
      for (const o of obstacles) score += overlapArea(o, box);
      for (const o of placed) score += overlapArea(o, box);
      if (score < bestScore) {
        best = box;
        bestScore = score;
        if (score === 0) break;
      }
    }
    placed.push(best!);
    return { x: best!.x, y: best!.y };
  });
}
