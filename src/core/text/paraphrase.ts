import { GenerationError, type PuzzleRecord, type StoryFact } from '../puzzle/puzzle';
import type { Rng, Seed } from '../random/rng';
import { mapped } from '../util/mapped';
import { arrange, factChains, type StoryOrder } from './order';
import { createPlainRenderer, plainSentence } from './plain';
import { randomQuestion, randomTargetText } from './questions';
import { bracket, joinSentences, type RenderedSentence, type Split, type StoryRenderer } from './render';
import { type BankHalves, PLACEHOLDER_RE, splitBank, type TemplateBank, templatesFor } from './templates';

export type CombinationLength = 1 | 2 | 3;

export interface ParaphraseOptions {
  /** Where the paraphrases come from: OUR_BANK, or a bank loaded from a template file. */
  readonly bank: TemplateBank;
  /** The longest run of consecutive facts one paraphrase may cover (CLUTRR's combination_length). */
  readonly combinationLength: CombinationLength;
  /**
   * Hold paraphrases out of training: `{ seed }` splits `bank` 80/20 per list (splitBank);
   * explicit halves (the original `.train.json` / `.test.json`) are used as given. Train rows
   * then draw only from the train half, test rows only from the test half.
   */
  readonly templateSplit?: { readonly seed: Seed } | BankHalves;
  /** One plain sentence per fact (createPlainRenderer), for ablations. */
  readonly synthetic?: boolean;
  /** The order the sentences are told in (see StoryOrder); shuffled when absent. */
  readonly storyOrder?: StoryOrder;
  /** Counts the facts told, by a paraphrase and by a plain sentence (see TextTally). */
  readonly tally?: TextTally;
  /**
   * Refuse plain sentences (`--templates-only`): a fact no paraphrase of the bank tells throws a
   * MissingTemplateError naming it and `bankName`, instead of being told plainly. Runs of facts
   * are then chosen only among those the bank tells, so a fact fails only when no paraphrase fits.
   */
  readonly refusePlain?: { readonly bankName: string };
}

/**
 * Facts a renderer has told so far: with a paraphrase of its bank, and with a plain sentence
 * (no paraphrase fits, or --synthetic). Mutable: the renderer adds to it as it tells.
 */
export interface TextTally {
  template: number;
  plain: number;
}

/** A fact no paraphrase tells, with falling back to a plain sentence refused (`--templates-only`). */
export class MissingTemplateError extends GenerationError {}

/** A run of consecutive facts of a chain, and the key it is told with (if any). */
interface Group {
  readonly facts: readonly StoryFact[];
  /** The chain's entities in order of first appearance (story entity indices). */
  readonly entities: readonly number[];
  /** The run's paraphrases, compiled (see CompiledTemplate); empty: told with the plain sentence. */
  readonly templates: readonly CompiledTemplate[];
}

/**
 * A bank indexed by `fComb/genderComb`, built once per bank: one Map lookup per group instead of
 * two property lookups on objects of a hundred keys or more (the bank's lists, not copies).
 */
const INDEX = new WeakMap<TemplateBank, Map<string, readonly string[]>>();
function bankIndex(bank: TemplateBank): Map<string, readonly string[]> {
  let index = INDEX.get(bank);
  if (index) return index;
  index = new Map();
  for (const fComb of Object.keys(bank)) {
    const byGender = bank[fComb]!;
    for (const genderComb of Object.keys(byGender))
      index.set(`${fComb}/${genderComb}`, templatesFor(bank, fComb, genderComb));
  }
  INDEX.set(bank, index);
  return index;
}

/**
 * No templates. Made empty from an array of objects, so that it has the elements kind of every
 * other template list (see mapped): code that reads lists then sees one array shape, not two.
 */
const NO_TEMPLATES: readonly never[] = [null].slice(0, 0) as never[];

/**
 * The runs of facts a bank has been asked about, as a tree: from the first person's gender, one
 * step per fact (its word, then its second person's gender) to the run's key and templates. The
 * key is built and looked up in bankIndex once per run shape, not once per run told; the tree
 * grows only with the shapes seen (a few thousand at most for our bank and k ≤ 10).
 */
