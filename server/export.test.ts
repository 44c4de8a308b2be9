import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { describe, expect, it } from 'vitest';
import { withDefaults } from '../src/study/definition/definition';
import { encodeStudyLink } from '../src/study/definition/link';
import { rowsToCsv, rowsToJson } from '../src/study/results/results';
import { createApp, DEFAULT_MAX_BODY_BYTES } from './app';
import { ExportReader, exportStream, type ExportFormat } from './export';
import { OutputExistsError, writeFileAtomically } from './files';
import { ResultStore } from './store';
import { makeRow, makeSession, runCli, tempDirs } from './testServer';

const tempDir = tempDirs('clutrr-export-');

/** Two studies, sessions with and without their facts, and cells that test the escaping and quoting. */
function sampleStore(dir: string): ResultStore {
  const store = ResultStore.open(path.join(dir, 'results.sqlite'));
  for (const studyId of ['lab', 'other']) store.registerStudy({ token: encodeStudyLink(withDefaults({ studyId })) });
  const odd = [
    '=1+1',
    "'=already quoted",
    'comma, "quote"\r\nline',
    '-minus',
    '@at',
    '\ttab',
    '',
    'plain',
    'café ☕ 😀',
    '\ud800 lone',
  ];
  const bodies = [
    { sessions: [makeSession('lab', 's-b')], rows: [0, 1, 2].map((t) => makeRow('lab', 's-b', t)) },
    {
      sessions: [makeSession('lab', 's-a')],
      rows: odd.map((story, t) => makeRow('lab', 's-a', t, { story, response: story.slice(0, 50) })),
    },
    // Rows whose session facts never arrived (empty user agent and screen in the CSV).
    { sessions: [], rows: [3, 1].map((t) => makeRow('lab', 's-c', t, { difficulty: null })) },
    { sessions: [makeSession('other', 's-o')], rows: [makeRow('other', 's-o', 0)] },
  ];
  for (const body of bodies) expect(store.ingest(body).status).toBe('stored');
  return store;
}

const collect = (reader: ExportReader, format: ExportFormat, study?: string) =>
  [...reader.chunks(format, study)].join('');

describe('streamed exports', () => {
  it('give the same text as rowsToCsv / rowsToJson, for every study and for one', () => {
    const store = sampleStore(tempDir());
    for (const study of [undefined, 'lab', 'other']) {
      const reader = ExportReader.open(store);
      const rows = store.rows(study);
      const sessions = store.sessionInfos(study);
      expect(rows.length).toBeGreaterThan(0);
      expect(collect(reader, 'csv', study)).toBe(rowsToCsv(rows, sessions));
      expect(collect(reader, 'json', study)).toBe(rowsToJson(rows, sessions));
      expect(reader.sessionCount(study)).toBe(store.sessions(study).length);
      reader.close();
    }
    store.close();
  });

  it('give the same text for an empty database', () => {
    const store = ResultStore.open(path.join(tempDir(), 'results.sqlite'));
    const reader = ExportReader.open(store);
    expect(collect(reader, 'csv')).toBe(rowsToCsv([], []));
    expect(collect(reader, 'json')).toBe(rowsToJson([], []));
    reader.close();
    store.close();
  });

  it('read one snapshot while the store keeps storing', () => {
    const store = sampleStore(tempDir());
    const before = rowsToCsv(store.rows(), store.sessionInfos());
    const reader = ExportReader.open(store);
    const chunks = reader.chunks('csv', undefined);
    const first = chunks.next();
    // The store's own connection is free while the export's cursor is open.
    expect(store.ingest({ sessions: [], rows: [makeRow('lab', 's-z', 0)] }).status).toBe('stored');
    const text = (first.done ? '' : first.value) + [...chunks].join('');
    expect(text).toBe(before);
    reader.close();
    store.close();
  });

  it('stream to a web response in chunks and count the rows it wrote', async () => {
    const store = sampleStore(tempDir());
    const text = await new Response(exportStream(store, 'json', 'lab')).text();
    expect(text).toBe(rowsToJson(store.rows('lab'), store.sessionInfos('lab')));
    const reader = ExportReader.open(store);
    const counted = { rows: 0 };
    for (const chunk of reader.chunks('csv', undefined, counted)) expect(chunk.length).toBeGreaterThan(0);
    expect(counted.rows).toBe(store.rows().length);
    reader.close();
    store.close();
  });
});

