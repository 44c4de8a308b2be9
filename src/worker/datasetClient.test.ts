import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { parseClutrrCsv, writeClutrrCsv } from '../core/formats/clutrrCsv';
import { datasetConfig, datasetFileNames, rowsToClutrr } from '../core/formats/fromPuzzle';
import { DEFAULT_FAMILY } from '../core/family/family';
import { type DatasetSpec, generateDataset } from '../core/puzzle/dataset';
import { rendererFromFlags } from '../../cli/renderer';
import { createDatasetDispatcher } from './dataset.worker';
import {
  CancelledError,
  DatasetPool,
  DatasetWorkerClient,
  datasetStem,
  planDataset,
  poolSize,
  type WorkerLike,
} from './datasetClient';
import type { AuditedRow, DatasetRequest, DatasetResponse, DatasetText, PreviewRow } from './datasetProtocol';

/** The real dispatcher behind a Worker-shaped object; answers are cloned as postMessage would. */
class FakeWorker implements WorkerLike {
  onmessage: ((event: MessageEvent<DatasetResponse>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  terminated = false;
  readonly seen: DatasetRequest[] = [];
  private readonly dispatch = createDatasetDispatcher((msg, transfer) => {
    if (this.terminated) return;
    const copy = structuredClone(msg, { transfer: transfer as Transferable[] | undefined });
    queueMicrotask(() => {
      if (!this.terminated) this.onmessage?.({ data: copy } as MessageEvent<DatasetResponse>);
    });
  });
  postMessage(message: DatasetRequest): void {
    this.seen.push(message);
    setTimeout(() => void this.dispatch(message), 0);
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

const SYNTHETIC: DatasetText = { synthetic: true, combinationLength: 3, templateSplit: false };
const PARAPHRASE: DatasetText = { synthetic: false, combinationLength: 2, templateSplit: true };

/** The CLI's flags for a text setting. */
const cliFlags = (t: DatasetText, spec: DatasetSpec) =>
  t.synthetic
    ? { synthetic: true, 'combination-length': 3 }
    : { 'combination-length': t.combinationLength, 'template-split': t.templateSplit, seed: spec.seed };

/** The CLI's files for a spec: generateDataset on one thread, then rowsToClutrr + writeClutrrCsv. */
function cliFiles(spec: DatasetSpec, t: DatasetText = SYNTHETIC): Map<string, string> {
  const { render } = rendererFromFlags(cliFlags(t, spec));
  const data = generateDataset(spec);
  const names = datasetFileNames(spec);
  const files = new Map<string, string>();
  files.set(names.train, writeClutrrCsv(rowsToClutrr(data.train, render)));
  data.test.forEach((rows, i) => files.set(names.test[i]!, writeClutrrCsv(rowsToClutrr(rows, render))));
  return files;
}

const text = (parts: Uint8Array[]) => parts.map((p) => new TextDecoder().decode(p)).join('');

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
    const expected = cliFiles(SPEC, style);
    for (const size of [2, 1]) {
      const pool = new DatasetPool(spawn, size);
      const previews = new Map<string, PreviewRow[]>();
      const run = await pool.generate(SPEC, style, {
        onRows: (job, rows) => previews.set(job.key, [...(previews.get(job.key) ?? []), ...rows]),
      }).promise;
      expect(run.workers).toBe(size);
      expect(new Set(run.owner.values()).size).toBe(size);
      for (const [name, csv] of expected) expect(text(await pool.folderFile(run, name))).toBe(csv);
      // The preview rows are the file rows, in file order.
      const fileRows = [...expected.values()].flatMap((csv) => parseClutrrCsv(csv));
      const previewRows = run.plan.jobs.flatMap((j) => previews.get(j.key) ?? []);
      expect(previewRows.map((r) => [r.id, r.pattern, r.target, r.story])).toEqual(
        fileRows.map((r) => [r.id, r.fComb, r.target, r.story]),
      );
      // The single CSV: every row once, indexed 0..n-1.
      const all = parseClutrrCsv(text(await pool.allRowsCsv(run)));
      expect(all.map((r) => r.id)).toEqual(fileRows.map((r) => r.id));
      expect(all.map((r) => r.index)).toEqual(all.map((_, i) => String(i)));
      pool.terminate();
    }
  });

  it('zips the dataset folder with config.json', async () => {
    const spec: DatasetSpec = { ...SPEC, trainRows: 5, testRows: 3, equal: false };
    const pool = new DatasetPool(spawn, 2);
    const run = await pool.generate(spec, PARAPHRASE).promise;
    const zip = unzipSync(await pool.folderZip(run));
    const stem = datasetStem(spec);
    expect(Object.keys(zip).sort()).toEqual(
      [`${stem}/1.2,2.3,1.3_train.csv`, `${stem}/1.4_test.csv`, `${stem}/3.3_test.csv`, `${stem}/config.json`].sort(),
    );
    const expected = cliFiles(spec, PARAPHRASE);
    for (const [name, csv] of expected) expect(strFromU8(zip[`${stem}/${name}`]!)).toBe(csv);
    // config.json records the text settings as the CLI's does.
    const { describe } = rendererFromFlags(cliFlags(PARAPHRASE, spec));
    expect(strFromU8(zip[`${stem}/config.json`]!)).toBe(datasetConfig(spec, describe));
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
    expect(parseClutrrCsv(text(await pool.allRowsCsv(run)))).toHaveLength(13);
    pool.terminate();
  });
});

