import type { DatasetRow } from '../puzzle/dataset';
import type { PuzzleRecord, Triple } from '../puzzle/puzzle';
import { createRng } from '../random/rng';
import type { RenderedStory, StoryRenderer } from '../text/render';
import type { ClutrrRow, NamedTriple } from './clutrrRow';

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
