/**
 * The one encoding of stories for the models: the answer classes, stories as graphs (GAT) and
 * as anonymised token sequences (LSTM), and batching into flat typed arrays that become tensors
 * as they are. Used unchanged by training (Node), the CLI and the browser worker; no tfjs here.
 */
import type { ClutrrRow } from '../core/formats/clutrrRow';
import { RELATION_WORDS, type RelationWord, WORD_ALIASES } from '../core/kinship/relations';
import type { PuzzleRecord } from '../core/puzzle/puzzle';
import type { Rng, Seed } from '../core/random/rng';
import type { ModelQuestion, StoryGraph } from './model';
import type { TextTokenizer } from './text/tokens';

// ---------------------------------------------------------------------------------------------
// Classes

/**
 * The 18 answer classes, frozen (a model's output index i means CLASSES[i]). They are core's
 * twenty relation words (RELATION_WORDS: predicate order, male before female) minus `husband`
 * and `wife`: a spouse is always a single stated fact, so it is never a query's answer (none of
 * the released rows has it as a target). The released `neice` spelling maps to `niece`.
 */
export const CLASSES = [
  'son',
  'daughter',
  'father',
  'mother',
  'brother',
  'sister',
  'grandson',
  'granddaughter',
  'grandfather',
  'grandmother',
  'son-in-law',
  'daughter-in-law',
  'father-in-law',
  'mother-in-law',
  'nephew',
  'niece',
  'uncle',
  'aunt',
] as const satisfies readonly RelationWord[];

export type ClassWord = (typeof CLASSES)[number];
export const NUM_CLASSES = CLASSES.length;

const CLASS_INDEX: ReadonlyMap<string, number> = new Map(CLASSES.map((w, i) => [w, i]));

/** The class index of an answer word (`neice` accepted), or -1 for a word that is not a class. */
export function classIndex(word: string): number {
  return CLASS_INDEX.get(WORD_ALIASES[word] ?? word) ?? -1;
}

// ---------------------------------------------------------------------------------------------
// Graphs

/**
 * Edge types: 0 is the self-loop every node gets; 1..20 a stated fact, by relation word in
 * RELATION_WORDS order; 21..40 the same fact read backwards (the inverse edges of the improved
 * GAT). An inverse edge keeps its word's id + 20 rather than the inverse word, whose gender
 * would depend on the other person: the model learns what "read backwards" means.
 */
export const SELF_EDGE = 0;
export const NUM_WORDS = RELATION_WORDS.length;
export const NUM_EDGE_TYPES = 1 + 2 * NUM_WORDS;

const WORD_ID: ReadonlyMap<string, number> = new Map(RELATION_WORDS.map((w, i) => [w, i + 1]));

// A story as a graph is part of the question every model answers, so model.ts defines it.
export type { StoryGraph } from './model';

/** The edge type of a stated fact's word (`neice` accepted), or undefined for an unknown word. */
export function edgeTypeOf(word: string): number | undefined {
  return WORD_ID.get(WORD_ALIASES[word] ?? word);
}

/**
 * The graph of a generated (or imported) puzzle: every fact, path first, then noise. An imported
 * row's untyped edges are not facts, so the people only they reached would stand without an
 * edge: they are left out, as graphFromRow leaves them out.
 */
export function graphFromPuzzle(puzzle: PuzzleRecord): StoryGraph {
  const untyped = 'untypedEdges' in puzzle && (puzzle as { untypedEdges: readonly unknown[] }).untypedEdges.length > 0;
  return compactGraph(
    puzzle.entities.length,
    puzzle.facts.map((f) => [f.from, f.to, WORD_ID.get(f.word)!] as const),
    puzzle.query,
    classIndex(puzzle.target.word),
    untyped,
  ).graph;
}

/**
 * A graph of `numNodes` people and these typed edges; with `leaveOutBare`, the people with no
 * edge who are not asked about are left out and the rest renumbered in order (the edges keep
 * their order, so per-fact attention still lines up with the facts).
 */
function compactGraph(
  numNodes: number,
  edges: readonly (readonly [number, number, number])[],
  [qa, qb]: readonly [number, number],
  label: number,
  leaveOutBare: boolean,
): { graph: StoryGraph; droppedPeople: number[]; nodeOf: Int32Array } {
  const index = Int32Array.from({ length: numNodes }, (_, i) => i);
  const droppedPeople: number[] = [];
  let nodes = numNodes;
  if (leaveOutBare) {
    const linked = new Uint8Array(numNodes);
    for (const [a, b] of edges) linked[a] = linked[b] = 1;
    linked[qa] = linked[qb] = 1;
    nodes = 0;
    for (let i = 0; i < numNodes; i++) {
      if (linked[i]) index[i] = nodes++;
      else {
        index[i] = -1;
        droppedPeople.push(i);
      }
    }
  }
  return {
    graph: {
      numNodes: nodes,
      from: Int32Array.from(edges, (e) => index[e[0]]!),
      to: Int32Array.from(edges, (e) => index[e[1]]!),
      type: Int32Array.from(edges, (e) => e[2]),
      query: [index[qa]!, index[qb]!],
      label,
    },
    droppedPeople,
    nodeOf: index,
  };
}

