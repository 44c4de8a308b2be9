/**
 * The live checks of a paraphrase: what the participant's screen says before it lets a story
 * be submitted. They catch what a program can (a person never named, a fact never said, the
 * implied fact said, a kinship word the facts do not give, a length out of range); grammar and
 * sense are left to the reviewers, as in the paper.
 *
 * A fact may be said either way round ("Ann is Ben's mother" or "Ben is Ann's son"), and any of
 * the bank's synonyms for its word (lexicon.ts: dad, grandma, "married" for a spouse…) counts.
 * Each kinship term is tied to the people it is said of by the common ways of saying a relation
 * ("X is the father of Y", "Y's father X", "his father X", "X married Y"; see tieOf), so that a
 * word a fact and the implied fact share ("father" in "John is the father of Sylvia" when John is
 * also Patrick's father) states the implied fact only when it is said of the implied fact's two
 * people. A term tied to nobody counts for any fact it can say: the checks err towards letting a
 * story through, and the reviewers judge the rest.
 */
import {
  INVERSE,
  parseWord,
  PRED_CODE,
  type Predicate,
  type RelationWord,
  wordFor,
} from '../../core/kinship/relations';
import { cykPath, maskToPredicates } from '../../core/reasoning/solver';
import { type KinTerm, kinTermsIn, MARRIAGE_TERMS, RELATION_TERMS } from '../../core/text/lexicon';
import { type Clause, CLAUSE_NAMES } from './clause';

export type ProblemCode =
  | 'missing-person'
  | 'other-person'
  | 'missing-fact'
  | 'states-implied'
  | 'unsupported-kin-word'
  | 'too-short'
  | 'too-long'
  | 'placeholder';

export interface Problem {
  readonly code: ProblemCode;
  /** For the participant: what to change. */
  readonly message: string;
}

export interface LengthRange {
  readonly minWords: number;
  readonly maxWords: number;
}

/** The study's default length range, in words. */
export const DEFAULT_LENGTH: LengthRange = { minWords: 5, maxWords: 120 };

/** Words as a participant counts them: runs of non-space characters. */
export const wordCount = (text: string): number => text.split(/\s+/).filter((w) => w !== '').length;

/** A relation the text may or may not state: a fact or a derived (implied) span of the chain. */
interface Link {
  /** The two people, lower index first. */
  readonly pair: readonly [number, number];
  /** Every term that says it, in either direction. */
  readonly terms: ReadonlySet<string>;
  /** "Ben is the son of Ann" (for messages). */
  readonly says: string;
}

/** The terms saying "to is from's word" or, the other way round, "from is to's inverse word". */
function termsOf(word: RelationWord, fromGender: Clause['people'][number]['gender']): Set<string> {
  const { predicate } = parseWord(word)!;
  const inverse = wordFor(INVERSE[predicate], fromGender);
  const terms = new Set([...RELATION_TERMS[word], ...RELATION_TERMS[inverse]]);
  if (predicate === 'SO') for (const t of MARRIAGE_TERMS) terms.add(t);
  return terms;
}

function link(clause: Clause, from: number, to: number, word: RelationWord): Link {
  const p = clause.people;
  return {
    pair: from < to ? [from, to] : [to, from],
    terms: termsOf(word, p[from]!.gender),
    says: `${p[to]!.name} is the ${word} of ${p[from]!.name}`,
  };
}

/**
 * Every relation the rule base derives over two or more consecutive facts of the chain (the
 * whole chain's is the implied fact; for k = 3 the two-fact spans count too: saying them gives
 * part of the reasoning away).
 */
function impliedLinks(clause: Clause): Link[] {
  const out: Link[] = [];
  const codes = clause.facts.map((f) => PRED_CODE[parseWord(f.word)!.predicate]);
  for (let i = 0; i < codes.length; i++) {
    for (let j = i + 1; j < codes.length; j++) {
      const found: Predicate[] = maskToPredicates(cykPath(codes.slice(i, j + 1)));
      for (const pred of found) out.push(link(clause, i, j + 1, wordFor(pred, clause.people[j + 1]!.gender)));
    }
  }
  return out;
}