describe('an export over HTTP', () => {
  it('holds its snapshot while it streams and lets go of it when the client goes away', async () => {
    const store = sampleStore(tempDir());
    // Enough rows that the response is still streaming when the client aborts.
    for (let s = 0; s < 20; s++) {
      const rows = Array.from({ length: 50 }, (_, t) => makeRow('lab', `big-${s}`, t, { story: 'x'.repeat(19_000) }));
      expect(store.ingest({ sessions: [], rows }).status).toBe('stored');
    }
    const token = 'researcher-token-0123456789abcdef';
    const app = createApp({
      store,
      token,
      distDir: null,
      allowedOrigins: [],
      maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
      rate: { perSecond: 1000, burst: 1000 },
      log: () => {},
    });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const { port } = server.address() as AddressInfo;
      // A checkpoint that must wait for a reader says whether an export's snapshot is still open
      // (without waiting: no busy timeout on the store's connection here).
      store.handleForTests().pragma('busy_timeout = 0');
      const checkpointBusy = () =>
        (store.handleForTests().pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[])[0]!.busy;
      for (let i = 0; i < 3; i++) {
        const abort = new AbortController();
        const res = await fetch(`http://127.0.0.1:${port}/api/results.csv`, {
          headers: { authorization: `Bearer ${token}` },
          signal: abort.signal,
        });
        const body = res.body!.getReader();
        expect((await body.read()).done).toBe(false);
        expect(store.ingest({ sessions: [], rows: [makeRow('lab', `late-${i}`, 0)] }).status).toBe('stored');
        expect(checkpointBusy()).toBe(1);
        abort.abort();
        await expect.poll(checkpointBusy, { timeout: 10_000 }).toBe(0);
      }
    } finally {
      const closed = new Promise((resolve) => server.close(resolve));
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await closed;
      store.close();
    }
  }, 60_000);
});

describe('writeFileAtomically', () => {
  it('writes mode 600, refuses an existing file without force, replaces it with force, leaves no temporary file', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'r.csv');
    expect(await writeFileAtomically(out, ['a', 'b'], { force: false })).toBe(2);
    expect(readFileSync(out, 'utf8')).toBe('ab');
    expect(statSync(out).mode & 0o777).toBe(0o600);
    await expect(writeFileAtomically(out, ['c'], { force: false })).rejects.toThrow(OutputExistsError);
    expect(readFileSync(out, 'utf8')).toBe('ab');
    await writeFileAtomically(out, ['c'], { force: true });
    expect(readFileSync(out, 'utf8')).toBe('c');
    expect(readdirSync(dir)).toEqual(['r.csv']);
  });

  it('leaves the old file and no temporary file when the text fails half way', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'r.csv');
    writeFileSync(out, 'old');
    function* failing() {
      yield 'new';
      throw new Error('the cursor broke');
    }
    await expect(writeFileAtomically(out, failing(), { force: true })).rejects.toThrow('the cursor broke');
    expect(readFileSync(out, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['r.csv']);
  });
});

describe('results export (the CLI)', () => {
  it('writes the export (600), refuses an existing --out unless --force, and ends with sessions= rows=', () => {
    const dir = tempDir();
    const data = path.join(dir, 'data');
    const store = sampleStore(data);
    const csv = rowsToCsv(store.rows(), store.sessionInfos());
    const json = rowsToJson(store.rows('lab'), store.sessionInfos('lab'));
    const sessions = store.sessions().length;
    const rows = store.rows().length;
    store.close();
    const out = path.join(dir, 'r.csv');
    const first = runCli(['results', 'export', '--data', data, '--out', out]);
    expect(first.status).toBe(0);
    expect(first.out.trimEnd().split('\n').at(-1)).toBe(`sessions=${sessions} rows=${rows}`);
    expect(readFileSync(out, 'utf8')).toBe(csv);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const again = runCli(['results', 'export', '--data', data, '--out', out]);
    expect(again.status).not.toBe(0);
    expect(again.out).toMatch(/exists; give --force/);
    expect(runCli(['results', 'export', '--data', data, '--out', out, '--force']).status).toBe(0);
    const jsonOut = path.join(dir, 'lab.json');
    expect(runCli(['results', 'export', '--data', data, '--out', jsonOut, '--study', 'lab']).status).toBe(0);
    expect(readFileSync(jsonOut, 'utf8')).toBe(json);
    expect(existsSync(path.join(dir, 'lab.json'))).toBe(true);
    // A folder that does not exist is made, and said (issue 33).
    const nowhere = runCli(['results', 'export', '--data', data, '--out', path.join(dir, 'missing', 'r.csv')]);
    expect(nowhere.status).toBe(0);
    expect(nowhere.out).toContain(`created the folder ${path.join(dir, 'missing')}`);
    expect(readFileSync(path.join(dir, 'missing', 'r.csv'), 'utf8')).toBe(csv);
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);
  }, 180_000);
});
