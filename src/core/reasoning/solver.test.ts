import { describe, expect, it } from 'vitest';
import { PREDICATES, PRED_CODE } from '../kinship/relations';
import { COMPOSE_SOUND, COMPOSE_STRIDE, compose } from '../kinship/rules';
import { bit, composeMasks } from './solver';

/** The union of a ∘ b over every a in A and b in B, straight from the rule base. */
function naive(A: number, B: number, strict: boolean): number {
  let m = 0;
  for (const a of PREDICATES) {
    for (const b of PREDICATES) {
      if (!(A & bit(PRED_CODE[a])) || !(B & bit(PRED_CODE[b]))) continue;
      const full = compose(a, b);
      const c = strict ? COMPOSE_SOUND[PRED_CODE[a] * COMPOSE_STRIDE + PRED_CODE[b]]! : full ? PRED_CODE[full] : 0;
      if (c) m |= 1 << (c - 1);
    }
  }
  return m;
}

describe('composeMasks', () => {
  it('is the union of the rule base over every pair of members, for every pair of sets', () => {
    const all = (1 << PREDICATES.length) - 1;
    for (const strict of [false, true]) {
      const got: number[] = [];
      const want: number[] = [];
      // Every single predicate and a spread of larger sets, against every set.
      const sets = [...PREDICATES.map((p) => bit(PRED_CODE[p]))];
      for (let A = 0; A <= all; A += 37) sets.push(A);
      for (const A of sets) {
        for (let B = 0; B <= all; B++) {
          got.push(composeMasks(A, B, strict));
          want.push(naive(A, B, strict));
        }
      }
      expect(got).toEqual(want);
    }
  });

  it("composes single predicates as the rule base does (a parent's parent is a grandparent)", () => {
    expect(composeMasks(bit(PRED_CODE['inv-child']), bit(PRED_CODE['inv-child']))).toBe(bit(PRED_CODE['inv-grand']));
    expect(composeMasks(bit(PRED_CODE.child) | bit(PRED_CODE.sibling), 0)).toBe(0);
  });
});
