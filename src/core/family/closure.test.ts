import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRED_CODE } from '../kinship/relations';
import { COMPOSE, COMPOSE_STRIDE, RULES } from '../kinship/rules';
import { createRng } from '../random/rng';
import { closeFamily, closeFamilyByRules, kinshipBySemantics } from './closure';
import { checkFamilyParams, DEFAULT_FAMILY, type FamilyParams, generateFamily } from './family';

const params = fc.record({
  maxLevels: fc.integer({ min: 1, max: 4 }),
  minChild: fc.integer({ min: 0, max: 2 }),
  maxChild: fc.integer({ min: 2, max: 4 }),
  pMarry: fc.double({ min: 0, max: 1, noNaN: true }),
});

describe('kinshipBySemantics into a scratch table', () => {
  it('gives the graph of a fresh table, whatever the table held before', () => {
    const scratch = new Uint8Array(64 * 64).fill(7);
    fc.assert(
      fc.property(params, fc.integer(), (p: FamilyParams, seed) => {
        fc.pre(checkFamilyParams(p) === undefined);
        const f = generateFamily(createRng(seed), p);
        const fresh = kinshipBySemantics(f);
        const n = fresh.n;
        const reused = closeFamily(f, scratch);
        expect(reused.n).toBe(n);
        if (n * n <= scratch.length) expect(reused.rel).toBe(scratch);
        expect(Array.from(reused.rel.subarray(0, n * n))).toEqual(Array.from(fresh.rel));
      }),
      { numRuns: 300 },
    );
  });
});

describe('generateFamily', () => {
  it('builds the default family of 42 people with unique names and consistent genders', () => {
    for (let s = 0; s < 200; s++) {
      const f = generateFamily(createRng(s), DEFAULT_FAMILY);
      expect(f.people).toHaveLength(42);
      expect(new Set(f.people.map((p) => p.name)).size).toBe(42);
      for (const p of f.people) {
        if (p.spouse !== null) {
          const s2 = f.people[p.spouse]!;
          expect(s2.spouse).toBe(p.id);
          expect(s2.gender).not.toBe(p.gender);
        }
        if (p.parents) {
          expect(f.people[p.parents[0]]!.gender).toBe('male');
          expect(f.people[p.parents[1]]!.gender).toBe('female');
        }
      }
    }
  });

  it('respects its parameters and never repeats a name', () => {
    fc.assert(
      fc.property(params, fc.integer(), (p: FamilyParams, seed) => {
        fc.pre(checkFamilyParams(p) === undefined);
        const f = generateFamily(createRng(seed), p);
        expect(new Set(f.people.map((x) => x.name)).size).toBe(f.people.length);
        expect(Math.max(...f.people.map((x) => x.generation))).toBeLessThan(p.maxLevels);
        for (const x of f.people) {
          if (x.spouse !== null && x.generation < p.maxLevels - 1 && x.parents) {
            expect(x.children.length).toBeLessThanOrEqual(p.maxChild);
          }
          if (x.spouse === null) expect(x.children).toHaveLength(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('draws new structures, not one family re-used', () => {
    const shapes = new Set<string>();
    const p = { maxLevels: 3, minChild: 1, maxChild: 4, pMarry: 0.8 };
    let nonTrivial = 0;
    for (let s = 0; s < 50; s++) {
      const f = generateFamily(createRng(s), p);
      if (f.people.length < 3) continue; // the root did not marry
      nonTrivial++;
      shapes.add(f.people.map((x) => `${x.gender[0]}${x.children.length}`).join(''));
    }
    expect(nonTrivial).toBeGreaterThan(30);
    expect(shapes.size).toBe(nonTrivial);
  });
});

describe('closeFamily', () => {
  it('equals the forward-chaining fixpoint of the sound rules, over many random families', () => {
    fc.assert(
      fc.property(params, fc.integer(), (p: FamilyParams, seed) => {
        fc.pre(checkFamilyParams(p) === undefined);
        const f = generateFamily(createRng(seed), p);
        expect(Array.from(closeFamily(f).rel)).toEqual(Array.from(closeFamilyByRules(f).rel));
      }),
      { numRuns: 500 },
    );
  });

  it('is closed: every rule instance on the graph yields an edge that is there (sound rules)', () => {
    for (let s = 0; s < 50; s++) {
      const f = generateFamily(createRng(s), DEFAULT_FAMILY);
      const { n, rel } = kinshipBySemantics(f);
      for (let x = 0; x < n; x++)
        for (let z = 0; z < n; z++) {
          const r1 = rel[x * n + z]!;
          if (!r1) continue;
          for (let y = 0; y < n; y++) {
            const r2 = rel[z * n + y]!;
            if (!r2 || y === x) continue;
            const rule = RULES.find((r) => PRED_CODE[r.body[0]] === r1 && PRED_CODE[r.body[1]] === r2);
            if (rule?.soundInFamilies) expect(rel[x * n + y]).toBe(PRED_CODE[rule.head]);
          }
        }
    }
  });

  it('would derive false facts with the two unsound rules (why closure leaves them out)', () => {
    const f = generateFamily(createRng(1), DEFAULT_FAMILY);
    const { n, rel } = kinshipBySemantics(f);
    let wrong = 0;
    for (let x = 0; x < n; x++)
      for (let z = 0; z < n; z++)
        for (let y = 0; y < n; y++) {
          if (x === y) continue;
          const r1 = rel[x * n + z]!;
          const r2 = rel[z * n + y]!;
          if (r1 === PRED_CODE.child && (r2 === PRED_CODE['inv-un'] || r2 === PRED_CODE['inv-grand'])) {
            if (rel[x * n + y] !== COMPOSE[r1 * COMPOSE_STRIDE + r2]) wrong++;
          }
        }
    expect(wrong).toBeGreaterThan(0);
  });
});
