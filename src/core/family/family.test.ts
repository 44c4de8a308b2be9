import { describe, expect, it } from 'vitest';
import { createRng } from '../random/rng';
import { type FamilyParams, FamilyStore, generateFamily } from './family';

/** A family as plain data, copied out (a store's family is rewritten by its next one). */
const plain = (people: ReturnType<typeof generateFamily>['people']) =>
  JSON.stringify(people.map((p) => ({ ...p, parents: p.parents && [...p.parents], children: [...p.children] })));

describe('generateFamily', () => {
  it("a store's families are those made without one, as families grow and shrink from one to the next", () => {
    // Sizes vary from family to family: some marry (p-marry < 1), some have no children, and with
    // five levels of up to six children the name pool runs out (the rest are not born).
    const settings: FamilyParams[] = [
      { maxLevels: 3, minChild: 4, maxChild: 4, pMarry: 1 },
      { maxLevels: 4, minChild: 0, maxChild: 3, pMarry: 0.7 },
      { maxLevels: 2, minChild: 0, maxChild: 5, pMarry: 0.5 },
      { maxLevels: 5, minChild: 2, maxChild: 6, pMarry: 0.9 },
      { maxLevels: 1, minChild: 1, maxChild: 1, pMarry: 0.5 },
    ];
    const store = new FamilyStore();
    const sizes = new Set<number>();
    for (let i = 0; i < 400; i++) {
      const params = settings[i % settings.length]!;
      const withStore = plain(generateFamily(createRng('store', i), params, store).people);
      const without = generateFamily(createRng('store', i), params);
      expect(withStore).toBe(plain(without.people));
      sizes.add(without.people.length);
      // Every link names a person of this family.
      const n = without.people.length;
      for (const p of without.people) {
        for (const id of [...p.children, ...(p.parents ?? []), ...(p.spouse === null ? [] : [p.spouse])]) {
          expect(id).toBeLessThan(n);
        }
      }
    }
    expect(sizes.size).toBeGreaterThan(20);
  });
});
