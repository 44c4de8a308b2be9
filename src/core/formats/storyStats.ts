import { parseWord, type Predicate, type RelationWord, WORD_ALIASES, wordFor } from '../kinship/relations';
import type { Triple } from '../puzzle/puzzle';
import { kinTermsIn } from '../text/lexicon';
import type { AuditedRow } from './audit';
import { type ClutrrRow, CsvFormatError } from './clutrrRow';
import { classifyNoise, rowK, storySentences } from './toPuzzle';

/**
 * The shortcut and character report of CLUTRR CSV files (`npm run cli -- stats`, the audit
 * view's stats panel): how the text is written and how far simple baselines get, per story
 * length k and overall. Definitions (the CLI's help and the audit README repeat them):
 *
 * - path people: the k+1 people met walking the path facts (the first k story_edges, as
 *   `classifyNoise` takes them) from query_edge[0]; a row whose path facts do not form such a
 *   walk ending at query_edge[1] has no path order.
 * - τ: Kendall's τ-a between path order and the order the path people are first named
 *   (index of the first `[Name]` in `story`), over the named path people:
 *   (concordant − discordant) / pairs. Mean over rows; rows with fewer than 2 named path people
 *   (or no path order) are skipped and counted.
 * - first_is_q0: share of rows whose first `[Name]` is query[0].
 * - words per fact: whitespace-separated tokens of `story` / story_edges (every edge, typed or
 *   not), a mean of per-row ratios.
 * - facts per sentence: story_edges / sentences of `story` (split after `.`, `!` or `?` followed
 *   by white space or the end), a mean of per-row ratios.
 * - noise vocabulary: edge_types of the typed facts after the path, per kind as `classifyNoise`
 *   tells it from their shape; edges without a type (released noisy files) are only counted.
 * - majority baseline: per k, the share of rows whose target is that k's most frequent target
 *   (overall: those hits summed over k, over all rows).
 * - last-word baseline: the last of the 20 relation words or their synonyms (`RELATION_TERMS`,
 *   whole words, case-insensitive, bracketed names left out) in `story`, turned into the word of
 *   its predicate for the gender of query_edge[1] in genders (the term's own word when that
 *   gender is not male/female), compared with `target` (`neice` read as niece). A story without
 *   one is a miss.
 */

/** A kind of noise fact, as `classifyNoise` tells it. */
export type NoiseKind = 'supporting' | 'irrelevant' | 'disconnected' | 'memory';

export const NOISE_KIND_ORDER: readonly NoiseKind[] = ['supporting', 'irrelevant', 'disconnected', 'memory'];

/**
 * The running sums of one story length. Plain data (numbers and Maps), so it crosses from a
 * worker by structured clone and tallies of several files add up (`mergeStoryStats`).
 */
export interface StoryStatsTally {
  rows: number;
  /** f_comb (else the path's edge_types joined by `-`) → rows. */
  readonly patterns: Map<string, number>;
  /** target as written → rows. */
  readonly targets: Map<string, number>;
  tauSum: number;
  tauRows: number;
  tauSkipped: number;
  firstIsQ0: number;
  wordsPerFactSum: number;
  wordsPerFactRows: number;
  factsPerSentenceSum: number;
  factsPerSentenceRows: number;
  /** Noise kind → relation word → facts. */
  readonly noise: Map<NoiseKind, Map<string, number>>;
  /** story_edges after the path that have no edge type. */
  untypedNoise: number;
  lastWordHits: number;
  /** Rows whose story has no relation term at all. */
  lastWordNone: number;
  /** Rows checked as entailed; of them, decided only through an assumption rule; of those, true in no family. */
  entailed: number;
  assumed: number;
  impossible: number;
  /** f_comb → target → rows, of the assumed rows. */
  readonly assumedPatterns: Map<string, number>;
}

/** Tallies per story length k. */
export type StoryStatsTallies = Map<number, StoryStatsTally>;

/** What one row contributes (exported for tests and for anyone checking a single row). */
export interface RowMeasures {
  readonly k: number;
  readonly pattern: string;
  readonly target: string;
  /** Story indices of the path people in path order, or null when the path facts do not walk. */
  readonly pathPeople: readonly number[] | null;
  /** null when fewer than two path people are named. */
  readonly tau: number | null;
  readonly firstIsQ0: boolean;
  readonly words: number;
  readonly facts: number;
  readonly sentences: number;
  readonly noise: readonly { readonly kind: NoiseKind; readonly word: string }[];
  readonly untypedNoise: number;
  /** The last-word baseline's answer, or null when the story has no relation term. */
  readonly lastWordGuess: string | null;
  readonly lastWordHit: boolean;
}

