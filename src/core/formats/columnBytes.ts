import type { PuzzleRecord, Triple } from '../puzzle/puzzle';
import { NEEDS_QUOTES } from './csv';
import { puzzleCsvColumns } from './fromPuzzle';
import { reprStr } from './pyLiteral';

/**
 * puzzleCsvColumns written straight as UTF-8 bytes, for the thread that makes a batch's puzzles:
 * the same bytes as encoding its two strings (a test checks it over many puzzles), without
 * building them. Building them as strings and encoding those was most of that thread's cost after
 * the puzzles themselves (the strings are ropes of a hundred pieces, flattened to be encoded).
 * Names and relation words are encoded once and copied; numbers are written digit by digit.
 * A puzzle with a name or word that needs CSV quoting, or that the genders column cannot hold,
 * takes the string path (puzzleCsvColumns), which knows those rules.
 */
export class ColumnBytes {
  private bytes: Uint8Array;
  private at = 0;

  /** With `into` (an earlier batch's buffer, given back), writes there while it has room. */
  constructor(into?: Uint8Array) {
    this.bytes = into && into.length >= 4096 ? into : new Uint8Array(1 << 16);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.at;
  }

  /** What has been written (a view of the buffer). */
  finish(): Uint8Array {
    return this.bytes.subarray(0, this.at);
  }

  private room(n: number): void {
    if (this.bytes.length - this.at >= n) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.at + n));
    grown.set(this.bytes.subarray(0, this.at));
    this.bytes = grown;
  }

  private text(s: string): void {
    this.room(s.length * 3);
    this.at += encoder.encodeInto(s, this.bytes.subarray(this.at)).written;
  }

  // Every write makes room first: a typed array drops what is written past its end.
  private byte(b: number): void {
    this.room(1);
    this.bytes[this.at++] = b;
  }

  /** ASCII text (punctuation of the columns): one byte per character. */
  private ascii(s: string): void {
    this.room(s.length);
    const b = this.bytes;
    let at = this.at;
    for (let i = 0; i < s.length; i++) b[at++] = s.charCodeAt(i);
    this.at = at;
  }

  private copy(part: Uint8Array): void {
    this.room(part.length);
    const b = this.bytes;
    let at = this.at;
    for (let i = 0; i < part.length; i++) b[at++] = part[i]!;
    this.at = at;
  }

  /** A whole number from 0 up, as its decimal digits. */
  private int(n: number): void {
    if (n >= 0 && n < 10) this.byte(48 + n);
    else this.ascii(String(n));
  }

  private triple(t: Triple, names: readonly NameBytes[]): void {
    this.byte(40); // (
    this.copy(names[t.from]!.repr);
    this.ascii(', ');
    this.copy(wordBytes(t.word).repr);
    this.ascii(', ');
    this.copy(names[t.to]!.repr);
    this.byte(41); // )
  }

  /**
   * Writes puzzleCsvColumns(puzzle, split, rowNumber): its `query`, then its `rest`. Returns where
   * `query` ends (`rest` ends at `length`).
   */
  write(puzzle: PuzzleRecord, split: string, rowNumber?: number): number {
    const { entities, facts, proof } = puzzle;
    const names: NameBytes[] = [];
    let plain = !NEEDS_QUOTES.test(split) && !NEEDS_QUOTES.test(puzzle.pattern);
    for (let i = 0; i < entities.length; i++) {
      const n = nameBytes(entities[i]!.name);
      if (!n.plain) plain = false;
      names.push(n);
    }
    for (let i = 0; i < facts.length; i++) if (!wordBytes(facts[i]!.word).plain) plain = false;
    for (let i = 0; i < proof.length; i++) {
      const s = proof[i]!;
      for (const t of [s.head, s.body[0], s.body[1]]) if (!wordBytes(t.word).plain) plain = false;
    }
    if (!wordBytes(puzzle.target.word).plain) plain = false;
    if (!plain) {
      const c = puzzleCsvColumns(puzzle, split, rowNumber);
      this.text(c.query);
      const end = this.at;
      this.text(c.rest);
      return end;
    }
    // query, text_query, target
    const [qa, qb] = puzzle.query;
    this.ascii('"(');
    this.copy(names[qa]!.repr);
    this.ascii(', ');
    this.copy(names[qb]!.repr);
    this.ascii(')",,');
    this.copy(wordBytes(puzzle.target.word).word);
    const end = this.at;
    // proof_state
    if (proof.length === 0) this.ascii('[]');
    else {
      this.ascii('"[');
      for (let i = 0; i < proof.length; i++) {
        const s = proof[i]!;
        if (i > 0) this.ascii(', ');
        this.byte(123); // {
        this.triple(s.head, names);
        this.ascii(': [');
        this.triple(s.body[0], names);
        this.ascii(', ');
        this.triple(s.body[1], names);
        this.ascii(']}');
      }
      this.ascii(']"');
    }
    // f_comb, task_name
    this.byte(44);
    this.text(puzzle.pattern);
    this.ascii(',task_');
    this.int(puzzle.task);
    this.byte(46); // .
    this.int(puzzle.k);
    this.byte(44);
    // story_edges, edge_types
    if (facts.length === 0) this.ascii('[]');
    else {
      this.ascii('"[');
      for (let i = 0; i < facts.length; i++) {
        if (i > 0) this.ascii(', ');
        this.byte(40);
        this.int(facts[i]!.from);
        this.ascii(', ');
        this.int(facts[i]!.to);
        this.byte(41);
      }
      this.ascii(']"');
    }
    this.byte(44);
    const quoteTypes = facts.length > 1;
    this.ascii(quoteTypes ? '"[' : '[');
    for (let i = 0; i < facts.length; i++) {
      if (i > 0) this.ascii(', ');
      this.copy(wordBytes(facts[i]!.word).repr);
    }
    this.ascii(quoteTypes ? ']"' : ']');
    // query_edge, genders, syn_story, node_mapping, task_split
    this.ascii(',"(');
    this.int(qa);
    this.ascii(', ');
    this.int(qb);
    this.ascii(')",');
    const many = entities.length > 1;
    if (many) this.byte(34);
    for (let i = 0; i < entities.length; i++) {
      if (i > 0) this.byte(44);
      this.copy(names[i]!.name);
      this.byte(58); // :
      this.ascii(entities[i]!.gender);
    }
    if (many) this.byte(34);
    this.ascii(',,');
    this.ascii(many ? '"{' : '{');
    for (let i = 0; i < entities.length; i++) {
      if (i > 0) this.ascii(', ');
      this.int(entities[i]!.person);
      this.ascii(': ');
      this.int(entities[i]!.index);
    }
    this.ascii(many ? '}"' : '}');
    this.byte(44);
    this.text(split);
    return end;
  }
}

