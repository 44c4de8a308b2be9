import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { parseClutrrCsv, writeClutrrCsv } from '../core/formats/clutrrCsv';
import { datasetConfig, datasetFileNames, datasetStem, planDataset } from '../core/formats/datasetFolder';
import { rowsToClutrr } from '../core/formats/fromPuzzle';
import { DEFAULT_FAMILY } from '../core/family/family';
import { type DatasetSpec, generateDataset } from '../core/puzzle/dataset';
import { datasetRenderer, factsToldConfig, type TextSettings } from '../core/text/datasetText';
import { datasetHandlers } from './dataset.worker';
import { DatasetPool, poolSize } from './datasetClient';
import type { DatasetCommands, PreviewRow } from './datasetProtocol';
import { CancelledError, RpcClient, type RpcResponse, serve, type WorkerLike } from './rpc';

/** The real handlers behind a Worker-shaped object; answers are cloned (and moved) as postMessage does. */
class FakeWorker implements WorkerLike {
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  terminated = false;
  private readonly dispatch = serve<DatasetCommands>(datasetHandlers, (msg: RpcResponse, transfer) => {
    if (this.terminated) return;
    const copy = structuredClone(msg, { transfer: transfer as Transferable[] | undefined });
    queueMicrotask(() => {
      if (!this.terminated) this.onmessage?.({ data: copy } as MessageEvent);
    });
  });
  postMessage(message: unknown): void {
    setTimeout(() => void this.dispatch(message as Parameters<typeof this.dispatch>[0]), 0);
  }
  terminate(): void {
    this.terminated = true;
  }
}

const spawned: FakeWorker[] = [];
const spawn = () => {
  const w = new FakeWorker();
  spawned.push(w);
  return w;
};

const SPEC: DatasetSpec = {
  seed: 'pool',
  trainTasks: [
    { task: 1, k: 2 },
    { task: 2, k: 3 },
    { task: 1, k: 3 },
  ],
  testTasks: [
    { task: 1, k: 4 },
    { task: 3, k: 3 },
  ],
  trainRows: 40,
  testRows: 15,
  holdout: 0.1,
  equal: true,
  family: DEFAULT_FAMILY,
};

const SYNTHETIC: TextSettings = { synthetic: true, combinationLength: 3, templateSplit: false, storyOrder: 'shuffled' };
const PARAPHRASE: TextSettings = {
  synthetic: false,
  combinationLength: 2,
  templateSplit: true,
  storyOrder: 'shuffled',
};

/**
 * The files for a spec made the plain way, all rows in memory: generateDataset on one thread,
 * then rowsToClutrr + writeClutrrCsv per file.
 */
function referenceFiles(spec: DatasetSpec, t: TextSettings = SYNTHETIC): Map<string, string> {
  const { render } = datasetRenderer(t, spec.seed);
  const data = generateDataset(spec);
  const names = datasetFileNames(spec);
  const files = new Map<string, string>();
  files.set(names.train, writeClutrrCsv(rowsToClutrr(data.train, render)));
  data.test.forEach((rows, i) => files.set(names.test[i]!, writeClutrrCsv(rowsToClutrr(rows, render))));
  return files;
}

const text = (blob: Blob) => blob.text();

describe('planDataset', () => {
  it('lays jobs out in file order with the offsets of the CLI files', () => {
    const plan = planDataset(SPEC);
    expect(plan.jobs.map((j) => [j.key, j.file, j.fileOffset, j.allOffset])).toEqual([
      ['train:1.2', '1.2,2.3,1.3_train.csv', 0, 0],
      ['train:2.3', '1.2,2.3,1.3_train.csv', 40, 40],
      ['train:1.3', '1.2,2.3,1.3_train.csv', 80, 80],
      ['test:1.4', '1.4_test.csv', 0, 120],
      ['test:3.3', '3.3_test.csv', 0, 135],
    ]);
    expect(plan.files.map((f) => f.name)).toEqual(['1.2,2.3,1.3_train.csv', '1.4_test.csv', '3.3_test.csv']);
    expect(plan.totalRows).toBe(150);
  });

  it('sizes the pool by jobs and cores (one core left to the page), at most 4', () => {
    expect(poolSize(5, 8)).toBe(4);
    expect(poolSize(5, 3)).toBe(2);
    expect(poolSize(5, 2)).toBe(1);
    expect(poolSize(1, 8)).toBe(1);
    expect(poolSize(3, undefined)).toBe(1);
    expect(poolSize(0, 0)).toBe(1);
    expect(datasetStem({ ...SPEC, seed: 'a b/c' })).toBe('clutrr-lab_seed-a_b_c');
  });
});

