import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../load';
import { MODEL_KINDS } from '../modelKinds';
import { csvExampleReader, examplesByK, filesTrainData } from './csvFiles';
import { type EpochRecord, runEpochs, type Step } from './epochs';
import { variablesKeeper } from './keepBest';
import { FOLDER_FILES, folderFiles, NotAModelFolderError, readModelFolder } from './folder';
import { filesMetadata } from './metadata';
import { scoreExamples } from './score';
import { csvText } from './testFiles';
import { TRAINABLE_MODELS, TRAINERS } from './trainers';

beforeAll(async () => {
  tf.env().set('PROD', true);
  await tf.setBackend('cpu');
});

const read = (name: string, text: string, sha = 'x') => {
  const r = csvExampleReader(name);
  r.push(text);
  return r.end(sha);
};

describe('runEpochs', () => {
  const steps = (n: number, loss: number): Step[] =>
    Array.from({ length: n }, () => () => ({ loss, correct: 1, size: 2 }));

  it('records each epoch (loss, accuracy, held-out figure) and calls onEpoch as it goes', async () => {
    const heard: EpochRecord[] = [];
    const { history, end } = await runEpochs(
      { epochs: 3 },
      { onEpoch: (r) => heard.push(r) },
      (n) => steps(4, 1 / n),
      async () => ({ correct: 3, rows: 4 }),
    );
    expect(end).toBe('done');
    expect(history.map((h) => h.epoch)).toEqual([1, 2, 3]);
    expect(history.map((h) => h.loss)).toEqual([1, 0.5, 1 / 3]);
    expect(history[0]).toMatchObject({ accuracy: 0.5, testAccuracy23: 0.75 });
    expect(heard).toEqual(history);
  });

  it('stops between two steps when asked, keeping the cut epoch with its batches', async () => {
    let ran = 0;
    const { history, end } = await runEpochs(
      { epochs: 5 },
      { shouldStop: () => ran >= 6, onStep: () => ran++, between: async () => {} },
      () => steps(4, 1),
      async () => ({ correct: 0, rows: 0 }),
    );
    expect(end).toBe('stopped');
    expect(history).toHaveLength(2);
    expect(history[1]).toMatchObject({ epoch: 2, batches: 2, testAccuracy23: null });
  });

  it('with a keeper, saves at each new best held-out figure and restores the best epoch at the end', async () => {
    const calls: string[] = [];
    const keeper = {
      save: () => void calls.push('save'),
      restore: () => void calls.push('restore'),
      dispose: () => void calls.push('dispose'),
    };
    const figures = [2, 3, 3, 1];
    const { bestEpoch } = await runEpochs(
      { epochs: 4 },
      {},
      () => steps(1, 1),
      async (n) => ({ correct: figures[n - 1]!, rows: 4 }),
      [],
      keeper,
    );
    // Epoch 3 ties epoch 2 and is not saved: the earlier epoch is kept.
    expect(bestEpoch).toBe(2);
    expect(calls).toEqual(['save', 'save', 'restore', 'dispose']);
    calls.length = 0;
    const last = await runEpochs(
      { epochs: 2 },
      {},
      () => steps(1, 1),
      async (n) => ({ correct: n, rows: 4 }),
      [],
      keeper,
    );
    // The last epoch is the best: nothing to restore.
    expect(last.bestEpoch).toBe(2);
    expect(calls).toEqual(['save', 'save', 'dispose']);
  });

  it('variablesKeeper puts the saved values back after training changed them', async () => {
    const vars = new Map([
      ['a', tf.variable(tf.tensor([1, 2, 3]))],
      ['b', tf.variable(tf.tensor([[4]]))],
    ]);
    const keeper = variablesKeeper(vars);
    keeper.save();
    vars.get('a')!.assign(tf.tensor([9, 9, 9]));
    vars.get('b')!.assign(tf.tensor([[0]]));
    keeper.restore();
    expect(await vars.get('a')!.array()).toEqual([1, 2, 3]);
    expect(await vars.get('b')!.array()).toEqual([[4]]);
    const before = tf.memory().numTensors;
    keeper.dispose();
    expect(tf.memory().numTensors).toBe(before - 2);
    for (const v of vars.values()) v.dispose();
  });

  it('numbers a resumed run on from its history', async () => {
    const before = [{ epoch: 1, loss: 1, accuracy: 0, testAccuracy23: null, seconds: 0 }];
    const { history } = await runEpochs(
      { epochs: 1 },
      {},
      () => steps(1, 1),
      async () => ({ correct: 0, rows: 1 }),
      before,
    );
    expect(history.map((h) => h.epoch)).toEqual([1, 2]);
  });
});

