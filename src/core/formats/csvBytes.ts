import type { PuzzleRecord, Triple } from '../puzzle/puzzle';
import type { RenderedStory } from '../text/render';
import { NEEDS_QUOTES, csvField } from './csv';
import { puzzleCsvColumns } from './fromPuzzle';
import { reprStr } from './pyLiteral';

/**
 * CLUTRR CSV records written straight into a byte buffer. The columns that follow from the puzzle
 * (query, target, proof_state, f_comb, …, task_split) are mostly the same few names and relation
 * words in Python-literal dress: each name and word is encoded to UTF-8 once, and a record's
 * columns are copied together from those bytes, instead of built as a string of many pieces that
 * is then flattened and encoded for every row. Same bytes as puzzleCsvColumns (a test compares
 * them over many puzzles); an unusual record (a name that needs quoting or that the genders column
 * cannot hold) is written through puzzleCsvColumns itself.
 */

const encoder = new TextEncoder();

/**
 * A growing buffer of UTF-8 bytes. With `into` (an earlier batch's buffer, given back) it writes
 * there while it has room, else in a new buffer of `size` bytes; `finish` gives a view of
 * whichever holds the bytes.
 */
export class ByteSink {
  bytes: Uint8Array;
  length = 0;

  constructor(into: Uint8Array | undefined, size: number) {
    this.bytes = into && into.length >= 4096 ? into : new Uint8Array(Math.max(4096, size));
  }

  /** Makes room for `n` more bytes. */
  room(n: number): void {
    if (this.bytes.length - this.length >= n) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + n));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }

  /** A string, as UTF-8. */
  text(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2 units).
    this.room(s.length * 3);
    this.length += encoder.encodeInto(s, this.bytes.subarray(this.length)).written;
  }

  /**
   * A short string, as UTF-8: copied a UTF-16 unit a byte while it is ASCII (cheaper than an
   * encoder call for a few dozen characters), else encoded from its start.
   */
  short(s: string): void {
    const n = s.length;
    this.room(n * 3);
    const b = this.bytes;
    const at = this.length;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) {
        this.length += encoder.encodeInto(s, b.subarray(at)).written;
        return;
      }
      b[at + i] = c;
    }
    this.length = at + n;
  }

  /** Bytes `start` to `end` of `src` (another buffer), copied. */
  copyRange(src: Uint8Array, start: number, end: number): void {
    this.room(end - start);
    this.bytes.set(src.subarray(start, end), this.length);
    this.length += end - start;
  }

  /** Bytes this sink already holds, from `start` to `end`, copied again at its end. */
  again(start: number, end: number): void {
    this.room(end - start);
    this.bytes.copyWithin(this.length, start, end);
    this.length += end - start;
  }

  byte(b: number): void {
    this.room(1);
    this.bytes[this.length++] = b;
  }

  /** A non-negative integer's decimal digits (as String(n)); anything else as its text. */
  uint(n: number): void {
    if (!(n >= 0 && n <= 0x7fffffff && (n | 0) === n)) {
      this.text(String(n));
      return;
    }
    let digits = 1;
    for (let t = n; t >= 10; t = (t / 10) | 0) digits++;
    this.room(digits);
    let at = this.length + digits;
    this.length = at;
    const b = this.bytes;
    do {
      b[--at] = 48 + (n % 10);
      n = (n / 10) | 0;
    } while (n > 0);
  }

  finish(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }
}

const utf8 = (s: string): Uint8Array => encoder.encode(s);

/** A name's bytes as the literal columns and the genders column write it. */
interface NameBytes {
  /** reprStr(name), UTF-8. */
  readonly repr: Uint8Array;
  /** The name, UTF-8. */
  readonly raw: Uint8Array;
  /** The record needs puzzleCsvColumns' general path (quoting, or a name genders refuses). */
  readonly unusual: boolean;
}
const NAMES = new Map<string, NameBytes>();
function nameBytes(name: string): NameBytes {
  let info = NAMES.get(name);
  if (info === undefined) {
    if (NAMES.size > 4096) NAMES.clear();
    const repr = reprStr(name);
    const unusual = NEEDS_QUOTES.test(repr) || NEEDS_QUOTES.test(name) || name === '' || /[,:]/.test(name);
    info = { repr: utf8(repr), raw: utf8(name), unusual };
    NAMES.set(name, info);
  }
  return info;
}

