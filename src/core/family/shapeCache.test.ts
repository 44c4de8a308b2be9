import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMPOSE, COMPOSE_SOUND, COMPOSE_STRIDE } from '../kinship/rules';
import { createRng } from '../random/rng';
import { backwardChain } from '../reasoning/backwardChain';
import { kinshipBySemantics } from './closure';
import { checkFamilyParams, DEFAULT_FAMILY, type FamilyParams, generateFamily } from './family';
import { ShapeCache } from './shapeCache';

const params = fc.record({
  maxLevels: fc.integer({ min: 1, max: 4 }),
  minChild: fc.integer({ min: 0, max: 2 }),
  maxChild: fc.integer({ min: 2, max: 4 }),
  pMarry: fc.double({ min: 0, max: 1, noNaN: true }),
});

const table = (rel: Uint8Array, n: number) => Array.from(rel.subarray(0, n * n));

describe('ShapeCache', () => {
  it('closes every family as kinshipBySemantics does, over families of one shape and of many', () => {
    const cache = new ShapeCache();
    fc.assert(
      fc.property(
        fc.constantFrom<FamilyParams | null>(null, DEFAULT_FAMILY),
        params,
        fc.integer(),
        (fixed, p, seed) => {
          const settings = fixed ?? p;
          fc.pre(checkFamilyParams(settings) === undefined);
          const f = generateFamily(createRng(seed), settings);
          const fresh = kinshipBySemantics(f);
          const cached = cache.close(f);
          expect(cached.n).toBe(fresh.n);
          expect(table(cached.rel, fresh.n)).toEqual(table(fresh.rel, fresh.n));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('gives one graph for a run of default families (they all have one shape), a new one for another shape', () => {
    const cache = new ShapeCache();
    const first = cache.close(generateFamily(createRng(0), DEFAULT_FAMILY));
    const second = cache.close(generateFamily(createRng(1), DEFAULT_FAMILY));
    for (let s = 2; s < 50; s++) expect(cache.close(generateFamily(createRng(s), DEFAULT_FAMILY))).toBe(second);
    const other = cache.close(generateFamily(createRng(0), { ...DEFAULT_FAMILY, maxChild: 3, minChild: 3 }));
    expect(other).not.toBe(second);
    expect(other.n).not.toBe(first.n);
    expect(cache.middles(first, false)).toBeNull();
  });

  it('lists the middle people of each pair as a scan of the graph finds them, under both rule sets', () => {
    const cache = new ShapeCache();
    fc.assert(
      fc.property(params, fc.integer(), fc.boolean(), (p, seed, strict) => {
        fc.pre(checkFamilyParams(p) === undefined);
        const g = cache.close(generateFamily(createRng(seed), p));
        const middles = cache.middles(g, strict)!;
        const compose = strict ? COMPOSE_SOUND : COMPOSE;
        const { n, rel } = g;
        for (let x = 0; x < n; x++) {
          for (let y = 0; y < n; y++) {
            const expected: number[] = [];
            for (let z = 0; z < n; z++) {
              const r1 = rel[x * n + z]!;
              const r2 = rel[z * n + y]!;
              if (r1 !== 0 && r2 !== 0 && compose[r1 * COMPOSE_STRIDE + r2] === rel[x * n + y]) expected.push(z);
            }
            const from = middles.of(x, y);
            const got = Array.from(middles.list().subarray(from, from + middles.countOf(x, y)));
            expect(got).toEqual(expected);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('makes backwardChain give the same chain and draw the same numbers as a scan of the graph', () => {
    const cache = new ShapeCache();
    fc.assert(
      fc.property(
        fc.constantFrom<FamilyParams | null>(null, DEFAULT_FAMILY),
        params,
        fc.integer(),
        fc.integer({ min: 1, max: 10 }),
        fc.boolean(),
        (fixed, p, seed, k, strict) => {
          const settings = fixed ?? p;
          fc.pre(checkFamilyParams(settings) === undefined);
          const g = cache.close(generateFamily(createRng(seed), settings));
          const middles = cache.middles(g, strict);
          let chains = 0;
          for (let t = 0; t < 8; t++) {
            // A related pair (most random pairs are not).
            const pick = createRng(seed, 'pair', t);
            let a = 0;
            let b = 0;
            for (let tries = 0; tries < 50 && g.rel[a * g.n + b] === 0; tries++) {
              a = pick.int(g.n);
              b = pick.int(g.n);
            }
            const plain = createRng(seed, 'chain', t);
            const listed = createRng(seed, 'chain', t);
            const expected = backwardChain(g, a, b, k, plain, strict);
            expect(backwardChain(g, a, b, k, listed, strict, middles)).toEqual(expected);
            expect(listed.uint32()).toBe(plain.uint32());
            if (expected) chains++;
          }
          if (settings === DEFAULT_FAMILY && k <= 6) expect(chains).toBeGreaterThan(0);
        },
      ),
      { numRuns: 400 },
    );
  });
});
