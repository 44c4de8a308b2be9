import { describe, expect, it } from 'vitest';
import { taskRowNumbers } from '../puzzle/dataset';
import {
  DEFAULT_DATASET_VALUES,
  type DatasetValues,
  PRESET_NAMES,
  presetValues,
  readDatasetOptions,
} from '../puzzle/datasetOptions';
import { parseTaskList } from '../puzzle/tasks';
import { datasetRenderer } from '../text/datasetText';
import { CLUTRR_CSV_HEADER, planDataset, tellRowBytes, tellRows } from './datasetFolder';

/**
 * The generator's output pinned byte for byte: for every preset and k = 2..10, a few hundred rows
 * of each of the preset's tasks at that k are made the way `generate` makes them (the plan, each
 * job's candidate numbers, tellRowBytes in batches) and hashed. Speed-ups of the pipeline must
 * leave every digest as it is; a digest changes only with a deliberate change of the output.
 */

/** FNV-1a over the bytes, two lanes with different offsets: 64 bits of digest, as hex. */
function digest(chunks: readonly Uint8Array[]): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (const bytes of chunks) {
    for (let i = 0; i < bytes.length; i++) {
      a = Math.imul(a ^ bytes[i]!, 0x01000193);
      b = Math.imul(b ^ bytes[i]!, 0x01000193) ^ (b >>> 15);
    }
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

const encoder = new TextEncoder();

/** Every file of the folder these values describe, as `generate` writes it, back to back. */
function folderBytes(values: DatasetValues, batch = 64): Uint8Array[] {
  const reading = readDatasetOptions(values);
  if (!reading.ok) throw new Error(reading.problems[0]!.message);
  const { spec, text } = reading;
  const { render } = datasetRenderer(text, spec.seed);
  const plan = planDataset(spec);
  const byKey = new Map(plan.jobs.map((j) => [j.key, j]));
  const out: Uint8Array[] = [];
  for (const f of plan.files) {
    out.push(encoder.encode(`${f.name}\n${CLUTRR_CSV_HEADER}`));
    for (const key of f.jobs) {
      const job = byKey.get(key)!;
      const numbers = Int32Array.from(taskRowNumbers(spec, job.task, job.split));
      for (let from = 0; from < job.rows; from += batch) {
        const list = numbers.slice(from, Math.min(job.rows, from + batch));
        const range = { spec, job, numbers: list, from: 0, to: list.length, indexStart: job.fileOffset + from };
        out.push(tellRowBytes(range, render).slice());
      }
    }
  }
  return out;
}

/** The preset's task ids at story length k: `1.k`, `2.k`… for each task the preset lists. */
const atK = (tasks: string, k: number): string =>
  [...new Set(parseTaskList(tasks).map((t) => t.task))].map((t) => `${t}.${k}`).join(',');

const cellValues = (preset: string, k: number): DatasetValues => {
  const p = presetValues(preset)!;
  return {
    ...DEFAULT_DATASET_VALUES,
    ...p,
    trainTasks: atK(p.trainTasks!, k),
    testTasks: atK(p.testTasks!, k),
    trainRows: '150',
    testRows: '40',
    seed: `digest-${preset}-${k}`,
  };
};

/** Pinned before the pipeline was made faster (issue 34); every cell must keep its digest. */
const PINNED: Record<string, string> = {
  'clutrr labels': '7251e47c12d35eca',
  'combination length 1': '421c793dbdd13b52',
  'emnlp-robust-clean k=10': '653837f917d60953',
  'emnlp-robust-clean k=2': '68646bc6e4dc416c',
  'emnlp-robust-clean k=3': '0fca860d3e791da9',
  'emnlp-robust-clean k=4': '32c0fe2bcbf7695e',
  'emnlp-robust-clean k=5': 'f7eeffab5f8ff6ce',
  'emnlp-robust-clean k=6': 'bd1ed04869ff00ea',
  'emnlp-robust-clean k=7': 'b146e0f95c15f49a',
  'emnlp-robust-clean k=8': '05a722b8785af380',
  'emnlp-robust-clean k=9': '2800e955d9f53241',
  'emnlp-robust-disconnected k=10': 'c2510c08249b9ebf',
  'emnlp-robust-disconnected k=2': '8bdf31d9cf72e162',
  'emnlp-robust-disconnected k=3': '65b404f65b4e85d7',
  'emnlp-robust-disconnected k=4': '5bbde061820ef2d1',
  'emnlp-robust-disconnected k=5': '43e4b4d6706e3a9c',
  'emnlp-robust-disconnected k=6': '177a48b6dda38751',
  'emnlp-robust-disconnected k=7': '4ed20eb3fcac2008',
  'emnlp-robust-disconnected k=8': '10b80f74ec14a4b8',
  'emnlp-robust-disconnected k=9': 'b486a661d87ce3fc',
  'emnlp-robust-irrelevant k=10': '1389955228bafa9b',
  'emnlp-robust-irrelevant k=2': '3fa2282ebd548ba4',
  'emnlp-robust-irrelevant k=3': 'e4951cea14be5b76',
  'emnlp-robust-irrelevant k=4': 'a0a7f70d21c2ecb2',
  'emnlp-robust-irrelevant k=5': 'e7c2d557c55d9af2',
  'emnlp-robust-irrelevant k=6': '9a98727e380abeb8',
  'emnlp-robust-irrelevant k=7': '932134bad950a350',
  'emnlp-robust-irrelevant k=8': '2406ccd9929cb83a',
  'emnlp-robust-irrelevant k=9': '8bc6f680a8f22b58',
  'emnlp-robust-supporting k=10': '04ff1c71e6cf9b68',
  'emnlp-robust-supporting k=2': '89f5fad50507a05f',
  'emnlp-robust-supporting k=3': '959f44c3515410f3',
  'emnlp-robust-supporting k=4': 'f4d0dd60983247bb',
  'emnlp-robust-supporting k=5': '0e6385d9db70a1a4',
  'emnlp-robust-supporting k=6': '2a744176b5a9b9ce',
  'emnlp-robust-supporting k=7': 'ab90befa09a84a73',
  'emnlp-robust-supporting k=8': 'b2a2d9edc0d108ce',
  'emnlp-robust-supporting k=9': 'fdee8809c712d6df',
  'emnlp-systematic k=10': 'cceb8eacfb5058c1',
  'emnlp-systematic k=2': '5d07527b666f5fc5',
  'emnlp-systematic k=3': 'a02a5f5952e4c118',
  'emnlp-systematic k=4': '607e7288b6fe22c5',
  'emnlp-systematic k=5': 'f0d2003ab2a52a0e',
  'emnlp-systematic k=6': 'eb62efdad54be534',
  'emnlp-systematic k=7': 'f6ed61bfe51f8590',
  'emnlp-systematic k=8': '8e9a798e24224791',
  'emnlp-systematic k=9': '93561c2d5b34cbde',
  'emnlp-systematic-k4 k=10': 'd0ac847ef9ce4aaf',
  'emnlp-systematic-k4 k=2': '3aa1fd87c16863a8',
  'emnlp-systematic-k4 k=3': 'd7a84e617438c276',
  'emnlp-systematic-k4 k=4': '3e7372f0d49fcc18',
  'emnlp-systematic-k4 k=5': 'f1cf8c893cca763a',
  'emnlp-systematic-k4 k=6': '5f3445b3992a6705',
  'emnlp-systematic-k4 k=7': '6699ace0551b3270',
  'emnlp-systematic-k4 k=8': '3bf703c957aac5e6',
  'emnlp-systematic-k4 k=9': '33d332669ccf66ee',
  holdout: '25fc6f5b39232a52',
  'path order': '1332a7f21e2dcb67',
  strict: '99633a35682e5096',
  synthetic: '34cee4bef4539021',
  'template split': '8c7899628349473f',
};

const KS = [2, 3, 4, 5, 6, 7, 8, 9, 10];

describe('generated CSV bytes are pinned for every preset and k', () => {
  for (const preset of PRESET_NAMES) {
    it(preset, () => {
      const got = Object.fromEntries(KS.map((k) => [`${preset} k=${k}`, digest(folderBytes(cellValues(preset, k)))]));
      const want = Object.fromEntries(Object.keys(got).map((key) => [key, PINNED[key]]));
      expect(got).toEqual(want);
    });
  }

  it('the text settings (synthetic, path order, template split, one fact per paraphrase, strict, CLUTRR labels)', () => {
    const base = {
      ...DEFAULT_DATASET_VALUES,
      trainTasks: '1.4,5.3',
      testTasks: '2.6,7.9',
      trainRows: '120',
      testRows: '40',
    };
    const variants: Record<string, Partial<DatasetValues>> = {
      synthetic: { synthetic: true },
      'path order': { storyOrder: 'path' },
      'template split': { templateSplit: true },
      'combination length 1': { combinationLength: '1' },
      strict: { strict: true, trainTasks: '1.4', testTasks: '1.6' },
      'clutrr labels': { labels: 'clutrr' },
      holdout: { holdout: true, equal: true },
    };
    const got = Object.fromEntries(
      Object.entries(variants).map(([name, v]) => [
        name,
        digest(folderBytes({ ...base, ...v, seed: `digest-${name}` })),
      ]),
    );
    const want = Object.fromEntries(Object.keys(got).map((key) => [key, PINNED[key]]));
    expect(got).toEqual(want);
  });

  it('the batch size does not change the bytes, and tellRows writes the same records', () => {
    const values = cellValues('emnlp-robust-supporting', 4);
    const decoder = new TextDecoder();
    const whole = (chunks: Uint8Array[]) => chunks.map((c) => decoder.decode(c)).join('');
    expect(whole(folderBytes(values, 7))).toBe(whole(folderBytes(values, 500)));
    const reading = readDatasetOptions({ ...values, testTasks: '1.4' });
    if (!reading.ok) throw new Error('bad values');
    const { spec, text } = reading;
    const { render } = datasetRenderer(text, spec.seed);
    const job = planDataset(spec).jobs[0]!;
    const numbers = taskRowNumbers(spec, job.task, job.split);
    const range = { spec, job, numbers, from: 0, to: numbers.length, indexStart: 0 };
    expect(new TextDecoder().decode(tellRowBytes(range, render))).toBe(tellRows(range, render).csv);
  });
});
