/**
 * The live checks of a paraphrase: what the participant's screen says before it lets a story
 * be submitted. They catch what a program can (a person never named, a fact never said, the
 * implied fact said, a kinship word the facts do not give, a length out of range); grammar and
 * sense are left to the reviewers, as in the paper.
 *
 * A fact may be said either way round ("Ann is Ben's mother" or "Ben is Ann's son"), and any of
 * the bank's synonyms for its word (lexicon.ts: dad, grandma, "married" for a spouse…) counts.
 * Each kinship term is tied to the two people it most plausibly joins (the nearest names before
 * and after it in its sentence), so that a word a fact and the implied fact share ("father" in
 * "John is the father of Sylvia" when John is also Patrick's father) states the implied fact only
 * when it joins the implied fact's two people.
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
import type { Clause } from './clause';

export type ProblemCode =
  | 'missing-person'
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

/** Sentence (or clause between semicolons) boundaries: [start, end) offsets. */
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
 * The two people a kinship term most plausibly joins: the nearest names before and after it in
 * its sentence ("John is the father of Sylvia", "Sylvia's brother Patrick"); with names on one
 * side only, the two nearest there ("John, Sylvia's father, …"); after a possessive pronoun
 * with no name before it in the sentence, the last person named earlier and the next one
 * ("… Patrick. His father John …"). Null when it cannot be told.
 */
function pairOf(text: string, term: KinTerm, mentions: readonly Mention[]): [number, number] | null {
  const [start, end] = sentenceOf(text, term.at);
  const inSentence = mentions.filter((m) => m.at >= start && m.end <= end);
  const before = inSentence.filter((m) => m.end <= term.at);
  const after = inSentence.filter((m) => m.at > term.at);
  const distinct = (ms: readonly Mention[]) => [...new Set(ms.map((m) => m.person))];
  const b = distinct([...before].reverse());
  const a = distinct(after);
  const pair = (x: number | undefined, y: number | undefined): [number, number] | null =>
    x === undefined || y === undefined || x === y ? null : x < y ? [x, y] : [y, x];
  if (b.length > 0 && a.length > 0) {
    if (b[0] !== a[0]) return pair(b[0], a[0]);
    return pair(b[0], b[1] ?? a[1]);
  }
  if (b.length >= 2) return pair(b[0], b[1]);
  if (a.length >= 2 && !/\b(his|her|their)\s+(\S+\s+){0,2}$/i.test(text.slice(start, term.at))) return pair(a[0], a[1]);
  if (a.length >= 1) {
    const earlier = mentions.filter((m) => m.end <= start);
    return pair(earlier.at(-1)?.person, a[0]);
  }
  return null;
}

const samePair = (p: readonly [number, number] | null, q: readonly [number, number]) =>
  p !== null && p[0] === q[0] && p[1] === q[1];

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

  const facts = clause.facts.map((f) => link(clause, f.from, f.to, f.word));
  const implied = impliedLinks(clause);
  const factTerms = new Set(facts.flatMap((f) => [...f.terms]));
  const hasSpouse = clause.facts.some((f) => parseWord(f.word)!.predicate === 'SO');
  const knownPairs = [...facts, ...implied].map((l) => l.pair);

  const terms = kinTermsIn(text).map((t) => ({ term: t, pair: pairOf(text, t, mentions) }));
  const revealed = new Set<Link>();
  const unsupported = new Set<string>();
  for (const { term, pair } of terms) {
    let reveals = false;
    for (const l of implied) {
      if (!l.terms.has(term.term)) continue;
      // A word only the implied fact has states it wherever it stands; a word a fact shares, only
      // when it joins the implied fact's two people.
      if (!factTerms.has(term.term) || samePair(pair, l.pair)) {
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

  // Each fact needs a term of its own; terms tied to another known pair say something else.
  const usable = terms.map(({ term, pair }) =>
    facts.map(
      (f) =>
        f.terms.has(term.term) &&
        (pair === null || samePair(pair, f.pair) || !knownPairs.some((k) => samePair(pair, k))),
    ),
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
