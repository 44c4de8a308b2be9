import type { Gender, Predicate, RelationWord } from '../kinship/relations';

/**
 * Kinship vocabulary, for checking that a paraphrase states exactly its facts. A template may
 * use only the terms of its own facts' relation words (and, when one of them is husband or wife,
 * the marriage words); every other kinship term would state a relation the puzzle must leave
 * for the reader to infer.
 */

/** The terms that state each relation word; the word itself first. */
export const RELATION_TERMS: Readonly<Record<RelationWord, readonly string[]>> = {
  son: ['son'],
  daughter: ['daughter'],
  father: ['father', 'dad', 'daddy', 'papa'],
  mother: ['mother', 'mom', 'mum', 'mommy', 'mummy', 'mama'],
  husband: ['husband', 'hubby'],
  wife: ['wife'],
  brother: ['brother', 'bro'],
  sister: ['sister', 'sis'],
  grandson: ['grandson'],
  granddaughter: ['granddaughter'],
  grandfather: ['grandfather', 'grandpa', 'granddad', 'grandad'],
  grandmother: ['grandmother', 'grandma', 'granny', 'gran', 'nana'],
  'son-in-law': ['son-in-law'],
  'daughter-in-law': ['daughter-in-law'],
  'father-in-law': ['father-in-law'],
  'mother-in-law': ['mother-in-law'],
  nephew: ['nephew'],
  niece: ['niece', 'neice'],
  uncle: ['uncle'],
  aunt: ['aunt', 'auntie', 'aunty'],
};

/**
 * Words that state a marriage without saying which side is which; with the genders known,
 * "[Anne] is married to [Bob]" states that Bob is Anne's husband, so they count as stating a
 * husband or wife fact.
 */
export const MARRIAGE_TERMS: readonly string[] = ['married', 'marry', 'marries', 'marrying', 'wed', 'wedded', 'spouse'];

/** Words about a wedding or marriage that state no fact: allowed only beside a husband or wife fact. */
export const SPOUSE_TERMS: readonly string[] = [
  'marriage',
  'wedding',
  'bride',
  'groom',
  'newlywed',
  'newlyweds',
  'widow',
  'widower',
];

/**
 * Kinship terms that state no single fact of a key: plurals (which would state a relation for
 * every member of the group), ungendered or unmodelled relations. Never used in our bank.
 */
export const OTHER_KIN_TERMS: readonly string[] = [
  ...Object.values(RELATION_TERMS)
    .flat()
    .flatMap((t) => (t.endsWith('-in-law') ? [t.replace('-in-law', 's-in-law')] : [`${t}s`])),
  'wives',
  'grannies',
  'mommies',
  'mummies',
  'daddies',
  'aunties',
  'child',
  'children',
  'kid',
  'kids',
  'parent',
  'parents',
  'sibling',
  'siblings',
  'grandchild',
  'grandchildren',
  'grandkid',
  'grandkids',
  'grandparent',
  'grandparents',
  'grandmas',
  'grandpas',
  'cousin',
  'cousins',
  'in-law',
  'in-laws',
  'brother-in-law',
  'sister-in-law',
  'brothers-in-law',
  'sisters-in-law',
  'stepfather',
  'stepmother',
  'stepson',
  'stepdaughter',
  'stepbrother',
  'stepsister',
  'half-brother',
  'half-sister',
  'twin',
  'twins',
  'godfather',
  'godmother',
  'godson',
  'goddaughter',
  'fiance',
  'fiancee',
  'great-grandson',
  'great-granddaughter',
  'great-grandfather',
  'great-grandmother',
];

export type KinTermKind = 'relation' | 'marriage' | 'spouse' | 'other';

export interface KinTerm {
  readonly term: string;
  /** Where the term starts in the text. */
  readonly at: number;
  readonly kind: KinTermKind;
  /** For `relation` terms: the relation word the term states. */
  readonly word?: RelationWord;
}

const TERM_INFO: ReadonlyMap<string, { kind: KinTermKind; word?: RelationWord }> = new Map<
  string,
  { kind: KinTermKind; word?: RelationWord }
