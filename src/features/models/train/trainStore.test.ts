import { strToU8, zipSync } from 'fflate';
import { describe, expect, it, vi } from 'vitest';
import { writeClutrrCsv } from '../../../core/formats/clutrrCsv';
import { puzzleToRow } from '../../../core/formats/fromPuzzle';
import { generatePuzzle } from '../../../core/puzzle/puzzle';
import { createRng } from '../../../core/random/rng';
import { renderPlain } from '../../../core/text/plain';
import type { EpochRecord, TrainChunk, TrainResult } from '../../../worker/trainClient';
import { createTrainStore, folderFilesOf, trainProblem } from './trainStore';

const record = (epoch: number, loss: number): EpochRecord => ({
  epoch,
  loss,
  accuracy: 0.5,
  testAccuracy23: 0.25 * epoch,
  seconds: 1,
});

/** A fake train worker client: streams a start and two epochs, then ends as `end` says. */
function fakeTrain(end: TrainResult['end'] = 'done', fail?: string) {
  return {
    train: vi.fn(async (_body: unknown, on: { onChunk?: (c: TrainChunk) => void } = {}) => {
      if (fail) throw new Error(fail);
      on.onChunk?.({ type: 'start', backend: 'wasm', webglNote: 'no GPU', files: [], trainRows: 9, validationRows: 1 });
      on.onChunk?.({ type: 'epoch', record: record(1, 2), of: 2 });
      on.onChunk?.({ type: 'epoch', record: record(2, 1), of: 2 });
      return { backend: 'wasm' as const, history: [record(1, 2), record(2, 1)], end, seconds: 2 };
    }),
    test: vi.fn(async () => ({ byK: [{ k: 2, rows: 4, correct: 3 }], files: [] })),
    folder: vi.fn(),
    cancel: vi.fn(async () => ({ stopping: true })),
  };
}

/** Three k = 2 rows of our generator in CLUTRR's CSV format. */
const rows = [0, 1, 2].map((i) => {
  const p = generatePuzzle({ seed: `s:${i}`, k: 2, task: 1 });
  return puzzleToRow(p, renderPlain(p, 'train', createRng(p.seed, 'text')), { index: i, id: `s-${i}`, split: 'train' });
});
const csv = new File([writeClutrrCsv(rows)], 'train.csv', { type: 'text/csv' });

describe('trainProblem', () => {
  it('asks for files and whole epochs in range', () => {
    expect(trainProblem({ files: [], epochs: 3 })).toMatch(/Drop one or more CLUTRR CSV files/);
    expect(trainProblem({ files: [csv], epochs: 0 })).toMatch(/Epochs must be a whole number from 1 to 200/);
    expect(trainProblem({ files: [csv], epochs: 2.5 })).toMatch(/Epochs/);
    expect(trainProblem({ files: [csv], epochs: 3 })).toBeNull();
  });
});

describe('train store', () => {
  const models = () => ({ register: vi.fn(), ensureLoaded: vi.fn(), answer: vi.fn() });

  it('streams the backend, the rows and each epoch, then says it is done', async () => {
    const t = fakeTrain();
    const store = createTrainStore(
      () => t,
      models,
      () => {},
    );
    store.getState().setFiles([csv]);
    store.getState().setEpochs(2);
    await store.getState().start();
    const s = store.getState();
    expect(t.train.mock.calls[0]![0]).toMatchObject({ model: 'gat', epochs: 2, files: [{ name: 'train.csv' }] });
    expect(s).toMatchObject({
      status: 'done',
      backend: 'wasm',
      webglNote: 'no GPU',
      rows: { train: 9, validation: 1 },
    });
    expect(s.history.map((h) => h.loss)).toEqual([2, 1]);
    expect(s.message).toMatch(/^Done: 2 epochs in 2\.0 s on wasm/);
    await s.testOn([csv]);
    expect(store.getState().test).toMatchObject({ status: 'done', byK: [{ k: 2, rows: 4, correct: 3 }] });
  });

  it('reports a stop as keeping what was learned, and a worker error as it is', async () => {
    const stopped = createTrainStore(
      () => fakeTrain('stopped'),
      models,
      () => {},
    );
    stopped.getState().setFiles([csv]);
    await stopped.getState().start();
    expect(stopped.getState()).toMatchObject({ status: 'stopped' });
    expect(stopped.getState().message).toMatch(/Stopped after 2 epochs/);
    const failing = createTrainStore(
      () => fakeTrain('done', 'bad.csv, row 3: not a list'),
      models,
      () => {},
    );
    failing.getState().setFiles([csv]);
    await failing.getState().start();
    expect(failing.getState()).toMatchObject({ status: 'error', message: 'bad.csv, row 3: not a list' });
    const empty = createTrainStore(
      () => fakeTrain(),
      models,
      () => {},
    );
    await empty.getState().start();
    expect(empty.getState().message).toMatch(/Drop one or more/);
  });

  it('registers a loaded folder, tells the report, and checks it on the test file’s rows', async () => {
    const m = models();
    const entry = { id: 'gat/loaded1', label: 'GAT (paper) (loaded: x)' };
    m.register.mockResolvedValue(entry);
    m.answer.mockImplementation(async (_id: string, qs: unknown[]) => ({
      answers: qs.map(() => ({ probs: Float32Array.from({ length: 18 }, (_, i) => (i === 0 ? 0.9 : 0)) })),
    }));
    const told = vi.fn();
    const store = createTrainStore(
      () => fakeTrain(),
      () => m,
      told,
    );
    await store.getState().testOn([csv]);
    const zip = new File([zipSync({ 'x/model.json': strToU8('{}'), 'x/weights.bin': new Uint8Array(4) })], 'x.zip');
    await store.getState().loadFolder([zip]);
    expect(m.register.mock.calls[0]![0]).toBe('x');
    expect(Object.keys(m.register.mock.calls[0]![1]).sort()).toEqual(['model.json', 'weights.bin']);
    expect(told).toHaveBeenCalledOnce();
    const loaded = store.getState().loaded[0]!;
    expect(loaded.check?.file).toBe('train.csv');
    expect(loaded.check?.answers).toHaveLength(3);
    expect(loaded.check?.answers[0]).toMatchObject({ predicted: 'son' });
    expect(store.getState().loadMessage?.text).toMatch(/Loaded GAT \(paper\) \(loaded: x\) as gat\/loaded1/);
    m.register.mockRejectedValueOnce(new Error('y is not a model folder: model.json missing'));
    await store.getState().loadFolder([new File(['x'], 'y.json')]);
    expect(store.getState().loadMessage).toEqual({ error: true, text: 'y is not a model folder: model.json missing' });
  });
});

describe('folderFilesOf', () => {
  it('takes a folder’s files by base name from a zip, or from the files themselves', async () => {
    const zip = new File([zipSync({ 'a/b/model.json': strToU8('{"a":1}') })], 'folder.zip');
    const z = await folderFilesOf([zip]);
    expect(z.name).toBe('folder');
    expect(new TextDecoder().decode(z.files['model.json'])).toBe('{"a":1}');
    const f = await folderFilesOf([new File(['1'], 'model.json'), new File(['2'], 'metadata.json')]);
    expect(Object.keys(f.files).sort()).toEqual(['metadata.json', 'model.json']);
    await expect(folderFilesOf([new File(['nope'], 'bad.zip')])).rejects.toThrow(/bad\.zip is not a zip file/);
  });
});
