import type { DatasetRow, DatasetSpec } from '../puzzle/dataset';
import type { PuzzleRecord, Triple } from '../puzzle/puzzle';
import { taskName } from '../puzzle/tasks';
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

/** File names of a dataset folder, as the released datasets name them. */
export function datasetFileNames(spec: DatasetSpec): { train: string; test: string[] } {
  return {
    train: `${spec.trainTasks.map(taskName).join(',')}_train.csv`,
    test: spec.testTasks.map((t) => `${taskName(t)}_test.csv`),
  };
}

/** config.json of a dataset folder: the generator arguments, enough to regenerate it. */
export function datasetConfig(spec: DatasetSpec, extra: Record<string, unknown> = {}): string {
  return (
    JSON.stringify(
      {
        generator: 'clutrr-lab',
        seed: spec.seed,
        train_tasks: spec.trainTasks.map(taskName).join(','),
        test_tasks: spec.testTasks.map(taskName).join(','),
        train_rows: spec.trainRows,
        test_rows: spec.testRows,
        holdout: spec.holdout,
        equal: spec.equal,
        max_levels: spec.family.maxLevels,
        min_child: spec.family.minChild,
        max_child: spec.family.maxChild,
        p_marry: spec.family.pMarry,
        patterns: spec.patterns ?? null,
        ...extra,
      },
      null,
      2,
    ) + '\n'
  );
}
