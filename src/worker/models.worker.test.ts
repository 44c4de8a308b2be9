import * as tf from '@tensorflow/tfjs';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTrainData } from '../../scripts/train/data';
import { generatePuzzle } from '../core/puzzle/puzzle';
import { createRng } from '../core/random/rng';
import { datasetRenderer } from '../core/text/datasetText';
import { NUM_CLASSES, questionFromPuzzle } from '../ml/encoding';
import { GraphNet, type GatConfig, saveGat } from '../ml/graph/graphNet';
import { GAT_PAPER } from '../ml/graph/gatPaper';
import type { ModelIndex } from '../ml/model';
import { indexEntry } from '../ml/modelKinds';
import { ModelsClient, mainModels, median, topAnswers } from './modelsClient';
import { dataOptionsFor, testQuestions } from '../ml/testData';
import { loadModel } from '../ml/load';
import { bestClass } from '../ml/model';
import { modelsHandlers, SOFTWARE_RENDERER, WASM_PATHS } from './models.worker';
import { type RpcRequest, serve, type WorkerLike } from './rpc';
import type { ModelsCommands } from './modelsProtocol';

const PRESET_TRAINING = { noise: 'clean', preset: 'emnlp-systematic', labels: 'clutrr', tasks: [], rows: 10 };

// A tiny untrained GAT (the real code paths, small shapes), served from memory as a build would.
const TINY: GatConfig = { ...GAT_PAPER, dim: 16, edgeDim: 8, decoderHidden: 32, rounds: 2 };
const BASE = 'http://app.test/';
const files = new Map<string, { body: ArrayBuffer | string; length?: boolean }>();

const index: ModelIndex = {
  models: [indexEntry('gat', '1'), indexEntry('gat', '1-supporting', { noise: 'supporting' })],
};

beforeAll(async () => {
  await tf.setBackend('cpu');
  const model = new GraphNet(TINY, 1);
  const { modelJson, weights } = await saveGat(model, 'gat');
  model.dispose();
  const metadata = { model: 'gat', kind: 'gat', label: 'GAT (paper)', version: '1', seed: '1', test: { accuracy: {} } };
  files.set(`${BASE}models/index.json`, { body: JSON.stringify(index) });
  files.set(`${BASE}models/gat/1/model.json`, { body: JSON.stringify(modelJson) });
  files.set(`${BASE}models/gat/1/metadata.json`, { body: JSON.stringify(metadata) });
  files.set(`${BASE}models/gat/1/weights.bin`, { body: weights, length: true });
  // The shipped paper GAT's weights (it answers well enough for counts to differ) as a folder whose
  // metadata says: balanced rows of a preset, CLUTRR's labels.
  const shipped = path.resolve(__dirname, '..', '..', 'public', 'models', 'gat', '1');
  const bin = readFileSync(path.join(shipped, 'weights.bin'));
  files.set(`${BASE}models/gat/3/model.json`, { body: readFileSync(path.join(shipped, 'model.json'), 'utf8') });
  files.set(`${BASE}models/gat/3/weights.bin`, {
    body: bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength),
    length: true,
  });
  files.set(`${BASE}models/gat/3/metadata.json`, { body: JSON.stringify({ ...metadata, training: PRESET_TRAINING }) });
});

const fakeFetch = async (url: string): Promise<Response> => {
  const f = files.get(url);
  if (!f) return new Response('not found', { status: 404, statusText: 'Not Found' });
  const headers: Record<string, string> = {};
  if (f.length) headers['content-length'] = String((f.body as ArrayBuffer).byteLength);
  // Two pieces, so that loading reports progress before the end.
  if (typeof f.body !== 'string') {
    const bytes = new Uint8Array(f.body);
    const half = bytes.length >> 1;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, half));
        c.enqueue(bytes.slice(half));
        c.close();
      },
    });
    return new Response(stream, { headers });
  }
  return new Response(f.body, { headers });
};

/** The worker's handlers behind a fake Worker, so the page's client talks to them as in the app. */
class InProcessWorker implements WorkerLike {
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  private readonly dispatch = serve<ModelsCommands>(
    modelsHandlers({ fetch: fakeFetch, probeWebgl: () => 'no WebGL in Node' }),
    (msg) => queueMicrotask(() => this.onmessage?.({ data: msg } as MessageEvent)),
  );
  postMessage(message: unknown): void {
    void this.dispatch(message as RpcRequest<ModelsCommands>);
  }
  terminate(): void {}
}

