import { describe, expect, it } from 'vitest';
import { csvText } from '../ml/train/testFiles';
import { serve, type RpcResponse } from './rpc';
import { trainHandlers } from './train.worker';
import type { TrainChunk, TrainCommands } from './trainProtocol';

/** The worker's handlers in Node, on cpu (no WebGL, no .wasm files here). */
const handlers = () =>
  trainHandlers({ probeWebgl: () => 'no WebGL in Node', pause: () => new Promise((r) => setTimeout(r, 0)) });

const blob = (text: string) => new Blob([text], { type: 'text/csv' });

describe('train worker', () => {
  it('trains on dropped files on the best backend there is, streaming a start and each epoch', async () => {
    const h = handlers();
    const chunks: TrainChunk[] = [];
    let progress = 0;
    const result = await h.train(
      { model: 'gat', epochs: 2, batchSize: 10, files: [{ name: 'train.csv', data: blob(csvText('w', [2, 3], 10)) }] },
      { chunk: (c) => chunks.push(c), progress: (d) => (progress = d), transferResult: () => {} },
    );
    expect(result.backend).toBe('cpu');
    expect(result.end).toBe('done');
    expect(chunks[0]).toMatchObject({ type: 'start', backend: 'cpu', trainRows: 18, validationRows: 2 });
    expect(chunks[0]!.type === 'start' && chunks[0]!.webglNote).toBe('no WebGL in Node');
    expect(chunks[0]!.type === 'start' && chunks[0]!.files[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(chunks.slice(1).map((c) => c.type === 'epoch' && c.record.epoch)).toEqual([1, 2]);
    expect(progress).toBe(4);

    const tested = await h.test(
      { files: [{ name: 'test.csv', data: blob(csvText('t', [2, 4], 3)) }] },
      { chunk: () => {}, progress: () => {}, transferResult: () => {} },
    );
    expect(tested.byK.map((s) => [s.k, s.rows])).toEqual([
      [2, 3],
      [4, 3],
    ]);
    const moved: Transferable[] = [];
    const folder = await h.folder(
      {},
      { chunk: () => {}, progress: () => {}, transferResult: (...b) => moved.push(...b) },
    );
    expect(moved).toHaveLength(3);
    expect(folder.metadata.test.files).toMatchObject([{ name: 'test.csv', rows: 6 }]);
    expect(Object.keys(folder.metadata.test.accuracy)).toEqual(['2', '4']);
    expect(JSON.parse(new TextDecoder().decode(folder.metadataJson)).training.source).toBe('files');
  });

  it('stops on cancel between two steps, keeping what was learned', async () => {
    const h = handlers();
    const post: RpcResponse[] = [];
    const dispatch = serve<TrainCommands>(h, (m) => post.push(m));
    const training = dispatch({
      id: 1,
      command: 'train',
      body: { model: 'gat', epochs: 50, batchSize: 5, files: [{ name: 'a.csv', data: blob(csvText('c', [2], 20)) }] },
    });
    // Cancel once the first epoch has been reported.
    while (!post.some((m) => m.type === 'chunk' && (m.chunk as TrainChunk).type === 'epoch'))
      await new Promise((r) => setTimeout(r, 5));
    await dispatch({ id: 2, command: 'cancel', body: {} });
    await training;
    const result = post.find((m) => m.id === 1 && m.type === 'result');
    expect(result && result.type === 'result' && (result.result as { end: string }).end).toBe('stopped');
    expect(post.find((m) => m.id === 2 && m.type === 'result')).toMatchObject({ result: { stopping: true } });
  });

  it('refuses an unknown model, bad epochs, no files, and a malformed file naming it and its row', async () => {
    const h = handlers();
    const ctx = { chunk: () => {}, progress: () => {}, transferResult: () => {} };
    const file = [{ name: 'a.csv', data: blob(csvText('r', [2], 3)) }];
    await expect(h.train({ model: 'bert', epochs: 1, files: file }, ctx)).rejects.toThrow(/unknown model "bert"/);
    await expect(h.train({ model: 'gat', epochs: 0, files: file }, ctx)).rejects.toThrow(
      /epochs must be a whole number/,
    );
    await expect(h.train({ model: 'gat', epochs: 1, files: [] }, ctx)).rejects.toThrow(/no training file/);
    const bad = csvText('r', [2], 3).replace(/\n[^\n]*$/, '\n"unclosed');
    await expect(
      h.train({ model: 'gat', epochs: 1, files: [{ name: 'bad.csv', data: blob(bad) }] }, ctx),
    ).rejects.toThrow(/^bad\.csv/);
    await expect(h.test({ files: file }, ctx)).rejects.toThrow(/no model has been trained/);
  });
});