>([
  ...OTHER_KIN_TERMS.map((t) => [t, { kind: 'other' as const }] as const),
  ...SPOUSE_TERMS.map((t) => [t, { kind: 'spouse' as const }] as const),
  ...MARRIAGE_TERMS.map((t) => [t, { kind: 'marriage' as const }] as const),
  ...(Object.entries(RELATION_TERMS) as [RelationWord, readonly string[]][]).flatMap(([word, terms]) =>
    terms.map((t) => [t, { kind: 'relation' as const, word }] as const),
  ),
]);

// Longest first, so that `son-in-law` wins over `son` and `sister` over `sis`.
const TERM_RE = new RegExp(
  `(?<![a-z-])(${[...TERM_INFO.keys()]
    .sort((a, b) => b.length - a.length)
    .map((t) => t.replace(/-/g, '\\-'))
    .join('|')})(?![a-z-])`,
  'g',
);

/** The kinship terms of a text (case-insensitive, whole words; `father's` counts as `father`). */
export function kinTermsIn(text: string): KinTerm[] {
  const lower = text.toLowerCase();
  return [...lower.matchAll(TERM_RE)].map((m) => {
    const info = TERM_INFO.get(m[1]!)!;
    return { term: m[1]!, at: m.index, ...info };
  });
}

export const MALE_PRONOUNS: readonly string[] = ['he', 'him', 'his', 'himself'];
export const FEMALE_PRONOUNS: readonly string[] = ['she', 'her', 'hers', 'herself'];
/** Nouns that assume a person of that gender is in the scene. */
export const MALE_NOUNS: readonly string[] = ['man', 'boy', 'guy', 'gentleman', 'lad', 'fellow', 'sir'];
export const FEMALE_NOUNS: readonly string[] = ['woman', 'girl', 'lady', 'gal', 'madam'];

/**
 * The plural and collective kin words the wide files of the bank (bank/wide-*.json) may use, and
 * what each tells (lint.ts `readCollectives`, for the wide files only: the default bank still
 * refuses every plural). `pred`: what a member is to the group's owner ("A's sons B and C": B and
 * C are A's `child`); `gender`: the members' gender when the word says it (sons: male);
 * `mutual`: what the members are to one another when the word says it (sons are siblings,
 * parents are spouses; grandchildren may be cousins, so nothing).
 */
export interface CollectiveTerm {
  readonly pred: Predicate;
  readonly gender?: Gender;
  readonly mutual?: Predicate;
}

export const COLLECTIVE_TERMS: Readonly<Record<string, CollectiveTerm>> = {
  children: { pred: 'child', mutual: 'sibling' },
  kids: { pred: 'child', mutual: 'sibling' },
  sons: { pred: 'child', gender: 'male', mutual: 'sibling' },
  daughters: { pred: 'child', gender: 'female', mutual: 'sibling' },
  parents: { pred: 'inv-child', mutual: 'SO' },
  siblings: { pred: 'sibling', mutual: 'sibling' },
  brothers: { pred: 'sibling', gender: 'male', mutual: 'sibling' },
  sisters: { pred: 'sibling', gender: 'female', mutual: 'sibling' },
  grandchildren: { pred: 'grand' },
  grandkids: { pred: 'grand' },
  grandsons: { pred: 'grand', gender: 'male' },
  granddaughters: { pred: 'grand', gender: 'female' },
  grandparents: { pred: 'inv-grand' },
  grandfathers: { pred: 'inv-grand', gender: 'male' },
  grandmothers: { pred: 'inv-grand', gender: 'female' },
  nephews: { pred: 'un', gender: 'male' },
  nieces: { pred: 'un', gender: 'female' },
  uncles: { pred: 'inv-un', gender: 'male' },
  aunts: { pred: 'inv-un', gender: 'female' },
  'sons-in-law': { pred: 'in-law', gender: 'male' },
  'daughters-in-law': { pred: 'in-law', gender: 'female' },
  'parents-in-law': { pred: 'inv-in-law' },
};
