import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { AuditedRow } from '../core/formats/audit';
import { parseClutrrCsv, writeClutrrCsv } from '../core/formats/clutrrCsv';
import miniCsv from '../core/formats/fixtures/mini-clutrr.csv?raw';
import { auditFiles } from './audit.worker';
import type { AuditBody, AuditChunk, AuditCommands, AuditResult } from './auditProtocol';
import { type RpcResponse, serve } from './rpc';

// The fixture's four rows: three entailed, the last one unsupported.
const mini = parseClutrrCsv(miniCsv);

/** The fixture's rows `copies` times over, each copy with its own ids. */
const csvOf = (copies: number): string =>
  writeClutrrCsv(
    Array.from({ length: copies }, (_, c) =>
      mini.map((r, i) => ({ ...r, index: String(c * 4 + i), id: `${r.id}-${c}` })),
    ).flat(),
  );

const ALL = { first: 1e9, notEntailed: 1e9 };

/** Runs one audit request through `serve`, as the worker would; returns every message and the outcome. */
async function run(body: AuditBody) {
  const messages: RpcResponse[] = [];
  await serve<AuditCommands>({ audit: auditFiles }, (m) => messages.push(m))({ id: 1, command: 'audit', body });
  const chunks = messages.filter((m) => m.type === 'chunk').map((m) => m.chunk as AuditChunk);
  const end = messages.at(-1)!;
  if (end.type !== 'result') throw new Error(`expected a result, got ${JSON.stringify(end)}`);
  const rows = (file: string): AuditedRow[] =>
    chunks.flatMap((c) => (c.kind === 'rows' && c.file === file ? c.rows : []));
  const progress = messages.filter((m) => m.type === 'progress');
  return { result: end.result as AuditResult, chunks, rows, progress };
}