const encoder = new TextEncoder();

/** A name's bytes as the columns write it: its repr (in proofs and the query) and itself (genders). */
interface NameBytes {
  readonly repr: Uint8Array;
  readonly name: Uint8Array;
  /** Neither needs CSV quoting, and the genders column can hold it. */
  readonly plain: boolean;
}
const NAMES = new Map<string, NameBytes>();
function nameBytes(name: string): NameBytes {
  let n = NAMES.get(name);
  if (n === undefined) {
    if (NAMES.size > 4096) NAMES.clear();
    const repr = reprStr(name);
    const plain = !NEEDS_QUOTES.test(repr) && !NEEDS_QUOTES.test(name) && name !== '' && !/[,:]/.test(name);
    NAMES.set(name, (n = { repr: encoder.encode(repr), name: encoder.encode(name), plain }));
  }
  return n;
}

/** A relation word's bytes: its repr (proofs, edge_types) and itself (target). */
interface WordBytes {
  readonly repr: Uint8Array;
  readonly word: Uint8Array;
  readonly plain: boolean;
}
const WORDS = new Map<string, WordBytes>();
function wordBytes(word: string): WordBytes {
  let w = WORDS.get(word);
  if (w === undefined) {
    if (WORDS.size > 256) WORDS.clear();
    const repr = reprStr(word);
    const plain = !NEEDS_QUOTES.test(repr) && !NEEDS_QUOTES.test(word);
    WORDS.set(word, (w = { repr: encoder.encode(repr), word: encoder.encode(word), plain }));
  }
  return w;
}