/** A relation word's bytes (reprStr of it, and itself); `unusual` as for names. */
interface WordBytes {
  readonly repr: Uint8Array;
  readonly raw: Uint8Array;
  readonly unusual: boolean;
}
const WORDS = new Map<string, WordBytes>();
function wordBytes(word: string): WordBytes {
  let info = WORDS.get(word);
  if (info === undefined) {
    if (WORDS.size > 256) WORDS.clear();
    const repr = reprStr(word);
    info = { repr: utf8(repr), raw: utf8(word), unusual: NEEDS_QUOTES.test(repr) || NEEDS_QUOTES.test(word) };
    WORDS.set(word, info);
  }
  return info;
}

const GENDER_BYTES = new Map<string, Uint8Array>();
const genderBytes = (g: string): Uint8Array => {
  let b = GENDER_BYTES.get(g);
  if (b === undefined) GENDER_BYTES.set(g, (b = utf8(g)));
  return b;
};
const SPLIT_BYTES = new Map<string, Uint8Array>();
const splitBytes = (split: string): Uint8Array => {
  let b = SPLIT_BYTES.get(split);
  if (b === undefined) {
    if (SPLIT_BYTES.size > 64) SPLIT_BYTES.clear();
    SPLIT_BYTES.set(split, (b = utf8(csvField(split))));
  }
  return b;
};
const TASK_PREFIX = utf8('task_');

const QUOTE = 34;
const COMMA = 44;
const SPACE = 32;
const OPEN = 40;
const CLOSE = 41;
const OPEN_LIST = 91;
const CLOSE_LIST = 93;
const OPEN_DICT = 123;
const CLOSE_DICT = 125;
const COLON = 58;
const DOT = 46;

/** The names of a record's entities (nameBytes), reused from row to row. */
const entityNames: NameBytes[] = [];

/**
 * Writes puzzleCsvColumns(puzzle, split, rowNumber)'s `query`, then calls `between` (which may
 * write the columns that come between, or note where `query` ends), then writes `rest`. When the
 * record turns out to need the general path, what was written is dropped and written again that
 * way: `between` may then be called twice, each time at the end of `query`.
 */
export function writeCsvColumns(
  sink: ByteSink,
  puzzle: PuzzleRecord,
  split: string,
  rowNumber: number | undefined,
  between: (sink: ByteSink) => void,
): void {
  const start = sink.length;
  if (!writeUsual(sink, puzzle, split, between)) {
    // A record our names and words never make: the string path, which also reports bad names.
    sink.length = start;
    const c = puzzleCsvColumns(puzzle, split, rowNumber);
    sink.text(c.query);
    between(sink);
    sink.text(c.rest);
  }
}

/** Copies `src` into `b` at `at`; returns the position after it. */
function put(b: Uint8Array, at: number, src: Uint8Array): number {
  const n = src.length;
  for (let i = 0; i < n; i++) b[at + i] = src[i]!;
  return at + n;
}

/** Writes a non-negative integer's digits (below 2^31) at `at`; returns the position after them. */
function putUint(b: Uint8Array, at: number, n: number): number {
  if (n < 10) {
    b[at] = 48 + n;
    return at + 1;
  }
  let digits = 1;
  for (let t = n; t >= 10; t = (t / 10) | 0) digits++;
  let i = at + digits;
  do {
    b[--i] = 48 + (n % 10);
    n = (n / 10) | 0;
  } while (n > 0);
  return at + digits;
}

/** Writes a string of ASCII characters at `at`; returns the position after it, or -1 when one is not ASCII. */
function putAscii(b: Uint8Array, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return -1;
    b[at + i] = c;
  }
  return at + s.length;
}

