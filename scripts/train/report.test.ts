import * as tf from '@tensorflow/tfjs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeClutrrCsv } from '../../src/core/formats/clutrrCsv';
import { puzzleToRow } from '../../src/core/formats/fromPuzzle';
import { parseClutrrCsv } from '../../src/core/formats/clutrrCsv';
import { createRng } from '../../src/core/random/rng';
import { renderPlain } from '../../src/core/text/plain';
import { classIndex } from '../../src/ml/encoding';
import { Lstm, LSTM_MEAN, saveLstm } from '../../src/ml/text/lstm';
import { modelFacts } from '../../src/ml/modelKinds';
import { makeExamples } from '../../src/ml/testData';
import { learnTokenizer } from '../../src/ml/text/tokens';
import {
  accuracyOf,
  beats,
  DEFAULT_TEMPLATES,
  folderMarkdown,
  majority,
  readTemplateSource,
  reportFolder,
  type ReportOptions,
  resultTable,
  summaryMarkdown,
} from './report';

const root = mkdtempSync(path.join(tmpdir(), 'report-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('majority baseline', () => {
  it('is the share of the most frequent answer (ties: the smaller class index)', () => {
    expect(majority([3, 1, 3, 2])).toEqual({ label: 3, share: 0.5 });
    expect(majority([5, 4, 4, 5])).toEqual({ label: 4, share: 0.5 });
    expect(majority([])).toEqual({ label: -1, share: 0 });
  });

  it('a model beats it only when strictly above; the table says which', () => {
    const at = { name: 'k = 2', rows: 10, majority: { label: classIndex('son'), share: 0.3 } };
    expect(beats({ ...at, correct: 4 })).toBe(true);
    expect(beats({ ...at, correct: 3 })).toBe(false);
    expect(accuracyOf({ ...at, rows: 0, correct: 0 })).toBe(0);
    const table = resultTable([
      { ...at, correct: 4 },
      { ...at, name: 'k = 3', correct: 2 },
    ]);
    expect(table[2]).toBe('| k = 2 | 10 | 0.400 | 0.300 (son) | yes |');
    expect(table[3]).toBe('| k = 3 | 10 | 0.200 | 0.300 (son) | **no** |');
  });
});

describe('report of a model folder', () => {
  it('our AMT-format template file loads strictly', () => {
    const source = readTemplateSource(DEFAULT_TEMPLATES);
    // Written with the original's `neice` key, read as `niece`; 20 single facts, 4 two-fact runs.
    expect(Object.keys(source.bank)).toContain('niece');
    expect(Object.keys(source.bank)).toHaveLength(24);
  });

  it('a bad template file is refused, naming the file', () => {
    const bad = path.join(root, 'bad.json');
    writeFileSync(bad, JSON.stringify({ son: { 'male-male': ['ENT_0_male has no second person.'] } }));
    expect(() => readTemplateSource(bad)).toThrow(/bad\.json: bad template file/);
  });

  it('held-out, template-file and AMT-format sets, each with its majority baseline, and times by k', async () => {
    // A tiny untrained text model in a folder of its own, and AMT-format rows of our own puzzles.
    const examples = makeExamples('1', '1', { task: 1, k: 2 }, 'train', 30, { equal: true });
    const tokens = learnTokenizer(examples.map((e) => e.story));
    const model = new Lstm({ ...LSTM_MEAN, embeddingDim: 4, hidden: 3, decoderHidden: 5 }, tokens, 1);
    const { modelJson, weights } = await saveLstm(model, 'lstm-mean');
    model.dispose();
    const dir = path.join(root, 'lstm-mean', '1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'model.json'), JSON.stringify(modelJson));
    writeFileSync(path.join(dir, 'weights.bin'), new Uint8Array(weights));
    const training = { noise: 'clean', preset: 'emnlp-systematic', labels: 'family', tasks: [{ task: 1, k: 2 }] };
    writeFileSync(
      path.join(dir, 'metadata.json'),
      JSON.stringify({
        model: 'lstm-mean',
        kind: 'lstm',
        version: '1',
        seed: '1',
        madeBy: 'a test',
        ...modelFacts('lstm-mean'),
        training: { ...training, rows: 30, epochs: 1, seconds: 2 },
      }),
    );
    const puzzles = makeExamples('x', 'x', { task: 1, k: 3 }, 'test', 4, {}).map((e) => e.puzzle);
    const csv = writeClutrrCsv(
      puzzles.map((p, i) =>
        puzzleToRow(p, renderPlain(p, 'test', createRng(p.seed, 'text')), { index: i, id: `r${i}`, split: 'test' }),
      ),
    );
    const options: ReportOptions = {
      root,
      rows: 3,
      seed: 'report-test',
      templates: DEFAULT_TEMPLATES,
      sample: 'sample.csv',
      timingRows: 2,
    };
    const rows = parseClutrrCsv(csv, 'sample.csv');
    const report = await reportFolder('lstm-mean/1', options, readTemplateSource(DEFAULT_TEMPLATES), rows);
    expect(report.heldOut.map((r) => r.name)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10].map((k) => `k = ${k}`));
    expect(report.heldOut.every((r) => r.rows === 3 && r.majority.share >= 1 / 3)).toBe(true);
    // (b) tells the same puzzles: the same answers, so the same baselines.
    expect(report.templateFile.map((r) => r.majority)).toEqual(report.heldOut.map((r) => r.majority));
    expect(report.sample!.map((r) => [r.name, r.rows])).toEqual([
      ['all rows', 4],
      ['task_1.3', 4],
    ]);
    expect([...report.msByK.keys()]).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect([...report.msByK.values()].every((ms) => ms > 0)).toBe(true);
    const md = folderMarkdown(report, options);
    expect(md).toContain('## lstm-mean/1: BiLSTM-mean (paper)');
    expect(md).toContain('| k = 10 | 3 |');
    expect(md).toContain('### (c) AMT-format rows of sample.csv');
    expect(md).toMatch(/Training time: 2 s for 1 epochs/);
    const summary = summaryMarkdown([report]);
    expect(summary.split('\n')[2]).toMatch(/^\| lstm-mean\/1 \| text \|/);
    const noSample = folderMarkdown({ ...report, sample: null }, options);
    expect(noSample).toContain('sample.csv not found, not measured');
  });
});
