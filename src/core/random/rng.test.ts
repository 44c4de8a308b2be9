import { describe, expect, it } from 'vitest';
import { createRng, hashSeed } from './rng';

describe('createRng', () => {
  it('gives the same stream for the same seed, and different streams for different seeds', () => {
    const a = createRng(7);
    const b = createRng(7);
    const c = createRng(8);
    const sa = Array.from({ length: 20 }, () => a.uint32());
    expect(Array.from({ length: 20 }, () => b.uint32())).toEqual(sa);
    expect(Array.from({ length: 20 }, () => c.uint32())).not.toEqual(sa);
  });

  it('distinguishes the number 7 from the string "7" and namespaces parts', () => {
    expect(hashSeed(7)).not.toBe(hashSeed('7'));
    expect(hashSeed('a', 'b')).not.toBe(hashSeed('ab'));
    expect(createRng(1, 'x').uint32()).not.toBe(createRng(1, 'y').uint32());
  });

  it('pins the first outputs of seed 42 (the same in every JavaScript engine)', () => {
    const r = createRng(42);
    expect(Array.from({ length: 4 }, () => r.uint32())).toMatchInlineSnapshot(`
      [
        3899789615,
        685900832,
        1607370658,
        4154222628,
      ]
    `);
  });

  it('draws int(n) uniformly enough and within range', () => {
    const r = createRng('uniform');
    const counts = new Array(6).fill(0);
    for (let i = 0; i < 60000; i++) counts[r.int(6)]++;
    for (const c of counts) expect(Math.abs(c - 10000)).toBeLessThan(400);
    for (let i = 0; i < 1000; i++) {
      const v = r.range(3, 5);
      expect(v >= 3 && v <= 5 && Number.isInteger(v)).toBe(true);
    }
  });

  it('shuffles into a permutation', () => {
    const r = createRng(3);
    const xs = r.shuffle([...Array(50).keys()]);
    expect([...xs].sort((a, b) => a - b)).toEqual([...Array(50).keys()]);
    expect(xs).not.toEqual([...Array(50).keys()]);
  });
});
