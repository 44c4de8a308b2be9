import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Gender } from '../kinship/relations';
import {
  bankSize,
  bankToJson,
  chainGenders,
  fillTemplate,
  mergeBanks,
  parseTemplateData,
  splitBank,
  splitFComb,
  type TemplateBank,
  TemplateFormatError,
  templateShapeFine,
  templateShapeProblems,
} from './templates';

const parse = (data: unknown, file = 'amt.json') => parseTemplateData(data, file);
const errorOf = (data: unknown): string => {
  try {
    parse(data);
  } catch (e) {
    expect(e).toBeInstanceOf(TemplateFormatError);
    return (e as Error).message;
  }
  throw new Error('expected a TemplateFormatError');
};

describe('splitFComb', () => {
  it('keeps in-law words whole and normalises neice', () => {
    expect(splitFComb('son-in-law-father')).toEqual({ words: ['son-in-law', 'father'] });
    expect(splitFComb('sister-neice')).toEqual({ words: ['sister', 'niece'] });
    expect(splitFComb('father-mother-in-law-aunt')).toEqual({ words: ['father', 'mother-in-law', 'aunt'] });
    expect(splitFComb('father-cousin')).toEqual({ unknown: 'cousin' });
  });

  it('derives chain genders from the words', () => {
    expect(chainGenders(['father', 'sister', 'son'], 'female')).toEqual(['female', 'male', 'female', 'male']);
  });
});