const relationOf = (word: string, column: 'edge_types' | 'target', what: string): Predicate => {
  const info = parseWord(word);
  if (!info) throw new CsvFormatError(`"${word}"${what} is not a CLUTRR relation word`, { column });
  return info.predicate;
};

/** The people met walking `edges` (undirected) from `start`, if the walk uses them all and ends at `end`. */
function walkPath(edges: readonly (readonly [number, number])[], start: number, end: number): number[] | null {
  const left = edges.slice();
  const people = [start];
  let at = start;
  while (left.length > 0) {
    const i = left.findIndex(([a, b]) => a === at || b === at);
    if (i < 0) return null;
    const [a, b] = left[i]!;
    at = a === at ? b : a;
    people.push(at);
    left.splice(i, 1);
  }
  return at === end ? people : null;
}

/** Kendall's τ-a of a sequence against ascending order; null for fewer than 2 items. */
export function kendallTau(positions: readonly number[]): number | null {
  const n = positions.length;
  if (n < 2) return null;
  let score = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) score += Math.sign(positions[j]! - positions[i]!);
  return score / ((n * (n - 1)) / 2);
}

const NAME = /\[([^\]]*)\]/;
const NAMES = /\[[^\]]*\]/g;

/**
 * Measures one row (see the module comment for each definition). `k` defaults to `rowK(row)`.
 * Throws CsvFormatError naming the column when an edge type or the target is not a relation word.
 */
export function measureRow(row: ClutrrRow, k: number = rowK(row)): RowMeasures {
  const story = row.story;
  const facts = row.storyEdges.length;
  const pathLength = Math.min(k, facts);
  const [q0, q1] = row.queryEdge;

  const pathPeople = walkPath(row.storyEdges.slice(0, pathLength), q0, q1);
  let tau: number | null = null;
  if (pathPeople) {
    const positions: number[] = [];
    for (const p of pathPeople) {
      const name = row.genders[p]?.name;
      const at = name === undefined ? -1 : story.indexOf(`[${name}]`);
      if (at >= 0) positions.push(at);
    }
    tau = kendallTau(positions);
  }

  const typed = Math.min(row.edgeTypes.length, facts);
  const triples: Triple[] = [];
  for (let i = 0; i < typed; i++) {
    const [from, to] = row.storyEdges[i]!;
    const word = row.edgeTypes[i]!;
    const predicate = relationOf(word, 'edge_types', ` (item ${i + 1})`);
    triples.push({ from, to, predicate, word: (WORD_ALIASES[word] ?? word) as RelationWord });
  }
  const target = row.target.trim();
  const targetWord = WORD_ALIASES[target] ?? target;
  const kinds = classifyNoise(triples, pathLength, [q0, q1], relationOf(target, 'target', ''));
  const noise: { kind: NoiseKind; word: string }[] = [];
  for (let i = pathLength; i < typed; i++) noise.push({ kind: kinds[i]!.kind as NoiseKind, word: row.edgeTypes[i]! });

  const terms = kinTermsIn(story.replace(NAMES, ' '));
  let last: (typeof terms)[number] | undefined;
  for (let i = terms.length - 1; i >= 0 && !last; i--) if (terms[i]!.kind === 'relation') last = terms[i];
  let lastWordGuess: string | null = null;
  if (last?.word) {
    const info = parseWord(last.word)!;
    const gender = row.genders[q1]?.gender;
    lastWordGuess = gender === 'male' || gender === 'female' ? wordFor(info.predicate, gender) : last.word;
  }

  return {
    k,
    pattern: row.fComb.trim() !== '' ? row.fComb.trim() : row.edgeTypes.slice(0, pathLength).join('-'),
    target,
    pathPeople,
    tau,
    firstIsQ0: NAME.exec(story)?.[1] === row.query[0],
    words: story.split(/\s+/).filter((w) => w !== '').length,
    facts,
    sentences: storySentences(story).length,
    noise,
    untypedNoise: Math.max(0, facts - Math.max(typed, pathLength)),
    lastWordGuess,
    lastWordHit: lastWordGuess !== null && lastWordGuess === targetWord,
  };
}

/** An empty tally of one story length. */
export function emptyTally(): StoryStatsTally {
  return {
    rows: 0,
    patterns: new Map(),
    targets: new Map(),
    tauSum: 0,
    tauRows: 0,
    tauSkipped: 0,
    firstIsQ0: 0,
    wordsPerFactSum: 0,
    wordsPerFactRows: 0,
    factsPerSentenceSum: 0,
    factsPerSentenceRows: 0,
    noise: new Map(),
    untypedNoise: 0,
    lastWordHits: 0,
    lastWordNone: 0,
    entailed: 0,
    assumed: 0,
    impossible: 0,
    assumedPatterns: new Map(),
  };
}