export interface RowGraph {
  readonly graph: StoryGraph;
  /** Positions in story_edges left out: no type given (released noisy files) or an unknown word. */
  readonly untypedEdges: readonly number[];
  /**
   * People (row entity numbers) left out because only untyped edges reached them: kept, they
   * would sit in the graph without an edge and shift a graph model's readout.
   */
  readonly droppedPeople: readonly number[];
  /** Each row entity's node in `graph` (-1: left out): the one renumbering, for whoever lines other data up with the graph. */
  readonly nodeOf: Int32Array;
}

/**
 * The graph of a CLUTRR CSV row from its symbolic columns (story_edges, edge_types, query_edge,
 * genders, target). Edges without a type, or with a word that is not a relation, are left out
 * and listed, and so are the people those edges alone connected (the others keep their order,
 * renumbered from 0); the row's text is not read.
 */
export function graphFromRow(row: ClutrrRow): RowGraph {
  const kept: [number, number, number][] = [];
  const untypedEdges: number[] = [];
  let numNodes = row.genders.length;
  row.storyEdges.forEach(([a, b], i) => {
    const word = row.edgeTypes[i];
    const t = word === undefined ? undefined : edgeTypeOf(word);
    if (t === undefined) untypedEdges.push(i);
    else kept.push([a, b, t]);
    numNodes = Math.max(numNodes, a + 1, b + 1);
  });
  const [qa, qb] = row.queryEdge;
  numNodes = Math.max(numNodes, qa + 1, qb + 1);
  // Renumber only when an untyped edge may have left someone without an edge: a fully typed row
  // keeps every person (and its numbering), as the graphs of our own puzzles do.
  const { graph, droppedPeople, nodeOf } = compactGraph(
    numNodes,
    kept,
    [qa, qb],
    classIndex(row.target),
    untypedEdges.length > 0,
  );
  return { graph, untypedEdges, droppedPeople, nodeOf };
}

/**
 * A batch of graphs padded to the same node count N (B graphs), flat row-major arrays ready to
 * become tensors of the shapes given:
 * - `edges` [B, N, N, NUM_EDGE_TYPES]: edges[b, i, j, t] = how many edges of type t go j → i
 *   (the dense form lets attention use matMul only: no gather, whose gradient needs
 *   unsortedSegmentSum, which the wasm backend lacks). Every real node has its self-loop.
 * - `nodeMask` [B, N]: 1 for a real node. `queryA`, `queryB` [B, N]: one-hot query nodes.
 * - `labels` [B]: class indices (-1 unknown).
 */
export interface GraphBatch {
  readonly size: number;
  readonly maxNodes: number;
  readonly edges: Float32Array;
  readonly nodeMask: Float32Array;
  readonly queryA: Float32Array;
  readonly queryB: Float32Array;
  readonly labels: Int32Array;
}

export interface BatchOptions {
  /** Add each fact read backwards (to → from, type + NUM_WORDS): the improved GAT. */
  readonly inverseEdges?: boolean;
  /** Pad to at least this many nodes (a fixed shape for repeated predictions). */
  readonly minNodes?: number;
}

/** Pads and packs graphs into a GraphBatch (pure; the same graphs give the same arrays). */
export function batchGraphs(graphs: readonly StoryGraph[], options: BatchOptions = {}): GraphBatch {
  const B = graphs.length;
  const N = Math.max(1, options.minNodes ?? 1, ...graphs.map((g) => g.numNodes));
  const T = NUM_EDGE_TYPES;
  const edges = new Float32Array(B * N * N * T);
  const nodeMask = new Float32Array(B * N);
  const queryA = new Float32Array(B * N);
  const queryB = new Float32Array(B * N);
  const labels = new Int32Array(B);
  const at = (b: number, i: number, j: number, t: number) => ((b * N + i) * N + j) * T + t;
  graphs.forEach((g, b) => {
    for (let i = 0; i < g.numNodes; i++) {
      nodeMask[b * N + i] = 1;
      edges[at(b, i, i, SELF_EDGE)] = 1;
    }
    for (let e = 0; e < g.type.length; e++) {
      const from = g.from[e]!;
      const to = g.to[e]!;
      const t = g.type[e]!;
      edges[at(b, to, from, t)]! += 1;
      if (options.inverseEdges) edges[at(b, from, to, t + NUM_WORDS)]! += 1;
    }
    queryA[b * N + g.query[0]] = 1;
    queryB[b * N + g.query[1]] = 1;
    labels[b] = g.label;
  });
  return { size: B, maxNodes: N, edges, nodeMask, queryA, queryB, labels };
}