const client = new ModelsClient(() => new InProcessWorker());
afterAll(() => client.reset());

const puzzles = [3, 4, 5].map((seed) => generatePuzzle({ seed, k: 2 + (seed % 3), task: 1 }));
const render = datasetRenderer({ synthetic: true, combinationLength: 1, templateSplit: false, storyOrder: 'path' }, 1);
const questions = puzzles.map((p) => questionFromPuzzle(p, render.render(p, 'test', createRng(1)).story));

describe('models worker (Node, cpu)', () => {
  it('starts on the best backend that runs, and says why the others do not', async () => {
    const b = await client.backend();
    expect(b.backend).toBe('cpu');
    expect(b.available).toEqual({ webgl: 'no WebGL in Node', wasm: 'no .wasm files in this build', cpu: true });
    await expect(client.backend('wasm')).rejects.toThrow(/wasm backend is not available: no .wasm files/);
  });

  it('reads the index; the main models are the versions without a suffix', async () => {
    const got = await client.index(BASE);
    expect(got).toEqual(index);
    expect(mainModels(got).map((m) => m.id)).toEqual(['gat/1']);
  });

  it('loads a model with byte progress, and warms it up', async () => {
    const progress: [number, number][] = [];
    const r = await client.load('gat/1', (d, t) => progress.push([d, t]), BASE);
    const size = (files.get(`${BASE}models/gat/1/weights.bin`)!.body as ArrayBuffer).byteLength;
    expect(r).toMatchObject({ id: 'gat/1', kind: 'gat', backend: 'cpu', weightBytes: size });
    expect(r.warmupMs).toBeGreaterThanOrEqual(0);
    expect(progress.at(-1)).toEqual([size, size]);
    expect(progress.every(([d, t]) => d <= t && t === size)).toBe(true);
  });

  it('answers: 18 probabilities, one attention weight per fact, the same every time', async () => {
    const a = await client.answer('gat/1', questions);
    expect(a.backend).toBe('cpu');
    expect(a.answers).toHaveLength(3);
    a.answers.forEach((ans, i) => {
      expect(ans.probs).toHaveLength(NUM_CLASSES);
      expect([...ans.probs].reduce((s, p) => s + p, 0)).toBeCloseTo(1, 4);
      expect(ans.factAttention).toHaveLength(puzzles[i]!.facts.length);
    });
    const again = await client.answer('gat/1', questions);
    expect(again.answers).toEqual(a.answers);
    const top = topAnswers(a.answers[0]!.probs);
    expect(top).toHaveLength(5);
    expect(top[0]!.p).toBeGreaterThanOrEqual(top[4]!.p);
  });

  it('keeps memory flat: as many tensors after 200 answers as after the first', async () => {
    await client.answer('gat/1', [questions[0]!]);
    const first = await client.memory();
    for (let i = 1; i < 200; i++) await client.answer('gat/1', [questions[i % 3]!]);
    const after = await client.memory();
    expect(after.numTensors).toBe(first.numTensors);
    expect(after.numBytes).toBe(first.numBytes);
  });

  it('evaluates on fresh test puzzles: progress, one chunk per k, the same twice', async () => {
    const chunks: unknown[] = [];
    let last: [number, number] = [0, 0];
    const body = { id: 'gat/1', noise: 'clean', ks: [2, 3], rows: 4, seed: '1' } as const;
    const r = await client.evaluate(body, { onChunk: (c) => chunks.push(c), onProgress: (d, t) => (last = [d, t]) });
    expect(r.byK.map((s) => [s.k, s.rows])).toEqual([
      [2, 4],
      [3, 4],
    ]);
    expect(chunks).toEqual(r.byK);
    expect(last).toEqual([8, 8]);
    expect((await client.evaluate(body)).byK).toEqual(r.byK);
  });

  it('evaluates on rows drawn and labelled as the model’s metadata says it was trained', async () => {
    const json = JSON.parse(files.get(`${BASE}models/gat/3/model.json`)!.body as string);
    const direct = loadModel(json, (files.get(`${BASE}models/gat/3/weights.bin`)!.body as ArrayBuffer).slice(0));
    const correct = async (options: Parameters<typeof testQuestions>[5]) => {
      const qs = testQuestions('1', 'clean', 6, 30, '1', options);
      const answers = await direct.answer(qs);
      return answers.filter((a, i) => bestClass(a.probs) === qs[i]!.graph.label).length;
    };
    const balanced = await correct(dataOptionsFor(PRESET_TRAINING));
    const unbalanced = await correct({});
    direct.dispose();
    // The two kinds of rows score differently here, so the counts below tell which the worker used.
    expect(balanced).not.toBe(unbalanced);
    await client.load('gat/3', undefined, BASE);
    const body = { id: 'gat/3', noise: 'clean', ks: [6], rows: 30, seed: '1' } as const;
    expect((await client.evaluate(body)).byK[0]!.correct).toBe(balanced);
    // The same weights under metadata without a preset (trained before presets): the unbalanced rows.
    files.set(`${BASE}models/gat/3/metadata.json`, { body: JSON.stringify({ model: 'gat', kind: 'gat', seed: '1' }) });
    await client.load('gat/3', undefined, BASE);
    expect((await client.evaluate(body)).byK[0]!.correct).toBe(unbalanced);
  });

  it('answers the bench, one time per puzzle', async () => {
    const r = await client.bench({ id: 'gat/1', ks: [2, 3], rows: 2, seed: '1' });
    expect(r.ms).toHaveLength(4);
    expect(r.backend).toBe('cpu');
  });

  it('gives the metadata, loaded or not', async () => {
    expect((await client.metadata('gat/1')).label).toBe('GAT (paper)');
    await expect(client.metadata('gat/2', BASE)).rejects.toThrow(/404/);
  });

  it('refuses unknown or malformed models by name', async () => {
    await expect(client.answer('lstm/1', questions)).rejects.toMatchObject({
      name: 'ModelsError',
      message: 'model lstm/1 is not loaded',
    });
    await expect(client.load('../x', undefined, BASE)).rejects.toThrow(/not a model id/);
    await expect(client.load('gat/9', undefined, BASE)).rejects.toThrow(/gat\/9\/.*404/);
  });
});

