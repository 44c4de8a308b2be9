import { describe, expect, it } from 'vitest';
import { INVERSE, PREDICATES, RELATION_WORDS, parseWord, wordFor } from './relations';
import { compose, RULES } from './rules';

describe('relations', () => {
  it('has twenty words, ten predicates, and an involutive inverse', () => {
    expect(RELATION_WORDS).toHaveLength(20);
    expect(new Set(RELATION_WORDS).size).toBe(20);
    for (const p of PREDICATES) expect(INVERSE[INVERSE[p]]).toBe(p);
  });

  it('genders words by the second entity and reads the neice spelling', () => {
    expect(wordFor('inv-un', 'female')).toBe('aunt');
    expect(parseWord('neice')).toEqual({ predicate: 'un', gender: 'female' });
    expect(parseWord('cousin')).toBeUndefined();
  });
});

describe('rule base', () => {
  it('holds the sixteen rules of the paper, two of them unsound in families', () => {
    expect(RULES).toHaveLength(16);
    expect(RULES.filter((r) => !r.soundInFamilies).map((r) => r.body.join('∘'))).toEqual([
      'child∘inv-un',
      'child∘inv-grand',
    ]);
  });

  it('composes as the kb table says', () => {
    expect(compose('child', 'child')).toBe('grand');
    expect(compose('SO', 'inv-child')).toBe('inv-in-law');
    expect(compose('sibling', 'child')).toBe('un');
    expect(compose('grand', 'inv-child')).toBeUndefined();
  });

  it('gives 62 gendered two-fact patterns (spouses are of the other gender)', () => {
    const patterns = new Set<string>();
    for (const r of RULES) {
      for (const gz of ['male', 'female'] as const) {
        for (const gy of ['male', 'female'] as const) {
          // the spouse of Z (r2 = SO) has the other gender than Z
          if (r.body[1] === 'SO' && gz === gy) continue;
          patterns.add(`${wordFor(r.body[0], gz)}-${wordFor(r.body[1], gy)}`);
        }
      }
    }
    expect(patterns.size).toBe(62);
  });
});
