/**
 * The relation vocabulary of CLUTRR.
 *
 * A story fact `(A, word, B)` reads "B is A's word". The rule base works on ten gender-neutral
 * predicates; the gendered word is chosen by the gender of B. Predicates are also given small
 * integer codes (1..10, 0 = no relation) so that graphs can live in typed arrays.
 */

export const GENDERS = ['male', 'female'] as const;
export type Gender = (typeof GENDERS)[number];

export const PREDICATES = [
  'child',
  'inv-child',
  'SO',
  'sibling',
  'grand',
  'inv-grand',
  'in-law',
  'inv-in-law',
  'un',
  'inv-un',
] as const;
export type Predicate = (typeof PREDICATES)[number];

/** Gendered words per predicate: [word when B is male, word when B is female]. */
export const PREDICATE_WORDS = {
  child: ['son', 'daughter'],
  'inv-child': ['father', 'mother'],
  SO: ['husband', 'wife'],
  sibling: ['brother', 'sister'],
  grand: ['grandson', 'granddaughter'],
  'inv-grand': ['grandfather', 'grandmother'],
  'in-law': ['son-in-law', 'daughter-in-law'],
  'inv-in-law': ['father-in-law', 'mother-in-law'],
  un: ['nephew', 'niece'],
  'inv-un': ['uncle', 'aunt'],
} as const satisfies Record<Predicate, readonly [string, string]>;

export type RelationWord = (typeof PREDICATE_WORDS)[Predicate][number];

export const INVERSE = {
  child: 'inv-child',
  'inv-child': 'child',
  SO: 'SO',
  sibling: 'sibling',
  grand: 'inv-grand',
  'inv-grand': 'grand',
  'in-law': 'inv-in-law',
  'inv-in-law': 'in-law',
  un: 'inv-un',
  'inv-un': 'un',
} as const satisfies Record<Predicate, Predicate>;

/** All twenty relation words, in predicate order, male before female. */
export const RELATION_WORDS: readonly RelationWord[] = PREDICATES.flatMap(
  (p) => PREDICATE_WORDS[p] as readonly RelationWord[],
);

/** Spellings seen in released CLUTRR files that mean one of our words. */
export const WORD_ALIASES: Readonly<Record<string, RelationWord>> = {
  neice: 'niece',
};

/** Integer code of a predicate: 1..10 (0 means "no relation" in typed-array graphs). */
export type PredCode = number;

export const PRED_CODE: Readonly<Record<Predicate, PredCode>> = Object.fromEntries(
  PREDICATES.map((p, i) => [p, i + 1]),
) as Record<Predicate, PredCode>;

export function predicateOf(code: PredCode): Predicate {
  const p = PREDICATES[code - 1];
  if (p === undefined) throw new RangeError(`not a predicate code: ${code}`);
  return p;
}

/** Inverse by code; index 0 maps to 0. */
export const INVERSE_CODE: Uint8Array = (() => {
  const t = new Uint8Array(PREDICATES.length + 1);
  for (const p of PREDICATES) t[PRED_CODE[p]] = PRED_CODE[INVERSE[p]];
  return t;
})();

/** The gendered word for predicate `p` when the second entity has gender `g`. */
export function wordFor(p: Predicate, g: Gender): RelationWord {
  return PREDICATE_WORDS[p][g === 'male' ? 0 : 1];
}

/**
 * wordFor(predicateOf(code), g) without looking the predicate's name up in PREDICATE_WORDS (a
 * keyed lookup): for the generator, which holds predicates as codes. RELATION_WORDS is in code
 * order, male before female.
 */
export function wordForCode(code: PredCode, g: Gender): RelationWord {
  const w = RELATION_WORDS[2 * code - (g === 'male' ? 2 : 1)];
  if (w === undefined) throw new RangeError(`not a predicate code: ${code}`);
  return w;
}

const WORD_INFO: ReadonlyMap<string, { predicate: Predicate; gender: Gender }> = new Map(
  PREDICATES.flatMap((p) => [
    [PREDICATE_WORDS[p][0], { predicate: p, gender: 'male' as Gender }],
    [PREDICATE_WORDS[p][1], { predicate: p, gender: 'female' as Gender }],
  ]),
);

/** Predicate and implied gender of B for a relation word (aliases such as `neice` accepted). */
export function parseWord(word: string): { predicate: Predicate; gender: Gender } | undefined {
  return WORD_INFO.get(WORD_ALIASES[word] ?? word);
}