describe('ensureLoaded', () => {
  it('loads a model once per worker, and again in a fresh worker', async () => {
    const commands: string[] = [];
    const spy = new ModelsClient(() => {
      const w = new InProcessWorker();
      const post = w.postMessage.bind(w);
      w.postMessage = (m: unknown) => {
        commands.push((m as { command: string }).command);
        post(m);
      };
      return w;
    });
    await spy.ensureLoaded('gat/1', undefined, BASE);
    await spy.ensureLoaded('gat/1', undefined, BASE);
    expect(commands.filter((c) => c === 'load')).toHaveLength(1);
    spy.reset();
    await spy.ensureLoaded('gat/1', undefined, BASE);
    expect(commands.filter((c) => c === 'load')).toHaveLength(2);
    await expect(spy.ensureLoaded('gat/9', undefined, BASE)).rejects.toThrow(/404/);
    await expect(spy.ensureLoaded('gat/9', undefined, BASE)).rejects.toThrow(/404/);
    expect(commands.filter((c) => c === 'load')).toHaveLength(4);
    spy.reset();
  });
});

describe('test puzzles in the worker', () => {
  it('are the training script’s test rows (scripts/train/data.ts) for the same seed', () => {
    const data = makeTrainData({ seed: '1', noise: 'clean', preset: 'none', trainRows: 0, testRows: 3 });
    for (const k of [2, 5]) {
      const ours = testQuestions('1', 'clean', k, 3);
      expect(ours).toEqual(data.tests.get(k)!.map((e) => e.question));
    }
    const supporting = testQuestions('1', 'supporting', 2, 3);
    expect(supporting).toEqual(
      data.robustness
        .get('supporting')!
        .slice(0, 3)
        .map((e) => e.question),
    );
  });

  it('follow a preset’s balanced rows and CLUTRR’s labels as the training script does', () => {
    const trained = { preset: 'emnlp-systematic', labels: 'clutrr' } as const;
    const data = makeTrainData({ seed: '1', noise: 'clean', ...trained, trainRows: 0, testRows: 3 });
    for (const k of [2, 6]) {
      const ours = testQuestions('1', 'clean', k, 3, '1', dataOptionsFor(trained));
      expect(ours).toEqual(data.tests.get(k)!.map((e) => e.question));
      expect(ours).not.toEqual(testQuestions('1', 'clean', k, 3));
    }
    expect(dataOptionsFor({})).toEqual({ equal: false });
    expect(dataOptionsFor({ preset: 'none', labels: 'family' })).toEqual({ equal: false });
  });
});

