import { describe, expect, it } from 'vitest';
import { validateTemplateData } from '../../core/text/templates';
import {
  CLAUSE_NAMES,
  type Clause,
  clauseCells,
  clauseFromId,
  clauseQuery,
  factSentences,
  impliedSentence,
  makeClause,
  pickClauses,
} from './clause';

const ok = (c: Clause | { error: string }): Clause => {
  if ('error' in c) throw new Error(c.error);
  return c;
};

describe('clauseCells', () => {
  it('lists every relation word, every decidable pair and the decidable triples, spouses of the other gender', () => {
    const one = clauseCells([1]);
    // The 14 words the generator states × 2 first genders, minus a husband of a man and a wife
    // of a woman; never a word that is only inferred (in-laws, nephew, niece).
    expect(one).toHaveLength(26);
    expect(one.some((c) => c.fComb === 'son-in-law' || c.fComb === 'niece')).toBe(false);
    expect(one.find((c) => c.id === 'c1.husband.male-male')).toBeUndefined();
    expect(one.find((c) => c.id === 'c1.husband.female-male')).toBeDefined();
    // The bank's twoFactPatterns: 62 patterns, 112 gendered cells.
    const two = clauseCells([2]);
    expect(two).toHaveLength(112);
    expect(new Set(two.map((c) => c.fComb)).size).toBe(62);
    const three = clauseCells([3]);
    expect(three.every((c) => c.k === 3 && c.words.length === 3 && c.people.length === 4)).toBe(true);
    // son∘son∘son derives nothing under the rule base; father∘father∘father neither.
    expect(three.some((c) => c.fComb === 'son-son-son')).toBe(false);
    expect(three.some((c) => c.fComb === 'father-father-father')).toBe(false);
    // sister∘father = father, father∘mother = grandmother.
    expect(three.some((c) => c.fComb === 'sister-father-mother')).toBe(true);
    expect(clauseCells([1, 2, 3])).toHaveLength(one.length + two.length + three.length);
    expect(clauseCells([4, 0])).toEqual([]);
  });

  it('counts our bank templates per cell and is a valid template key', () => {
    const cells = clauseCells([1, 2, 3]);
    expect(cells.filter((c) => c.k < 3).every((c) => c.bankTemplates > 0)).toBe(true);
    expect(cells.some((c) => c.k === 3 && c.bankTemplates === 0)).toBe(true);
    const data: Record<string, Record<string, string[]>> = {};
    for (const c of cells) {
      const t = c.people.map((g, i) => `ENT_${i}_${g}`).join(' and ') + '.';
      (data[c.fComb] ??= {})[c.genderComb] = [t];
    }
    expect(validateTemplateData(data).problems).toEqual([]);
  });
});

describe('clauseFromId', () => {
  it('rebuilds names and facts from the id and seed alone', () => {
    const a = ok(clauseFromId('c1.sister-father.male-female-male', 12345));
    const b = ok(clauseFromId('c1.sister-father.male-female-male', 12345));
    expect(a).toEqual(b);
    expect(a.k).toBe(2);
    expect(a.people.map((p) => p.gender)).toEqual(['male', 'female', 'male']);
    expect(new Set(a.people.map((p) => p.name)).size).toBe(3);
    expect(a.people.every((p) => CLAUSE_NAMES.has(p.name))).toBe(true);
    expect(a.facts).toEqual([
      { from: 0, to: 1, word: 'sister' },
      { from: 1, to: 2, word: 'father' },
    ]);
    expect(a.implied).toEqual({ a: 0, b: 2, word: 'father' });
    expect(a.relations).toBe('sister-father');
    expect(a.genders).toBe('male-female-male');
    const c = ok(clauseFromId('c1.sister-father.male-female-male', 54321));
    expect(c.people.map((p) => p.name)).not.toEqual(a.people.map((p) => p.name));
  });

  it('reads in-law words and the neice spelling', () => {
    expect(ok(clauseFromId('c1.son-in-law.female-male', 1)).facts[0]!.word).toBe('son-in-law');
    expect(ok(clauseFromId('c1.sister-daughter.female-female-female', 1)).implied!.word).toBe('niece');
    expect(ok(clauseFromId('c1.neice.male-female', 1)).relations).toBe('niece');
  });

  it('says what is wrong with a bad id', () => {
    const err = (id: string, seed = 1) => {
      const c = clauseFromId(id, seed);
      return 'error' in c ? c.error : 'no error';
    };
    expect(err('7/3')).toMatch(/not a clause id/);
    expect(err('c2.father.male-male')).toMatch(/not a clause id/);
    expect(err('c1.dad.male-male')).toMatch(/"dad" is not a relation word/);
    expect(err('c1.father.male-robot')).toMatch(/"robot" is not a gender/);
    expect(err('c1.father.male-female')).toMatch(/give the genders male-male, not male-female/);
    expect(err('c1.son-son-son.male-male-male-male')).toMatch(/derives no single relation/);
    expect(err('c1.husband.male-male')).toMatch(/same gender/);
    expect(err('c1.son-son-son-son.male-male-male-male-male')).toMatch(/1 to 3 facts/);
    expect(err('c1.father.male-male', -1)).toMatch(/seed/);
    expect(err('c1.father.male-male', 1.5)).toMatch(/seed/);
  });
});