interface RunNode {
  readonly fComb: string;
  readonly genderComb: string;
  /** The bank's templates for the run, compiled once here rather than looked up per sentence. */
  readonly templates: readonly CompiledTemplate[];
  /** By word, then by the second person's gender: male, female (GENDERS), then any other by name. */
  readonly next: Map<string, GenderSlots>;
}
/** A run's next nodes for one word, by gender: the two of GENDERS in slots, any other gender (a puzzle made elsewhere) in a map. */
interface GenderSlots {
  male: RunNode | undefined;
  female: RunNode | undefined;
  other: Map<string, RunNode> | undefined;
}
const RUNS = new WeakMap<TemplateBank, Map<string, RunNode>>();

function runStart(roots: Map<string, RunNode>, gender: string): RunNode {
  let node = roots.get(gender);
  if (!node) roots.set(gender, (node = { fComb: '', genderComb: gender, templates: NO_TEMPLATES, next: new Map() }));
  return node;
}

function runStep(index: Map<string, readonly string[]>, from: RunNode, word: string, gender: string): RunNode {
  let slots = from.next.get(word);
  if (!slots) from.next.set(word, (slots = { male: undefined, female: undefined, other: undefined }));
  const node = gender === 'male' ? slots.male : gender === 'female' ? slots.female : slots.other?.get(gender);
  return node ?? addRunNode(index, from, slots, word, gender);
}

/** The node after `from` for a fact of `word` to a person of `gender`, made (first seen). */
function addRunNode(
  index: Map<string, readonly string[]>,
  from: RunNode,
  slots: GenderSlots,
  word: string,
  gender: string,
): RunNode {
  const fComb = from.fComb === '' ? word : `${from.fComb}-${word}`;
  const genderComb = `${from.genderComb}-${gender}`;
  const list = index.get(`${fComb}/${genderComb}`);
  const templates = list && list.length > 0 ? mapped(list, compiledTemplate) : NO_TEMPLATES;
  const node: RunNode = { fComb, genderComb, templates, next: new Map() };
  if (gender === 'male') slots.male = node;
  else if (gender === 'female') slots.female = node;
  else (slots.other ??= new Map()).set(gender, node);
  return node;
}

/**
 * How much likelier a group of that many facts is than the others the bank covers at a place in
 * the chain (index = facts). The released CLUTRR stories tell 1.1 facts per sentence: most
 * facts get a sentence of their own, and a paraphrase of two or three facts is the exception.
 */
const GROUP_WEIGHT = [0, 8, 1, 1] as const;

/**
 * Splits a chain into runs of one to `maxLength` consecutive facts, left to right, drawing each
 * run's length at random among the lengths the bank has a paraphrase for there (one fact is
 * always possible: with no paraphrase it is told with the plain sentence), weighted by
 * GROUP_WEIGHT. Longer runs need every person on them to be distinct.
 */
export function segmentChain(
  puzzle: PuzzleRecord,
  bank: TemplateBank,
  chain: readonly StoryFact[],
  maxLength: number,
  rng: Rng,
): Group[] {
  return segmentWith(bankTables(bank), puzzle, chain, maxLength, rng, false);
}

/** What segmentChain looks up in a bank: its index and its tree of runs (each found once per bank, not per chain). */
interface BankTables {
  readonly index: Map<string, readonly string[]>;
  readonly roots: Map<string, RunNode>;
}
function bankTables(bank: TemplateBank): BankTables {
  let roots = RUNS.get(bank);
  if (!roots) RUNS.set(bank, (roots = new Map()));
  return { index: bankIndex(bank), roots };
}

