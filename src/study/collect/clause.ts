/**
 * Clauses for paraphrase collection: a chain of k = 1..3 facts between named people, as the
 * paper's crowd workers saw them (the facts, and for k ≥ 2 the implied fact they must not state).
 *
 * A clause is the chain e0 → e1 → … → ek of a template key: fact i reads "e(i+1) is e(i)'s
 * word(i)", exactly as a bank key `father-sister` with gender comb `female-male-female` does, so
 * an accepted story becomes a template of that key by putting `ENT_i_<gender>` for person i.
 * The implied fact is what the rule base derives for the whole chain: "ek is e0's <word>".
 *
 * A clause is named by its id `c1.<relations>.<genders>` (e.g. `c1.sister-father.male-female-male`)
 * and a numeric seed; the seed alone picks the people's names, so `clauseFromId(id, seed)`
 * rebuilds any clause a participant saw from the two columns of their row.
 */
import { FEMALE_NAMES, MALE_NAMES } from '../../core/family/names';
import {
  GENDERS,
  type Gender,
  parseWord,
  PRED_CODE,
  type Predicate,
  type RelationWord,
  RELATION_WORDS,
  wordFor,
} from '../../core/kinship/relations';
import { createRng, hashSeed, type Seed } from '../../core/random/rng';
import { cykPath, maskToPredicates } from '../../core/reasoning/solver';
import { bankLists, OUR_BANK, twoFactPatterns } from '../../core/text/bank';
import { chainGenders, splitFComb } from '../../core/text/templates';
import { CLAUSE_KS, type ClauseGenders } from '../definition/vocabulary';

/** The clause-id format's version prefix. */
export const CLAUSE_ID_PREFIX = 'c1';

/** A clause size collected (the paper's k = 1, 2, 3; longer stories are stitched). */
export type ClauseK = (typeof CLAUSE_KS)[number];

export interface ClausePerson {
  readonly name: string;
  readonly gender: Gender;
}

/** "people[to] is the <word> of people[from]" (the engine's direction: to is from's word). */
export interface ClauseFact {
  readonly from: number;
  readonly to: number;
  readonly word: RelationWord;
}

/** The implied fact: "people[b] is the <word> of people[a]". */
export interface ClauseImplied {
  readonly a: number;
  readonly b: number;
  readonly word: RelationWord;
}

export interface Clause {
  /** `c1.<relations>.<genders>`. */
  readonly id: string;
  /** Picks the names (an unsigned 32-bit integer, the row's `seed`). */
  readonly seed: number;
  readonly k: number;
  /** In chain order: person i is e(i). */
  readonly people: readonly ClausePerson[];
  /** Fact i joins person i and person i + 1. */
  readonly facts: readonly ClauseFact[];
  /** What the rule base derives for the whole chain; null for k = 1 (a single fact implies nothing). */
  readonly implied: ClauseImplied | null;
  /** The people's genders joined by `-` (the template key's gender comb). */
  readonly genders: string;
  /** The relation words joined by `-` (the template key's f_comb, spelled `niece`). */
  readonly relations: string;
}

/** One collectable (relation combination, genders) cell. */
export interface ClauseCell {
  /** The clause id of the cell. */
  readonly id: string;
  readonly k: number;
  readonly words: readonly RelationWord[];
  readonly people: readonly Gender[];
  /** f_comb (our spelling) and gender comb: the cell's key in a template file. */
  readonly fComb: string;
  readonly genderComb: string;
  /** Templates our own bank has for this cell (0 when it has none). */
  readonly bankTemplates: number;
}

/**
 * Names the pool's generator uses, minus those that are also common English words ("Mark",
 * "Grace", "June"…): a story's "mark" or "grace" must never be taken for a person when names are
 * found in the text or replaced by placeholders.
 */
const WORDLIKE = new Set([
  'Amber',
  'Bill',
  'Carol',
  'Daisy',
  'Dale',
  'Dean',
  'Earl',
  'Faith',
  'Frank',
  'Grace',
  'Grant',
  'Hazel',
  'Holly',
  'Iris',
  'Ivy',
  'Jean',
  'Joy',
  'June',
  'Lance',
  'Lily',
  'Mark',
  'Max',
  'Miles',
  'Olive',
  'Pearl',
  'Ray',
  'Rose',
  'Violet',
]);
const NAME_POOL: Readonly<Record<Gender, readonly string[]>> = {
  male: MALE_NAMES.filter((n) => !WORDLIKE.has(n)),
  female: FEMALE_NAMES.filter((n) => !WORDLIKE.has(n)),
};

/** Every name a clause may give a person (for finding the names of people not in a clause). */
export const CLAUSE_NAMES: ReadonlySet<string> = new Set([...NAME_POOL.male, ...NAME_POOL.female]);

/** The one predicate the rule base derives for a chain of words, or undefined (none, or several). */
function chainPredicate(words: readonly RelationWord[]): Predicate | undefined {
  const codes = words.map((w) => PRED_CODE[parseWord(w)!.predicate]);
  const found = maskToPredicates(cykPath(codes));
  return found.length === 1 ? found[0] : undefined;
}

