import { describe, expect, it } from 'vitest';
import { mapped } from './mapped';

describe('mapped', () => {
  it('gives what Array.prototype.map gives, index included, and a new array', () => {
    const xs = [3, 1, 4, 1, 5];
    const f = (x: number, i: number) => `${x}@${i}`;
    const out = mapped(xs, f);
    expect(out).toEqual(xs.map(f));
    expect(out).not.toBe(xs);
    expect(mapped([], f)).toEqual([]);
  });

  it('calls the function once per element, in order', () => {
    const seen: number[] = [];
    mapped(['a', 'b', 'c'], (_, i) => seen.push(i));
    expect(seen).toEqual([0, 1, 2]);
  });
});