function segmentWith(
  { index, roots }: BankTables,
  puzzle: PuzzleRecord,
  chain: readonly StoryFact[],
  maxLength: number,
  rng: Rng,
  refusePlain: boolean,
): Group[] {
  const n = chain.length;
  const out: Group[] = [];
  // The candidate runs starting at one place: their lengths and templates, the first
  // `candidates` entries (the run's facts and people are copied out only for the one chosen).
  // The arrays are reused and written by position: emptying them by setting their length is a
  // runtime call each time.
  const lengths: number[] = [];
  const lists: (readonly CompiledTemplate[])[] = [];
  const entities: number[] = [];
  for (let i = 0; i < n;) {
    let candidates = 0;
    let total = 0;
    // The keys of the runs starting here, grown one fact at a time; a run of two or more facts
    // is a candidate only when the bank has a paraphrase for it (and its people are distinct).
    const first = chain[i]!;
    entities[0] = first.from;
    let run = runStart(roots, puzzle.entities[first.from]!.gender);
    let distinct = true;
    const longest = Math.min(maxLength, n - i);
    for (let len = 1; len <= longest; len++) {
      const f = chain[i + len - 1]!;
      // entities[0..len) are the people of the run so far.
      for (let e = 0; e < len; e++) if (entities[e] === f.to) distinct = false;
      entities[len] = f.to;
      // The run's key is `${fComb}/${genderComb}` (words joined by -, genders joined by -).
      run = runStep(index, run, f.word, puzzle.entities[f.to]!.gender);
      const templates = distinct ? run.templates : NO_TEMPLATES;
      if ((len > 1 || refusePlain) && templates.length === 0) continue;
      lengths[candidates] = len;
      lists[candidates++] = templates;
      total += GROUP_WEIGHT[len]!;
    }
    if (candidates === 0) {
      // Refusing plain sentences, and no paraphrase fits here: the one fact, told by none.
      lengths[0] = 1;
      lists[candidates++] = NO_TEMPLATES;
    }
    let chosen = 0;
    if (candidates > 1) {
      let r = rng.next() * total;
      for (let o = 0; o < candidates; o++) {
        if ((r -= GROUP_WEIGHT[lengths[o]!]!) < 0) {
          chosen = o;
          break;
        }
      }
    }
    const len = lengths[chosen]!;
    out.push({ facts: chain.slice(i, i + len), entities: entities.slice(0, len + 1), templates: lists[chosen]! });
    i += len;
  }
  return out;
}

/**
 * Tidies a filled template from a file we did not write: single spaces, no space before
 * punctuation, a capital first letter and a final full stop. Our own bank needs none of it.
 */
export function tidySentence(text: string): string {
  let t = text
    .replace(/\s+/g, ' ')
    .replace(/ ([.,;:!?])/g, '$1')
    .trim();
  t = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(t) ? t : `${t.replace(/[,;:]$/, '')}.`;
}

/**
 * A template not used yet in this story, uniformly (any template when all are used): the same
 * draw as `rng.pick` over the unused ones, without building that list. `used` holds the few
 * templates the story has told so far; one compiled template per text (compiledTemplate) makes
 * comparing them comparing their texts.
 */
function pickFresh(
  templates: readonly CompiledTemplate[],
  used: readonly CompiledTemplate[],
  rng: Rng,
): CompiledTemplate {
  let fresh = templates.length;
  if (used.length > 0) {
    fresh = 0;
    for (const t of templates) if (!used.includes(t)) fresh++;
  }
  if (fresh === 0) return rng.pick(templates);
  let k = rng.int(fresh);
  // None used: the k-th unused template is the k-th.
  if (fresh === templates.length) return templates[k]!;
  for (const t of templates) if (!used.includes(t) && k-- === 0) return t;
  throw new Error('unreachable');
}

/**
 * A template tidied once and cut at its placeholders: filling it is then a join. Tidying the
 * template equals tidying the filled sentence because names (`[Name]`) hold neither runs of
 * spaces nor punctuation (a test checks this over the whole bank).
 */
interface CompiledTemplate {
  /** Literal text around the placeholders: one more than `slots`. */
  readonly text: readonly string[];
  /** The entity index of each placeholder, in order. */
  readonly slots: readonly number[];
}
const COMPILED = new Map<string, CompiledTemplate>();

/** The template compiled, one object per text. */
function compiledTemplate(template: string): CompiledTemplate {
  let c = COMPILED.get(template);
  if (!c) COMPILED.set(template, (c = compileTemplate(template)));
  return c;
}

function compileTemplate(template: string): CompiledTemplate {
  const tidy = tidySentence(template);
  const text: string[] = [];
  const slots: number[] = [];
  let at = 0;
  for (const m of tidy.matchAll(PLACEHOLDER_RE)) {
    text.push(tidy.slice(at, m.index));
    slots.push(Number(m[1]));
    at = m.index + m[0].length;
  }
  text.push(tidy.slice(at));
  return { text, slots };
}

/** `tidySentence(fillTemplate(template, names))`, from the compiled template. */
export function tidyFill(template: string, names: readonly string[]): string {
  return fillWith(
    compiledTemplate(template),
    names,
    names.map((_, i) => i),
  );
}

