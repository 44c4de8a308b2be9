/**
 * `npm run train -- --train-csv FILE… [--test-csv FILE…]`: the training data read from CLUTRR
 * CSV files instead of generated (src/ml/csvExamples.ts makes the examples). A seeded tenth of
 * the training rows is held out for the per-epoch figure; the test files give the k lines.
 * What the model folder records of the files is their names, row counts and digests, never
 * their contents.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ClutrrRowReader } from '../../src/core/formats/clutrrCsv';
import { CsvFormatError } from '../../src/core/formats/clutrrRow';
import type { Seed } from '../../src/core/random/rng';
import { exampleFromRow, splitValidation } from '../../src/ml/csvExamples';
import type { Example, TrainData } from './data';

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

/** A file's examples with their k, and what metadata.json records of it. */
export function readCsvExamples(file: string): { examples: { example: Example; k: number }[]; record: DataFile } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${file}: cannot read it (${(e as Error).message})`, { cause: e });
  }
  const examples: { example: Example; k: number }[] = [];
  let rows = 0;
  const reader = new ClutrrRowReader((row, n) => {
    rows++;
    try {
      const made = exampleFromRow(row);
      if (made) examples.push(made);
    } catch (e) {
      if (e instanceof CsvFormatError) throw new CsvFormatError(e.detail, { ...e.where, file, row: n });
      throw e;
    }
  }, file);
  reader.push(text);
  reader.end();
  if (examples.length === 0) throw new Error(`${file}: no row with a target among the 18 answer classes`);
  return {
    examples,
    record: {
      name: path.basename(file),
      rows,
      used: examples.length,
      sha256: createHash('sha256').update(text).digest('hex'),
      ks: [...new Set(examples.map((e) => e.k))].sort((a, b) => a - b),
    },
  };
}

/** What training on files adds to TrainData: the files, and which rows were held out. */
export interface CsvSource {
  readonly trainFiles: readonly DataFile[];
  readonly testFiles: readonly DataFile[];
  readonly validationRows: number;
}

/** The training data of `--train-csv` (and `--test-csv`): test examples grouped by k. */
export function makeCsvData(
  trainFiles: readonly string[],
  testFiles: readonly string[],
  seed: Seed,
  log: (line: string) => void = () => {},
): TrainData & { readonly csv: CsvSource } {
  const read = (files: readonly string[], what: string) =>
    files.map((f) => {
      const r = readCsvExamples(f);
      log(`  ${what} ${r.record.name}: ${r.record.used} of ${r.record.rows} rows, k = ${r.record.ks.join(', ')}\n`);
      return r;
    });
  const training = read(trainFiles, 'train');
  const testing = read(testFiles, 'test');
  const { train, validation } = splitValidation(
    training.flatMap((t) => t.examples.map((e) => e.example)),
    seed,
  );
  const tests = new Map<number, Example[]>();
  for (const { example, k } of testing.flatMap((t) => t.examples)) {
    const list = tests.get(k) ?? [];
    list.push(example);
    tests.set(k, list);
  }
  return {
    train,
    dev: validation,
    tests: new Map([...tests].sort((a, b) => a[0] - b[0])),
    robustness: new Map(),
    csv: {
      trainFiles: training.map((t) => t.record),
      testFiles: testing.map((t) => t.record),
      validationRows: validation.length,
    },
  };
}
