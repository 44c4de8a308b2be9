import type { Family, FamilyParams, Person, PersonId } from '../family/family';
import { parseWord, type Predicate, type RelationWord, WORD_ALIASES } from '../kinship/relations';
import type { FactKind, ProofStep, Puzzle, PuzzleRecord, StoryEntity, StoryFact, Triple } from '../puzzle/puzzle';
import { isTaskId, type TaskId } from '../puzzle/tasks';
import type { RenderedSentence, RenderedStory } from '../text/render';
import { checkRow, type RowCheck } from '../reasoning/checkRow';
import { CsvFormatError, type ClutrrRow, type NamedTriple } from './clutrrRow';

/**
 * A CLUTRR row read back as a puzzle, for the explorer. Built from the symbolic columns only
 * (genders, story_edges, edge_types, query_edge, target, proof_state); the text columns are
 * shown as written, never re-rendered.
 *
 * Decisions, so that the graph draws what the file says and nothing more:
 * - `facts` holds the typed story edges only (edge i typed by edge_types[i]), as the solver sees
 *   them; the first k are the path (k from f_comb, else task_name), the rest are noise, their
 *   kind recovered from their shape (see `classifyNoise`).
 * - Released noisy files type only the path edges. Their untyped edges are NOT facts (a fact needs
 *   a relation, and calling them 'irrelevant' would be a guess): they are kept in `untypedEdges`
 *   so a view can draw them as bare links.
 * - The family is minimal: one person per story entity, no parents, spouses or children, so a
 *   hidden-family view shows nothing beyond the story. `familyParams` describes that family.
 * - `seed` is `import:<id>`: an imported puzzle cannot be regenerated from a seed.
 */
export interface ImportedPuzzle extends Puzzle {
  readonly source: { readonly id: string; readonly taskName: string; readonly split: string };
  /** story_edges without an edge type, as [from, to] node indices. */
  readonly untypedEdges: readonly (readonly [number, number])[];
  /** What could not be carried over (a proof step naming an unknown person, an unknown task). */
  readonly warnings: readonly string[];
  /**
   * The audit's verdict on the row (checkRow): whether its facts entail its label, and how. Null
   * when the row cannot be checked (a query entity without a gender). A view shows this, never
   * a ✓ or a proof that contradicts it.
   */
  readonly check: RowCheck | null;
}

/** Whether a puzzle was read from a CSV row (rowToPuzzle) rather than generated. */
export const isImportedPuzzle = (p: Puzzle): p is ImportedPuzzle => 'source' in p && 'check' in p;

/**
 * Whether a puzzle's label may be treated as its answer (marked right, a guess judged against it):
 * always for a generated puzzle; for an imported row only when the rules that hold in every
 * family entail it.
 */
export const labelIsAnswer = (p: Puzzle): boolean =>
  !isImportedPuzzle(p) || (p.check?.verdict === 'entailed' && p.check.basis?.kind !== 'assumed');

/** The family parameters of the minimal family: one generation, nobody married, no children. */
export const IMPORTED_FAMILY_PARAMS: FamilyParams = { maxLevels: 1, minChild: 0, maxChild: 0, pMarry: 0 };

/** `task_2.3` → { task: 2, k: 3 }; undefined when the name has another shape. */
export function parseTaskName(name: string): { task: number; k: number } | undefined {
  const m = /^(?:task_)?(\d+)\.(\d+)$/.exec(name.trim());
  return m ? { task: Number(m[1]), k: Number(m[2]) } : undefined;
}

/**
 * The story length of a row: the number of f_comb words, else the k of task_name, else the
 * number of typed edges.
 */
export function rowK(row: ClutrrRow): number {
  if (row.fComb.trim() !== '') return row.fComb.split('-').length;
  return parseTaskName(row.taskName)?.k ?? row.edgeTypes.length;
}