/**
 * tidyFill where placeholder ENT_i is named `names[entities[i]]`: the renderer brackets a
 * story's names once, not once per sentence.
 */
function fillWith(c: CompiledTemplate, names: readonly string[], entities: readonly number[]): string {
  let out = c.text[0]!;
  for (let i = 0; i < c.slots.length; i++) {
    const e = entities[c.slots[i]!];
    if (e === undefined) throw new RangeError(`template placeholder ENT_${c.slots[i]} has no entity`);
    out += names[e]! + c.text[i + 1]!;
  }
  return out;
}

/**
 * A StoryRenderer that tells each chain of facts with paraphrases from a bank (see
 * ParaphraseOptions): chains are split into runs of one to `combinationLength` facts
 * (segmentChain: lengths drawn at random, single facts most often, plain sentences where no
 * paraphrase exists), each run becomes one RenderedSentence listing its fact ids, names are
 * written `[Name]`, and no paraphrase is used twice in one story while another is available.
 * The sentences are arranged as `storyOrder` asks (shuffled by default). Deterministic in
 * (puzzle, split, rng).
 */
export function createParaphraseRenderer(options: ParaphraseOptions): StoryRenderer {
  const order = options.storyOrder ?? 'shuffled';
  if (options.synthetic) return createPlainRenderer(order);
  const maxLength = options.combinationLength;
  if (![1, 2, 3].includes(maxLength)) throw new RangeError(`combination length must be 1, 2 or 3 (got ${maxLength})`);
  const ts = options.templateSplit;
  const halves: BankHalves | undefined =
    ts === undefined ? undefined : 'seed' in ts ? splitBank(options.bank, ts.seed) : ts;
  // Each split's bank tables, found on its first row.
  const tables: Partial<Record<Split, BankTables>> = {};
  const tablesFor = (split: Split): BankTables => (tables[split] ??= bankTables(halves ? halves[split] : options.bank));
  const { tally, refusePlain } = options;

  return (puzzle, split, rng) => {
    const splitTables = tablesFor(split);
    const used: CompiledTemplate[] = [];
    const names = mapped(puzzle.entities, (e) => bracket(e.name));
    const tell = (g: Group): RenderedSentence => {
      const factIds = mapped(g.facts, (f) => f.id);
      if (g.templates.length === 0) {
        const f = g.facts[0]!;
        if (refusePlain) throw missingTemplate(puzzle, f, refusePlain.bankName);
        const text = plainSentence(
          puzzle.entities[f.from]!.name,
          f.word,
          puzzle.entities[f.to]!.name,
          rng.chance(0.5) ? 0 : 1,
        );
        if (tally) tally.plain++;
        return { text, factIds };
      }
      if (tally) tally.template += g.facts.length;
      const template = pickFresh(g.templates, used, rng);
      used.push(template);
      return { text: fillWith(template, names, g.entities), factIds };
    };
    const told = mapped(factChains(puzzle), (chain) => ({
      path: chain[0]!.kind === 'path',
      sentences: mapped(segmentWith(splitTables, puzzle, chain, maxLength, rng, refusePlain !== undefined), tell),
    }));
    const { sentences, clean } = arrange(told, order, rng);
    const story = joinSentences(sentences);
    return {
      sentences,
      story,
      // With no noise the clean story is every sentence in the same order (arrange keeps the
      // story's order, and one chain interleaved is itself): the same text, joined once.
      cleanStory: clean.length === sentences.length ? story : joinSentences(clean),
      question: randomQuestion(puzzle, rng, names),
      textTarget: randomTargetText(puzzle, rng, names),
    };
  };
}

/** The error for a fact that no paraphrase of `bankName` tells: the fact as its plain sentence, its relation and genders. */
function missingTemplate(puzzle: PuzzleRecord, f: StoryFact, bankName: string): MissingTemplateError {
  const a = puzzle.entities[f.from]!;
  const b = puzzle.entities[f.to]!;
  return new MissingTemplateError(
    `${bankName} has no template for the fact "${plainSentence(a.name, f.word, b.name, 1)}" ` +
      `(relation ${f.word}, genders ${a.gender}-${b.gender}), and falling back to a plain sentence is refused (--templates-only)`,
  );
}