describe('DatasetPool', () => {
  it.each([
    ['plain', SYNTHETIC],
    ['paraphrased, template split', PARAPHRASE],
  ] as const)('splitting tasks over 2 workers gives the CLI files (and 1 worker does): %s text', async (_, style) => {
    const expected = referenceFiles(SPEC, style);
    for (const size of [2, 1]) {
      const pool = new DatasetPool(spawn, size);
      const previews = new Map<string, PreviewRow[]>();
      const run = await pool.generate(SPEC, style, {
        onRows: (job, rows) => previews.set(job.key, [...(previews.get(job.key) ?? []), ...rows]),
      }).promise;
      expect(run.workers).toBe(size);
      for (const [name, csv] of expected) expect(await text(pool.folderFile(run, name))).toBe(csv);
      // The preview rows are the file rows, in file order.
      const fileRows = [...expected.values()].flatMap((csv) => parseClutrrCsv(csv));
      const previewRows = run.plan.jobs.flatMap((j) => previews.get(j.key) ?? []);
      expect(previewRows.map((r) => [r.id, r.pattern, r.target, r.story])).toEqual(
        fileRows.map((r) => [r.id, r.fComb, r.target, r.story]),
      );
      // The single CSV: every row once, indexed 0..n-1.
      const all = parseClutrrCsv(await text(await pool.allRowsCsv(run)));
      expect(all.map((r) => r.id)).toEqual(fileRows.map((r) => r.id));
      expect(all.map((r) => r.index)).toEqual(all.map((_, i) => String(i)));
      pool.terminate();
    }
  });

  it('zips the dataset folder with config.json', async () => {
    const spec: DatasetSpec = { ...SPEC, trainRows: 5, testRows: 3, equal: false };
    const pool = new DatasetPool(spawn, 2);
    const run = await pool.generate(spec, PARAPHRASE).promise;
    const zip = unzipSync(new Uint8Array(await (await pool.folderZip(run)).arrayBuffer()));
    const stem = datasetStem(spec);
    expect(Object.keys(zip).sort()).toEqual(
      [`${stem}/1.2,2.3,1.3_train.csv`, `${stem}/1.4_test.csv`, `${stem}/3.3_test.csv`, `${stem}/config.json`].sort(),
    );
    const expected = referenceFiles(spec, PARAPHRASE);
    for (const [name, csv] of expected) expect(strFromU8(zip[`${stem}/${name}`]!)).toBe(csv);
    // config.json records the text settings as the CLI's does.
    const { describe } = datasetRenderer(PARAPHRASE, spec.seed);
    // It also counts the facts told: every fact of every row, all by our bank here.
    const facts = generateDataset(spec);
    const all = [...facts.train, ...facts.test.flat()].reduce((n, r) => n + r.puzzle.facts.length, 0);
    expect(run.told).toEqual({ file: 0, bank: all, plain: 0 });
    expect(strFromU8(zip[`${stem}/config.json`]!)).toBe(
      datasetConfig(spec, { ...describe, facts_told: factsToldConfig(run.told) }),
    );
    pool.terminate();
  });

  it('reports progress per job, at most every 50 ms plus the final count', async () => {
    const pool = new DatasetPool(spawn, 2);
    const seen = new Map<string, number[]>();
    await pool.generate({ ...SPEC, trainRows: 60, equal: false }, SYNTHETIC, {
      onProgress: (job, done) => seen.set(job.key, [...(seen.get(job.key) ?? []), done]),
    }).promise;
    expect(seen.get('train:1.2')!.at(-1)).toBe(60);
    expect(seen.get('test:1.4')!.at(-1)).toBe(15);
    pool.terminate();
  });

  it('surfaces the engine message of an impossible task and stops the other workers', async () => {
    const pool = new DatasetPool(spawn, 2);
    const bad: DatasetSpec = { ...SPEC, patterns: ['nobody-like-this'], equal: false, trainRows: 2, testRows: 1 };
    await expect(pool.generate(bad, SYNTHETIC).promise).rejects.toMatchObject({
      name: 'GenerationError',
      message: expect.stringMatching(/^task 1\.2 \(train\): .*pattern filter/),
    });
    pool.terminate();
  });

  it('cancel rejects with CancelledError and a new run works after it', async () => {
    const pool = new DatasetPool(spawn, 2);
    const { promise, cancel } = pool.generate({ ...SPEC, trainRows: 500 }, SYNTHETIC);
    cancel();
    await expect(promise).rejects.toBeInstanceOf(CancelledError);
    const run = await pool.generate({ ...SPEC, trainRows: 3, testRows: 2 }, SYNTHETIC).promise;
    expect(run.plan.totalRows).toBe(13);
    // Rows of a finished run serialise; the cancelled run left nothing behind.
    expect(parseClutrrCsv(await text(await pool.allRowsCsv(run)))).toHaveLength(13);
    pool.terminate();
  });
});