describe('CSV files', () => {
  it('reads rows into examples with k, and records name, rows, k and digest', () => {
    const f = read('a.csv', csvText('a', [2, 3], 4), 'abc');
    expect(f.record).toEqual({ name: 'a.csv', rows: 8, used: 8, sha256: 'abc', ks: [2, 3] });
    expect(f.examples.map((e) => e.k)).toEqual([2, 2, 2, 2, 3, 3, 3, 3]);
  });

  it('reads a file pushed in pieces the same as whole', () => {
    const text = csvText('b', [2], 5);
    const r = csvExampleReader('b.csv');
    for (let i = 0; i < text.length; i += 37) r.push(text.slice(i, i + 37));
    expect(r.end('x').examples.map((e) => e.example.story)).toEqual(
      read('b.csv', text).examples.map((e) => e.example.story),
    );
  });

  it('names the file and the row of a malformed row', () => {
    const lines = csvText('c', [2], 3).split('\n');
    // Break the third data row's query column (a Python tuple) in place.
    const broken = [...lines.slice(0, 3), lines[3]!.replace(/\('[^']*', '[^']*'\)/, "('x'"), ...lines.slice(4)].join(
      '\n',
    );
    expect(() => read('bad.csv', broken)).toThrow(/^bad\.csv, row 3/);
    expect(() => read('empty.csv', '')).toThrow(/empty\.csv.*empty/);
  });

  it('takes the validation slice from the training files only, seeded', () => {
    const f = read('d.csv', csvText('d', [2, 3], 10));
    const a = filesTrainData([f], 's');
    expect(a.validationRows).toBe(2);
    expect(a.train).toHaveLength(18);
    expect(filesTrainData([f], 's').dev.map((e) => e.story)).toEqual(a.dev.map((e) => e.story));
    expect([...examplesByK([read('t.csv', csvText('t', [3, 2], 2))]).keys()]).toEqual([2, 3]);
  });
});

describe('training on files, folder and back', () => {
  it('knows every model the script trains, each with a descriptor (the panel offers MODEL_KINDS)', () => {
    expect(TRAINABLE_MODELS).toEqual(expect.arrayContaining(['gat', 'gat-improved', 'lstm', 'lstm-mean', 'rn', 'mac']));
    expect([...TRAINABLE_MODELS].sort()).toEqual(Object.keys(MODEL_KINDS).sort());
  });

  it('trains the GAT, streams its epochs, and writes a folder that loads back and answers the same', async () => {
    const f = read('train.csv', csvText('train', [2, 3], 15));
    const { train, dev, validationRows } = filesTrainData([f], '1');
    const epochs: EpochRecord[] = [];
    const settings = { model: 'gat', seed: '1', epochs: 2, batchSize: 10, learningRate: 0.01 };
    const trained = await TRAINERS.gat!({
      options: settings,
      data: { train, dev },
      log: () => {},
      hooks: { onEpoch: (r) => epochs.push(r) },
    });
    expect(trained.end).toBe('done');
    expect(epochs.map((e) => e.epoch)).toEqual([1, 2]);
    expect(epochs[0]!.loss).not.toBe(epochs[1]!.loss);
    const metadata = filesMetadata(
      {
        settings,
        version: 'browser',
        madeBy: 'test',
        backend: 'cpu',
        labels: 'clutrr',
        train,
        trainFiles: [f.record],
        validationRows,
        testFiles: [],
        accuracy: {},
      },
      trained,
    );
    expect(metadata.training).toMatchObject({ source: 'files', rows: 27, validationRows: 3, epochs: 2 });
    const files = folderFiles(trained.modelJson, trained.weights, metadata);
    const back = readModelFolder(new Map(Object.entries(files)), 'folder');
    const a = loadModel(trained.modelJson, trained.weights.slice(0));
    const b = loadModel(back.modelJson, back.weights);
    const tests = examplesByK([read('test.csv', csvText('test', [2], 5))]).get(2)!;
    const [pa, pb] = [await a.answer([tests[0]!.question]), await b.answer([tests[0]!.question])];
    expect(Array.from(pb[0]!.probs)).toEqual(Array.from(pa[0]!.probs));
    expect(await scoreExamples(b, tests)).toBe(await scoreExamples(a, tests));
    a.dispose();
    b.dispose();
  });
});

describe('readModelFolder', () => {
  const bytes = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
  it('refuses a folder that is not a model, saying what is missing or wrong', () => {
    expect(() => readModelFolder(new Map([['notes.txt', new Uint8Array(1)]]), 'x.zip')).toThrow(
      `x.zip is not a model folder: ${FOLDER_FILES.join(', ')} missing`,
    );
    const files = new Map([
      ['model.json', bytes({ format: 'keras' })],
      ['weights.bin', new Uint8Array(4)],
      ['metadata.json', bytes({})],
    ]);
    expect(() => readModelFolder(files, 'y')).toThrow(NotAModelFolderError);
    expect(() => readModelFolder(files, 'y')).toThrow(/y: model\.json has no clutrr-lab format/);
    files.set(
      'model.json',
      bytes({ format: 'clutrr-lab/gat', weightsManifest: [{ weights: [{ shape: [3], dtype: 'float32' }] }] }),
    );
    files.set('metadata.json', bytes({ model: 'gat', kind: 'gat', version: '1', training: { tasks: [] } }));
    expect(() => readModelFolder(files, 'y')).toThrow(/weights\.bin holds 4 bytes, but model\.json's manifest says 12/);
  });
});