/** Splits a story into sentences (ends at . ! or ? followed by white space). */
export function storySentences(story: string): string[] {
  return story
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

const relation = (
  word: string,
  column: 'edge_types' | 'target',
  what: string,
): { predicate: Predicate; word: RelationWord } => {
  const info = parseWord(word);
  if (!info) throw new CsvFormatError(`"${word}"${what} is not a CLUTRR relation word`, { column });
  return { predicate: info.predicate, word: (WORD_ALIASES[word] ?? word) as RelationWord };
};

/**
 * A family for a story known only by its facts (an imported row): its people, unrelated, in one
 * generation, with the story's person ids.
 */
export function standInFamily(entities: readonly StoryEntity[]): Family {
  const people: Person[] = entities.map((e) => ({
    id: e.person,
    name: e.name,
    gender: e.gender,
    generation: 0,
    parents: null,
    spouse: null,
    children: [],
  }));
  return { people };
}

/**
 * Builds a puzzle-shaped object from a row's symbolic columns (see ImportedPuzzle for the
 * decisions). Throws CsvFormatError naming the column when a relation word is unknown; a proof
 * step that names someone missing from genders is dropped with a warning.
 */
export function rowToPuzzle(row: ClutrrRow): ImportedPuzzle {
  const warnings: string[] = [];
  const entities: StoryEntity[] = row.genders.map((g, index) => ({
    index,
    person: index as PersonId,
    name: g.name,
    gender: g.gender === 'female' ? 'female' : 'male',
  }));
  const family = standInFamily(entities);

  const parsedTask = parseTaskName(row.taskName);
  let task: TaskId = 1;
  if (parsedTask && isTaskId(parsedTask.task)) task = parsedTask.task;
  else warnings.push(`task_name "${row.taskName}" is not task_<1–7>.<k>; shown as task 1`);

  const typed = Math.min(row.edgeTypes.length, row.storyEdges.length);
  const k = Math.min(rowK(row), row.storyEdges.length);
  const base: Triple[] = [];
  for (let i = 0; i < typed; i++) {
    const [from, to] = row.storyEdges[i]!;
    base.push({ from, to, ...relation(row.edgeTypes[i]!, 'edge_types', ` (item ${i + 1})`) });
  }
  const [qa, qb] = row.queryEdge;
  const target = relation(row.target, 'target', '');
  const kinds = classifyNoise(base, k, [qa, qb], target.predicate);
  const facts: StoryFact[] = base.map((t, id) => ({ ...t, id, kind: kinds[id]!.kind, chain: kinds[id]!.chain }));

  const byName = new Map(entities.map((e) => [e.name, e.index]));
  const proof: ProofStep[] = [];
  const tripleOf = (t: NamedTriple): Triple | undefined => {
    const from = byName.get(t[0]);
    const to = byName.get(t[2]);
    const info = parseWord(t[1]);
    if (from === undefined || to === undefined || !info) return undefined;
    return { from, to, predicate: info.predicate, word: (WORD_ALIASES[t[1]] ?? t[1]) as RelationWord };
  };
  row.proofState.forEach((step, i) => {
    const head = tripleOf(step.head);
    const body = step.body.map(tripleOf);
    if (!head || body.length !== 2 || body.some((b) => !b)) {
      warnings.push(`proof_state step ${i + 1} names a person or relation missing from the row; left out`);
      return;
    }
    proof.push({ head, body: [body[0]!, body[1]!] });
  });

  const untypedEdges = row.storyEdges.slice(typed).map(([a, b]) => [a, b] as const);
  let check: RowCheck | null;
  try {
    check = checkRow(row);
  } catch (e) {
    if (!(e instanceof CsvFormatError)) throw e;
    check = null;
  }
  return {
    seed: `import:${row.id}`,
    k,
    task,
    familyParams: IMPORTED_FAMILY_PARAMS,
    family,
    entities,
    facts,
    query: [qa, qb],
    target,
    proof,
    pattern:
      row.fComb !== ''
        ? row.fComb
        : facts
            .slice(0, k)
            .map((f) => f.word)
            .join('-'),
    storyOrder: storyOrderOf(row.story, facts, entities),
    source: { id: row.id, taskName: row.taskName, split: row.taskSplit },
    untypedEdges,
    warnings,
    check,
  };
}

/**
 * Kinds of typed facts: the first k are the path (chain 0). The rest are cut into chains of
 * consecutive edges that each start where the previous one ended, off the path, as the generator
 * emits noise;
 * a chain is then 'memory' (one edge between the query entities, stating the target relation),
 * 'supporting' (starts and ends on the path), 'disconnected' (touches no path entity) or
 * 'irrelevant' (touches the path otherwise: a dangling path).
 */
export function classifyNoise(
  facts: readonly Triple[],
  k: number,
  query: readonly [number, number],
  targetPredicate: Predicate,
): { kind: FactKind; chain: number }[] {
  const out: { kind: FactKind; chain: number }[] = [];
  const onPath = new Set<number>();
  for (let i = 0; i < Math.min(k, facts.length); i++) {
    onPath.add(facts[i]!.from);
    onPath.add(facts[i]!.to);
    out.push({ kind: 'path', chain: 0 });
  }
  let chain = 0;
  for (let i = k; i < facts.length;) {
    let j = i + 1;
    // Noise never passes through a path person, so a chain also ends when it reaches the path.
    while (j < facts.length && facts[j]!.from === facts[j - 1]!.to && !onPath.has(facts[j]!.from)) j++;
    const edges = facts.slice(i, j);
    chain++;
    const first = edges[0]!;
    const last = edges[edges.length - 1]!;
    const touches = edges.some((e) => onPath.has(e.from) || onPath.has(e.to));
    let kind: FactKind;
    if (edges.length === 1 && first.from === query[0] && first.to === query[1] && first.predicate === targetPredicate) {
      kind = 'memory';
    } else if (onPath.has(first.from) && onPath.has(last.to)) kind = 'supporting';
    else if (!touches) kind = 'disconnected';
    else kind = 'irrelevant';
    for (let e = i; e < j; e++) out.push({ kind, chain });
    i = j;
  }
  return out;
}

/**
 * The sentence of `sentences` that states each fact: the first one naming both of its people
 * (`[A]` and `[B]`), or -1 when none does.
 */
function factSentences(
  sentences: readonly string[],
  facts: readonly Triple[],
  entities: readonly StoryEntity[],
): number[] {
  return facts.map((f) => {
    const a = `[${entities[f.from]?.name}]`;
    const b = `[${entities[f.to]?.name}]`;
    return sentences.findIndex((s) => s.includes(a) && s.includes(b));
  });
}

/** Fact ids in the order the written story states them; facts it never states that way follow in id order. */
function storyOrderOf(story: string, facts: readonly StoryFact[], entities: readonly StoryEntity[]): number[] {
  const at = factSentences(storySentences(story), facts, entities);
  return facts
    .map((f, i) => ({ id: f.id, at: at[i]! < 0 ? Number.POSITIVE_INFINITY : at[i]! }))
    .sort((x, y) => x.at - y.at || x.id - y.id)
    .map((x) => x.id);
}

/**
 * A row's story as written, in the shape the explorer shows: its sentences, each with the facts
 * it states (those whose two people it names first), the question (text_query, else the usual
 * "How is [B] related to [A]?") and text_target's sentence. Nothing is re-rendered.
 */
export function rowToStory(row: ClutrrRow, puzzle: PuzzleRecord): RenderedStory {
  const texts = storySentences(row.story);
  const at = factSentences(texts, puzzle.facts, puzzle.entities);
  const sentences: RenderedSentence[] = texts.map((text, i) => ({
    text,
    factIds: puzzle.facts.filter((_, f) => at[f] === i).map((f) => f.id),
  }));
  const [a, b] = row.query;
  return {
    sentences,
    story: row.story,
    cleanStory: row.cleanStory,
    question: row.textQuery.trim() !== '' ? row.textQuery : `How is [${b}] related to [${a}]?`,
    textTarget: row.textTarget[0] ?? '',
  };
}