describe('client helpers', () => {
  it('ranks answers and takes medians', () => {
    const probs = new Float32Array(NUM_CLASSES);
    probs[3] = 0.5;
    probs[0] = 0.2;
    probs[17] = 0.2;
    expect(topAnswers(probs, 3)).toEqual([
      { word: 'mother', p: 0.5 },
      { word: 'son', p: expect.closeTo(0.2) },
      { word: 'aunt', p: expect.closeTo(0.2) },
    ]);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('tells software WebGL renderers from GPUs by name', () => {
    const software = [
      'ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)',
      'Google SwiftShader',
      'llvmpipe (LLVM 15.0.6, 256 bits)',
      'ANGLE (Microsoft, Microsoft Basic Render Driver Direct3D11 vs_5_0 ps_5_0, D3D11)',
    ];
    const gpus = [
      'ANGLE (NVIDIA, NVIDIA GeForce RTX 3080 Direct3D11 vs_5_0 ps_5_0, D3D11)',
      'Mesa Intel(R) UHD Graphics 620 (KBL GT2)',
      'ANGLE (Apple, ANGLE Metal Renderer: Apple M1, Unspecified Version)',
      'AMD Radeon Pro 5500M OpenGL Engine',
    ];
    expect(software.filter((r) => !SOFTWARE_RENDERER.test(r))).toEqual([]);
    expect(gpus.filter((r) => SOFTWARE_RENDERER.test(r))).toEqual([]);
  });

  it('names the three .wasm files of the build', () => {
    expect(Object.keys(WASM_PATHS).sort()).toEqual([
      'tfjs-backend-wasm-simd.wasm',
      'tfjs-backend-wasm-threaded-simd.wasm',
      'tfjs-backend-wasm.wasm',
    ]);
  });
});

describe('models worker: a folder loaded for the session (register)', () => {
  const session = new ModelsClient(() => new InProcessWorker());
  afterAll(() => session.reset());
  const enc = (o: unknown) => new TextEncoder().encode(JSON.stringify(o)).buffer as ArrayBuffer;

  it('lists a registered folder after index.json, loads and answers it, and keeps it across a restart', async () => {
    const model = files.get(`${BASE}models/gat/1/model.json`)!.body as string;
    const weights = files.get(`${BASE}models/gat/1/weights.bin`)!.body as ArrayBuffer;
    const metadata = {
      model: 'gat',
      kind: 'gat',
      label: 'GAT (paper)',
      version: 'browser',
      seed: '1',
      training: { ...PRESET_TRAINING, tasks: [{ task: 1, k: 2 }] },
      test: { rows: 0, accuracy: {} },
      robustness: [],
    };
    const entry = await session.register('my-folder', {
      'model.json': new TextEncoder().encode(model).buffer as ArrayBuffer,
      'weights.bin': weights.slice(0),
      'metadata.json': enc(metadata),
    });
    expect(entry).toMatchObject({ id: 'gat/loaded1', version: 'loaded1', label: 'GAT (paper) (loaded: my-folder)' });
    expect(entry.trainedOn).toMatchObject({ labels: 'clutrr', ks: [2] });
    const listed = await session.index(BASE);
    expect(listed.models.map((m) => m.id)).toEqual(['gat/1', 'gat/1-supporting', 'gat/loaded1']);
    expect(mainModels(listed).map((m) => m.id)).toEqual(['gat/1', 'gat/loaded1']);
    await session.ensureLoaded('gat/loaded1', undefined, BASE);
    const mine = await session.answer('gat/loaded1', questions);
    await session.ensureLoaded('gat/1', undefined, BASE);
    const shipped = await session.answer('gat/1', questions);
    expect(mine.answers.map((a) => Array.from(a.probs))).toEqual(shipped.answers.map((a) => Array.from(a.probs)));
    expect((await session.metadata('gat/loaded1')).version).toBe('browser');
    // A fresh worker (after a cancel) is handed the session's folders again.
    session.reset();
    expect((await session.index(BASE)).models.at(-1)?.id).toBe('gat/loaded1');
  });

  it('refuses a folder that is not a model, naming it', async () => {
    await expect(session.register('notes', { 'notes.txt': enc('x') })).rejects.toThrow(
      /^notes is not a model folder: model\.json, weights\.bin, metadata\.json missing/,
    );
    await expect(
      session.register('odd', {
        'model.json': enc({ format: 'clutrr-lab/gat' }),
        'weights.bin': new ArrayBuffer(4),
        'metadata.json': enc({ model: 'bert', kind: 'gat', version: '1', training: { tasks: [] } }),
      }),
    ).rejects.toThrow(/odd: its model "bert" is not one this app knows/);
  });
});