/** Writes `(name, word, name)` of a triple at `at`; returns the position after it. */
function putTriple(b: Uint8Array, at: number, names: readonly NameBytes[], t: Triple, word: Uint8Array): number {
  b[at++] = OPEN;
  at = put(b, at, names[t.from]!.repr);
  b[at++] = COMMA;
  b[at++] = SPACE;
  at = put(b, at, word);
  b[at++] = COMMA;
  b[at++] = SPACE;
  at = put(b, at, names[t.to]!.repr);
  b[at++] = CLOSE;
  return at;
}

/** Whether putUint writes `n` (a record with any other number takes the general path). */
const isUint = (n: number): boolean => n >= 0 && n <= 0x7fffffff && (n | 0) === n;

/** The word bytes of a record, in the order written (proof triples, then facts; reused from row to row). */
const recordWords: Uint8Array[] = [];

/**
 * What usualRecord found of a record: the longest name bytes (a name's repr, or its genders entry
 * less 8) and the longest word repr, which bound the room the columns take, and the target's bytes.
 */
let longestName = 0;
let longestWord = 0;
let recordTarget: WordBytes | undefined;

/**
 * Whether writeUsual can write the record: every name and word needs no quoting and every number
 * is one putUint writes. Fills entityNames and recordWords (and longestName, longestWord,
 * recordTarget) on the way.
 */
function usualRecord(puzzle: PuzzleRecord): boolean {
  const entities = puzzle.entities;
  let longest = 0;
  for (let i = 0; i < entities.length; i++) {
    const e = entities[i]!;
    const info = nameBytes(e.name);
    if (info.unusual || !isUint(e.person) || !isUint(e.index)) return false;
    entityNames[i] = info;
    if (info.repr.length > longest) longest = info.repr.length;
    if (info.raw.length + 8 > longest) longest = info.raw.length + 8;
  }
  const target = wordBytes(puzzle.target.word);
  if (target.unusual) return false;
  const proof = puzzle.proof;
  const facts = puzzle.facts;
  const [qa, qb] = puzzle.query;
  if (!isUint(qa) || !isUint(qb) || !isUint(puzzle.task) || !isUint(puzzle.k)) return false;
  for (let i = 0; i < facts.length; i++) if (!isUint(facts[i]!.from) || !isUint(facts[i]!.to)) return false;
  longestWord = target.raw.length;
  let w = 0;
  for (let i = 0; i < proof.length && w >= 0; i++) {
    const st = proof[i]!;
    w = keepWord(st.head.word, w);
    if (w >= 0) w = keepWord(st.body[0].word, w);
    if (w >= 0) w = keepWord(st.body[1].word, w);
  }
  for (let i = 0; i < facts.length && w >= 0; i++) w = keepWord(facts[i]!.word, w);
  if (w < 0) return false;
  longestName = longest;
  recordTarget = target;
  return true;
}

/**
 * Keeps a word's repr bytes at recordWords[w] and widens longestWord to them; returns the next
 * index, or -1 when the word needs quoting (the record then takes the general path).
 */
function keepWord(word: string, w: number): number {
  const info = wordBytes(word);
  if (info.unusual) return -1;
  recordWords[w] = info.repr;
  if (info.repr.length > longestWord) longestWord = info.repr.length;
  return w + 1;
}

/**
 * The columns of a record whose names and words need no quoting (usualRecord), written with one
 * check for room before `between` and one after (their length is bounded by the longest name and
 * word); false, with nothing written, otherwise. The columns after `between` are written by three
 * functions of their own: one function for them all took the optimising compiler longer than any
 * other function of a run (216 ms of a 30,000-row run's compile time), during which it ran unoptimised.
 */