/** The generator marries people of the other gender: a spouse fact joins a man and a woman. */
function spousesFine(words: readonly RelationWord[], people: readonly Gender[]): boolean {
  return words.every((w, i) => parseWord(w)!.predicate !== 'SO' || people[i] !== people[i + 1]);
}

const cellId = (words: readonly string[], people: readonly string[]) =>
  `${CLAUSE_ID_PREFIX}.${words.join('-')}.${people.join('-')}`;

const cellCache = new Map<number, ClauseCell[]>();

let stated: RelationWord[] | undefined;
/**
 * The relation words our generator states as facts (those of the bank's two-fact patterns: the
 * parent, child, sibling, spouse and grand relations). In-law, nephew, niece, uncle... words that
 * are only ever inferred are left out: a paraphrase of such a fact would never be used.
 */
function statedWords(): RelationWord[] {
  if (!stated) {
    const used = new Set(twoFactPatterns().flatMap((p) => p.words));
    stated = RELATION_WORDS.filter((w) => used.has(w));
  }
  return stated;
}

function cellsOfK(k: number): ClauseCell[] {
  const cached = cellCache.get(k);
  if (cached) return cached;
  const counts = new Map(bankLists(OUR_BANK).map((l) => [`${l.fComb}.${l.genderComb}`, l.count]));
  const out: ClauseCell[] = [];
  const add = (words: readonly RelationWord[], people: readonly Gender[]) => {
    const fComb = words.join('-');
    const genderComb = people.join('-');
    out.push({
      id: cellId(words, people),
      k,
      words,
      people,
      fComb,
      genderComb,
      bankTemplates: counts.get(`${fComb}.${genderComb}`) ?? 0,
    });
  };
  if (k === 2) {
    // The bank's own list of decidable two-fact patterns (62 patterns, 112 gendered cells).
    for (const p of twoFactPatterns()) add(p.words, p.genders);
  } else {
    let chains: RelationWord[][] = [[]];
    for (let i = 0; i < k; i++) chains = chains.flatMap((c) => statedWords().map((w) => [...c, w]));
    for (const words of chains) {
      if (k > 1 && chainPredicate(words) === undefined) continue;
      for (const first of GENDERS) {
        const people = chainGenders(words, first);
        if (spousesFine(words, people)) add(words, people);
      }
    }
  }
  cellCache.set(k, out);
  return out;
}

/**
 * The cells that can be collected for the given clause sizes, in a fixed order: every
 * relation word the generator states as a fact (k = 1, `statedWords`), every decidable two-fact pattern (k = 2, the bank's `twoFactPatterns`),
 * every three-fact chain of stated words whose whole span the rule base resolves to exactly one relation
 * (k = 3), each with every gender of the first person that keeps spouses of the other gender.
 */
export function clauseCells(ks: readonly number[] = CLAUSE_KS): ClauseCell[] {
  return [...new Set(ks)]
    .filter((k): k is ClauseK => (CLAUSE_KS as readonly number[]).includes(k))
    .sort()
    .flatMap(cellsOfK);
}

/** The people's names for a clause seed: distinct, drawn from the generator's pool by gender. */
function namesFor(people: readonly Gender[], seed: number): string[] {
  const rng = createRng(seed, 'clause-names');
  const used = new Set<string>();
  return people.map((g) => {
    const pool = NAME_POOL[g].filter((n) => !used.has(n));
    const name = rng.pick(pool);
    used.add(name);
    return name;
  });
}

/**
 * A clause with the given words and names (tests, and the paper's examples); `names[i]` is
 * person i of the chain. Throws on a chain that is not a clause (see clauseFromId).
 */
export function makeClause(words: readonly RelationWord[], first: Gender, names: readonly string[], seed = 0): Clause {
  const people = chainGenders(words, first);
  const problem = chainProblem(words, people);
  if (problem) throw new RangeError(problem);
  if (names.length !== people.length) {
    throw new RangeError(`a clause of ${words.length} facts has ${people.length} people, not ${names.length}`);
  }
  const predicate = words.length > 1 ? chainPredicate(words) : undefined;
  const last = people.length - 1;
  return {
    id: cellId(words, people),
    seed,
    k: words.length,
    people: people.map((gender, i) => ({ name: names[i]!, gender })),
    facts: words.map((word, i) => ({ from: i, to: i + 1, word })),
    implied: predicate ? { a: 0, b: last, word: wordFor(predicate, people[last]!) } : null,
    genders: people.join('-'),
    relations: words.join('-'),
  };
}

function chainProblem(words: readonly RelationWord[], people: readonly Gender[]): string | undefined {
  if (words.length < 1 || words.length > 3) return `a clause has 1 to 3 facts, not ${words.length}`;
  if (!spousesFine(words, people)) return 'a husband or wife fact joins two people of the same gender';
  if (words.length > 1 && chainPredicate(words) === undefined) {
    return `the rule base derives no single relation for ${words.join('-')}`;
  }
  return undefined;
}

