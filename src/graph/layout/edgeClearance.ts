import type { Box, Point } from './geometry';

/**
 * Points along an SVG path made of `M`, `L` and `Q` commands (what `curvedEdge` writes), each
 * curve sampled in `steps` pieces: the polyline a path is checked against boxes with.
 */
export function samplePath(d: string, steps = 24): Point[] {
  const tokens = d.match(/[A-Za-z]|-?\d*\.?\d+(?:e[-+]?\d+)?/gi) ?? [];
  const points: Point[] = [];
  let i = 0;
  let cur: Point = { x: 0, y: 0 };
  const num = () => Number(tokens[i++]);
  while (i < tokens.length) {
    const cmd = tokens[i++];
    if (cmd === 'M' || cmd === 'L') {
      cur = { x: num(), y: num() };
      points.push(cur);
    } else if (cmd === 'Q') {
      const c = { x: num(), y: num() };
      const end = { x: num(), y: num() };
      const from = cur;
      for (let s = 1; s <= steps; s++) {
        const t = s / steps;
        const u = 1 - t;
        points.push({
          x: u * u * from.x + 2 * u * t * c.x + t * t * end.x,
          y: u * u * from.y + 2 * u * t * c.y + t * t * end.y,
        });
      }
      cur = end;
    } else {
      throw new Error(`samplePath: unsupported command "${cmd}" in "${d}"`);
    }
  }
  return points;
}

/** Whether the segment p→q passes through the inside of `box` (touching its border does not count). */
export function segmentCrossesBox(p: Point, q: Point, box: Box): boolean {
  const x0 = box.x - box.width / 2;
  const x1 = box.x + box.width / 2;
  const y0 = box.y - box.height / 2;
  const y1 = box.y + box.height / 2;
  // Liang–Barsky clipping against the open box.
  let t0 = 0;
  let t1 = 1;
  const dx = q.x - p.x;
  const dy = q.y - p.y;
  const clip = (den: number, num: number): boolean => {
    if (den === 0) return num > 0;
    const t = num / den;
    if (den < 0) {
      if (t > t1) return false;
      if (t > t0) t0 = t;
    } else {
      if (t < t0) return false;
      if (t < t1) t1 = t;
    }
    return true;
  };
  if (!clip(-dx, p.x - x0) || !clip(dx, x1 - p.x) || !clip(-dy, p.y - y0) || !clip(dy, y1 - p.y)) return false;
  if (t1 - t0 <= 1e-9) return false;
  // Strictly inside at the middle of the clipped piece.
  const m = { x: p.x + dx * ((t0 + t1) / 2), y: p.y + dy * ((t0 + t1) / 2) };
  return m.x > x0 && m.x < x1 && m.y > y0 && m.y < y1;
}

/** Whether a polyline passes through the inside of `box`. */
export function polylineCrossesBox(points: readonly Point[], box: Box): boolean {
  for (let i = 1; i < points.length; i++) if (segmentCrossesBox(points[i - 1]!, points[i]!, box)) return true;
  return false;
}