describe('DatasetWorkerClient', () => {
  it('drops answers to cancelled requests and respawns the worker', async () => {
    const before = spawned.length;
    const client = new DatasetWorkerClient(spawn);
    const first = client.request('zip', { files: [{ path: 'a.txt', parts: [new Uint8Array([1])] }] });
    client.cancel(first.id);
    await expect(first.promise).rejects.toBeInstanceOf(CancelledError);
    expect(spawned.length).toBe(before + 1);
    expect(spawned.at(-1)!.terminated).toBe(true);
    const second = client.request('zip', { files: [{ path: 'b.txt', parts: [new Uint8Array([2])] }] });
    expect(Object.keys(unzipSync(await second.promise))).toEqual(['b.txt']);
    expect(spawned.length).toBe(before + 2);
    client.reset();
  });

  it('rejects with the worker error, keeping its name', async () => {
    const client = new DatasetWorkerClient(spawn);
    const r = client.request('serialise', { runId: 99, jobKey: 'train:1.2', offset: 0 });
    await expect(r.promise).rejects.toMatchObject({ message: expect.stringMatching(/no longer in memory/) });
    client.reset();
  });
});

describe('audit through the worker', () => {
  const spec: DatasetSpec = { ...SPEC, trainRows: 6, testRows: 4, equal: false, holdout: 0 };

  it('checks CSV files and zip entries, streaming rows with verdicts', async () => {
    const files = cliFiles(spec);
    const pool = new DatasetPool(spawn, 1);
    const run = await pool.generate(spec, SYNTHETIC).promise;
    const zip = await pool.folderZip(run);
    const rows: AuditedRow[] = [];
    const [trainName, trainCsv] = [...files][0]!;
    const result = await pool.audit(
      [
        { name: trainName, data: new Blob([trainCsv]) },
        { name: 'folder.zip', data: new Blob([zip as Uint8Array<ArrayBuffer>]) },
      ],
      (c) => rows.push(...c.rows),
    ).promise;
    const stem = datasetStem(spec);
    expect(result.files).toEqual([
      { name: trainName, rows: 18 },
      { name: `folder.zip/${stem}/1.2,2.3,1.3_train.csv`, rows: 18 },
      { name: `folder.zip/${stem}/1.4_test.csv`, rows: 4 },
      { name: `folder.zip/${stem}/3.3_test.csv`, rows: 4 },
    ]);
    expect(rows).toHaveLength(44);
    expect(rows.every((r) => r.verdict === 'entailed')).toBe(true);
    expect(rows[0]).toMatchObject({ file: trainName, n: 1 });
    pool.terminate();
  });

  it('names file, row and column of a malformed file and streams none of its rows', async () => {
    const csv = [...cliFiles(spec).values()][0]!;
    const lines = csv.split('\n');
    lines[2] = lines[2]!.replace(/"\[\(0, 1\),/, '"[(0, 1,');
    const pool = new DatasetPool(spawn, 1);
    const rows: AuditedRow[] = [];
    const result = await pool.audit([{ name: 'broken.csv', data: new Blob([lines.join('\n')]) }], (c) =>
      rows.push(...c.rows),
    ).promise;
    expect(rows).toEqual([]);
    expect(result.files[0]).toMatchObject({
      name: 'broken.csv',
      rows: 0,
      error: { file: 'broken.csv', row: 2, column: 'story_edges' },
    });
    expect(result.files[0]!.error!.message).toMatch(/^broken\.csv, row 2, column story_edges: /);
    pool.terminate();
  });

  it('reports a zip without CSV files and an unreadable zip as file problems, in input order', async () => {
    const pool = new DatasetPool(spawn, 1);
    const client = new DatasetWorkerClient(spawn);
    const empty = await client.request('zip', { files: [{ path: 'notes.txt', parts: [new Uint8Array([65])] }] })
      .promise;
    client.reset();
    const result = await pool.audit(
      [
        { name: 'empty.zip', data: new Blob([empty as Uint8Array<ArrayBuffer>]) },
        { name: 'junk.zip', data: new Blob(['not a zip']) },
      ],
      () => {},
    ).promise;
    expect(result.files.map((f) => [f.name, f.error?.message])).toEqual([
      ['empty.zip', 'empty.zip: the zip holds no .csv file'],
      ['junk.zip', expect.stringMatching(/^junk\.zip: not a readable zip/)],
    ]);
    pool.terminate();
  });

  it('names the row of an unknown relation word (a checkRow error)', async () => {
    const csv = [...cliFiles(spec).values()][0]!;
    const rows = parseClutrrCsv(csv);
    const bad = writeClutrrCsv(
      rows.map((r, i) => (i === 2 ? { ...r, edgeTypes: ['cousin', ...r.edgeTypes.slice(1)] } : r)),
    );
    const pool = new DatasetPool(spawn, 1);
    const result = await pool.audit([{ name: 'words.csv', data: new Blob([bad]) }], () => {}).promise;
    expect(result.files[0]!.error).toMatchObject({ file: 'words.csv', row: 3, column: 'edge_types' });
    pool.terminate();
  });
  it('writes the stories with a template file when one is given, and records its name', async () => {
    const spec: DatasetSpec = { ...SPEC, trainTasks: [{ task: 1, k: 1 }], testTasks: [], trainRows: 12, equal: false };
    const text: DatasetText = { synthetic: false, combinationLength: 1, templateSplit: false };
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
});