function writeUsual(sink: ByteSink, puzzle: PuzzleRecord, split: string, between: (sink: ByteSink) => void): boolean {
  if (!usualRecord(puzzle)) return false;
  const names = entityNames;
  const target = recordTarget!;
  const [qa, qb] = puzzle.query;
  // query, text_query, target
  sink.room(2 * longestName + target.raw.length + 16);
  let b = sink.bytes;
  let at = sink.length;
  b[at++] = QUOTE;
  b[at++] = OPEN;
  at = put(b, at, names[qa]!.repr);
  b[at++] = COMMA;
  b[at++] = SPACE;
  at = put(b, at, names[qb]!.repr);
  b[at++] = CLOSE;
  b[at++] = QUOTE;
  b[at++] = COMMA;
  b[at++] = COMMA;
  at = put(b, at, target.raw);
  sink.length = at;
  between(sink);

  // The rest: a triple takes at most 2 * longest + longestWord + 8 bytes, a fact's edge and type
  // 2 * 11 + longestWord + 8, an entity's genders and node mapping entries longest + 8 + 2 * 11 + 4.
  const { proof, facts, entities, pattern } = puzzle;
  const splitField = splitBytes(split);
  const item = 2 * longestName + longestWord + 32;
  const tail = 64 + facts.length * 2 * item + entities.length * item + splitField.length;
  sink.room(proof.length * (3 * item + 8) + 2 * pattern.length * 3 + tail);
  at = writeProofState(sink.bytes, sink.length, proof);
  // f_comb, task_name
  sink.bytes[at++] = COMMA;
  sink.length = at;
  const plainPattern = !NEEDS_QUOTES.test(pattern) ? putAscii(sink.bytes, at, pattern) : -1;
  if (plainPattern < 0) {
    sink.text(csvField(pattern));
    sink.room(tail);
    at = sink.length;
  } else at = plainPattern;
  b = sink.bytes;
  b[at++] = COMMA;
  at = put(b, at, TASK_PREFIX);
  at = putUint(b, at, puzzle.task);
  b[at++] = DOT;
  at = putUint(b, at, puzzle.k);
  b[at++] = COMMA;
  at = writeFactColumns(b, at, facts, 3 * proof.length, qa, qb);
  at = writeEntityColumns(b, at, entities);
  // task_split
  b[at++] = COMMA;
  at = put(b, at, splitField);
  sink.length = at;
  return true;
}

/** proof_state at `at` (usualRecord's names and words, room made); returns the position after it. */
function writeProofState(b: Uint8Array, at: number, proof: PuzzleRecord['proof']): number {
  if (proof.length === 0) {
    b[at++] = OPEN_LIST;
    b[at++] = CLOSE_LIST;
    return at;
  }
  const names = entityNames;
  const words = recordWords;
  let word = 0;
  b[at++] = QUOTE;
  b[at++] = OPEN_LIST;
  for (let i = 0; i < proof.length; i++) {
    const st = proof[i]!;
    if (i > 0) {
      b[at++] = COMMA;
      b[at++] = SPACE;
    }
    b[at++] = OPEN_DICT;
    at = putTriple(b, at, names, st.head, words[word++]!);
    b[at++] = COLON;
    b[at++] = SPACE;
    b[at++] = OPEN_LIST;
    at = putTriple(b, at, names, st.body[0], words[word++]!);
    b[at++] = COMMA;
    b[at++] = SPACE;
    at = putTriple(b, at, names, st.body[1], words[word++]!);
    b[at++] = CLOSE_LIST;
    b[at++] = CLOSE_DICT;
  }
  b[at++] = CLOSE_LIST;
  b[at++] = QUOTE;
  return at;
}

/**
 * story_edges, edge_types (the facts' words, from recordWords[word]) and query_edge, each followed
 * by a comma, at `at`; returns the position after them.
 */
