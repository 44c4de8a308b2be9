import { describe, expect, it } from 'vitest';
import { ANSWER_WORDS, answerWordOf, extractAnswer } from './answers';

/** Replies as models write them, and what a careful grader reads in each. */
const TABLE: readonly [string, string, string | null][] = [
  // Plain answers.
  ['plain word', 'aunt', 'aunt'],
  ['capitalised with a period', 'Grandmother.', 'grandmother'],
  ['markdown bold', '**Son-in-law**', 'son-in-law'],
  ['spaces instead of hyphens', 'son in law', 'son-in-law'],
  ['sentence', 'Gina is the sister of Edith.', 'sister'],
  ['possessive', "She is Edith's niece.", 'niece'],
  ["the release's misspelling", 'neice', 'niece'],
  ['plural', 'They are nephews.', 'nephew'],
  ['plural in-law', 'mothers-in-law', 'mother-in-law'],
  ['synonym mom', 'Her mom.', 'mother'],
  ['synonym grandpa', 'Grandpa', 'grandfather'],
  ['synonym auntie', 'auntie', 'aunt'],
  ['spaced grand-daughter', 'grand daughter', 'granddaughter'],
  ['answer marker first', 'Answer: father-in-law (the father of his wife)', 'father-in-law'],
  ['quoted', 'The answer is "uncle".', 'uncle'],
  ['unicode dash', 'daughter\u2011in\u2011law', 'daughter-in-law'],
  // Chain of thought with several relations: the conclusion, not the first word.
  ['cot, last relation', "Edith's brother is Russell. Russell's sister is Gina. So Gina is Edith's sister.", 'sister'],
  [
    'cot with an answer line, then an explanation',
    "Step 1: Harvey is the son of Grace.\nStep 2: Grace is the wife of Eugene, so Harvey is Eugene's son.\nStep 3: Eugene is Daisy's brother.\nAnswer: nephew",
    'nephew',
  ],
  [
    'cot, final answer marker before a parenthesis naming other relations',
    'Brenda is the mother of Fiona, and Fiona is the wife of Eli.\n\nFinal answer: mother-in-law (his wife\u2019s mother)',
    'mother-in-law',
  ],
  ['grandmother is not mother', "So Carol is Anna's grandmother", 'grandmother'],
  ['mother-in-law is not mother', "Carol is Anna's mother-in-law", 'mother-in-law'],
  // Refusals and noise.
  ['refusal', "I'm sorry, but I can't determine that from the information given.", null],
  ['empty', '', null],
  ['only a relation outside the 18', 'He is her husband.', null],
  ['cot ending on husband', "Mary's brother is Tom... so John is Mary's husband.", null],
  ['other language noise around the word', 'La respuesta es: tía (aunt).', 'aunt'],
  ['cjk noise', '答案：granddaughter', 'granddaughter'],
  ['an answer line naming none of the 18', 'The story mentions a mother and a brother.\nAnswer: unknown', null],
  ['answer on the line after the marker', 'Reasoning: her mother is his sister.\nFinal answer:\n**Niece**', 'niece'],
  ['"answer" without a marker form', 'The answer depends on the marriage: Carol is his aunt.', 'aunt'],
  ['other language only', 'Sie ist seine Tante.', null],
  ['gender-neutral only', 'They are siblings.', null],
  ['names that contain a word', 'Sonia and Brotherton went home.', null],
];

describe('extractAnswer', () => {
  it.each(TABLE)('%s', (_what, reply, want) => {
    const got = extractAnswer(reply);
    if (want === null) {
      expect(got.kind).toBe('unparseable');
      if (got.kind === 'unparseable') expect(got.reason).toMatch(/18/);
    } else {
      expect(got).toEqual({ kind: 'answer', word: want });
    }
  });

  it('reads each of the 18 words, upper case and plural, as itself', () => {
    expect(ANSWER_WORDS).toHaveLength(18);
    for (const w of ANSWER_WORDS) {
      expect(extractAnswer(w.toUpperCase())).toEqual({ kind: 'answer', word: w });
      const plural = w.endsWith('-in-law') ? w.replace(/-in-law$/, 's-in-law') : `${w}s`;
      expect(extractAnswer(`they are ${plural}`)).toEqual({ kind: 'answer', word: w });
    }
  });

  it('reads a gold word, neice as niece, and nothing outside the 18', () => {
    expect(answerWordOf('neice')).toBe('niece');
    expect(answerWordOf(' Aunt ')).toBe('aunt');
    expect(answerWordOf('husband')).toBeNull();
  });
});