const bump = <K>(m: Map<K, number>, key: K, by = 1) => m.set(key, (m.get(key) ?? 0) + by);

/** Adds one row's measures to a tally. */
function addMeasures(t: StoryStatsTally, m: RowMeasures): void {
  t.rows++;
  bump(t.patterns, m.pattern);
  bump(t.targets, m.target);
  if (m.tau === null) t.tauSkipped++;
  else {
    t.tauSum += m.tau;
    t.tauRows++;
  }
  if (m.firstIsQ0) t.firstIsQ0++;
  if (m.facts > 0) {
    t.wordsPerFactSum += m.words / m.facts;
    t.wordsPerFactRows++;
  }
  if (m.sentences > 0) {
    t.factsPerSentenceSum += m.facts / m.sentences;
    t.factsPerSentenceRows++;
  }
  for (const n of m.noise) {
    let words = t.noise.get(n.kind);
    if (!words) t.noise.set(n.kind, (words = new Map()));
    bump(words, n.word);
  }
  t.untypedNoise += m.untypedNoise;
  if (m.lastWordHit) t.lastWordHits++;
  if (m.lastWordGuess === null) t.lastWordNone++;
}

/** A tally's plain counts and sums, which pooling adds field by field. */
const SUMMED_FIELDS = [
  'rows',
  'tauSum',
  'tauRows',
  'tauSkipped',
  'firstIsQ0',
  'wordsPerFactSum',
  'wordsPerFactRows',
  'factsPerSentenceSum',
  'factsPerSentenceRows',
  'untypedNoise',
  'lastWordHits',
  'lastWordNone',
  'entailed',
  'assumed',
  'impossible',
] as const satisfies readonly (keyof StoryStatsTally)[];

/** Adds tally `b` into tally `a` (same k, or when pooling every k). */
function addTally(a: StoryStatsTally, b: StoryStatsTally): void {
  for (const f of SUMMED_FIELDS) a[f] += b[f];
  for (const [p, n] of b.patterns) bump(a.patterns, p, n);
  for (const [w, n] of b.targets) bump(a.targets, w, n);
  for (const [kind, words] of b.noise) {
    let into = a.noise.get(kind);
    if (!into) a.noise.set(kind, (into = new Map()));
    for (const [w, n] of words) bump(into, w, n);
  }
  for (const [p, n] of b.assumedPatterns) bump(a.assumedPatterns, p, n);
}

/** What the audit found for a row (its verdict and, when entailed, its basis). */
export type RowCheckSummary = Pick<AuditedRow, 'verdict' | 'basis'>;

/** Adds a row's verdict to a tally: entailed, assumed (with its pattern and label), impossible. */
function addCheck(t: StoryStatsTally, pattern: string, target: string, c: RowCheckSummary): void {
  if (c.verdict !== 'entailed') return;
  t.entailed++;
  if (c.basis?.kind !== 'assumed') return;
  t.assumed++;
  bump(t.assumedPatterns, `${pattern} → ${target}`);
  if (c.basis.family === 'impossible') t.impossible++;
}

/** The sum of several files' tallies, as a new value (the inputs are left alone). */
export function mergeStoryStats(...parts: readonly StoryStatsTallies[]): StoryStatsTallies {
  const out: StoryStatsTallies = new Map();
  for (const part of parts)
    for (const [k, t] of part) {
      let into = out.get(k);
      if (!into) out.set(k, (into = emptyTally()));
      addTally(into, t);
    }
  return out;
}

/** The figures of one story length, or of all of them. Shares and means are null without rows to measure. */
export interface StoryFigures {
  readonly rows: number;
  readonly patterns: number;
  /** Most frequent first, then alphabetical. */
  readonly targets: readonly (readonly [string, number])[];
  readonly tau: number | null;
  readonly tauRows: number;
  readonly tauSkipped: number;
  readonly firstIsQ0: number | null;
  readonly wordsPerFact: number | null;
  readonly factsPerSentence: number | null;
  /** Per noise kind present, in NOISE_KIND_ORDER; words most frequent first. */
  readonly noise: readonly { readonly kind: NoiseKind; readonly words: readonly (readonly [string, number])[] }[];
  readonly untypedNoise: number;
  readonly majorityAcc: number | null;
  readonly lastWordAcc: number | null;
  readonly lastWordNone: number;
  /** Rows the audit found entailed (0 when rows were added without their check). */
  readonly entailed: number;
  /** Share of the entailed rows decided only through an assumption rule. */
  readonly assumedShare: number | null;
  /** Share of the entailed rows whose label is true in no family (a part of assumedShare). */
  readonly impossibleShare: number | null;
  /** `f_comb → target` of the assumed rows, most frequent first. */
  readonly assumedPatterns: readonly (readonly [string, number])[];
}

