import { type Gender, INVERSE, parseWord, type Predicate, type RelationWord, wordFor } from '../kinship/relations';
import { compose, RULES } from '../kinship/rules';
import {
  COLLECTIVE_TERMS,
  FEMALE_NOUNS,
  FEMALE_PRONOUNS,
  kinTermsIn,
  MALE_NOUNS,
  MALE_PRONOUNS,
  RELATION_TERMS,
} from './lexicon';
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

function factProblems(
  words: readonly RelationWord[],
  template: string,
  /** Facts told by collectives (wide files only): how many of the key's facts of each word. */
  told: ReadonlyMap<RelationWord, number> = new Map(),
): string[] {
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
    let have = (count.get(w) ?? 0) + (told.get(w) ?? 0);
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

// ---------------------------------------------------------------------------------------------
// The wide files (bank/wide-*.json): plural and collective kin words, read by a precise rule.

/** A relation a collective phrase tells: `to` is `from`'s `word` (entity indices of the key). */
export interface ToldFact {
  readonly from: number;
  readonly to: number;
  readonly word: RelationWord;
  /** The phrase that tells it. */
  readonly phrase: string;
}

const PH = String.raw`ENT_\d+_(?:male|female)`;
const OWNER = String.raw`(?:${PH}'s|[Hh]is|[Hh]er)`;
const PLURAL = `(?:${Object.keys(COLLECTIVE_TERMS)
  .sort((a, b) => b.length - a.length)
  .map((t) => t.replace(/-/g, '\\-'))
  .join('|')})(?![a-z-])`;
/** A member: a name, or a name after "his sister" / "[Ann]'s husband" (that term is an ordinary fact). */
const ITEM = String.raw`(?:(?:[Hh]is|[Hh]er|${PH}'s) [a-z-]+ )?${PH}`;
const LIST = `${ITEM}(?:, ${ITEM})*,? and ${ITEM}`;
const ALL = '(?:both |all )?';

/**
 * The collective phrasings the lint reads, most specific first. Groups: `owner` (whose the
 * group is: a name's, his, her), `pl` (the collective word), `list` (two or more members) or
 * `member` (one, with "one of"). Any other use of a collective word is a problem.
 */
const COLLECTIVE_PATTERNS: readonly RegExp[] = [
  `(?<member>${PH}) is one of (?<owner>${OWNER}) (?<pl>${PLURAL})`,
  `(?<member>${PH}), one of (?<owner>${OWNER}) (?<pl>${PLURAL})`,
  `[Oo]ne of (?<owner>${OWNER}) (?<pl>${PLURAL}), (?<member>${PH})`,
  `(?:[Oo]f all|[Aa]mong) (?<owner>${OWNER}) (?<pl>${PLURAL}), (?<member>${PH})`,
  `(?<owner>${PH}) has (?:two|three|four|five) (?<pl>${PLURAL}),? (?:named |called )?(?<list>${LIST})`,
  `(?<list>${LIST}) are ${ALL}(?<owner>${OWNER}) (?<pl>${PLURAL})`,
  `(?<list>${LIST}) are ${ALL}(?:the )?(?<pl>${PLURAL}) of (?<owner>${PH})`,
  `(?<list>${LIST}) are ${ALL}(?<pl>${PLURAL})(?! of)`,
  `(?<owner>${OWNER}) (?<pl>${PLURAL}),? (?:named |called )?(?<list>${LIST})`,
].map((p) => new RegExp(p, 'gd'));

const entityOf = (ph: string): number => Number(/ENT_(\d+)/.exec(ph)![1]);

/**
 * What the collective phrases of a template tell, by one rule: in "A's <word> B and C" (or "B and
 * C are A's <word>", "B and C are the <word> of A", "A has two <word>, B and C", "B is one of A's
 * <word>", "one of A's <word>, B", "of all A's <word>, B"), every member is A's relation of the
 * word's predicate (COLLECTIVE_TERMS: sons → son, parents → father or mother by the member's
 * gender), and, when the word says so, the members are that to one another (sons and children:
 * siblings; parents: spouses). "B and C are siblings" (brothers, sisters) tells only the mutual
 * relation. "his"/"her" as owner must point to the one entity of that gender named before it.
 * `masked`: the template with every read collective word replaced, for the other checks.
 */
export function readCollectives(
  genders: readonly Gender[],
  template: string,
): { told: ToldFact[]; masked: string; problems: string[] } {
  const told: ToldFact[] = [];
  const problems: string[] = [];
  const consumed = new Set<number>();
  const phs = placeholdersOf(template);
  for (const re of COLLECTIVE_PATTERNS) {
    for (const m of template.matchAll(re)) {
      const g = m.groups!;
      const plAt = m.indices!.groups!.pl![0];
      if (consumed.has(plAt)) continue;
      consumed.add(plAt);
      const term = COLLECTIVE_TERMS[g.pl!]!;
      const phrase = m[0];
      const members = g.member
        ? [entityOf(g.member)]
        : [...g.list!.matchAll(/ENT_(\d+)_[a-z]+(?!')/g)].map((x) => Number(x[1]));
      let owner: number | undefined;
      if (g.owner) {
        if (g.owner.startsWith('ENT_')) owner = entityOf(g.owner);
        else {
          const gender: Gender = g.owner.toLowerCase() === 'his' ? 'male' : 'female';
          const ownerAt = m.indices!.groups!.owner![0];
          const before = new Set(phs.filter((p) => p.gender === gender && p.at < ownerAt).map((p) => p.index));
          if (before.size !== 1) {
            problems.push(
              `"${phrase}": "${g.owner}" could be ${before.size === 0 ? 'no one' : 'more than one entity'}; write the name`,
            );
            continue;
          }
          owner = [...before][0]!;
        }
      }
      if (term.gender) {
        for (const x of members)
          if (genders[x] !== term.gender)
            problems.push(`"${phrase}": entity ${x} is not ${term.gender}, but "${g.pl}" says so`);
      }
      if (owner !== undefined) {
        for (const x of members) {
          if (x === owner) problems.push(`"${phrase}": entity ${x} is in its own group`);
          else told.push({ from: owner, to: x, word: wordFor(term.pred, genders[x]!), phrase });
        }
      } else if (!term.mutual) {
        problems.push(`"${phrase}" says "${g.pl}" without whose`);
      }
      if (term.mutual && members.length > 1) {
        if (term.mutual === 'SO' && (members.length !== 2 || genders[members[0]!] === genders[members[1]!])) {
          problems.push(`"${phrase}": "${g.pl}" needs two entities of the two genders`);
          continue;
        }
        for (const a of members)
          for (const b of members)
            if (a !== b) told.push({ from: a, to: b, word: wordFor(term.mutual, genders[b]!), phrase });
      }
    }
  }
  let masked = template;
  for (const m of template.matchAll(new RegExp(`(?<![a-z-])${PLURAL}`, 'gi'))) {
    if (!consumed.has(m.index)) problems.push(`says "${m[0]}" outside a collective phrase the lint reads`);
    else masked = masked.slice(0, m.index) + 'f'.repeat(m[0].length) + masked.slice(m.index + m[0].length);
  }
  return { told, masked, problems };
}

/** span[i][j]: the predicates that facts i..j compose to by the rules sound in generated families. */
function soundSpans(words: readonly RelationWord[]): Set<Predicate>[][] {
  const preds = words.map((w) => parseWord(w)!.predicate);
  const n = words.length;
  const span: Set<Predicate>[][] = Array.from({ length: n }, () => Array.from({ length: n }, () => new Set()));
  for (let i = 0; i < n; i++) span[i]![i]!.add(preds[i]!);
  for (let len = 2; len <= n; len++) {
    for (let i = 0; i + len <= n; i++) {
      const j = i + len - 1;
      for (let s = i; s < j; s++)
        for (const a of span[i]![s]!)
          for (const b of span[s + 1]![j]!) {
            const rule = RULES.find((r) => r.body[0] === a && r.body[1] === b);
            if (rule?.soundInFamilies) span[i]![j]!.add(rule.head);
          }
    }
  }
  return span;
}

/**
 * Whether a told relation holds in every family with the key's facts: `to` is `from`'s `word`
 * where the facts between them compose (sound rules only) to the word's predicate, read
 * backwards (the inverse) when `to` comes first in the chain.
 */
export function toldIsTrue(words: readonly RelationWord[], genders: readonly Gender[], f: ToldFact): boolean {
  const parsed = parseWord(f.word);
  if (!parsed || parsed.gender !== genders[f.to] || f.from === f.to) return false;
  const span = soundSpans(words);
  const [lo, hi] = f.from < f.to ? [f.from, f.to] : [f.to, f.from];
  if (hi > words.length) return false;
  const between = span[lo]![hi - 1]!;
  return f.from < f.to ? between.has(parsed.predicate) : between.has(INVERSE[parsed.predicate]);
}

/** The key fact i (entity i → i + 1) a told relation states, if any (either way round). */
export function toldKeyFact(
  words: readonly RelationWord[],
  genders: readonly Gender[],
  f: ToldFact,
): number | undefined {
  const i = Math.min(f.from, f.to);
  if (Math.abs(f.from - f.to) !== 1 || i >= words.length) return undefined;
  const fact = words[i]!;
  if (f.from === i) return f.word === fact ? i : undefined;
  return f.word === wordFor(INVERSE[parseWord(fact)!.predicate], genders[i]!) ? i : undefined;
}

/**
 * The writing rules of the wide files: lintTemplate's, with the collective phrases read by
 * readCollectives. Every relation a collective tells must hold in every family with the key's
 * facts (toldIsTrue); a key fact counts as stated when a collective tells it (either way round,
 * "B and C are A's parents" stating "A is C's son"). A collective may tell a relation the rule
 * base derives from the key (her sons B and C: C is her son), as people's own wording does; see
 * `toldImplied`. Every other kinship rule of lintTemplate holds.
 */
export function lintWideTemplate(
  words: readonly RelationWord[],
  genders: readonly Gender[],
  template: string,
): string[] {
  const read = readCollectives(genders, template);
  const problems = [...templateShapeProblems(template, genders)];
  problems.push(...formatProblems(template));
  problems.push(...read.problems);
  for (const f of read.told) {
    if (!toldIsTrue(words, genders, f))
      problems.push(
        `"${f.phrase}" tells that entity ${f.to} is entity ${f.from}'s ${f.word}, which the key does not make true`,
      );
  }
  const stated = new Set(read.told.map((f) => toldKeyFact(words, genders, f)).filter((i) => i !== undefined));
  const toldCounts = new Map<RelationWord, number>();
  for (const i of stated) toldCounts.set(words[i]!, (toldCounts.get(words[i]!) ?? 0) + 1);
  problems.push(...factProblems(words, read.masked, toldCounts));
  problems.push(...pronounProblems(genders, template));
  return problems;
}

/** The relations a template's collectives tell that are not facts of its key (derived ones). */
export function toldImplied(words: readonly RelationWord[], genders: readonly Gender[], template: string): ToldFact[] {
  return readCollectives(genders, template).told.filter((f) => toldKeyFact(words, genders, f) === undefined);
}
