import { describe, expect, it } from 'vitest';
import { GENDERS, RELATION_WORDS } from '../kinship/relations';
import { generatePuzzle } from '../puzzle/puzzle';
import { bankLists, OUR_BANK, twoFactPatterns } from './bank';
import bank1 from './bank/bank-1.json';
import bank2 from './bank/bank-2.json';
import bank3 from './bank/bank-3.json';
import { FEMALE_PRONOUNS, kinTermsIn, MALE_PRONOUNS } from './lexicon';
import { lintTemplate, statedImplied } from './lint';
import { templateStats } from './stats';
import { mergeBanks, parseTemplateData, placeholdersOf, templatesFor, validateTemplateData } from './templates';

/** Every template of our bank with its key. */
const ALL = bankLists(OUR_BANK).flatMap((l) =>
  templatesFor(OUR_BANK, l.fComb, l.genderComb).map((template) => ({ ...l, template })),
);
const label = (t: (typeof ALL)[number]) => `${t.fComb} ${t.genderComb}: ${t.template}`;

describe('our paraphrase bank: shape', () => {
  it('every file parses with no problem at all, into itself (the form OUR_BANK uses unchecked)', () => {
    for (const data of [bank1, bank2, bank3]) {
      const { bank, problems } = validateTemplateData(data);
      expect(problems).toEqual([]);
      expect(bank).toEqual(data);
    }
  });

  it("is the three files merged as a user's template files are, no key in two of them", () => {
    const keys = [bank1, bank2, bank3].flatMap((b) => Object.keys(b));
    expect(new Set(keys).size).toBe(keys.length);
    // Key order too: templates are drawn by position.
    const merged = mergeBanks(...[bank1, bank2, bank3].map((b) => parseTemplateData(b)));
    expect(JSON.stringify(OUR_BANK)).toBe(JSON.stringify(merged));
  });

  it('bank-n.json holds keys of n facts', () => {
    for (const [n, data] of [bank1, bank2, bank3].entries()) {
      for (const l of bankLists(validateTemplateData(data).bank)) expect(l.words, l.fComb).toHaveLength(n + 1);
    }
  });

  it('has over 1,000 paraphrases, no template twice', () => {
    expect(ALL.length).toBeGreaterThan(1000);
    expect(new Set(ALL.map((t) => t.template)).size).toBe(ALL.length);
  });
});

describe('our paraphrase bank: coverage', () => {
  it('every relation word, for both genders of the first entity, has at least 8 paraphrases', () => {
    for (const word of RELATION_WORDS) {
      for (const first of GENDERS) {
        const l = bankLists(OUR_BANK).find((x) => x.fComb === word && x.genders[0] === first);
        expect(l?.count ?? 0, `${word} ${first}`).toBeGreaterThanOrEqual(8);
      }
    }
  });

  it('lists the 62 decidable two-fact patterns of the rule base', () => {
    const patterns = twoFactPatterns();
    expect(new Set(patterns.map((p) => p.fComb)).size).toBe(62);
    expect(patterns.map((p) => p.fComb)).not.toContain('son-husband');
    expect(patterns.map((p) => p.fComb)).not.toContain('daughter-wife');
  });

  it('every two-fact pattern, for every first-entity gender the generator allows, has at least 3 paraphrases', () => {
    for (const p of twoFactPatterns()) {
      expect(templatesFor(OUR_BANK, p.fComb, p.genderComb).length, `${p.fComb} ${p.genderComb}`).toBeGreaterThanOrEqual(
        3,
      );
    }
  });

  it('every two-fact pattern the generator emits at k = 2 is in twoFactPatterns', () => {
    const known = new Set(twoFactPatterns().map((p) => `${p.fComb} ${p.genderComb}`));
    for (let s = 0; s < 300; s++) {
      const p = generatePuzzle({ seed: `bank-k2-${s}`, k: 2, task: 1 });
      const key = `${p.pattern} ${[0, 1, 2].map((i) => p.entities[i]!.gender).join('-')}`;
      expect(known.has(key), key).toBe(true);
    }
  });

  it('has at least 100 three-fact patterns, each list with at least 2 paraphrases', () => {
    const three = bankLists(OUR_BANK).filter((l) => l.words.length === 3);
    expect(new Set(three.map((l) => l.fComb)).size).toBeGreaterThanOrEqual(100);
    for (const l of three) expect(l.count, `${l.fComb} ${l.genderComb}`).toBeGreaterThanOrEqual(2);
  });

  it('three-fact patterns cover most stories at k = 3', () => {
    let covered = 0;
    const n = 400;
    for (let s = 0; s < n; s++) {
      const p = generatePuzzle({ seed: `bank-k3-${s}`, k: 3, task: 1 });
      const genders = [0, 1, 2, 3].map((i) => p.entities[i]!.gender).join('-');
      if (templatesFor(OUR_BANK, p.pattern, genders).length > 0) covered++;
    }
    expect(covered / n).toBeGreaterThan(0.6); // about 72% of 5,000 stories at the time of writing
  });

  it('is at least as diverse as the original (mean within-key unigram overlap at most 0.25)', () => {
    const s = templateStats(OUR_BANK);
    expect(s.total.jaccard1).toBeLessThanOrEqual(0.25);
    expect(s.bySize[1].keys).toBe(20);
    expect(s.bySize[2].keys).toBe(62);
  });
});

