import { describe, expect, it } from 'vitest';
import type { Gender } from '../kinship/relations';
import { kinTermsIn } from './lexicon';
import { impliedWords, lintTemplate, statedImplied } from './lint';
import { chainGenders, splitFComb } from './templates';

/** Lints a template written with {i} for the placeholders of key `fComb` and first gender `first`. */
function lint(fComb: string, first: Gender, shorthand: string): string[] {
  const split = splitFComb(fComb);
  if (!('words' in split)) throw new Error(fComb);
  const genders = chainGenders(split.words, first);
  return lintTemplate(
    split.words,
    genders,
    shorthand.replace(/\{(\d)\}/g, (_, i: string) => `ENT_${i}_${genders[Number(i)]}`),
  );
}

describe('kinTermsIn', () => {
  it('finds whole terms, longest first, possessives included', () => {
    expect(kinTermsIn("Ann's son-in-law met her dad's sister; the moment passed.").map((t) => t.term)).toEqual([
      'son-in-law',
      'dad',
      'sister',
    ]);
    expect(kinTermsIn('sons, grandkids and a stepmother').map((t) => t.kind)).toEqual(['other', 'other', 'other']);
    expect(kinTermsIn('They married in May.')[0]).toMatchObject({ term: 'married', kind: 'marriage' });
  });
});

describe('impliedWords', () => {
  it('derives the relations of every span by the rule base', () => {
    expect(impliedWords(['father', 'mother'])).toEqual(['grandmother']);
    expect(impliedWords(['son', 'brother'])).toEqual([]); // son is the key's own word
    // sister∘father is father, a word of the key itself: only the possessive check guards it.
    expect(impliedWords(['sister', 'father', 'sister'])).toEqual(['aunt']);
    expect(impliedWords(['son', 'sister', 'husband']).sort()).toEqual(['daughter', 'son-in-law']);
  });
});

describe('lintTemplate', () => {
  it('accepts a well-formed template', () => {
    expect(lint('father-mother', 'female', "{0}'s dad {1} took his mother {2} to the coast.")).toEqual([]);
    expect(lint('husband-son', 'female', '{0} is married to {1}, whose son {2} plays the oboe.')).toEqual([]);
  });

  it('rejects the implied relation and any other kinship term', () => {
    const t = '{0} visited her grandmother {2}, the mother of her father {1}.';
    expect(lint('father-mother', 'female', t).join()).toMatch(/says "grandmother"/);
    expect(statedImplied(['father', 'mother'], t.replace(/\{\d\}/g, 'X'))).toEqual(['grandmother']);
    expect(lint('son-brother', 'male', "{0}'s sons {1} and {2} went out; {1} is {2}'s brother.").join()).toMatch(
      /says "sons"/,
    );
    expect(lint('father', 'male', '{0} and his father {1} went to a cousin party.').join()).toMatch(/says "cousin"/);
    expect(lint('father', 'male', '{0} and his father {1} went to a wedding.').join()).toMatch(/says "wedding"/);
  });

  it('requires every fact, counted', () => {
    expect(lint('brother-brother', 'male', "{0}'s brother {1} met {2}.").join()).toMatch(
      /states "brother" 1 time but the key has it 2 times/,
    );
    expect(lint('mother', 'male', '{0} met {1}.').join()).toMatch(/states "mother" 0 times/);
  });

  it('rejects possessives that point the wrong way and "their <kin>"', () => {
    expect(lint('father', 'male', "{1}'s father {0} smiled.").join()).toMatch(/reads as a father of entity 1/);
    expect(lint('husband-son', 'female', '{0} and her husband {1} love their son {2}.').join()).toMatch(
      /more than one person/,
    );
  });

  it('rejects facts stated the wrong way round', () => {
    expect(lint('father', 'male', '{0} is the father of {1}.').join()).toMatch(/states a father that no fact/);
    expect(lint('father', 'male', '{1} has a father named {0}.').join()).toMatch(/states a father that no fact/);
    expect(lint('father-son', 'male', "{1} is {0}'s father, and {2}'s son {1} smiled.").join()).toMatch(/states a son/);
    expect(lint('father-son', 'female', '{0} hugged her father {1}, and {1} hugged his son {0}.').join()).toMatch(
      /states a son/,
    );
    expect(lint('father-son', 'male', '{0} has a father named {1}, and {2} is the son of {0}.').join()).toMatch(
      /states a son/,
    );
    expect(
      lint('son-uncle-daughter', 'male', "{0}'s son {1} sat beside {3}, the daughter of {1}'s uncle {2}."),
    ).toEqual([]);
  });

  it('checks pronouns against the genders present and their antecedents', () => {
    expect(lint('sister', 'female', '{0} and her sister {1} saw him.').join()).toMatch(
      /"him" comes before any male entity is named \(there is none\)/,
    );
    expect(lint('father', 'female', 'When her car broke, {0} rang her father {1}.').join()).toMatch(
      /"her" comes before any female entity/,
    );
    expect(lint('sister', 'female', '{0} and her sister {1} met a man.').join()).toMatch(
      /"man" but every entity is female/,
    );
  });

  it('checks the writing', () => {
    const all = (t: string) => lint('father', 'male', t).join(' | ');
    expect(all('{0}  met his father {1}.')).toMatch(/double space/);
    expect(all('{0} met his father {1} .')).toMatch(/space before punctuation/);
    expect(all('{0} met his father {1}. then they ate.')).toMatch(/a sentence starts with "t"/);
    expect(all('{0} met his father {1}')).toMatch(/does not end/);
    expect(all('{0} met his father {1} at a opera.')).toMatch(/"a opera" should be "an opera"/);
    expect(all('{0} said "hi" to his father {1}.')).toMatch(/quotation marks/);
    expect(all('{0} met his father {1}..')).toMatch(/doubled punctuation/);
  });
});