// ---------------------------------------------------------------------------------------------
// Text (the text models: text/tokens.ts makes the ids)

export { MAX_ENTITIES, PAD_TOKEN, UNK_TOKEN, entityToken } from './text/tokens';

/**
 * A batch of stories for a text model, flat row-major arrays (B stories, L = the longest story
 * or `minLength` tokens):
 * - `ids` [B, L]: token ids (0 = padding); `mask` [B, L]: 1 for a real token.
 * - `queryA`, `queryB` [B, L]: 1 / (its count) at each position of the query person's entity
 *   token, so a product with the states is the mean state at those positions (no gather).
 * - `sentence` [B, L]: each token's sentence in its story (0, 1, …; a new one after `.`, `!`
 *   or `?`), -1 for padding: for models that read sentence by sentence.
 * - `labels` [B]: class indices (-1 unknown).
 */
export interface TextBatch {
  readonly size: number;
  readonly maxLength: number;
  readonly ids: Int32Array;
  readonly mask: Float32Array;
  readonly queryA: Float32Array;
  readonly queryB: Float32Array;
  readonly sentence: Int32Array;
  readonly labels: Int32Array;
}

/** One story to batch: text with `[Name]`s, the query names, the label, the anonymisation seed. */
export interface TextItem {
  readonly story: string;
  readonly queryNames: readonly [string, string];
  readonly label: number;
  readonly seed: Seed;
}

export interface TextBatchOptions {
  /** Pad to at least this many tokens. */
  readonly minLength?: number;
  /** Training only: each word becomes `<unk>` with this probability. */
  readonly wordDropout?: number;
  /** Training only: each word is split into word pieces, though known, with this probability. */
  readonly pieceDropout?: number;
  /** Draws the dropouts (required with either). */
  readonly rng?: Rng;
}

/**
 * Tokenises (each item anonymised with its own seed; text/tokens.ts) and packs stories into a
 * TextBatch. Any text gives a batch: unseen words become word pieces, unknown characters `<unk>`.
 */
export function batchTexts(
  items: readonly TextItem[],
  tokens: TextTokenizer,
  options: TextBatchOptions = {},
): TextBatch {
  const unknown = options.wordDropout ?? 0;
  const pieces = options.pieceDropout ?? 0;
  if ((unknown > 0 || pieces > 0) && !options.rng) throw new Error('batchTexts: word or piece dropout needs an rng');
  const dropout = unknown > 0 || pieces > 0 ? { unknown, pieces, rng: options.rng! } : undefined;
  const stories = items.map((it) => tokens.encode(it.story, it.seed, it.queryNames, dropout));
  const B = items.length;
  const L = Math.max(1, options.minLength ?? 1, ...stories.map((s) => s.ids.length));
  const ids = new Int32Array(B * L);
  const mask = new Float32Array(B * L);
  const queryA = new Float32Array(B * L);
  const queryB = new Float32Array(B * L);
  const sentence = new Int32Array(B * L).fill(-1);
  stories.forEach((s, b) => {
    const at = (q: Float32Array, id: number | undefined) => {
      let n = 0;
      s.ids.forEach((t) => (n += t === id ? 1 : 0));
      s.ids.forEach((t, i) => (q[b * L + i] = t === id ? 1 / n : 0));
    };
    at(queryA, s.entities.get(items[b]!.queryNames[0]));
    at(queryB, s.entities.get(items[b]!.queryNames[1]));
    s.ids.forEach((id, i) => {
      ids[b * L + i] = id;
      mask[b * L + i] = 1;
      sentence[b * L + i] = s.sentence[i]!;
    });
  });
  return {
    size: B,
    maxLength: L,
    ids,
    mask,
    queryA,
    queryB,
    sentence,
    labels: Int32Array.from(items, (it) => it.label),
  };
}

// ---------------------------------------------------------------------------------------------
// Questions (model.ts): a puzzle or a CSV row as every model sees it

/** A generated puzzle and its story text (people written `[Name]`, as in the CSV `story` column). */
export function questionFromPuzzle(puzzle: PuzzleRecord, story: string): ModelQuestion {
  const [a, b] = puzzle.query;
  return {
    graph: graphFromPuzzle(puzzle),
    story,
    queryNames: [puzzle.entities[a]!.name, puzzle.entities[b]!.name],
  };
}

/** A CLUTRR CSV row: its symbolic columns for the graph (untyped edges listed), `story` and `query`. */
export function questionFromRow(row: ClutrrRow): {
  question: ModelQuestion;
  untypedEdges: readonly number[];
  droppedPeople: readonly number[];
  nodeOf: Int32Array;
} {
  const { graph, untypedEdges, droppedPeople, nodeOf } = graphFromRow(row);
  return {
    question: { graph, story: row.story, queryNames: [row.query[0], row.query[1]] },
    untypedEdges,
    droppedPeople,
    nodeOf,
  };
}