function writeFactColumns(
  b: Uint8Array,
  at: number,
  facts: PuzzleRecord['facts'],
  word: number,
  qa: number,
  qb: number,
): number {
  // story_edges
  if (facts.length === 0) {
    b[at++] = OPEN_LIST;
    b[at++] = CLOSE_LIST;
  } else {
    b[at++] = QUOTE;
    b[at++] = OPEN_LIST;
    for (let i = 0; i < facts.length; i++) {
      const f = facts[i]!;
      if (i > 0) {
        b[at++] = COMMA;
        b[at++] = SPACE;
      }
      b[at++] = OPEN;
      at = putUint(b, at, f.from);
      b[at++] = COMMA;
      b[at++] = SPACE;
      at = putUint(b, at, f.to);
      b[at++] = CLOSE;
    }
    b[at++] = CLOSE_LIST;
    b[at++] = QUOTE;
  }
  b[at++] = COMMA;
  // edge_types
  const words = recordWords;
  const quoteTypes = facts.length > 1;
  if (quoteTypes) b[at++] = QUOTE;
  b[at++] = OPEN_LIST;
  for (let i = 0; i < facts.length; i++) {
    if (i > 0) {
      b[at++] = COMMA;
      b[at++] = SPACE;
    }
    at = put(b, at, words[word++]!);
  }
  b[at++] = CLOSE_LIST;
  if (quoteTypes) b[at++] = QUOTE;
  // query_edge
  b[at++] = COMMA;
  b[at++] = QUOTE;
  b[at++] = OPEN;
  at = putUint(b, at, qa);
  b[at++] = COMMA;
  b[at++] = SPACE;
  at = putUint(b, at, qb);
  b[at++] = CLOSE;
  b[at++] = QUOTE;
  b[at++] = COMMA;
  return at;
}

/** genders, syn_story (empty) and node_mapping at `at` (entityNames filled); returns the position after them. */
function writeEntityColumns(b: Uint8Array, at: number, entities: PuzzleRecord['entities']): number {
  const names = entityNames;
  const many = entities.length > 1;
  if (many) b[at++] = QUOTE;
  for (let i = 0; i < entities.length; i++) {
    if (i > 0) b[at++] = COMMA;
    at = put(b, at, names[i]!.raw);
    b[at++] = COLON;
    at = put(b, at, genderBytes(entities[i]!.gender));
  }
  if (many) b[at++] = QUOTE;
  b[at++] = COMMA;
  b[at++] = COMMA;
  // node_mapping
  if (many) b[at++] = QUOTE;
  b[at++] = OPEN_DICT;
  for (let i = 0; i < entities.length; i++) {
    if (i > 0) {
      b[at++] = COMMA;
      b[at++] = SPACE;
    }
    at = putUint(b, at, entities[i]!.person);
    b[at++] = COLON;
    b[at++] = SPACE;
    at = putUint(b, at, entities[i]!.index);
  }
  b[at++] = CLOSE_DICT;
  if (many) b[at++] = QUOTE;
  return at;
}

/**
 * storyCsvHead(index, id, csvField(story)): the record up to its query column. Where the story
 * field's bytes are is kept for writeRecordMiddle (the clean story is often the same text).
 */
export function writeRecordHead(sink: ByteSink, index: number, id: string, story: string): void {
  sink.uint(index);
  sink.byte(COMMA);
  sink.short(csvField(id));
  sink.byte(COMMA);
  storyStart = sink.length;
  sink.text(csvField(story));
  storyEnd = sink.length;
  storyText = story;
  sink.byte(COMMA);
}

/** Where writeRecordHead last wrote its story field, and the story. */
let storyStart = 0;
let storyEnd = 0;
let storyText = '';

/**
 * storyCsvMiddle(text, csvField(text.story)), after writeRecordHead of the same story in the same
 * sink: the clean story, when it is the story, is copied from the story's bytes.
 */
export function writeRecordMiddle(sink: ByteSink, text: RenderedStory): void {
  sink.byte(COMMA);
  sink.short(csvField(`[${reprStr(text.textTarget)}]`));
  sink.byte(COMMA);
  if (text.cleanStory === text.story && text.story === storyText) sink.again(storyStart, storyEnd);
  else sink.text(csvField(text.cleanStory));
  sink.byte(COMMA);
}

let middleText: RenderedStory | null = null;
const middle = (sink: ByteSink) => writeRecordMiddle(sink, middleText!);

/** puzzleCsvRecord(puzzle, text, meta, rowNumber), written into the sink. */
export function writeCsvRecord(
  sink: ByteSink,
  puzzle: PuzzleRecord,
  text: RenderedStory,
  meta: { readonly index: number; readonly id: string; readonly split: string },
  rowNumber?: number,
): void {
  writeRecordHead(sink, meta.index, meta.id, text.story);
  middleText = text;
  try {
    writeCsvColumns(sink, puzzle, meta.split, rowNumber, middle);
  } finally {
    middleText = null;
  }
}
