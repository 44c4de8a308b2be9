import { describe, expect, it } from 'vitest';
import { OUR_BANK, bankLists } from './bank';
import { lintWideTemplate, toldImplied } from './lint';
import { kinTermsIn } from './lexicon';
import { templatesFor, validateTemplateData, mergeBanks, parseTemplateData } from './templates';
import { WIDE_BANK, WIDE_FILES } from './wideBank';
import wide1 from './bank/wide-1.json';
import wide2 from './bank/wide-2.json';
import wide3 from './bank/wide-3.json';

const WIDE_ONLY = mergeBanks(...WIDE_FILES);
const ALL = bankLists(WIDE_ONLY).flatMap((l) =>
  templatesFor(WIDE_ONLY, l.fComb, l.genderComb).map((template) => ({ ...l, template })),
);
const label = (t: (typeof ALL)[number]) => `${t.fComb} ${t.genderComb}: ${t.template}`;

describe('the wide files of our bank', () => {
  it('every file parses with no problem, into itself, wide-n.json holding keys of n facts', () => {
    for (const [n, data] of [wide1, wide2, wide3].entries()) {
      const { bank, problems } = validateTemplateData(data);
      expect(problems).toEqual([]);
      expect(bank).toEqual(data);
      for (const l of bankLists(bank)) expect(l.words, l.fComb).toHaveLength(n + 1);
    }
  });

  it('every template passes lintWideTemplate (collectives read and true, every fact stated)', () => {
    const bad = ALL.map((t) => ({ t, problems: lintWideTemplate(t.words, t.genders, t.template) })).filter(
      (x) => x.problems.length,
    );
    expect(bad.map((x) => `${label(x.t)} → ${x.problems.join('; ')}`)).toEqual([]);
  });

  it('every template uses a plural or collective kin word, and none is in the default bank', () => {
    const plural =
      /\b(children|kids|sons|daughters|parents|siblings|brothers|sisters|grandchildren|grandkids|grandsons|granddaughters|grandparents|grandfathers|grandmothers|nephews|nieces|uncles|aunts|sons-in-law|daughters-in-law|parents-in-law)\b/;
    for (const t of ALL) {
      expect(plural.test(t.template), label(t)).toBe(true);
      expect(templatesFor(OUR_BANK, t.fComb, t.genderComb), label(t)).not.toContain(t.template);
    }
    expect(new Set(ALL.map((t) => t.template)).size).toBe(ALL.length);
  });

  it('only keys of the default bank, so the wide bank adds wording, not patterns', () => {
    for (const l of bankLists(WIDE_ONLY))
      expect(templatesFor(OUR_BANK, l.fComb, l.genderComb).length, l.fComb).toBeGreaterThan(0);
  });

  it('WIDE_BANK is our bank with the wide paraphrases appended to its lists', () => {
    expect(JSON.stringify(WIDE_BANK)).toBe(
      JSON.stringify(mergeBanks(OUR_BANK, ...WIDE_FILES.map((f) => parseTemplateData(f)))),
    );
    for (const l of bankLists(OUR_BANK)) {
      const ours = templatesFor(OUR_BANK, l.fComb, l.genderComb);
      expect(templatesFor(WIDE_BANK, l.fComb, l.genderComb).slice(0, ours.length)).toEqual(ours);
    }
  });

  it('the two-fact collectives tell the derived relation too (counted, as people write them)', () => {
    const two = ALL.filter((t) => t.words.length === 2);
    const implied = two.filter((t) => toldImplied(t.words, t.genders, t.template).length > 0);
    expect(implied.length).toBeGreaterThan(0);
    // None states a derived relation with an ordinary singular term.
    for (const t of two) {
      const singular = kinTermsIn(t.template.replace(/ENT_\d+_[a-z]+/g, '#')).filter((k) => k.kind === 'relation');
      for (const k of singular) expect(t.words, label(t)).toContain(k.word);
    }
  });
});
