import { describe, expect, it } from 'vitest';
import type { ModelIndex, ModelMetadata } from '../../ml/model';
import { indexEntry } from '../../ml/modelKinds';
import type { EvaluateBody, KScore } from '../../worker/modelsProtocol';
import { CancelledError } from '../../worker/rpc';
import { REPORT_KS } from './report';
import { createReportStore, DEFAULT_SETTINGS, settingsProblem, type ReportClient } from './store';

const INDEX: ModelIndex = {
  models: [
    { ...indexEntry('gat', '1', {}, 10), label: 'GAT' },
    { ...indexEntry('gat', '1-supporting', { noise: 'supporting' }, 10), label: 'GAT' },
    { ...indexEntry('lstm', '1', {}, 20), label: 'LSTM' },
  ],
};

/** A fake worker client: every model gets k/20 right of each k; `hold` keeps evaluate pending. */
function fakeClient(options: { index?: () => Promise<ModelIndex>; hold?: boolean; failMeta?: string } = {}) {
  const calls: string[] = [];
  let release: (() => void) | null = null;
  let rejectHeld: ((e: Error) => void) | null = null;
  const client: ReportClient = {
    index: async () => (options.index ? options.index() : INDEX),
    metadata: async (id) => {
      if (id === options.failMeta) throw new Error(`http://x/models/${id}/metadata.json: 404 Not Found`);
      return { id } as unknown as ModelMetadata;
    },
    load: async (id, onProgress) => {
      calls.push(`load ${id}`);
      onProgress?.(5, 10);
      return { id, kind: 'gat', backend: 'wasm', loadMs: 1, warmupMs: 1, weightBytes: 10 };
    },
    evaluate: (body: EvaluateBody, on = {}) => {
      calls.push(`evaluate ${body.id} ${body.rows} ${body.seed} ${body.noise}`);
      const byK: KScore[] = [];
      return new Promise((resolve, reject) => {
        const finish = () => {
          for (const k of body.ks) {
            const score = { k, rows: body.rows, correct: Math.min(body.rows, k) };
            byK.push(score);
            on.onProgress?.(byK.length * body.rows, body.ks.length * body.rows);
            on.onChunk?.(score);
          }
          resolve({ byK, ms: 5 });
        };
        if (options.hold) {
          on.onProgress?.(body.rows, body.ks.length * body.rows);
          on.onChunk?.({ k: 2, rows: body.rows, correct: 1 });
          release = finish;
          rejectHeld = reject;
        } else finish();
      });
    },
    reset: () => {
      calls.push('reset');
      rejectHeld?.(new CancelledError('cancelled'));
    },
  };
  return { client, calls, release: () => release?.() };
}

describe('the model report store', () => {
  it('reads the index and every folder’s metadata; a failing one is named', async () => {
    const { client } = fakeClient({ failMeta: 'gat/1-supporting' });
    const store = createReportStore(
      () => client,
      () => 'http://x/',
    );
    await store.getState().open();
    const s = store.getState();
    expect(s.index.status).toBe('ready');
    expect(Object.keys(s.metadata).sort()).toEqual(['gat/1', 'lstm/1']);
    expect(s.metadataErrors['gat/1-supporting']).toBe(
      'http://x/models/gat/1-supporting/metadata.json could not be read: http://x/models/gat/1-supporting/metadata.json: 404 Not Found',
    );
  });

  it('a missing index says where it was looked for', async () => {
    const { client } = fakeClient({ index: () => Promise.reject(new Error('http://x/models/index.json: 404')) });
    const store = createReportStore(
      () => client,
      () => 'http://x/',
    );
    await store.getState().open();
    const s = store.getState().index;
    expect(s.status).toBe('error');
    if (s.status === 'error')
      expect(s.message).toMatch(/^Could not read the model list http:\/\/x\/models\/index\.json: /);
  });

  it('runs the main models in turn over k = 2..10 with the form’s settings', async () => {
    const { client, calls } = fakeClient();
    const store = createReportStore(
      () => client,
      () => 'http://x/',
    );
    await store.getState().open();
    store.getState().setForm({ rows: 20, seed: 's', noise: 'irrelevant' });
    await store.getState().start();
    const run = store.getState().run;
    expect(calls).toEqual([
      'load gat/1',
      'evaluate gat/1 20 s irrelevant',
      'load lstm/1',
      'evaluate lstm/1 20 s irrelevant',
    ]);
    expect(run.status).toBe('done');
    expect(run.plan).toEqual(['gat/1', 'lstm/1']);
    expect(run.counts['lstm/1']!.map((c) => c.k)).toEqual([...REPORT_KS]);
    expect(run.counts['gat/1']![8]).toEqual({ k: 10, rows: 20, correct: 10 });
    expect(run.rowsDone).toEqual({ 'gat/1': 180, 'lstm/1': 180 });
    expect(run.backend).toBe('wasm');
  });

  it('refuses bad settings without calling the worker', async () => {
    expect(settingsProblem(DEFAULT_SETTINGS)).toBeNull();
    expect(settingsProblem({ ...DEFAULT_SETTINGS, rows: 0 })).toMatch(/whole number from 1/);
    expect(settingsProblem({ ...DEFAULT_SETTINGS, rows: NaN })).toMatch(/whole number/);
    expect(settingsProblem({ ...DEFAULT_SETTINGS, seed: ' ' })).toMatch(/seed/);
    const { client, calls } = fakeClient();
    const store = createReportStore(
      () => client,
      () => 'http://x/',
    );
    await store.getState().open();
    store.getState().setForm({ rows: 5000 });
    await store.getState().start();
    expect(store.getState().run.status).toBe('error');
    expect(calls).toEqual([]);
  });

  it('cancel stops the worker, keeps the counts so far and ignores later answers', async () => {
    const fake = fakeClient({ hold: true });
    const store = createReportStore(
      () => fake.client,
      () => 'http://x/',
    );
    await store.getState().open();
    const running = store.getState().start();
    await new Promise((r) => setTimeout(r, 0));
    expect(store.getState().run.status).toBe('running');
    expect(store.getState().run.counts['gat/1']).toEqual([{ k: 2, rows: 100, correct: 1 }]);
    store.getState().cancel();
    await running;
    const run = store.getState().run;
    expect(run.status).toBe('cancelled');
    expect(fake.calls).toContain('reset');
    expect(fake.calls.filter((c) => c.startsWith('load'))).toEqual(['load gat/1']);
    expect(run.counts['gat/1']).toEqual([{ k: 2, rows: 100, correct: 1 }]);
    expect(run.message).toMatch(/^Cancelled during gat\/1/);
  });

  it('reload reads the model list again (a folder loaded for the session appears)', async () => {
    let models = INDEX.models;
    const fake = fakeClient({ index: async () => ({ models }) });
    const store = createReportStore(
      () => fake.client,
      () => 'http://x/',
    );
    await store.getState().open();
    models = [...INDEX.models, { ...indexEntry('gat', 'loaded1', {}, 10), label: 'GAT (loaded: x)' }];
    await store.getState().open(); // once only
    expect(store.getState().index).toMatchObject({ status: 'ready', models: INDEX.models });
    await store.getState().reload();
    const index = store.getState().index;
    expect(index.status === 'ready' && index.models.map((m) => m.id)).toContain('gat/loaded1');
    expect(store.getState().metadata['gat/loaded1']).toEqual({ id: 'gat/loaded1' });
  });
});
