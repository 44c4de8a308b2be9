/**
 * The answers a language model may give, and how a free-text reply becomes one of them.
 *
 * The 18 answer words are CLUTRR's answer classes (the relation words without husband and
 * wife, in the models' class order). Extraction reads a reply the way a careful grader would:
 * an explicit "answer:" marker wins (its first relation word), otherwise the LAST relation word
 * stated (after chain-of-thought reasoning the conclusion comes last). Synonyms, plurals, case,
 * hyphen or space spelling and the release's misspelling `neice` are read; a reply with no
 * relation word, or whose answer is a relation outside the 18 (husband, wife, parent…), is
 * `unparseable`: it counts as wrong and is reported as such.
 */
import { RELATION_WORDS, type RelationWord } from '../core/kinship/relations';

/** The 18 answer words, in the shipped models' class order. */
export const ANSWER_WORDS = RELATION_WORDS.filter((w) => w !== 'husband' && w !== 'wife') as readonly Exclude<
  RelationWord,
  'husband' | 'wife'
>[];
export type AnswerWord = (typeof ANSWER_WORDS)[number];

/** What a reply says: one of the 18 words, or why none could be read. */
export type Extraction =
  { readonly kind: 'answer'; readonly word: AnswerWord } | { readonly kind: 'unparseable'; readonly reason: string };

/** A spelling with its words separated by one space, however the reply wrote them (`son - in law`). */
const key = (spelling: string) => spelling.replace(/[\s-]+/g, ' ');

/** Spellings (lower case, single spaces between words) → answer word; `null`: a relation outside the 18. */
const SPELLINGS: Readonly<Record<string, AnswerWord | null>> = (() => {
  const table: Record<string, AnswerWord | null> = {};
  const add = (word: AnswerWord | null, ...forms: string[]) => {
    for (const f of forms) table[key(f)] = word;
  };
  for (const w of ANSWER_WORDS) {
    const inLaw = w.endsWith('-in-law');
    const head = inLaw ? w.slice(0, -'-in-law'.length) : w;
    const plural = head.endsWith('s') ? head : `${head}s`;
    const forms = inLaw
      ? [w, `${head} in law`, `${head}-in law`, `${plural}-in-law`, `${plural} in law`, `${head}inlaw`]
      : [w, plural];
    add(w, ...forms);
  }
  add('niece', 'neice', 'neices');
  add('aunt', 'auntie', 'aunty', 'aunties');
  add('mother', 'mom', 'mum', 'mommy', 'mummy', 'mama', 'mamma', 'moms', 'mums');
  add('father', 'dad', 'daddy', 'papa', 'dads');
  add('grandmother', 'grandma', 'granny', 'grandmom', 'grandmum', 'nana', 'grand mother', 'grand-mother', 'grandmas');
  add('grandfather', 'grandpa', 'granddad', 'grandad', 'grand father', 'grand-father', 'grandpas');
  add('granddaughter', 'grand daughter', 'grand-daughter', 'granddaughters');
  add('grandson', 'grand son', 'grand-son', 'grandsons');
  // Relations that are not among the 18 answers: recognised so that a final "husband" is not
  // mistaken for an earlier word of the reasoning.
  add(null, 'husband', 'husbands', 'wife', 'wives', 'spouse', 'partner', 'parent', 'parents', 'child', 'children');
  add(null, 'sibling', 'siblings', 'cousin', 'cousins', 'stepmother', 'stepfather', 'stepson', 'stepdaughter');
  add(null, 'brother in law', 'brother-in-law', 'sister in law', 'sister-in-law', 'brothers-in-law', 'sisters-in-law');
  add(null, 'great-grandmother', 'great-grandfather', 'great grandmother', 'great grandfather', 'grandparent');
  add(null, 'grandchild', 'grandparents', 'grandchildren', 'great-aunt', 'great-uncle', 'great aunt', 'great uncle');
  return table;
})();

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Every spelling, longest first (so `mother-in-law` wins over `mother` at the same place). */
const WORD_PATTERN = new RegExp(
  `(?<![\\p{L}\\p{N}-])(${Object.keys(SPELLINGS)
    .sort((a, b) => b.length - a.length)
    .map((s) => escape(s).replace(/ /g, '[\\s-]+'))
    .join('|')})(?![\\p{L}\\p{N}]|-in)`,
  'gu',
);
/** "answer: …", "answer is …", "final answer would be …", "**Answer**: …" */
const MARKER = /\b(?:final\s+answer|answer)\b\s*(?:(?:is|would\s+be)\s*[:：=]?|[:：=])/giu;

/** The reply in one case and one set of dashes and quotes, markdown emphasis removed. */
function normalise(reply: string): string {
  return reply
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    .replace(/[*_`#]/g, ' ');
}

interface Mention {
  readonly at: number;
  readonly spelling: string;
  readonly word: AnswerWord | null;
}

function mentions(text: string): Mention[] {
  return [...text.matchAll(WORD_PATTERN)].map((m) => ({
    at: m.index!,
    spelling: m[1]!,
    word: SPELLINGS[key(m[1]!)] ?? null,
  }));
}

const verdict = (m: Mention): Extraction =>
  m.word
    ? { kind: 'answer', word: m.word }
    : { kind: 'unparseable', reason: `the reply answers "${m.spelling}", which is not one of the 18 answers` };

/**
 * The answer word of a model's reply (see the module comment): the first relation word on the
 * line of the last "Answer:" / "answer is" (unparseable when that line names none), else the
 * last relation word in the reply.
 */
export function extractAnswer(reply: string): Extraction {
  const text = normalise(reply);
  const all = mentions(text);
  if (all.length === 0) return { kind: 'unparseable', reason: 'the reply names none of the 18 relations' };
  const marker = [...text.matchAll(MARKER)].at(-1);
  if (marker) {
    // The answer line: the rest of the marker's line, or the next line when that is empty.
    const end = marker.index + marker[0].length;
    const skip = /^[ \t]*(?:\r?\n\s*)?/.exec(text.slice(end))![0].length;
    const lineStart = end + skip;
    const nl = text.indexOf('\n', lineStart);
    const lineEnd = nl < 0 ? text.length : nl;
    const inLine = all.find((m) => m.at >= lineStart && m.at < lineEnd);
    if (inLine) return verdict(inLine);
    const said = text.slice(lineStart, lineEnd).trim();
    if (said !== '') {
      return {
        kind: 'unparseable',
        reason: `the answer line says "${said.length > 40 ? `${said.slice(0, 40)}…` : said}", none of the 18 answers`,
      };
    }
  }
  return verdict(all.at(-1)!);
}

/** A gold word (a CSV target) as an answer word: one of the 18, or the release's `neice`; else null. */
export function answerWordOf(word: string): AnswerWord | null {
  const w = word.trim().toLowerCase();
  if (w === 'neice') return 'niece';
  return (ANSWER_WORDS as readonly string[]).includes(w) ? (w as AnswerWord) : null;
}
