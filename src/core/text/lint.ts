import { type Gender, parseWord, type Predicate, type RelationWord, wordFor } from '../kinship/relations';
import { compose } from '../kinship/rules';
import { FEMALE_NOUNS, FEMALE_PRONOUNS, kinTermsIn, MALE_NOUNS, MALE_PRONOUNS, RELATION_TERMS } from './lexicon';
import { placeholdersOf, PLACEHOLDER_RE, templateShapeProblems } from './templates';

/**
 * The writing rules of our paraphrase bank, checked per template (tests run them over the whole
 * bank). A template for relation words w0..wn-1 and entity genders g0..gn:
 *
 * - has the shape the loader accepts (every entity named, placeholders agree with the genders);
 * - is one or more plain sentences: starts with a capital or a placeholder, ends with . ! or ?,
 *   no double spaces, no space before punctuation, no quotes, a/an agree;
 * - states every fact: each relation word's terms (RELATION_TERMS; for husband and wife also
 *   MARRIAGE_TERMS such as "married") occur at least as often as the word occurs in the key;
 * - uses no other kinship term: nothing outside its own facts' terms (marriage words only when a
 *   fact is husband or wife), so it never states a relation the reader should infer;
 * - never writes `their <term>` (or our, my, your), which would state a relation for two people;
 * - never writes `ENT_j's <term of w>` unless some fact goes from entity j with word w, and
 *   states facts the right way round ("X is the father of Y" only for a fact Y → X);
 * - pronouns agree: he/him/his/himself only when a male entity has been named before them,
 *   she/her/hers/herself only after a female one; man/boy/woman/girl... only when an entity
 *   of that gender is in the key.
 */
export function lintTemplate(words: readonly RelationWord[], genders: readonly Gender[], template: string): string[] {
  const problems = [...templateShapeProblems(template, genders)];
  problems.push(...formatProblems(template));
  problems.push(...factProblems(words, template));
  problems.push(...pronounProblems(genders, template));
  return problems;
}

