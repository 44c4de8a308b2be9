/**
 * Training data read from CLUTRR CSV files (ours or the released ones), for the training
 * script's `--train-csv` and the browser's Train panel: each file's examples (read as the audit
 * and `eval` read rows, through csvExamples.ts), the seeded validation slice taken from the
 * training files only, the test files' examples by k, and what a model folder records of a file
 * (its name, rows, k and digest: never its rows).
 */
import { ClutrrRowReader } from '../../core/formats/clutrrCsv';
import { CsvFormatError } from '../../core/formats/clutrrRow';
import type { Seed } from '../../core/random/rng';
import { exampleFromRow, splitValidation } from '../csvExamples';
import type { NoiseKind } from '../model';
import { type Example, NOISE_KINDS, NOISE_TASK } from '../testData';

/** One file a model was trained or tested on, as metadata.json records it. */
export interface DataFile {
  /** The file's name (no folders: the folder says nothing about the data and may be private). */
  readonly name: string;
  /** Rows read, and of those the rows used (the others have a target outside the 18 classes). */
  readonly rows: number;
  readonly used: number;
  readonly sha256: string;
  /** Story lengths of the rows used. */
  readonly ks: readonly number[];
}

/** A file's examples with their k, and what a folder records of it. */
export interface FileExamples {
  readonly examples: readonly { readonly example: Example; readonly k: number }[];
  readonly record: DataFile;
}

/**
 * Reads one CLUTRR CSV file pushed in as text chunks (a stream or the whole text). Errors name
 * the file and the data row (CsvFormatError); a file without a usable row is refused.
 */
export function csvExampleReader(name: string): {
  push(text: string): void;
  end(sha256: string): FileExamples;
} {
  const examples: { example: Example; k: number }[] = [];
  let rows = 0;
  const reader = new ClutrrRowReader((row, n) => {
    rows++;
    try {
      const made = exampleFromRow(row);
      if (made) examples.push(made);
    } catch (e) {
      if (e instanceof CsvFormatError) throw new CsvFormatError(e.detail, { ...e.where, file: name, row: n });
      if (e instanceof Error) throw new CsvFormatError(e.message, { file: name, row: n });
      throw e;
    }
  }, name);
  return {
    push: (text) => reader.push(text),
    end(sha256) {
      reader.end();
      if (examples.length === 0)
        throw new CsvFormatError('no row with a target among the 18 answer classes', { file: name });
      return {
        examples,
        record: {
          name,
          rows,
          used: examples.length,
          sha256,
          ks: [...new Set(examples.map((e) => e.k))].sort((a, b) => a - b),
        },
      };
    },
  };
}

/** Test examples grouped by k, in k order. */
export function examplesByK(files: readonly FileExamples[]): Map<number, Example[]> {
  const tests = new Map<number, Example[]>();
  for (const { example, k } of files.flatMap((t) => t.examples)) {
    const list = tests.get(k) ?? [];
    list.push(example);
    tests.set(k, list);
  }
  return new Map([...tests].sort((a, b) => a[0] - b[0]));
}

/** The training files' rows split into the rows trained on and the seeded validation slice. */
export function filesTrainData(
  training: readonly FileExamples[],
  seed: Seed,
): { train: Example[]; dev: Example[]; validationRows: number } {
  const { train, validation } = splitValidation(
    training.flatMap((t) => t.examples.map((e) => e.example)),
    seed,
  );
  return { train, dev: validation, validationRows: validation.length };
}

/** The noise kind of training rows read from files: their tasks' one kind, else clean (the files say more). */
export function filesNoise(train: readonly Example[]): NoiseKind {
  const tasks = new Set(train.map((e) => e.puzzle.task));
  const only = tasks.size === 1 ? [...tasks][0] : undefined;
  return NOISE_KINDS.find((n) => NOISE_TASK[n] === only) ?? 'clean';
}

/** The (task, k) pairs of training rows read from files, in order. */
export function taskList(train: readonly Example[]): { task: number; k: number }[] {
  const seen = new Map<string, { task: number; k: number }>();
  for (const e of train) seen.set(`${e.puzzle.task}.${e.puzzle.k}`, { task: e.puzzle.task, k: e.puzzle.k });
  return [...seen.values()].sort((a, b) => a.k - b.k || a.task - b.task);
}
