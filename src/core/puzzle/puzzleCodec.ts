import type { FamilyParams, PersonId } from '../family/family';
import { FEMALE_NAMES, MALE_NAMES } from '../family/names';
import { GENDERS, PREDICATES, RELATION_WORDS, type RelationWord } from '../kinship/relations';
import type { FactKind, ProofStep, PuzzleRecord, StoryEntity, StoryFact, Triple } from './puzzle';
import type { TaskId } from './tasks';

/**
 * Puzzle records as 32-bit integers: how a batch of generated puzzles goes from the thread that
 * makes them to the thread that tells them. Structured cloning a record costs about 40 µs on this
 * machine, twice what making it does; this costs about a microsecond each way. Names, relation
 * words, fact kinds and genders are written as their places in core's fixed lists (a puzzle whose
 * name or word is not in them is refused, not garbled). Neither the seed nor the family settings
 * are written: every puzzle of a job shares its settings, and a row's seed follows from its
 * number, so the reader is given both. The pattern is not written either: it is the path facts'
 * words, which the writer checks.
 *
 * Layout of one puzzle: k, task, mode (0, 1 strict, 2 CLUTRR's labels); entities (count, then person, name, gender each);
 * facts (count, then from, to, word, id, kind, chain each); the query's two entities; the
 * target's word; proof steps (count, then head, first body and second body triples as from, to,
 * word); story order (count, then fact ids).
 *
 * A writer made `withoutProofs` writes no proof steps (a count of -1): for a reader that tells
 * stories and takes the proof_state column as bytes made beside the puzzle (makePuzzles), the
 * steps are some 40% of a k = 6 record's integers, and its most objects read back. Such a record
 * is read with an empty proof.
 */

const NAMES: readonly string[] = [...MALE_NAMES, ...FEMALE_NAMES];
const NAME_CODE: ReadonlyMap<string, number> = new Map(NAMES.map((n, i) => [n, i]));
const WORD_CODE: ReadonlyMap<string, number> = new Map(RELATION_WORDS.map((w, i) => [w, i]));
const FACT_KINDS = ['path', 'supporting', 'irrelevant', 'disconnected', 'memory'] as const;
// Every FactKind has a code (a kind added to the type without one fails to compile here).
const EVERY_KIND: Exclude<FactKind, (typeof FACT_KINDS)[number]> extends never ? true : never = true;
void EVERY_KIND;
const KIND_CODE: ReadonlyMap<string, number> = new Map(FACT_KINDS.map((k, i) => [k, i]));

/** A relation word's place in RELATION_WORDS; its predicate is PREDICATES[code >> 1]. */
function wordCode(word: string, predicate: string): number {
  const code = WORD_CODE.get(word);
  if (code === undefined || PREDICATES[code >> 1] !== predicate) {
    throw new RangeError(`puzzle codec: "${word}" is not a relation word of the predicate "${predicate}"`);
  }
  return code;
}

/** Writes puzzle records one after another into a growing Int32Array. */
export class PuzzleWriter {
  private data: Int32Array;
  private at = 0;

  private readonly proofs: boolean;

  /**
   * With `into` (the buffer of an earlier batch, given back), writes there while it has room.
   * With `withoutProofs`, no record's proof steps are written (see the layout above).
   */
  constructor(into?: Int32Array, options: { readonly withoutProofs?: boolean } = {}) {
    this.data = into && into.length >= 1024 ? into : new Int32Array(1 << 14);
    this.proofs = options.withoutProofs !== true;
  }

  private room(n: number): void {
    if (this.at + n <= this.data.length) return;
    const grown = new Int32Array(Math.max(this.data.length * 2, this.at + n));
    grown.set(this.data.subarray(0, this.at));
    this.data = grown;
  }

  private push(x: number): void {
    this.data[this.at++] = x;
  }

  private triple(t: Triple): void {
    this.push(t.from);
    this.push(t.to);
    this.push(wordCode(t.word, t.predicate));
  }