interface Mention {
  readonly person: number;
  readonly at: number;
  readonly end: number;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where each person's name occurs (whole words, any case; "Ann's" counts as Ann). */
export function nameMentions(clause: Clause, text: string): Mention[] {
  const out: Mention[] = [];
  clause.people.forEach((p, person) => {
    const re = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRe(p.name)}(?![\\p{L}\\p{N}_])`, 'giu');
    for (const m of text.matchAll(re)) out.push({ person, at: m.index, end: m.index + m[0].length });
  });
  return out.sort((a, b) => a.at - b.at);
}

/**
 * Names of people outside the clause (any name a clause could give, written with a capital):
 * a template would tell every story with that name, unbracketed, beside the family's own.
 */
export function otherNames(clause: Clause, text: string): string[] {
  const own = new Set(clause.people.map((p) => p.name));
  return [...new Set(text.match(/\p{Lu}\p{Ll}+/gu) ?? [])].filter((w) => CLAUSE_NAMES.has(w) && !own.has(w));
}

/** Sentence (or clause between semicolons) boundaries around `at`: [start, end) offsets. */
function sentenceOf(text: string, at: number): [number, number] {
  let start = 0;
  for (const m of text.matchAll(/[.!?;]+(?=\s|$)/g)) {
    const end = m.index + m[0].length;
    if (end <= at) start = end;
    else return [start, end];
  }
  return [start, text.length];
}

/**
 * Whom a kinship term is said of: both people (`pair`, lower index first), one of them (`one`:
 * the other is a pronoun's owner that cannot be told), a group (`plural`: "their son"), or
 * nobody that can be told (null).
 */
type Tie =
  | { readonly kind: 'pair'; readonly pair: readonly [number, number] }
  | { readonly kind: 'one'; readonly person: number }
  | { readonly kind: 'plural' }
  | null;

/** The story in lower case with straight apostrophes and each name written `@<person>@`. */
function marked(text: string, mentions: readonly Mention[]): string {
  let out = '';
  let at = 0;
  for (const m of mentions) {
    out += `${text.slice(at, m.at)}@${m.person}@`;
    at = m.end;
  }
  return (out + text.slice(at)).toLowerCase().replace(/[‘’ʼ]/g, "'");
}

const N = '@(\\d+)@';
/** Up to three words between an article or possessive and the term ("the proud", "other"). */
const ADJ = '(?:(?!(?:his|her|their|our|my|your)\\b)[a-z][a-z-]* ){0,3}';
const re = (source: string) => new RegExp(source);
const MARRIED_LEFT = re(`${N},? (?:who )?(?:is |was |got |has been |had been )?$`);
const MARRIED_RIGHT = re(`^ (?:to |at |with )?${N}`);
const COUPLE_LEFT = re(`${N} and ${N} (?:are |were |got |have been |had been )?$`);
const GROUP_LEFT = re(`\\b(?:their|our|my|your) ${ADJ}$`);
const OWNER_LEFT = re(`${N}'s? ${ADJ}$`);
const NAME_AFTER = re(`^,? (?:who is |who was |named |called )?${N}`);
const IS_NAME_AFTER = re(`^ (?:is|was) (?:called |named )?${N}`);
const NAME_IS_OWNERS = re(`${N},? (?:who |that )?(?:is |was |being )?(?:also )?${N}'s? ${ADJ}$`);
const PRONOUN_LEFT = re(`\\b(his|her) ${ADJ}$`);
const NAME_IS_PRONOUN = re(`${N},? (?:who )?(?:is |was )?(?:his|her) ${ADJ}$`);
const OF_RIGHT = re(`^ of (?:the )?${ADJ}${N}`);
const OF_THEN_NAME = re(`^ of (?:the )?${ADJ}${N},? (?:is |was )?${N}`);
const NAME_IS_THE = re(`${N}(?:,| is| was|, who is|, who was)(?: also)?(?: the| a| an| one)? ${ADJ}$`);
const HAS_A = re(`${N} (?:has|had|have) (?:a|an|one|another|only one) ${ADJ}$`);

const tiePair = (x: number, y: number): Tie =>
  x === y ? { kind: 'one', person: x } : { kind: 'pair', pair: x < y ? [x, y] : [y, x] };
const num = (m: RegExpExecArray | null, group = 1) => (m ? Number(m[group]) : undefined);

/**
 * Whom a term joins, by the common ways of saying a relation: "X is the <term> of Y",
 * "X, the <term> of Y", "the <term> of Y is X", "Y's <term> X", "X is Y's <term>", "Y has a
 * <term> named X", "his/her <term> X" (the owner: the one person of that gender named before it
 * in the sentence, if there is exactly one), "X married Y". Anything else ties the term to
 * nobody, and it is then taken as saying whichever fact it can.
 */
function tieOf(story: string, term: KinTerm, genders: readonly string[]): Tie {
  const [start, end] = sentenceOf(story, term.at);
  const left = story.slice(start, term.at);
  const right = story.slice(term.at + term.term.length, end);
  if (term.kind === 'marriage') {
    const a = num(MARRIED_LEFT.exec(left));
    const b = num(MARRIED_RIGHT.exec(right));
    if (a !== undefined && b !== undefined) return tiePair(a, b);
    const couple = COUPLE_LEFT.exec(left);
    return couple ? tiePair(Number(couple[1]), Number(couple[2])) : null;
  }
  if (GROUP_LEFT.test(left)) return { kind: 'plural' };
  const owner = num(OWNER_LEFT.exec(left));
  if (owner !== undefined) {
    const named = num(NAME_AFTER.exec(right)) ?? num(IS_NAME_AFTER.exec(right)) ?? num(NAME_IS_OWNERS.exec(left));
    return named !== undefined ? tiePair(owner, named) : { kind: 'one', person: owner };
  }
  const pronoun = PRONOUN_LEFT.exec(left);
  if (pronoun) {
    const named = num(NAME_AFTER.exec(right)) ?? num(IS_NAME_AFTER.exec(right)) ?? num(NAME_IS_PRONOUN.exec(left));
    const gender = pronoun[1] === 'his' ? 'male' : 'female';
    const before = left.slice(0, pronoun.index);
    const owners = new Set(
      [...before.matchAll(/@(\d+)@/g)].map((m) => Number(m[1])).filter((p) => genders[p] === gender && p !== named),
    );
    const only = owners.size === 1 ? [...owners][0]! : undefined;
    if (named !== undefined) return only !== undefined ? tiePair(only, named) : { kind: 'one', person: named };
    return only !== undefined ? { kind: 'one', person: only } : null;
  }
  const of = num(OF_RIGHT.exec(right));
  if (of !== undefined) {
    const subject = num(NAME_IS_THE.exec(left)) ?? num(OF_THEN_NAME.exec(right), 2);
    return subject !== undefined ? tiePair(subject, of) : { kind: 'one', person: of };
  }
  const holder = num(HAS_A.exec(left));
  if (holder !== undefined) {
    const named = num(NAME_AFTER.exec(right));
    return named !== undefined ? tiePair(holder, named) : { kind: 'one', person: holder };
  }
  return null;
}

const tiedTo = (tie: Tie, pair: readonly [number, number]) =>
  tie?.kind === 'pair' && tie.pair[0] === pair[0] && tie.pair[1] === pair[1];

/**
 * The live checks of a story for a clause: every person named, each fact said (by its word, the
 * inverse word or a synonym), no implied relation said, no kinship word the facts do not give,
 * the length within the range. An empty list means the story may be submitted. The facts as
 * `factSentences` shows them, joined by spaces, always pass (with a range that admits them).
 */
export function checkParaphrase(clause: Clause, text: string, range: LengthRange = DEFAULT_LENGTH): Problem[] {
  const problems: Problem[] = [];
  const words = wordCount(text);
  if (words < range.minWords) {
    problems.push({
      code: 'too-short',
      message:
        words === 0
          ? 'Write a story that mentions every fact.'
          : `Write at least ${range.minWords} words (you have ${words}).`,
    });
  }
  if (words > range.maxWords) {
    problems.push({ code: 'too-long', message: `Keep it to ${range.maxWords} words at most (you have ${words}).` });
  }
  if (/ENT_|[[\]{}]/.test(text)) {
    problems.push({
      code: 'placeholder',
      message: 'Write the names as plain words, without brackets, braces or ENT_ codes.',
    });
  }
  if (words === 0) return problems;

  const mentions = nameMentions(clause, text);
  const named = new Set(mentions.map((m) => m.person));
  clause.people.forEach((p, i) => {
    if (!named.has(i)) problems.push({ code: 'missing-person', message: `Name ${p.name} in the story.` });
  });
  for (const other of otherNames(clause, text)) {
    problems.push({
      code: 'other-person',
      message: `${other} is not in the facts: write only about the people named in them.`,
    });
  }

  const facts = clause.facts.map((f) => link(clause, f.from, f.to, f.word));
  const implied = impliedLinks(clause);
  const factTerms = new Set(facts.flatMap((f) => [...f.terms]));
  const hasSpouse = clause.facts.some((f) => parseWord(f.word)!.predicate === 'SO');
  const knownPairs = [...facts, ...implied].map((l) => l.pair);

  const story = marked(text, mentions);
  const genders = clause.people.map((p) => p.gender);
  const terms = kinTermsIn(story).map((t) => ({ term: t, tie: tieOf(story, t, genders) }));
  const revealed = new Set<Link>();
  const unsupported = new Set<string>();
  const grouped = new Set<string>();
  for (const { term, tie } of terms) {
    if (tie?.kind === 'plural' && term.kind === 'relation') grouped.add(term.term);
    let reveals = false;
    for (const l of implied) {
      if (!l.terms.has(term.term)) continue;
      // A word only the implied fact has states it wherever it stands; a word a fact shares, only
      // when it joins the implied fact's two people.
      if (!factTerms.has(term.term) || tiedTo(tie, l.pair)) {
        revealed.add(l);
        reveals = true;
      }
    }
    if (reveals || factTerms.has(term.term)) continue;
    if (term.kind === 'spouse' && hasSpouse) continue;
    unsupported.add(term.term);
  }
  for (const l of revealed) {
    problems.push({
      code: 'states-implied',
      message: `Do not say that ${l.says}: the reader should work it out.`,
    });
  }
  for (const t of unsupported) {
    problems.push({
      code: 'unsupported-kin-word',
      message: `"${t}" is not one of the facts: use only the relations given, one person at a time.`,
    });
  }
  for (const t of grouped) {
    problems.push({
      code: 'unsupported-kin-word',
      message: `"their ${t}" (or our, my, your) gives the relation to more than one person: say whose ${t}.`,
    });
  }

  // Each fact needs a term of its own; a term tied to another known pair says something else.
  const usable = terms.map(({ term, tie }) =>
    facts.map((f) => {
      if (!f.terms.has(term.term)) return false;
      if (tie?.kind === 'pair') return tiedTo(tie, f.pair) || !knownPairs.some((k) => tiedTo(tie, k));
      if (tie?.kind === 'one') return f.pair.includes(tie.person);
      return true;
    }),
  );
  const matched = matchFacts(usable, facts.length);
  facts.forEach((f, i) => {
    if (!matched[i]) problems.push({ code: 'missing-fact', message: `Say that ${f.says}.` });
  });
  return problems;
}

/**
 * Which facts get a term of their own: a maximum bipartite matching of terms to facts
 * (`usable[t][f]`: term t may say fact f), so two facts with one word need the word twice.
 */
function matchFacts(usable: readonly (readonly boolean[])[], facts: number): boolean[] {
  const termOf: (number | undefined)[] = Array.from({ length: facts }, () => undefined);
  const tryTerm = (t: number, seen: Set<number>): boolean => {
    for (let f = 0; f < facts; f++) {
      if (!usable[t]![f] || seen.has(f)) continue;
      seen.add(f);
      const holder = termOf[f];
      if (holder === undefined || tryTerm(holder, seen)) {
        termOf[f] = t;
        return true;
      }
    }
    return false;
  };
  for (let t = 0; t < usable.length; t++) tryTerm(t, new Set());
  return termOf.map((t) => t !== undefined);
}