function formatProblems(t: string): string[] {
  const out: string[] = [];
  if (t !== t.trim()) out.push('has leading or trailing spaces');
  if (/\s{2,}/.test(t)) out.push('has a double space');
  if (/\s[.,;:!?]/.test(t)) out.push('has a space before punctuation');
  if (/[.,;:!?]{2,}/.test(t.replace(/[!?]+$/, ''))) out.push('has doubled punctuation');
  if (/["“”‘’`]/.test(t)) out.push('uses quotation marks');
  if (!/[.!?]$/.test(t)) out.push('does not end with . ! or ?');
  if (!/^(ENT_\d|[A-Z])/.test(t)) out.push('does not start with a capital or a name');
  for (const m of t.matchAll(/[.!?] +(\S)/g)) {
    if (
      !/[A-Z]/.test(m[1]!) &&
      !t
        .slice(m.index + 1)
        .trimStart()
        .startsWith('ENT_')
    ) {
      out.push(`a sentence starts with "${m[1]}"`);
    }
  }
  if (/[.!?,;:][A-Za-z]/.test(t)) out.push('has no space after punctuation');
  for (const m of t.matchAll(PLACEHOLDER_RE)) {
    const after = t.slice(m.index + m[0].length);
    if (/^[A-Za-z0-9_]/.test(after) || /^'(?!s\b)/.test(after)) out.push(`text runs into ${m[0]}`);
  }
  for (const m of t.matchAll(/\b(a|an|A|An) ([A-Za-z]+)/g)) {
    const next = m[2]!.toLowerCase();
    const vowel = /^[aeiou]/.test(next) && !/^(one|once|uni|use|usu|eu)/.test(next);
    const silentH = /^(hour|honest|honou?r)/.test(next);
    if (m[1]!.toLowerCase() === 'a' && (vowel || silentH)) out.push(`"a ${m[2]}" should be "an ${m[2]}"`);
    if (m[1]!.toLowerCase() === 'an' && !vowel && !silentH) out.push(`"an ${m[2]}" should be "a ${m[2]}"`);
  }
  return out;
}

function factProblems(words: readonly RelationWord[], template: string): string[] {
  const out: string[] = [];
  const text = template.replace(PLACEHOLDER_RE, (ph) => ph.replace(/_/g, '#'));
  const terms = kinTermsIn(text);
  const hasSpouse = words.some((w) => w === 'husband' || w === 'wife');
  const count = new Map<RelationWord, number>();
  // "married" can stand for either spouse fact: it fills whichever is short.
  let marriages = 0;
  for (const t of terms) {
    if (t.kind === 'relation' && words.includes(t.word!)) count.set(t.word!, (count.get(t.word!) ?? 0) + 1);
    else if (t.kind === 'marriage' && hasSpouse) marriages++;
    else if (t.kind === 'spouse' && hasSpouse) continue;
    else out.push(`says "${t.term}", which is not one of its facts (${words.join('-')})`);
  }
  const needed = new Map<RelationWord, number>();
  for (const w of words) needed.set(w, (needed.get(w) ?? 0) + 1);
  for (const [w, n] of needed) {
    let have = count.get(w) ?? 0;
    if ((w === 'husband' || w === 'wife') && have < n) {
      const used = Math.min(marriages, n - have);
      marriages -= used;
      have += used;
    }
    if (have < n)
      out.push(`states "${w}" ${have} time${have === 1 ? '' : 's'} but the key has it ${n} time${n === 1 ? '' : 's'}`);
  }
  // "their son" makes the son both people's: a relation the reader should infer, not be told.
  for (const m of template.matchAll(/\b(their|our|my|your)((?: [a-z-]+){1,3})/gi)) {
    if (kinTermsIn(m[2]!).length > 0) out.push(`"${m[0]}" gives a relation to more than one person`);
  }
  // Possessives point from the fact's first entity: "ENT_0's father" in a key whose fact 0 is father.
  for (const m of template.matchAll(/ENT_(\d+)_[a-z]+'s((?: [a-z-]+){1,3})/g)) {
    const j = Number(m[1]);
    const found = kinTermsIn(m[2]!).find((t) => t.kind === 'relation');
    if (!found) continue;
    const ok = words.some((w, i) => i === j && w === found.word);
    if (!ok) out.push(`"${m[0]}" reads as a ${found.word} of entity ${j}, which no fact says`);
  }
  out.push(...directionProblems(words, template));
  return out;
}

const ENT = String.raw`ENT_(\d+)_(?:male|female)\b(?!')`;
const TERM = String.raw`((?:[a-z-]+ )?[a-z-]+)`;

/**
 * The common ways of stating a fact must point the right way: "X is the <w> of Y", "X, the <w>
 * of Y", "Y has a <w> named X", "Y's <w> X" need a fact Y → X with word w; "his <w> X" needs
 * some fact → X with word w.
 */
function directionProblems(words: readonly RelationWord[], template: string): string[] {
  const out: string[] = [];
  const relationIn = (phrase: string) => kinTermsIn(phrase.split(' ').pop()!).find((t) => t.kind === 'relation');
  const check = (text: string, from: number | undefined, to: number, phrase: string) => {
    const term = relationIn(phrase);
    if (!term) return;
    const ok = words.some((w, i) => w === term.word && i + 1 === to && (from === undefined || i === from));
    if (!ok) out.push(`"${text}" states a ${term.word} that no fact of the key states`);
  };
  for (const m of template.matchAll(new RegExp(`${ENT}(?:,| is) (?:the|a|an) ${TERM} of ${ENT}`, 'g'))) {
    check(m[0], Number(m[3]), Number(m[1]), m[2]!);
  }
  for (const m of template.matchAll(new RegExp(`${ENT} has (?:a|an) ${TERM} (?:named|called|who is) ${ENT}`, 'g'))) {
    check(m[0], Number(m[1]), Number(m[3]), m[2]!);
  }
  for (const m of template.matchAll(new RegExp(`${ENT.replace("(?!')", '')}'s ${TERM},? ${ENT}`, 'g'))) {
    check(m[0], Number(m[1]), Number(m[3]), m[2]!);
  }
  for (const m of template.matchAll(new RegExp(`\\b(?:his|her) ${TERM},? ${ENT}`, 'gi'))) {
    check(m[0], undefined, Number(m[2]), m[1]!);
  }
  return out;
}

/**
 * The words of every relation the rule base derives over the key's spans of two or more facts,
 * gendered by the span's last entity, minus the key's own words: a template must not say them.
 */
export function impliedWords(words: readonly RelationWord[]): RelationWord[] {
  const preds = words.map((w) => parseWord(w)!.predicate);
  const genders = words.map((w) => parseWord(w)!.gender);
  const n = words.length;
  // span[i][j]: predicates derivable for facts i..j (CYK over all bracketings).
  const span: Set<Predicate>[][] = Array.from({ length: n }, () => Array.from({ length: n }, () => new Set()));
  for (let i = 0; i < n; i++) span[i]![i]!.add(preds[i]!);
  const out = new Set<RelationWord>();
  for (let len = 2; len <= n; len++) {
    for (let i = 0; i + len <= n; i++) {
      const j = i + len - 1;
      for (let s = i; s < j; s++) {
        for (const a of span[i]![s]!) {
          for (const b of span[s + 1]![j]!) {
            const c = compose(a, b);
            if (c) {
              span[i]![j]!.add(c);
              out.add(wordFor(c, genders[j]!));
            }
          }
        }
      }
    }
  }
  return [...out].filter((w) => !words.includes(w));
}

/** Terms of the implied relations (see impliedWords) that a template uses. */
export function statedImplied(words: readonly RelationWord[], template: string): string[] {
  const banned = new Set(impliedWords(words).flatMap((w) => RELATION_TERMS[w]));
  return kinTermsIn(template.replace(PLACEHOLDER_RE, '#'))
    .filter((t) => banned.has(t.term))
    .map((t) => t.term);
}

function pronounProblems(genders: readonly Gender[], template: string): string[] {
  const out: string[] = [];
  const phs = placeholdersOf(template);
  const firstOf = (g: Gender): number => phs.find((p) => p.gender === g)?.at ?? Infinity;
  const firstMale = firstOf('male');
  const firstFemale = firstOf('female');
  for (const m of template.matchAll(/[A-Za-z]+/g)) {
    const w = m[0].toLowerCase();
    if (MALE_PRONOUNS.includes(w) && m.index < firstMale) {
      out.push(`"${m[0]}" comes before any male entity is named${genders.includes('male') ? '' : ' (there is none)'}`);
    }
    if (FEMALE_PRONOUNS.includes(w) && m.index < firstFemale) {
      out.push(
        `"${m[0]}" comes before any female entity is named${genders.includes('female') ? '' : ' (there is none)'}`,
      );
    }
    if (MALE_NOUNS.includes(w) && !genders.includes('male')) out.push(`"${m[0]}" but every entity is female`);
    if (FEMALE_NOUNS.includes(w) && !genders.includes('female')) out.push(`"${m[0]}" but every entity is male`);
  }
  return out;
}