export interface StoryStatsResult {
  /** k ascending. */
  readonly byK: readonly (StoryFigures & { readonly k: number })[];
  readonly overall: StoryFigures;
}

const ranked = (m: ReadonlyMap<string, number>): [string, number][] =>
  [...m.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

const share = (n: number, of: number): number | null => (of === 0 ? null : n / of);

const majorityHits = (t: StoryStatsTally): number => Math.max(0, ...t.targets.values());

function figures(t: StoryStatsTally, majority: number): StoryFigures {
  return {
    rows: t.rows,
    patterns: t.patterns.size,
    targets: ranked(t.targets),
    tau: share(t.tauSum, t.tauRows),
    tauRows: t.tauRows,
    tauSkipped: t.tauSkipped,
    firstIsQ0: share(t.firstIsQ0, t.rows),
    wordsPerFact: share(t.wordsPerFactSum, t.wordsPerFactRows),
    factsPerSentence: share(t.factsPerSentenceSum, t.factsPerSentenceRows),
    noise: NOISE_KIND_ORDER.filter((kind) => t.noise.has(kind)).map((kind) => ({
      kind,
      words: ranked(t.noise.get(kind)!),
    })),
    untypedNoise: t.untypedNoise,
    majorityAcc: share(majority, t.rows),
    lastWordAcc: share(t.lastWordHits, t.rows),
    lastWordNone: t.lastWordNone,
    entailed: t.entailed,
    assumedShare: share(t.assumed, t.entailed),
    impossibleShare: share(t.impossible, t.entailed),
    assumedPatterns: ranked(t.assumedPatterns),
  };
}

/** The figures per k and overall; the overall majority baseline takes each k's own majority target. */
export function storyStatsResult(tallies: StoryStatsTallies): StoryStatsResult {
  const ks = [...tallies.keys()].sort((a, b) => a - b);
  const all = emptyTally();
  let majority = 0;
  const byK = ks.map((k) => {
    const t = tallies.get(k)!;
    addTally(all, t);
    majority += majorityHits(t);
    return { k, ...figures(t, majorityHits(t)) };
  });
  return { byK, overall: figures(all, majority) };
}

/** A figure with `digits` decimals, `nan` when there was nothing to measure. */
export const fixed = (x: number | null, digits: number): string => (x === null ? 'nan' : x.toFixed(digits));

/**
 * The one-line summary other checks parse:
 * `rows=<n> tau=<x.xxx> words_per_fact=<x.xx> first_is_q0=<x.xxx> last_word_acc=<x.xxx>`
 * (overall figures; `nan` where there were no rows to measure).
 */
export function storyStatsLine(r: StoryStatsResult): string {
  const o = r.overall;
  return `rows=${o.rows} tau=${fixed(o.tau, 3)} words_per_fact=${fixed(o.wordsPerFact, 2)} first_is_q0=${fixed(o.firstIsQ0, 3)} last_word_acc=${fixed(o.lastWordAcc, 3)}`;
}

/** The incremental accumulator: `add` rows in any order, read `tallies` or `result` at any time. */
export interface StoryStats {
  /**
   * Measures one row; `k` defaults to `rowK(row)`; `check`, when given, adds the row's verdict
   * (entailed, assumed, impossible). Throws CsvFormatError as `measureRow` does.
   */
  add(row: ClutrrRow, k?: number, check?: RowCheckSummary): void;
  /** The running tallies per k (live: copy with `mergeStoryStats` to keep a snapshot). */
  tallies(): StoryStatsTallies;
  result(): StoryStatsResult;
}

/** A fresh accumulator; memory grows with distinct k, patterns, targets and noise words, never with rows. */
export function createStoryStats(): StoryStats {
  const byK: StoryStatsTallies = new Map();
  return {
    add(row, k = rowK(row), check) {
      const m = measureRow(row, k);
      let t = byK.get(k);
      if (!t) byK.set(k, (t = emptyTally()));
      addMeasures(t, m);
      if (check) addCheck(t, m.pattern, m.target, check);
    },
    tallies: () => byK,
    result: () => storyStatsResult(byK),
  };
}

/**
 * Adds a batch of audited rows (`CsvAudit`'s `onRows`). Their columns were vetted by the audit
 * already; should stats still fail on one, the error names its file and data row.
 */
export function addAuditedRows(stats: StoryStats, rows: readonly AuditedRow[]): void {
  for (const r of rows) {
    try {
      stats.add(r.row, r.k, r);
    } catch (e) {
      if (e instanceof CsvFormatError) throw new CsvFormatError(e.detail, { ...e.where, file: r.file, row: r.n });
      throw e;
    }
  }
}
