import type { DatasetRow } from '../puzzle/dataset';
import type { PuzzleRecord, Triple } from '../puzzle/puzzle';
import { createRng } from '../random/rng';
import type { RenderedStory, StoryRenderer } from '../text/render';
import type { ClutrrRow, NamedTriple } from './clutrrRow';
import { gendersField } from './clutrrCsv';
import { csvField, NEEDS_QUOTES } from './csv';
import { reprInt, reprStr } from './pyLiteral';

/**
 * A puzzle as a CLUTRR CSV row. story_edges lists the path facts first, then the noise facts,
 * and — unlike the released noisy files — edge_types types every one of them.
 */
export function puzzleToRow(
  puzzle: PuzzleRecord,
  text: RenderedStory,
  meta: { readonly index: number; readonly id: string; readonly split: string },
): ClutrrRow {
  const name = (i: number) => puzzle.entities[i]!.name;
  const named = (t: Triple): NamedTriple => [name(t.from), t.word, name(t.to)];
  return {
    index: String(meta.index),
    id: meta.id,
    story: text.story,
    query: [name(puzzle.query[0]), name(puzzle.query[1])],
    textQuery: '',
    target: puzzle.target.word,
    textTarget: [text.textTarget],
    cleanStory: text.cleanStory,
    proofState: puzzle.proof.map((s) => ({ head: named(s.head), body: s.body.map(named) })),
    fComb: puzzle.pattern,
    taskName: `task_${puzzle.task}.${puzzle.k}`,
    storyEdges: puzzle.facts.map((f) => [f.from, f.to] as const),
    edgeTypes: puzzle.facts.map((f) => f.word),
    queryEdge: [puzzle.query[0], puzzle.query[1]],
    genders: puzzle.entities.map((e) => ({ name: e.name, gender: e.gender })),
    synStory: '',
    nodeMapping: puzzle.entities.map((e) => [e.person as number, e.index] as const),
    taskSplit: meta.split,
  };
}

/** reprStr of relation words, which every row repeats (a handful of distinct values). */
const WORD_REPR = new Map<string, string>();
function wordRepr(word: string): string {
  let r = WORD_REPR.get(word);
  if (r === undefined) {
    if (WORD_REPR.size > 256) WORD_REPR.clear();
    WORD_REPR.set(word, (r = reprStr(word)));
  }
  return r;
}

/** What puzzleCsvRecord needs of a name, which rows repeat (names come from a fixed list). */
interface NameInfo {
  readonly repr: string;
  /** The name or its repr needs quoting as a CSV field. */
  readonly quotes: boolean;
  /** The genders column can hold it (gendersField's rule); when not, gendersField throws. */
  readonly gendersOk: boolean;
}
const NAME_INFO = new Map<string, NameInfo>();
function nameInfo(name: string): NameInfo {
  let info = NAME_INFO.get(name);
  if (info === undefined) {
    if (NAME_INFO.size > 4096) NAME_INFO.clear();
    const repr = reprStr(name);
    info = {
      repr,
      quotes: NEEDS_QUOTES.test(repr) || NEEDS_QUOTES.test(name),
      gendersOk: name !== '' && !/[,:]/.test(name),
    };
    NAME_INFO.set(name, info);
  }
  return info;
}

/**
 * The CSV record (no line end) of `puzzleToRow(puzzle, text, meta)` as `writeCsv` writes
 * `clutrrFields` of it, built straight from the puzzle: the same bytes (a test checks it over
 * many puzzles) without the intermediate row, its arrays of tuples and a list of fields, which
 * is most of the cost of writing a generated dataset. `rowNumber` only labels errors.
 */
export function puzzleCsvRecord(
  puzzle: PuzzleRecord,
  text: RenderedStory,
  meta: { readonly index: number; readonly id: string; readonly split: string },
  rowNumber?: number,
): string {
  const columns = puzzleCsvColumns(puzzle, meta.split, rowNumber);
  const story = csvField(text.story);
  return `${storyCsvHead(meta.index, meta.id, story)}${columns.query}${storyCsvMiddle(text, story)}${columns.rest}`;
}

/**
 * The columns of a record that the story does not decide: `query` (query, text_query and target,
 * between the story and text_target) and `rest` (proof_state to task_split, after clean_story).
 * A thread that makes puzzles can write them while another tells the stories.
 */
export interface PuzzleCsvColumns {
  readonly query: string;
  readonly rest: string;
}

/**
 * The record's text up to its query column: index, id and story, each followed by its comma.
 * `storyField` is csvField(text.story).
 */
export function storyCsvHead(index: number, id: string, storyField: string): string {
  return `${String(index)},${csvField(id)},${storyField},`;
}

