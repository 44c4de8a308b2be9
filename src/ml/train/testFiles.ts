/**
 * CLUTRR CSV text of our generator's rows, for the tests of src/ml/train and the train worker
 * (test support only; nothing else imports it).
 */
import { writeClutrrCsv } from '../../core/formats/clutrrCsv';
import { puzzleToRow } from '../../core/formats/fromPuzzle';
import { generatePuzzle } from '../../core/puzzle/puzzle';
import { createRng } from '../../core/random/rng';
import { renderPlain } from '../../core/text/plain';

/** A CLUTRR CSV of task-1 rows at these k, `per` rows each, seeded by `name`. */
export function csvText(name: string, ks: readonly number[], per: number): string {
  const rows = ks.flatMap((k) =>
    Array.from({ length: per }, (_, i) => {
      const p = generatePuzzle({ seed: `${name}:${k}:${i}`, k, task: 1 });
      return puzzleToRow(p, renderPlain(p, 'train', createRng(p.seed, 'text')), {
        index: i,
        id: `${name}-${k}-${i}`,
        split: 'train',
      });
    }),
  );
  return writeClutrrCsv(rows);
}
