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
function exitPoint(box: Box, toward: Point, gap = 3): Point {
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
 * midpoint (or the point `along` of the way from a to b), along `normal` (a unit vector); ends
 * are trimmed to the boxes' borders.
 */
export function curvedEdge(a: Box, b: Box, bend: number, normal: Point, along = 0.5): EdgeGeometry {
  const c = {
    x: a.x + (b.x - a.x) * along + normal.x * bend,
    y: a.y + (b.y - a.y) * along + normal.y * bend,
  };
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

/** The smallest bounds holding every box, grown by `margin` on each side. */
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

/** Whether two boxes share area (boxes that only touch do not). */
export function boxesOverlap(a: Box, b: Box): boolean {
  return Math.abs(a.x - b.x) * 2 < a.width + b.width && Math.abs(a.y - b.y) * 2 < a.height + b.height;
}

/**
 * The view a drawing opens at: the whole of `bounds` when it fits at `minScale` or more, else
 * `minScale` (text stays readable) and the part around `focus` (the query pair, the newest
 * facts), clamped so no edge of the drawing leaves an empty margin wider than `padding`.
 * Without a focus an oversized drawing shows its left/top part.
 */
export function readableTransform(
  bounds: Bounds,
  width: number,
  height: number,
  opts: {
    readonly minScale: number;
    readonly maxScale: number;
    readonly padding?: number;
    readonly focus?: Bounds | null;
  },
): ZoomTransform {
  const pad = opts.padding ?? 24;
  const bw = Math.max(1, bounds.x1 - bounds.x0);
  const bh = Math.max(1, bounds.y1 - bounds.y0);
  const whole = Math.min((width - 2 * pad) / bw, (height - 2 * pad) / bh);
  const k = Math.max(opts.minScale, Math.min(opts.maxScale, whole));
  const axis = (size: number, lo: number, hi: number, fLo: number | undefined, fHi: number | undefined) => {
    const drawn = (hi - lo) * k;
    if (drawn <= size - 2 * pad) return size / 2 - k * (lo + (hi - lo) / 2);
    const start = pad - k * lo; // drawing's low edge at the padding
    const end = size - pad - k * hi; // drawing's high edge at the padding
    if (fLo === undefined || fHi === undefined) return start;
    // A focus wider than the box shows its low edge (its first person) rather than its empty middle.
    const centred = (fHi - fLo) * k > size - 2 * pad ? pad - k * fLo : size / 2 - k * ((fLo + fHi) / 2);
    return Math.min(start, Math.max(end, centred));
  };
  const f = opts.focus ?? null;
  return {
    k,
    x: axis(width, bounds.x0, bounds.x1, f?.x0, f?.x1),
    y: axis(height, bounds.y0, bounds.y1, f?.y0, f?.y1),
  };
}

/** The box height (px) a drawing of `bounds` wants in a box `width` wide, within [min, max]. */
export function readableHeight(
  bounds: Bounds,
  width: number,
  opts: {
    readonly minScale: number;
    readonly maxScale: number;
    readonly min: number;
    readonly max: number;
    readonly padding?: number;
  },
): number {
  const pad = opts.padding ?? 24;
  const bw = Math.max(1, bounds.x1 - bounds.x0);
  const bh = Math.max(1, bounds.y1 - bounds.y0);
  const k = Math.max(opts.minScale, Math.min(opts.maxScale, (width - 2 * pad) / bw));
  return Math.round(Math.min(opts.max, Math.max(opts.min, bh * k + 2 * pad)));
}