describe('our paraphrase bank: writing rules (every template)', () => {
  it('passes lintTemplate: shape, punctuation, facts stated, no other kinship term, pronouns', () => {
    const bad = ALL.map((t) => ({ t, problems: lintTemplate(t.words, t.genders, t.template) })).filter(
      (x) => x.problems.length,
    );
    expect(bad.map((x) => `${label(x.t)} → ${x.problems.join('; ')}`)).toEqual([]);
  });

  it('names each of its entities at least once', () => {
    for (const t of ALL) {
      const named = new Set(placeholdersOf(t.template).map((p) => p.index));
      expect(named.size, label(t)).toBe(t.words.length + 1);
    }
  });

  it('never says the relation the reader should infer (compose over the key and its sub-spans)', () => {
    const bad = ALL.filter((t) => t.words.length > 1 && statedImplied(t.words, t.template).length > 0);
    expect(bad.map(label)).toEqual([]);
  });

  it('states every fact: each relation word (or a synonym) at least as often as the key has it', () => {
    for (const t of ALL) {
      const stated = kinTermsIn(t.template.replace(/ENT_\d+_[a-z]+/g, '#'));
      for (const w of new Set(t.words)) {
        const needed = t.words.filter((x) => x === w).length;
        const have =
          stated.filter((s) => s.word === w).length +
          (w === 'husband' || w === 'wife' ? stated.filter((s) => s.kind === 'marriage').length : 0);
        expect(have, `${label(t)}: ${w}`).toBeGreaterThanOrEqual(needed);
      }
    }
  });

  it('uses only pronouns of the genders present, after a name of that gender', () => {
    const words = (t: string) => t.toLowerCase().match(/[a-z]+/g) ?? [];
    for (const t of ALL) {
      const w = words(t.template);
      if (!t.genders.includes('male'))
        expect(
          w.filter((x) => MALE_PRONOUNS.includes(x)),
          label(t),
        ).toEqual([]);
      if (!t.genders.includes('female'))
        expect(
          w.filter((x) => FEMALE_PRONOUNS.includes(x)),
          label(t),
        ).toEqual([]);
      const firstOf = (g: string) => t.template.indexOf(`_${g}`);
      for (const m of t.template.matchAll(/\b(he|him|his|himself|she|her|hers|herself)\b/gi)) {
        const g = MALE_PRONOUNS.includes(m[1]!.toLowerCase()) ? 'male' : 'female';
        expect(firstOf(g), label(t)).toBeGreaterThanOrEqual(0);
        expect(firstOf(g), label(t)).toBeLessThan(m.index);
      }
    }
  });
});