describe('auditFiles', () => {
  it('counts every row of each file and sends the rows, then the file', async () => {
    const { result, chunks, rows, progress } = await run({
      files: [{ name: 'a.csv', data: new Blob([csvOf(500)]) }],
      keep: ALL,
    });
    expect(result.files).toEqual([
      {
        name: 'a.csv',
        rows: 2000,
        entailed: 1500,
        ambiguous: 0,
        unsupported: 500,
        assumed: 0,
        impossible: 0,
        byK: [
          { k: 2, rows: 1000, entailed: 1000, ambiguous: 0, unsupported: 0, assumed: 0, impossible: 0 },
          { k: 3, rows: 1000, entailed: 500, ambiguous: 0, unsupported: 500, assumed: 0, impossible: 0 },
        ],
        kept: 2000,
      },
    ]);
    expect(rows('a.csv').map((r) => r.n)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    expect(chunks.at(-1)).toEqual({ kind: 'file', file: result.files[0] });
    expect(progress.at(-1)).toMatchObject({ done: progress.at(-1)!.total });
  });

  it('sends the first rows, then only rows that are not entailed, while the budget lasts', async () => {
    const { result, rows } = await run({
      files: [
        { name: 'a.csv', data: new Blob([csvOf(10)]) },
        { name: 'b.csv', data: new Blob([csvOf(10)]) },
      ],
      keep: { first: 6, notEntailed: 7 },
    });
    expect(rows('a.csv').map((r) => r.n)).toEqual([1, 2, 3, 4, 5, 6, 10, 14, 18, 22, 26, 30, 34]);
    expect(rows('b.csv')).toEqual([]);
    expect(result.files.map((f) => [f.name, f.rows, f.kept])).toEqual([
      ['a.csv', 40, 13],
      ['b.csv', 40, 0],
    ]);
  });

  it('after the first rows keeps entailed rows that only an assumption rule decides, too', async () => {
    // The fixture's first row becomes daughter-uncle → brother (my child's uncle is my sibling).
    const assumed = {
      ...mini[0]!,
      edgeTypes: ['daughter', 'uncle'],
      genders: mini[0]!.genders.map((g, i) => ({ ...g, gender: ['male', 'female', 'male'][i]! })),
      target: 'brother',
    };
    const csv = writeClutrrCsv(
      Array.from({ length: 5 }, (_, c) =>
        [assumed, ...mini.slice(1)].map((r, i) => ({ ...r, index: String(c * 4 + i), id: `${r.id}-${c}` })),
      ).flat(),
    );
    const { result, rows } = await run({
      files: [{ name: 'a.csv', data: new Blob([csv]) }],
      keep: { first: 4, notEntailed: 100 },
    });
    expect(rows('a.csv').map((r) => r.n)).toEqual([1, 2, 3, 4, 5, 6, 9, 10, 13, 14, 17, 18]);
    expect(rows('a.csv')[4]!.basis).toEqual({ kind: 'assumed', rules: ['uncle'], together: false, family: 'possible' });
    expect(result.files[0]).toMatchObject({ rows: 20, entailed: 15, assumed: 5, impossible: 0 });
  });

  it('rejects a malformed file whole, naming file, row and column, and gives its budget back', async () => {
    // Row 321 is copy 80 of the fixture's first row.
    const text = csvOf(100);
    const at = text.indexOf(`${mini[0]!.id}-80,`);
    const broken = text.slice(0, at) + text.slice(at).replace(/"\[\((\d), (\d)\),/, '"[($1, $2,');
    const { result, rows } = await run({
      files: [
        { name: 'bad.csv', data: new Blob([broken]) },
        { name: 'good.csv', data: new Blob([csvOf(2)]) },
      ],
      keep: { first: 255, notEntailed: 0 },
    });
    const [bad, good] = result.files;
    expect(bad).toMatchObject({ name: 'bad.csv', rows: 0, kept: 0, byK: [] });
    expect(bad!.error).toMatchObject({ file: 'bad.csv', row: 321, column: 'story_edges' });
    expect(bad!.error!.message).toMatch(/^bad\.csv, row 321, column story_edges: /);
    // A batch of bad.csv went out before its problem was found (the page drops it); its share
    // of the budget came back, so good.csv is kept whole.
    expect(rows('bad.csv')).toHaveLength(250);
    expect(good).toMatchObject({ rows: 8, kept: 8 });
  });

  it('says what is wrong with an empty file', async () => {
    const { result } = await run({ files: [{ name: 'empty.csv', data: new Blob([]) }], keep: ALL });
    expect(result.files[0]!.error).toMatchObject({ message: 'empty.csv: the file is empty (no header row)' });
    expect(result.files[0]!.error!.column).toBeUndefined();
  });

  it('reads every CSV entry of a zip, by name, and names zips it cannot read', async () => {
    const broken = csvOf(1).replace(/"\[\((\d), (\d)\),/, '"[($1, $2,');
    const zip = zipSync({
      'run/z.csv': strToU8(csvOf(300)),
      'run/config.json': strToU8('{}'),
      'run/a.csv': strToU8(csvOf(1)),
      'run/broken.csv': strToU8(broken),
      '__MACOSX/run/._a.csv': strToU8('junk'),
    });
    const empty = zipSync({ 'notes.txt': strToU8('x') });
    const { result, rows } = await run({
      files: [
        { name: 'run.zip', data: new Blob([zip]) },
        { name: 'renamed.bin', data: new Blob([zipSync({ 'x.csv': strToU8(csvOf(1)) })]) },
        { name: 'empty.zip', data: new Blob([empty]) },
        { name: 'nothing.zip', data: new Blob([zipSync({})]) },
        { name: 'junk.zip', data: new Blob(['not a zip']) },
        { name: 'cut.zip', data: new Blob([zip.slice(0, 3000)]) },
      ],
      keep: ALL,
    });
    expect(result.files.map((f) => [f.name, f.rows, f.error?.message ?? ''])).toEqual([
      ['run.zip/run/a.csv', 4, ''],
      ['run.zip/run/broken.csv', 0, expect.stringMatching(/^run\.zip\/run\/broken\.csv, row 1, column story_edges: /)],
      ['run.zip/run/z.csv', 1200, ''],
      ['renamed.bin/x.csv', 4, ''],
      ['empty.zip', 0, 'empty.zip: the zip holds no .csv file'],
      ['nothing.zip', 0, 'nothing.zip: the zip holds no .csv file'],
      ['junk.zip', 0, 'junk.zip: not a readable zip: it does not start as a zip file does'],
      ['cut.zip', 0, expect.stringMatching(/^cut\.zip: not a readable zip/)],
    ]);
    expect(rows('run.zip/run/z.csv')).toHaveLength(1200);
  });
});