/**
 * The clause a (puzzle_id, seed) pair names, or what is wrong with the id: not `c1.…`, an
 * unknown relation word, genders that do not match the words, or a chain that is not a cell.
 */
export function clauseFromId(id: string, seed: number): Clause | { error: string } {
  const parts = id.split('.');
  if (parts.length !== 3 || parts[0] !== CLAUSE_ID_PREFIX) {
    return { error: `"${id}" is not a clause id (expected ${CLAUSE_ID_PREFIX}.<relations>.<genders>)` };
  }
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    return { error: `clause seed ${seed} is not an unsigned 32-bit integer` };
  }
  const split = splitFComb(parts[1]!);
  if ('unknown' in split) return { error: `clause "${id}": "${split.unknown}" is not a relation word` };
  const genders = parts[2]!.split('-');
  const bad = genders.find((g) => !(GENDERS as readonly string[]).includes(g));
  if (bad !== undefined) return { error: `clause "${id}": "${bad}" is not a gender (male or female)` };
  const people = chainGenders(split.words, genders[0] as Gender);
  if (people.join('-') !== parts[2]) {
    return {
      error: `clause "${id}": the relations ${split.words.join('-')} give the genders ${people.join('-')}, not ${parts[2]}`,
    };
  }
  const problem = chainProblem(split.words, people);
  if (problem) return { error: `clause "${id}": ${problem}` };
  return makeClause(split.words, people[0]!, namesFor(people, seed), seed);
}

/** How a participant's clauses are chosen: the study's settings of the same names. */
export interface ClauseSettings {
  /** Clause sizes to draw from (a subset of 1..3). */
  readonly clauseKs: readonly number[];
  /** `any`: every cell; `mixed`: only cells whose people are not all of one gender. */
  readonly clauseGenders: ClauseGenders;
  readonly clausesPerParticipant: number;
}

/** Stories collected so far per clause id (cell), e.g. from the results server. */
export type ClauseCoverage = Readonly<Record<string, number>>;

/**
 * A participant's clauses, seeded by (study seed, session seed). The sizes take turns (a
 * shuffled cycle over `clauseKs`), so each size is drawn about equally often although there are
 * many more three-fact cells; within a size a cell is drawn uniformly, or with `coverage` among
 * the least covered cells (counting the participant's own earlier draws). No cell is drawn twice
 * for one participant while its size has cells left. Each clause's seed (its names) comes from
 * the two seeds and its position.
 */
export function pickClauses(
  studySeed: Seed,
  sessionSeed: Seed,
  settings: ClauseSettings,
  coverage?: ClauseCoverage,
): Clause[] {
  const rng = createRng(studySeed, 'clauses', sessionSeed);
  const ks = [...new Set(settings.clauseKs)].filter((k) => (CLAUSE_KS as readonly number[]).includes(k)).sort();
  if (ks.length === 0) return [];
  const byK = new Map(
    ks.map((k) => [k, clauseCells([k]).filter((c) => settings.clauseGenders === 'any' || new Set(c.people).size > 1)]),
  );
  const counts = new Map<string, number>();
  const order = rng.shuffle([...ks]);
  const out: Clause[] = [];
  for (let i = 0; i < settings.clausesPerParticipant; i++) {
    const k = order[i % order.length]!;
    const cells = byK.get(k)!;
    if (cells.length === 0) continue;
    const fresh = cells.filter((c) => !out.some((o) => o.id === c.id));
    const pool = fresh.length > 0 ? fresh : cells;
    let choices = pool;
    if (coverage) {
      const covered = (c: ClauseCell) => (coverage[c.id] ?? 0) + (counts.get(c.id) ?? 0);
      const least = Math.min(...pool.map(covered));
      choices = pool.filter((c) => covered(c) === least);
    }
    const cell = rng.pick(choices);
    counts.set(cell.id, (counts.get(cell.id) ?? 0) + 1);
    const clause = clauseFromId(cell.id, hashSeed(studySeed, 'clause', sessionSeed, i));
    if ('error' in clause) throw new Error(clause.error); // cells are clauses by construction
    out.push(clause);
  }
  return out;
}

/** "Anna is the mother of Ben." */
const sentence = (clause: Clause, to: number, word: RelationWord, from: number) =>
  `${clause.people[to]!.name} is the ${word} of ${clause.people[from]!.name}.`;

/** The facts as plain sentences, one per fact, in chain order ("Anna is the mother of Ben."). */
export function factSentences(clause: Clause): string[] {
  return clause.facts.map((f) => sentence(clause, f.to, f.word, f.from));
}

/** The implied fact as a sentence, or null for a single fact (it implies nothing). */
export function impliedSentence(clause: Clause): string | null {
  const i = clause.implied;
  return i ? sentence(clause, i.b, i.word, i.a) : null;
}

/**
 * The pair and word a row records for the clause (query_a, query_b, gold): the implied fact, or
 * for k = 1 the single fact itself.
 */
export function clauseQuery(clause: Clause): ClauseImplied {
  if (clause.implied) return clause.implied;
  const f = clause.facts[0]!;
  return { a: f.from, b: f.to, word: f.word };
}
