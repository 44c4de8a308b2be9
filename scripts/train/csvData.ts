/**
 * `npm run train -- --train-csv FILE… [--test-csv FILE…]`: the training data read from CLUTRR
 * CSV files instead of generated (src/ml/train/csvFiles.ts reads them, as the browser's Train
 * panel does). A seeded tenth of the training rows is held out for the per-epoch figure; the
 * test files give the k lines. What the model folder records of the files is their names, row
 * counts and digests, never their contents.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Seed } from '../../src/core/random/rng';
import {
  csvExampleReader,
  type DataFile,
  examplesByK,
  type FileExamples,
  filesTrainData,
} from '../../src/ml/train/csvFiles';
import type { TrainData } from './data';

export type { DataFile };

/** A file's examples with their k, and what metadata.json records of it. */
export function readCsvExamples(file: string): FileExamples {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${file}: cannot read it (${(e as Error).message})`, { cause: e });
  }
  // Messages name the path given; the record keeps only the file's name.
  const reader = csvExampleReader(file);
  reader.push(text);
  const read = reader.end(createHash('sha256').update(text).digest('hex'));
  return { examples: read.examples, record: { ...read.record, name: path.basename(file) } };
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
  const { train, dev, validationRows } = filesTrainData(training, seed);
  return {
    train,
    dev,
    tests: examplesByK(testing),
    robustness: new Map(),
    csv: {
      trainFiles: training.map((t) => t.record),
      testFiles: testing.map((t) => t.record),
      validationRows,
    },
  };
}
