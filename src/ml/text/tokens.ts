/**
 * The text models' tokens: how a story becomes token ids, for every model that reads text (the
 * BiLSTMs, RN, MAC). People (`[Name]`) become entity tokens `@ent<k>` by a fresh seeded
 * assignment per story; the rest is normalised (Unicode compatibility form without accents,
 * lower case, one apostrophe and one dash) and split into words (runs of letters and digits)
 * and single punctuation marks.
 *
 * A word the training stories had at least `minWordCount` times is one token. Any other word
 * becomes **word pieces** (WordPiece-style: the longest piece of the vocabulary that starts the
 * word, then the longest continuation piece `##…` that goes on from there, and so on), so an
 * unseen word is read as pieces the model knows rather than one `<unk>`: `grandpa` can come out
 * as `grand ##pa`. The pieces are learned from the training words by byte-pair merges (the most
 * frequent adjacent pair first, ties broken by the pair's text, so the same stories always give
 * the same pieces); every character the training words contain is a piece, so a word made of
 * those characters always comes apart. A character no training word had, or a punctuation mark
 * never seen, is `<unk>`: text never makes an error.
 *
 * The vocabulary is the whole tokeniser: model.json carries it (`TokenizerJson`) and the same
 * list gives the same ids anywhere. In training, a word may be dropped to `<unk>` or split into
 * pieces though it is known (`TokenDropout`), so the model has met both before it meets unseen
 * text. Pure: no tfjs.
 */
import { createRng, type Rng, type Seed } from '../../core/random/rng';

export const PAD_TOKEN = '<pad>';
export const UNK_TOKEN = '<unk>';
export const PAD_ID = 0;
export const UNK_ID = 1;
/** Entity tokens @ent0..@ent{MAX_ENTITIES-1}; a story with more people reuses them modulo. */
export const MAX_ENTITIES = 24;
export const entityToken = (k: number): string => `@ent${k}`;
/** The first id after PAD, UNK and the entity tokens. */
export const FIRST_WORD_ID = 2 + MAX_ENTITIES;
/** A piece that continues a word (not its start) is written with this prefix. */
export const CONTINUATION = '##';

/** The fixed head of every vocabulary: PAD (0), UNK (1), the entity tokens. */
export const FIXED_TOKENS: readonly string[] = [
  PAD_TOKEN,
  UNK_TOKEN,
  ...Array.from({ length: MAX_ENTITIES }, (_, k) => entityToken(k)),
];

// ---------------------------------------------------------------------------------------------
// Splitting and normalising

/** A piece of a story: a person, a word or a punctuation mark (normalised). */
export type StoryPart =
  | { readonly kind: 'name'; readonly text: string }
  | { readonly kind: 'word'; readonly text: string }
  | { readonly kind: 'punct'; readonly text: string };

const NAME_RE = /\[([^\]]+)\]/g;
const PART_RE = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;
const MARKS_RE = /\p{M}/gu;
const APOSTROPHES_RE = /[\u2018\u2019\u201b\u02bc\u0060\u00b4]/g;
const DASHES_RE = /[\u2010-\u2015\u2212]/g;
const SENTENCE_END = new Set(['.', '!', '?']);

/** Compatibility form without accents, lower case, ’ and friends as ', dashes as -. */
export function normaliseText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(MARKS_RE, '')
    .toLowerCase()
    .replace(APOSTROPHES_RE, "'")
    .replace(DASHES_RE, '-');
}

/** A story's names (inside brackets, as written) and its normalised words and punctuation, in order. */
export function storyParts(story: string): StoryPart[] {
  const parts: StoryPart[] = [];
  const text = (s: string) => {
    for (const m of normaliseText(s).matchAll(PART_RE)) {
      parts.push({ kind: /^[\p{L}\p{N}]/u.test(m[0]) ? 'word' : 'punct', text: m[0] });
    }
  };
  let at = 0;
  for (const m of story.matchAll(NAME_RE)) {
    text(story.slice(at, m.index));
    parts.push({ kind: 'name', text: m[1]! });
    at = m.index + m[0].length;
  }
  text(story.slice(at));
  return parts;
}