describe('sentences', () => {
  it('says each fact and the implied fact plainly', () => {
    const c = makeClause(['sister', 'father'], 'male', ['Patrick', 'Sylvia', 'John']);
    expect(factSentences(c)).toEqual(['Sylvia is the sister of Patrick.', 'John is the father of Sylvia.']);
    expect(impliedSentence(c)).toBe('John is the father of Patrick.');
    expect(clauseQuery(c)).toEqual({ a: 0, b: 2, word: 'father' });
  });

  it('has no implied fact for a single fact; its query is the fact', () => {
    const c = makeClause(['mother'], 'male', ['Ben', 'Anna']);
    expect(factSentences(c)).toEqual(['Anna is the mother of Ben.']);
    expect(c.implied).toBeNull();
    expect(impliedSentence(c)).toBeNull();
    expect(clauseQuery(c)).toEqual({ a: 0, b: 1, word: 'mother' });
  });

  it('refuses a chain that is not a clause', () => {
    expect(() => makeClause(['son', 'son', 'son'], 'male', ['A', 'B', 'C', 'D'])).toThrow(/no single relation/);
    expect(() => makeClause(['son'], 'male', ['A'])).toThrow(/2 people, not 1/);
  });
});

describe('pickClauses', () => {
  const settings = { clauseKs: [1, 2, 3], clauseGenders: 'any' as const, clausesPerParticipant: 6 };

  it('is seeded: the same seeds give the same clauses, others differ', () => {
    const a = pickClauses('study', 'p1', settings);
    expect(pickClauses('study', 'p1', settings)).toEqual(a);
    expect(pickClauses('study', 'p2', settings)).not.toEqual(a);
    expect(a).toHaveLength(6);
    // The sizes take turns: two of each in six.
    expect(a.map((c) => c.k).sort()).toEqual([1, 1, 2, 2, 3, 3]);
    expect(new Set(a.map((c) => c.id)).size).toBe(6);
    // Every clause comes back from its row's two columns.
    for (const c of a) expect(clauseFromId(c.id, c.seed)).toEqual(c);
  });

  it('keeps to the sizes and genders asked for', () => {
    const only2 = pickClauses(1, 2, { ...settings, clauseKs: [2] });
    expect(only2.every((c) => c.k === 2)).toBe(true);
    for (let s = 0; s < 20; s++) {
      const mixed = pickClauses(1, s, { ...settings, clauseGenders: 'mixed' });
      expect(mixed.every((c) => new Set(c.people.map((p) => p.gender)).size === 2)).toBe(true);
    }
    expect(pickClauses(1, 2, { ...settings, clauseKs: [] })).toEqual([]);
  });

  it('with coverage, draws the least covered cells', () => {
    const cells = clauseCells([1]);
    const coverage: Record<string, number> = {};
    for (const c of cells) coverage[c.id] = 5;
    coverage['c1.father.female-male'] = 0;
    coverage['c1.aunt.male-female'] = 1;
    const picked = pickClauses(9, 9, { ...settings, clauseKs: [1], clausesPerParticipant: 3 }, coverage);
    expect(picked[0]!.id).toBe('c1.father.female-male');
    expect(picked[1]!.id).toBe('c1.aunt.male-female');
    expect(coverage[picked[2]!.id]).toBe(5);
  });
});
