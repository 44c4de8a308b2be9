import { type Gender, GENDERS, type Predicate, type RelationWord, wordFor } from '../kinship/relations';
import { RULES } from '../kinship/rules';
import bank1 from './bank/bank-1.json' with { type: 'json' };
import bank2 from './bank/bank-2.json' with { type: 'json' };
import bank3 from './bank/bank-3.json' with { type: 'json' };
import { chainGenders, splitFComb, type TemplateBank } from './templates';

/**
 * Our own paraphrase bank (written for this project, not CLUTRR's crowd-sourced text), stored
 * in the original JSON shape under ./bank: bank-1.json for single facts, bank-2.json for the
 * decidable two-fact patterns, bank-3.json for the most common three-fact patterns at k = 3.
 * The files are kept in the loader's own form (canonical keys, every template valid, none twice,
 * no key in two files), which bank.test.ts checks with the loader a user's file goes through; so
 * they are used as they are, without checking some 1,800 templates again at every start (about
 * 10 ms of every command's start).
 */
export const OUR_BANK: TemplateBank = { ...bank1, ...bank2, ...bank3 };

/** A relation pattern with the genders of its chain's entities (first entity first). */
export interface GenderedPattern {
  readonly words: readonly RelationWord[];
  readonly genders: readonly Gender[];
  readonly fComb: string;
  readonly genderComb: string;
}

const SPOUSE: Predicate = 'SO';

function gendered(words: RelationWord[], first: Gender): GenderedPattern {
  const genders = chainGenders(words, first);
  return { words, genders, fComb: words.join('-'), genderComb: genders.join('-') };
}

/**
 * Every decidable two-fact pattern the generator can emit, from the rule base: each rule
 * `r1 ∘ r2` gendered by the middle and last entity (2 × 2 words), minus the patterns where a
 * spouse would have the spouse's own gender (son-husband, daughter-wife: the generator marries
 * people of the other gender), times the first entity's genders the generator allows (a wife's
 * first entity is male, a husband's female). 62 patterns, 112 gendered lists.
 */
export function twoFactPatterns(): GenderedPattern[] {
  const out: GenderedPattern[] = [];
  for (const rule of RULES) {
    const [r1, r2] = rule.body;
    for (const g1 of GENDERS) {
      for (const g2 of GENDERS) {
        // r2 = SO: the last entity is the spouse of the middle one, so of the other gender.
        if (r2 === SPOUSE && g1 === g2) continue;
        const words = [wordFor(r1, g1), wordFor(r2, g2)];
        for (const first of GENDERS) {
          if (r1 === SPOUSE && first === g1) continue;
          out.push(gendered(words, first));
        }
      }
    }
  }
  return out;
}

/**
 * The gendered lists of a bank: one entry per (f_comb, gender comb) with its template count.
 * Unknown keys (which a validated bank never has) are skipped.
 */
export function bankLists(bank: TemplateBank): (GenderedPattern & { readonly count: number })[] {
  const out: (GenderedPattern & { readonly count: number })[] = [];
  for (const [fComb, byGender] of Object.entries(bank)) {
    const split = splitFComb(fComb);
    if (!('words' in split)) continue;
    for (const [genderComb, list] of Object.entries(byGender)) {
      out.push({
        words: split.words,
        genders: genderComb.split('-') as Gender[],
        fComb,
        genderComb,
        count: list.length,
      });
    }
  }
  return out;
}
