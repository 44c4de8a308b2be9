import { describe, expect, it } from 'vitest';
import { readableHeight, readableTransform } from './geometry';

describe('readableTransform', () => {
  const b = { x0: 0, y0: 0, x1: 1000, y1: 200 };
  it('shows a drawing whole and centred when it fits above the minimum scale', () => {
    const t = readableTransform({ x0: 0, y0: 0, x1: 400, y1: 200 }, 800, 400, { minScale: 0.8, maxScale: 1.15 });
    expect(t.k).toBe(1.15);
    expect(t.x).toBeCloseTo(400 - 1.15 * 200);
    expect(t.y).toBeCloseTo(200 - 1.15 * 100);
  });
  it('never goes below the minimum scale: an oversized drawing starts at its left edge', () => {
    const t = readableTransform(b, 300, 400, { minScale: 0.85, maxScale: 1.15 });
    expect(t.k).toBe(0.85);
    expect(t.x).toBe(24);
  });
  it('centres the focus, clamped to the drawing', () => {
    const mid = readableTransform(b, 300, 400, {
      minScale: 1,
      maxScale: 1,
      focus: { x0: 480, y0: 0, x1: 520, y1: 10 },
    });
    expect(mid.x).toBe(150 - 500);
    const right = readableTransform(b, 300, 400, {
      minScale: 1,
      maxScale: 1,
      focus: { x0: 990, y0: 0, x1: 1000, y1: 10 },
    });
    expect(right.x).toBe(300 - 24 - 1000); // the right edge sits at the padding, no empty space beyond
  });
});

describe('readableHeight', () => {
  it('follows the family: wide and flat is low, at the scale the width allows', () => {
    expect(
      readableHeight({ x0: 0, y0: 0, x1: 752, y1: 100 }, 800, { minScale: 0.85, maxScale: 1.15, min: 100, max: 600 }),
    ).toBe(148);
  });
  it('uses the minimum scale when the width would shrink text, within the bounds given', () => {
    const h = readableHeight({ x0: 0, y0: 0, x1: 3000, y1: 400 }, 300, {
      minScale: 0.85,
      maxScale: 1.15,
      min: 100,
      max: 600,
    });
    expect(h).toBe(Math.round(400 * 0.85 + 48));
    expect(
      readableHeight({ x0: 0, y0: 0, x1: 10, y1: 4000 }, 300, { minScale: 0.85, maxScale: 1.15, min: 100, max: 600 }),
    ).toBe(600);
  });
});
