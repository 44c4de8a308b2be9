import { describe, expect, it } from 'vitest';
import { factSentences, impliedSentence } from '../../study/collect/clause';
import { checkParaphrase } from '../../study/collect/checks';
import { BAD_EXAMPLE, GOOD_EXAMPLE } from './CollectExamples';

describe('the good and bad examples shown to participants', () => {
  it('read as a trial shows facts', () => {
    expect(factSentences(GOOD_EXAMPLE.clause)).toEqual(['Tom is the brother of Lena.', 'Maria is the mother of Tom.']);
    expect(impliedSentence(GOOD_EXAMPLE.clause)).toBe('Maria is the mother of Lena.');
    expect(factSentences(BAD_EXAMPLE.clause)).toEqual(['Omar is the son of Greg.', 'Nina is the sister of Omar.']);
    expect(impliedSentence(BAD_EXAMPLE.clause)).toBe('Nina is the daughter of Greg.');
  });

  it('are judged by the live checks as the screen says: the good one passes, the bad one states the implied fact', () => {
    expect(checkParaphrase(GOOD_EXAMPLE.clause, GOOD_EXAMPLE.story)).toEqual([]);
    const codes = checkParaphrase(BAD_EXAMPLE.clause, BAD_EXAMPLE.story).map((p) => p.code);
    expect(codes).toContain('states-implied');
  });
});