  write(p: PuzzleRecord): void {
    const { entities, facts, proof, storyOrder } = p;
    this.room(10 + 3 * entities.length + 6 * facts.length + 9 * proof.length + storyOrder.length);
    this.push(p.k);
    this.push(p.task);
    this.push(p.labels === 'clutrr' ? 2 : p.strict ? 1 : 0);
    this.push(entities.length);
    for (let i = 0; i < entities.length; i++) {
      const e = entities[i]!;
      const name = NAME_CODE.get(e.name);
      if (name === undefined || e.index !== i) {
        throw new RangeError(`puzzle codec: entity ${i} ("${e.name}") is not a generated entity`);
      }
      this.push(e.person);
      this.push(name);
      this.push(e.gender === 'male' ? 0 : 1);
    }
    this.push(facts.length);
    for (let i = 0; i < facts.length; i++) {
      const f = facts[i]!;
      this.push(f.from);
      this.push(f.to);
      this.push(wordCode(f.word, f.predicate));
      this.push(f.id);
      this.push(KIND_CODE.get(f.kind)!);
      this.push(f.chain);
    }
    if (patternOf(facts, p.k) !== p.pattern) {
      throw new RangeError(`puzzle codec: the pattern "${p.pattern}" is not the path facts' words`);
    }
    this.push(p.query[0]);
    this.push(p.query[1]);
    this.push(wordCode(p.target.word, p.target.predicate));
    if (!this.proofs) this.push(-1);
    else {
      this.push(proof.length);
      for (let i = 0; i < proof.length; i++) {
        const s = proof[i]!;
        this.triple(s.head);
        this.triple(s.body[0]);
        this.triple(s.body[1]);
      }
    }
    this.push(storyOrder.length);
    for (let i = 0; i < storyOrder.length; i++) this.push(storyOrder[i]!);
  }

  /** What has been written (a view of the writer's buffer). */
  finish(): Int32Array {
    return this.data.subarray(0, this.at);
  }
}

/** The words of the first k facts (the path), joined by `-`: the puzzle's pattern. */
function patternOf(facts: readonly { readonly word: string }[], k: number): string {
  let pattern = k > 0 ? facts[0]!.word : '';
  for (let i = 1; i < k; i++) pattern += '-' + facts[i]!.word;
  return pattern;
}

/** Reads, in order, the records a PuzzleWriter wrote. */
export class PuzzleReader {
  private at = 0;

  constructor(
    private readonly data: Int32Array,
    private readonly familyParams: FamilyParams,
  ) {}

  /** Whether every record has been read. */
  get done(): boolean {
    return this.at >= this.data.length;
  }

  private next(): number {
    if (this.at >= this.data.length) throw new RangeError('puzzle codec: the data ends inside a record');
    return this.data[this.at++]!;
  }

  private static word(code: number): RelationWord {
    const w = RELATION_WORDS[code];
    if (w === undefined) throw new RangeError(`puzzle codec: ${code} is not a relation word code`);
    return w;
  }

  private triple(): Triple {
    const from = this.next();
    const to = this.next();
    const code = this.next();
    return { from, to, predicate: PREDICATES[code >> 1]!, word: PuzzleReader.word(code) };
  }

  /** The next record, with its seed (the writer does not write seeds). */
  read(seed: string): PuzzleRecord {
    const k = this.next();
    const task = this.next() as TaskId;
    const mode = this.next();
    const entities: StoryEntity[] = [];
    for (let i = 0, n = this.next(); i < n; i++) {
      const person = this.next() as PersonId;
      const code = this.next();
      const name = NAMES[code];
      if (name === undefined) throw new RangeError(`puzzle codec: ${code} is not a name code`);
      entities.push({ index: i, person, name, gender: GENDERS[this.next()]! });
    }
    const facts: StoryFact[] = [];
    for (let i = 0, n = this.next(); i < n; i++) {
      const from = this.next();
      const to = this.next();
      const code = this.next();
      const word = PuzzleReader.word(code);
      const id = this.next();
      const kind = FACT_KINDS[this.next()]!;
      facts.push({ from, to, predicate: PREDICATES[code >> 1]!, word, id, kind, chain: this.next() });
    }
    const query: readonly [number, number] = [this.next(), this.next()];
    const targetCode = this.next();
    const targetWord = PuzzleReader.word(targetCode);
    const proof: ProofStep[] = [];
    // A count of -1 (a writer without proofs) reads as no steps.
    for (let i = 0, n = this.next(); i < n; i++) {
      const head = this.triple();
      const body: readonly [Triple, Triple] = [this.triple(), this.triple()];
      proof.push({ head, body });
    }
    const storyOrder: number[] = [];
    for (let i = 0, n = this.next(); i < n; i++) storyOrder.push(this.next());
    // toRecord's keys, in its order.
    const record: PuzzleRecord = {
      seed,
      k,
      task,
      familyParams: this.familyParams,
      entities,
      facts,
      query,
      target: { predicate: PREDICATES[targetCode >> 1]!, word: targetWord },
      proof,
      pattern: patternOf(facts, k),
      storyOrder,
    };
    if (mode === 2) return { ...record, labels: 'clutrr' };
    return mode === 1 ? { ...record, strict: true } : record;
  }
}
