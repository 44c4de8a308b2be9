import { describe, expect, it } from 'vitest';
import { GENDERS, PRED_CODE, PREDICATES, wordFor, wordForCode } from './relations';

describe('wordForCode', () => {
  it('gives wordFor of the code’s predicate for both genders', () => {
    for (const p of PREDICATES) for (const g of GENDERS) expect(wordForCode(PRED_CODE[p], g)).toBe(wordFor(p, g));
  });

  it('refuses codes that are not predicates', () => {
    for (const code of [0, -1, PREDICATES.length + 1]) expect(() => wordForCode(code, 'female')).toThrow(RangeError);
  });
});