/**
 * Entity tokens for names (in order of first appearance): a fresh random permutation of the
 * MAX_ENTITIES tokens seeded by `seed`, so a model can learn nothing from which number a person
 * gets, nor from the order people appear in.
 */
export function assignEntities(names: readonly string[], seed: Seed): Map<string, string> {
  const slots = Array.from({ length: MAX_ENTITIES }, (_, i) => i);
  createRng(seed, 'anonymise').shuffle(slots);
  const entities = new Map<string, string>();
  for (const name of names)
    if (!entities.has(name)) entities.set(name, entityToken(slots[entities.size % MAX_ENTITIES]!));
  return entities;
}

// ---------------------------------------------------------------------------------------------
// Learning the vocabulary

export interface LearnOptions {
  /** A word seen at least this often is a token of its own (default 2). */
  readonly minWordCount?: number;
  /** At most this many byte-pair merges (pieces beyond single characters; default 400). */
  readonly maxMerges?: number;
  /** Stop merging when the most frequent pair occurs fewer times than this (default 2). */
  readonly minPairCount?: number;
}

/** What learning found, for metadata.json. */
export interface TokenStats {
  readonly words: number;
  readonly characters: number;
  readonly merges: number;
  readonly punctuation: number;
  readonly minWordCount: number;
}

const byCountThenText = (a: [string, number], b: [string, number]) =>
  b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/**
 * Byte-pair merges over words weighted by their counts: repeatedly the most frequent adjacent
 * pair of symbols (ties: the smaller `a b` text) becomes one symbol. Symbols after the first of
 * a word carry CONTINUATION. Returns the merged symbols in merge order.
 */
export function learnMerges(wordCounts: ReadonlyMap<string, number>, maxMerges: number, minPairCount = 2): string[] {
  const words = [...wordCounts].map(([w, count]) => ({
    symbols: Array.from(w, (c, i) => (i === 0 ? c : CONTINUATION + c)),
    count,
  }));
  const merged: string[] = [];
  while (merged.length < maxMerges) {
    const pairs = new Map<string, number>();
    for (const { symbols, count } of words) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const key = `${symbols[i]} ${symbols[i + 1]}`;
        pairs.set(key, (pairs.get(key) ?? 0) + count);
      }
    }
    let best: [string, number] | undefined;
    for (const e of pairs) if (!best || byCountThenText(e, best) < 0) best = e;
    if (!best || best[1] < minPairCount) break;
    const [a, b] = best[0].split(' ') as [string, string];
    const symbol = a + b.slice(CONTINUATION.length);
    merged.push(symbol);
    for (const w of words) {
      const s = w.symbols;
      const out: string[] = [];
      for (let i = 0; i < s.length; i++) {
        if (i + 1 < s.length && s[i] === a && s[i + 1] === b) {
          out.push(symbol);
          i++;
        } else out.push(s[i]!);
      }
      w.symbols = out;
    }
  }
  return merged;
}

/**
 * Learns the vocabulary from training stories: FIXED_TOKENS, the punctuation marks seen, the
 * words seen at least `minWordCount` times (most frequent first), every character of the words
 * as a starting and a continuing piece, then the merged pieces.
 */
export function learnTokenizer(stories: Iterable<string>, options: LearnOptions = {}): TextTokenizer {
  const minWordCount = options.minWordCount ?? 2;
  const words = new Map<string, number>();
  const punctuation = new Set<string>();
  for (const story of stories) {
    for (const p of storyParts(story)) {
      if (p.kind === 'word') words.set(p.text, (words.get(p.text) ?? 0) + 1);
      else if (p.kind === 'punct') punctuation.add(p.text);
    }
  }
  const characters = new Set<string>();
  for (const w of words.keys()) for (const c of w) characters.add(c);
  const sortedChars = [...characters].sort();
  const merges = learnMerges(words, options.maxMerges ?? 400, options.minPairCount ?? 2);
  const vocabulary = [
    ...FIXED_TOKENS,
    ...[...punctuation].sort(),
    ...[...words]
      .filter(([, c]) => c >= minWordCount)
      .sort(byCountThenText)
      .map(([w]) => w),
    ...sortedChars,
    ...sortedChars.map((c) => CONTINUATION + c),
    ...merges,
  ];
  const stats: TokenStats = {
    words: [...words.values()].filter((c) => c >= minWordCount).length,
    characters: sortedChars.length,
    merges: merges.length,
    punctuation: punctuation.size,
    minWordCount,
  };
  return new TextTokenizer({ kind: 'pieces', version: 1, vocabulary: [...new Set(vocabulary)], stats });
}