describe('parseTemplateData', () => {
  it('reads the original shape, with neice and ENT placeholders', () => {
    const bank = parse({
      neice: { 'male-female': ['ENT_1_female is the niece of ENT_0_male.'] },
      'father-sister': {
        'female-male-female': ['ENT_0_female asked her dad ENT_1_male about his sister ENT_2_female.'],
      },
    });
    expect(Object.keys(bank).sort()).toEqual(['father-sister', 'niece']);
    expect(bank.niece!['male-female']).toEqual(['ENT_1_female is the niece of ENT_0_male.']);
  });

  it('merges neice and niece lists and drops duplicate templates', () => {
    const t = 'ENT_1_female is the niece of ENT_0_male.';
    const bank = parse({ neice: { 'male-female': [t, t] }, niece: { 'male-female': [t] } });
    expect(bank.niece!['male-female']).toEqual([t]);
  });

  it('names the file, key, gender comb and template index of what is wrong', () => {
    expect(errorOf({ fathr: { 'male-male': ['x'] } })).toBe('amt.json: key "fathr": "fathr" is not a relation word');
    expect(errorOf({ father: { 'male-male-male': ['x'] } })).toMatch(
      /^amt\.json: key "father", gender comb "male-male-male": a key of 1 fact has 2 entities, but the gender comb lists 3/,
    );
    expect(errorOf({ father: { 'male-female': ['x'] } })).toMatch(
      /"father" makes entity 1 male, but the gender comb says female/,
    );
    expect(errorOf({ father: { 'male-male': ['ENT_1_male is the father of ENT_0_male.', 42] } })).toMatch(
      /key "father", gender comb "male-male", template 1: expected a string, got a number/,
    );
    expect(errorOf({ father: { 'male-male': ['ENT_1_male is his father.'] } })).toMatch(
      /template 0: never names ENT_0_male/,
    );
    expect(errorOf({ father: { 'male-male': ['ENT_1_female is the father of ENT_0_male.'] } })).toMatch(
      /placeholder ENT_1_female says female, but the gender comb makes entity 1 male/,
    );
    expect(errorOf({ father: { 'male-male': ['ENT_2_male and ENT_1_male and ENT_0_male.'] } })).toMatch(
      /ENT_2_male names entity 2, but the key has only 2 entities/,
    );
    expect(errorOf({ father: { 'male-male': ['ENT_1_male is ENT_0_male and ENT_x.'] } })).toMatch(
      /"ENT_x\." is not a placeholder/,
    );
    expect(errorOf({ father: ['x'] })).toMatch(/key "father": expected an object \{gender_comb/);
    expect(errorOf({ father: { 'male-male': 'x' } })).toMatch(/expected a list of templates, got a string/);
    expect(errorOf([])).toMatch(/^amt\.json: expected an object \{f_comb/);
    expect(errorOf({ father: { 'male-robot': [] } })).toMatch(/"robot" is not a gender/);
  });

  it('says how many more problems there are', () => {
    expect(errorOf({ a: {}, b: {}, c: {} })).toMatch(/\(and 2 more problems\)$/);
  });
});

describe('fillTemplate', () => {
  it('substitutes every placeholder, repeated ones included', () => {
    expect(fillTemplate('ENT_0_male and ENT_1_female; ENT_0_male.', ['[Bob]', '[Ann]'])).toBe(
      '[Bob] and [Ann]; [Bob].',
    );
    expect(() => fillTemplate('ENT_2_male', ['a'])).toThrow(/no entity/);
  });
});

const bigBank: TemplateBank = {
  father: {
    'male-male': Array.from({ length: 10 }, (_, i) => `ENT_0_male saw his father ENT_1_male ${i}.`),
    'female-male': ['ENT_0_female saw her father ENT_1_male.'],
  },
  'father-sister': {
    'female-male-female': [
      'ENT_0_female, ENT_1_male and ENT_2_female a.',
      'ENT_0_female, ENT_1_male and ENT_2_female b.',
    ],
  },
};

describe('splitBank', () => {
  it('is an 80/20 split per list, disjoint, complete and deterministic', () => {
    const { train, test } = splitBank(bigBank, 42);
    expect(train.father!['male-male']).toHaveLength(8);
    expect(test.father!['male-male']).toHaveLength(2);
    expect(splitBank(bigBank, 42)).toEqual({ train, test });
    expect(bankSize(train) + bankSize(test)).toBe(bankSize(bigBank));
    const trainSet = new Set(Object.values(train).flatMap((g) => Object.values(g).flat()));
    for (const t of Object.values(test).flatMap((g) => Object.values(g).flat())) expect(trainSet.has(t)).toBe(false);
  });

  it('keeps one template on each side of a list of two, and a single one in train', () => {
    const { train, test } = splitBank(bigBank, 1);
    expect(train['father-sister']!['female-male-female']).toHaveLength(1);
    expect(test['father-sister']!['female-male-female']).toHaveLength(1);
    expect(train.father!['female-male']).toHaveLength(1);
    expect(test.father?.['female-male']).toBeUndefined();
  });

  it('depends on the seed', () => {
    const a = splitBank(bigBank, 1).test.father!['male-male'];
    const differs = [2, 3, 4, 5, 6].some(
      (s) => JSON.stringify(splitBank(bigBank, s).test.father!['male-male']) !== JSON.stringify(a),
    );
    expect(differs).toBe(true);
  });
});

describe('mergeBanks and bankToJson', () => {
  it('merges lists without repeating a template, keeping first-seen order', () => {
    const a = 'ENT_0_male saw his father ENT_1_male a.';
    const b = 'ENT_0_male saw his father ENT_1_male b.';
    const merged = mergeBanks({ father: { 'male-male': [a, b] } }, { father: { 'male-male': [b, a, b] } });
    expect(merged.father!['male-male']).toEqual([a, b]);
  });

  it('merging the halves of a split gives the bank back', () => {
    const { train, test } = splitBank(bigBank, 9);
    const merged = mergeBanks(train, test);
    for (const [k, byGender] of Object.entries(bigBank)) {
      for (const [g, list] of Object.entries(byGender)) expect([...merged[k]![g]!].sort()).toEqual([...list].sort());
    }
  });

  it('writes the original spelling on request and reads it back', () => {
    const bank = parse({ niece: { 'male-female': ['ENT_1_female is the niece of ENT_0_male.'] } });
    const json = bankToJson(bank, { originalSpelling: true });
    expect(JSON.parse(json)).toHaveProperty('neice');
    expect(parseTemplateData(JSON.parse(json))).toEqual(bank);
  });
});

describe('templateShapeFine', () => {
  it('is true exactly when templateShapeProblems finds nothing', () => {
    const piece = fc.constantFrom(
      'ENT_0_male',
      'ENT_0_female',
      'ENT_1_male',
      'ENT_1_female',
      'ENT_2_male',
      'ENT_3_female',
      'ENT_1_fem',
      'ENT_x',
      'ENT_12_male',
      ' ',
      '  ',
      'is the son of',
      '.',
      '[',
    );
    const genders = fc.array(fc.constantFrom<Gender>('male', 'female'), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), genders, (pieces, g) => {
        const template = pieces.join(' ');
        expect(templateShapeFine(template, g)).toBe(templateShapeProblems(template, g).length === 0);
      }),
      { numRuns: 5000 },
    );
  });
});