describe('RpcClient with the dataset worker', () => {
  it('drops the answer to a cancelled request; reset respawns the worker', async () => {
    const before = spawned.length;
    const client = new RpcClient<DatasetCommands>(spawn);
    const file = (path: string) => ({ files: [{ path, parts: [new Blob(['x'])] }] });
    const first = client.request('zip', file('a.txt'));
    client.cancel(first.id);
    await expect(first.promise).rejects.toBeInstanceOf(CancelledError);
    client.reset();
    expect(spawned.at(-1)!.terminated).toBe(true);
    const chunks: Uint8Array[] = [];
    await client.request('zip', file('b.txt'), { onChunk: (c) => chunks.push(c) }).promise;
    expect(
      Object.keys(unzipSync(new Uint8Array(await new Blob(chunks as Uint8Array<ArrayBuffer>[]).arrayBuffer()))),
    ).toEqual(['b.txt']);
    expect(spawned.length).toBe(before + 2);
    client.reset();
  });

  it('rejects with the worker error, keeping its name', async () => {
    const client = new RpcClient<DatasetCommands>(spawn);
    const bad: DatasetSpec = { ...SPEC, patterns: ['nobody-like-this'], equal: false };
    const r = client.request('generate', {
      spec: bad,
      job: { task: { task: 1, k: 2 }, split: 'train' },
      text: SYNTHETIC,
      indexStart: 0,
      previewRows: 0,
    });
    await expect(r.promise).rejects.toMatchObject({ name: 'GenerationError' });
    client.reset();
  });
});

describe('template files', () => {
  it('writes the stories with a template file when one is given, and records its name', async () => {
    const spec: DatasetSpec = { ...SPEC, trainTasks: [{ task: 1, k: 1 }], testTasks: [], trainRows: 12, equal: false };
    const text: TextSettings = { synthetic: false, combinationLength: 1, templateSplit: false, storyOrder: 'shuffled' };
    const templates = {
      name: 'mini.json',
      bank: {
        son: {
          'female-male': ['ENT_0_female waved at her son ENT_1_male on the pier.'],
          'male-male': ['ENT_0_male waved at his son ENT_1_male on the pier.'],
        },
      },
    };
    const rows: PreviewRow[] = [];
    const pool = new DatasetPool(spawn, 1);
    const run = await pool.generate(spec, text, { onRows: (_, r) => rows.push(...r) }, templates).promise;
    expect(run.describe).toMatchObject({ text: 'paraphrase', templates: 'mini.json' });
    const sons = rows.filter((r) => r.pattern === 'son');
    expect(sons.length).toBeGreaterThan(0);
    for (const r of sons) expect(r.story).toMatch(/waved at (her|his) son .* on the pier\.$/);
    pool.terminate();
  });

  it('with templates only, a fact the file does not tell fails the run naming it; without, it is told plainly', async () => {
    // Rows of every one-fact pattern, and a file that tells "son" only.
    const spec: DatasetSpec = { ...SPEC, trainTasks: [{ task: 1, k: 1 }], testTasks: [], trainRows: 30, equal: false };
    const text: TextSettings = { synthetic: false, combinationLength: 1, templateSplit: false, storyOrder: 'shuffled' };
    const templates = {
      name: 'sons.json',
      bank: {
        son: {
          'female-male': ['ENT_0_female met her son ENT_1_male.'],
          'male-male': ['ENT_0_male met his son ENT_1_male.'],
        },
      },
    };
    const pool = new DatasetPool(spawn, 1);
    const refused = pool.generate(spec, text, {}, templates, { templatesOnly: true }).promise;
    await expect(refused).rejects.toMatchObject({ name: 'GenerationError' });
    await expect(refused).rejects.toThrow(/sons\.json has no template for the fact ".+" \(relation (?!son\b)/);
    const run = await pool.generate(spec, text, {}, templates).promise;
    expect(run.told.plain).toBeGreaterThan(0);
    expect(run.describe).not.toHaveProperty('templates_only');
    pool.terminate();
  });
});