// ---------------------------------------------------------------------------------------------
// The tokeniser

/**
 * model.json's `tokenizer`. `pieces`: this module's tokens. `words`: the LSTM shipped before
 * tokens.ts (whole lower-cased words as `[a-z]+(?:[-'][a-z]+)*`, anything unknown `<unk>`), kept
 * so that folders trained then still load and answer as they did.
 */
export type TokenizerJson =
  | {
      readonly kind: 'pieces';
      readonly version: 1;
      readonly vocabulary: readonly string[];
      readonly stats?: TokenStats;
    }
  | { readonly kind: 'words'; readonly vocabulary: readonly string[] };

/** Training only: how often a word is dropped to `<unk>`, or split into pieces though known. */
export interface TokenDropout {
  readonly unknown: number;
  readonly pieces: number;
  readonly rng: Rng;
}

/** A story as token ids. */
export interface EncodedStory {
  readonly ids: readonly number[];
  /** The entity token id of each name (the story's, and the extra names'). */
  readonly entities: ReadonlyMap<string, number>;
  /** The sentence of each token (0, 1, …; a new one after `.`, `!` or `?`: sentenceCounter). */
  readonly sentence: readonly number[];
}

const LEGACY_TOKEN_RE = /\[([^\]]+)\]|[a-z]+(?:[-'][a-z]+)*|[0-9]+|[^\s\w]/gi;
/** Distinct words remembered per tokeniser (their pieces); cleared when full. */
const CACHE_SIZE = 50_000;

export class TextTokenizer {
  readonly kind: TokenizerJson['kind'];
  readonly vocabulary: readonly string[];
  private readonly index: ReadonlyMap<string, number>;
  private readonly longest: number;
  private readonly cache = new Map<string, readonly number[]>();

  constructor(private readonly json: TokenizerJson) {
    const problem = tokenizerProblem(json);
    if (problem) throw new Error(`tokenizer: ${problem}`);
    this.kind = json.kind;
    this.vocabulary = json.vocabulary;
    this.index = new Map(json.vocabulary.map((t, i) => [t, i]));
    this.longest = Math.max(...json.vocabulary.map((t) => Array.from(t).length));
  }

  get size(): number {
    return this.vocabulary.length;
  }

  toJson(): TokenizerJson {
    return this.json;
  }

  /** The id of a token, or UNK_ID. */
  id(token: string): number {
    return this.index.get(token) ?? UNK_ID;
  }

  /**
   * A normalised word's tokens: itself when known (`whole`), else the longest starting piece,
   * then the longest continuing pieces; a character no piece covers is `<unk>`.
   */
  pieces(word: string, whole = true): string[] {
    return this.pieceIds(word, whole).map((i) => this.vocabulary[i]!);
  }

  private pieceIds(word: string, whole: boolean): readonly number[] {
    if (whole) {
      const cached = this.cache.get(word);
      if (cached) return cached;
    }
    const ids: number[] = [];
    const known = this.index.get(word);
    if (whole && known !== undefined) ids.push(known);
    else {
      const chars = Array.from(word);
      const n = chars.length;
      for (let i = 0; i < n;) {
        // The word itself is not a piece of its own split when `whole` is false.
        const top = Math.min(n, i + this.longest, i === 0 && !whole && n > 1 ? n - 1 : n);
        let j = top;
        for (; j > i; j--) {
          const piece = (i === 0 ? '' : CONTINUATION) + chars.slice(i, j).join('');
          const id = this.index.get(piece);
          if (id !== undefined) {
            ids.push(id);
            break;
          }
        }
        if (j === i) {
          ids.push(UNK_ID);
          j = i + 1;
        }
        i = j;
      }
    }
    if (whole) {
      if (this.cache.size >= CACHE_SIZE) this.cache.clear();
      this.cache.set(word, ids);
    }
    return ids;
  }

  /**
   * A story as token ids: names become entity tokens (assignEntities: seeded by `seed`, the
   * story's names in order of appearance, then `extraNames`), words and punctuation are looked
   * up. The same story, seed and names always give the same ids; `dropout` (training) draws
   * from its rng once per word.
   */
  encode(story: string, seed: Seed, extraNames: readonly string[] = [], dropout?: TokenDropout): EncodedStory {
    if (this.kind === 'words') return this.encodeWords(story, seed, extraNames, dropout);
    const parts = storyParts(story);
    const names = parts.filter((p) => p.kind === 'name').map((p) => p.text);
    const entities = this.entityIds(assignEntities([...names, ...extraNames], seed));
    const ids: number[] = [];
    const sentence: number[] = [];
    const sentenceOf = sentenceCounter();
    const push = (id: number, text = '') => {
      ids.push(id);
      sentence.push(sentenceOf(text));
    };
    for (const p of parts) {
      if (p.kind === 'name') push(entities.get(p.text)!);
      else if (p.kind === 'punct') push(this.id(p.text), p.text);
      else {
        const r = dropout ? dropout.rng.next() : 1;
        if (dropout && r < dropout.unknown) push(UNK_ID);
        else if (dropout && r < dropout.unknown + dropout.pieces)
          this.pieceIds(p.text, false).forEach((id) => push(id));
        else this.pieceIds(p.text, true).forEach((id) => push(id));
      }
    }
    return { ids, entities, sentence };
  }

  private entityIds(entities: ReadonlyMap<string, string>): Map<string, number> {
    return new Map([...entities].map(([name, token]) => [name, this.index.get(token)!]));
  }

  /** The `words` tokeniser: the encoding of the LSTM shipped before tokens.ts, id for id. */
  private encodeWords(
    story: string,
    seed: Seed,
    extraNames: readonly string[],
    dropout: TokenDropout | undefined,
  ): EncodedStory {
    const matches = [...story.matchAll(LEGACY_TOKEN_RE)];
    const names = matches.filter((m) => m[1] !== undefined).map((m) => m[1]!);
    const entities = this.entityIds(assignEntities([...names, ...extraNames], seed));
    const ids: number[] = [];
    const sentence: number[] = [];
    const sentenceOf = sentenceCounter();
    for (const m of matches) {
      let id = m[1] !== undefined ? entities.get(m[1])! : this.id(m[0].toLowerCase());
      if (dropout && id >= FIRST_WORD_ID && dropout.rng.next() < dropout.unknown) id = UNK_ID;
      ids.push(id);
      sentence.push(sentenceOf(m[1] !== undefined ? '' : m[0]));
    }
    return { ids, entities, sentence };
  }
}

/**
 * The sentence of each token in turn (given its text): 0, 1, …, a new one at the first token
 * after `.`, `!` or `?` that is not itself one of them (so `...` ends one sentence, and a story's
 * last full stop opens none).
 */
function sentenceCounter(): (text: string) => number {
  let s = 0;
  let ended = false;
  return (text) => {
    const end = SENTENCE_END.has(text);
    if (ended && !end) {
      s++;
      ended = false;
    }
    if (end) ended = true;
    return s;
  };
}

/** Why a model.json `tokenizer` cannot be used, or undefined when it can. */
export function tokenizerProblem(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null) return 'not an object';
  const { kind, vocabulary } = json as { kind?: unknown; vocabulary?: unknown };
  if (kind !== 'pieces' && kind !== 'words') return `unknown kind ${JSON.stringify(kind)} (expected pieces or words)`;
  if (!Array.isArray(vocabulary) || !vocabulary.every((t) => typeof t === 'string'))
    return 'vocabulary must be a list of strings';
  if (FIXED_TOKENS.some((t, i) => vocabulary[i] !== t))
    return `vocabulary must start with ${PAD_TOKEN}, ${UNK_TOKEN} and the ${MAX_ENTITIES} entity tokens`;
  if (new Set(vocabulary).size !== vocabulary.length) return 'vocabulary repeats a token';
  return undefined;
}
