/**
 * Training and test examples from CLUTRR CSV rows (ours or the released files), read the way the
 * audit and `eval` read them: the graph from the symbolic columns (untyped noise edges and the
 * people only they reached left out), the story and query names from the text columns, the
 * puzzle through rowToPuzzle for the rule-supervised models' pair labels. Pure, so the CLI's
 * `npm run train -- --train-csv` and the browser's training panel make the same examples.
 */
import type { ClutrrRow } from '../core/formats/clutrrRow';
import { rowK, rowToPuzzle } from '../core/formats/toPuzzle';
import type { PuzzleRecord } from '../core/puzzle/puzzle';
import { createRng, type Seed } from '../core/random/rng';
import { questionFromRow } from './encoding';
import type { Example } from './testData';

/** A row's example and its story length k; null when its target is not one of the 18 classes. */
export function exampleFromRow(row: ClutrrRow): { example: Example; k: number } | null {
  const { question, droppedPeople, nodeOf } = questionFromRow(row);
  if (question.graph.label < 0) return null;
  const imported = rowToPuzzle(row);
  return {
    example: {
      puzzle: droppedPeople.length === 0 ? imported : renumbered(imported, nodeOf),
      story: row.story,
      question,
    },
    k: rowK(row),
  };
}

/**
 * The puzzle as the graph numbers its people (`nodeOf`, the graph's own renumbering: -1 for a
 * person left out), so pair labels (pairRounds.ts) line up with the graph's nodes.
 */
function renumbered(puzzle: PuzzleRecord, nodeOf: Int32Array): PuzzleRecord {
  const node = (i: number) => nodeOf[i] ?? -1;
  return {
    ...puzzle,
    entities: puzzle.entities.filter((e) => node(e.index) >= 0).map((e) => ({ ...e, index: node(e.index) })),
    facts: puzzle.facts
      .filter((f) => node(f.from) >= 0 && node(f.to) >= 0)
      .map((f) => ({ ...f, from: node(f.from), to: node(f.to) })),
    query: [node(puzzle.query[0]), node(puzzle.query[1])],
  };
}

/** Validation rows: a tenth of the training rows, at most this many, at least one when there are ten rows. */
export const MAX_VALIDATION_ROWS = 1000;

/**
 * Splits training examples into the rows trained on and a seeded validation slice for the
 * per-epoch figure (never the test files): a tenth, at most MAX_VALIDATION_ROWS, none below ten
 * rows. The same examples and seed give the same split.
 */
export function splitValidation<T>(examples: readonly T[], seed: Seed): { train: T[]; validation: T[] } {
  const size = examples.length < 10 ? 0 : Math.min(MAX_VALIDATION_ROWS, Math.floor(examples.length / 10));
  const order = createRng(seed, 'validation').shuffle(examples.map((_, i) => i));
  const held = new Set(order.slice(0, size));
  return {
    train: examples.filter((_, i) => !held.has(i)),
    validation: order.slice(0, size).map((i) => examples[i]!),
  };
}
