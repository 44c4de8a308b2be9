import type { Puzzle, StoryFact, Triple } from '../../core/puzzle/puzzle';

/**
 * The proof, viewed: as a tree, as the story facts a step joins (for lighting the drawing), and
 * in words. Each of these gives the answer away: callers show them only once the answer is out
 * or the reader asked for the proof.
 */

const key = (from: number, to: number) => `${from}>${to}`;

/** Position of each path entity along the story path (the k path facts, in order). */
function pathPositions(puzzle: Puzzle): { pos: Map<number, number>; path: StoryFact[] } {
  const path = puzzle.facts.filter((f) => f.kind === 'path');
  const pos = new Map<number, number>();
  path.forEach((f, i) => {
    if (!pos.has(f.from)) pos.set(f.from, i);
    pos.set(f.to, i + 1);
  });
  return { pos, path };
}

/** The story facts a proof triple stands for: one path fact, or the stretch of path it spans. */
export function factsOfTriple(puzzle: Puzzle, t: Triple): number[] {
  const { pos, path } = pathPositions(puzzle);
  const a = pos.get(t.from);
  const b = pos.get(t.to);
  if (a === undefined || b === undefined) {
    const direct = puzzle.facts.find((f) => f.from === t.from && f.to === t.to);
    return direct ? [direct.id] : [];
  }
  const [lo, hi] = a < b ? [a, b] : [b, a];
  return path.slice(lo, hi).map((f) => f.id);
}

export interface ProofNode {
  readonly triple: Triple;
  /** Index in `puzzle.proof` of the step that splits this triple; null for a stated fact. */
  readonly step: number | null;
  /** The story fact this leaf is (null for derived triples). */
  readonly factId: number | null;
  readonly children: readonly ProofNode[];
}

/**
 * The proof as a tree: the root is the query, each inner node is split by one backward-chaining
 * step into its two body triples, leaves are story facts. Null when there is no step (k = 1).
 */
export function proofTree(puzzle: Puzzle): ProofNode | null {
  if (puzzle.proof.length === 0) return null;
  const stepByHead = new Map<string, number>();
  puzzle.proof.forEach((s, i) => {
    const kk = key(s.head.from, s.head.to);
    if (!stepByHead.has(kk)) stepByHead.set(kk, i);
  });
  const factByPair = new Map<string, number>();
  for (const f of puzzle.facts) if (f.kind === 'path') factByPair.set(key(f.from, f.to), f.id);
  const build = (t: Triple, step: number | null, depth: number): ProofNode => {
    if (step === null || depth > puzzle.proof.length) {
      return { triple: t, step: null, factId: factByPair.get(key(t.from, t.to)) ?? null, children: [] };
    }
    const s = puzzle.proof[step]!;
    const child = (b: Triple) => {
      const next = stepByHead.get(key(b.from, b.to));
      return build(b, next !== undefined && next > step ? next : null, depth + 1);
    };
    return { triple: t, step, factId: null, children: [child(s.body[0]), child(s.body[1])] };
  };
  return build(puzzle.proof[0]!.head, 0, 0);
}

/** What proof step `i` lights in the graph: the facts of its two body triples. */
export function stepFacts(puzzle: Puzzle, i: number): { left: number[]; right: number[] } {
  const s = puzzle.proof[i];
  if (!s) return { left: [], right: [] };
  return { left: factsOfTriple(puzzle, s.body[0]), right: factsOfTriple(puzzle, s.body[1]) };
}

const nameOf = (puzzle: Puzzle, i: number) => puzzle.entities[i]?.name ?? `#${i}`;

/** "Kelly is Anne's daughter" for a triple (A, daughter, Kelly). */
export function tripleWords(puzzle: Puzzle, t: Triple, word: string = t.word): string {
  return `${nameOf(puzzle, t.to)} is ${nameOf(puzzle, t.from)}'s ${word}`;
}

/** One proof step in words, as the rule it applies: "daughter ∘ son ⇒ grandson". */
export function ruleWords(step: Puzzle['proof'][number], headWord: string = step.head.word): string {
  return `${step.body[0].word} ∘ ${step.body[1].word} ⇒ ${headWord}`;
}

/**
 * The proof in words, from the stated facts to the answer: the steps in reverse (a valid
 * forward order, since every step splits a triple introduced by an earlier one).
 */
export function proofInWords(puzzle: Puzzle): string[] {
  if (puzzle.proof.length === 0) {
    const t = puzzle.facts.find((f) => f.from === puzzle.query[0] && f.to === puzzle.query[1]);
    return t ? [`The story states it: ${tripleWords(puzzle, t)}.`] : [];
  }
  return [...puzzle.proof]
    .reverse()
    .map(
      (s) =>
        `${tripleWords(puzzle, s.body[0])} and ${tripleWords(puzzle, s.body[1])}, so ${tripleWords(puzzle, s.head)} (${ruleWords(s)}).`,
    );
}