/** The record's text between its target and proof_state columns: text_target and clean_story. */
export function storyCsvMiddle(text: RenderedStory, storyField: string): string {
  // The renderers give the clean story the story's string when they are the same text.
  const clean = text.cleanStory === text.story ? storyField : csvField(text.cleanStory);
  return `,${csvField(`[${reprStr(text.textTarget)}]`)},${clean},`;
}

/** puzzleCsvRecord's columns that follow from the puzzle and the row's split alone. */
export function puzzleCsvColumns(puzzle: PuzzleRecord, split: string, rowNumber?: number): PuzzleCsvColumns {
  const entities = puzzle.entities;
  // Whether any name or word needs quoting itself; when none does (always, for our names and
  // words), the literal columns are known to need quotes exactly when they hold a comma, which
  // their shape tells, and they are written without scanning them again.
  let odd = false;
  let gendersOk = true;
  const names: string[] = [];
  for (let i = 0; i < entities.length; i++) {
    const info = nameInfo(entities[i]!.name);
    names.push(info.repr);
    if (info.quotes) odd = true;
    if (!info.gendersOk) gendersOk = false;
  }
  const word = (w: string) => {
    const r = wordRepr(w);
    if (NEEDS_QUOTES.test(r)) odd = true;
    return r;
  };
  const triple = (t: Triple) => `(${names[t.from]!}, ${word(t.word)}, ${names[t.to]!})`;
  let proof = '';
  for (let i = 0; i < puzzle.proof.length; i++) {
    const s = puzzle.proof[i]!;
    if (i > 0) proof += ', ';
    proof += `{${triple(s.head)}: [${triple(s.body[0])}, ${triple(s.body[1])}]}`;
  }
  // Columns in file order, so that a bad value is reported as clutrrFields reports it.
  let edges = '';
  let types = '';
  const facts = puzzle.facts;
  for (let i = 0; i < facts.length; i++) {
    const f = facts[i]!;
    if (i > 0) {
      edges += ', ';
      types += ', ';
    }
    edges += `(${reprInt(f.from)}, ${reprInt(f.to)})`;
    types += word(f.word);
  }
  const [qa, qb] = puzzle.query;
  const queryEdge = `(${reprInt(qa)}, ${reprInt(qb)})`;
  // gendersField's text, without its checks when every name is known to pass them.
  let genders = '';
  if (gendersOk) {
    for (let i = 0; i < entities.length; i++) {
      if (i > 0) genders += ',';
      genders += `${entities[i]!.name}:${entities[i]!.gender}`;
    }
  } else genders = gendersField(entities, rowNumber);
  let nodeMapping = '';
  for (let i = 0; i < entities.length; i++) {
    if (i > 0) nodeMapping += ', ';
    nodeMapping += `${reprInt(entities[i]!.person)}: ${reprInt(entities[i]!.index)}`;
  }
  // The task name and query edge are numbers and fixed text: never quoted but for the query
  // edge's comma. So are story_edges and node_mapping, quoted when they hold two items (or a
  // tuple). Text columns go through csvField.
  const many = entities.length > 1;
  const query =
    (odd ? csvField(`(${names[qa]!}, ${names[qb]!})`) : `"(${names[qa]!}, ${names[qb]!})"`) +
    `,,${csvField(puzzle.target.word)}`;
  const tail =
    `,"${queryEdge}",` +
    (odd ? csvField(genders) : many ? `"${genders}"` : genders) +
    ',,' +
    (many ? `"{${nodeMapping}}"` : `{${nodeMapping}}`) +
    `,${csvField(split)}`;
  const edgesField = facts.length > 0 ? `"[${edges}]"` : '[]';
  const rest = odd
    ? `${csvField(`[${proof}]`)},${csvField(puzzle.pattern)},task_${puzzle.task}.${puzzle.k},` +
      `${edgesField},${csvField(`[${types}]`)}${tail}`
    : `${proof === '' ? '[]' : `"[${proof}]"`},${csvField(puzzle.pattern)},task_${puzzle.task}.${puzzle.k},` +
      `${edgesField},${facts.length > 1 ? `"[${types}]"` : `[${types}]`}${tail}`;
  return { query, rest };
}

/** Rows of one file, rendered with the renderer (seeded per row, so text is reproducible). */
export function rowsToClutrr(rows: readonly DatasetRow[], render: StoryRenderer): ClutrrRow[] {
  return rows.map((r, index) =>
    puzzleToRow(r.puzzle, render(r.puzzle, r.split, createRng(r.puzzle.seed, 'text')), {
      index,
      id: r.id,
      split: r.split,
    }),
  );
}
