import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withDefaults } from '../../src/study/definition/definition';
import { encodeStudyLink } from '../../src/study/definition/link';
import { ResultStore } from '../../server/store';
import { makeRow, makeSession } from '../../server/testServer';
import { CliError, UsageError } from '../errors';
import { resultsCommand } from './results';
import { studyRegister } from './studyRegister';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'clutrr-register-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Runs a command and returns what it printed. */
async function printed(run: () => Promise<number>): Promise<string> {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  expect(await run()).toBe(0);
  vi.restoreAllMocks();
  return out;
}

const def = withDefaults({ studyId: 'reg', seed: 3 });
const token = encodeStudyLink(def);

describe('study register', () => {
  it('registers a study in the data folder (made if need be) and ends with the participant URL path', async () => {
    const data = path.join(tempDir(), 'data');
    const out = await printed(() => studyRegister(['--data', data, '--link', `?study=${token}`]));
    expect(out).toMatch(/^study reg: registered in .*results\.sqlite\n/);
    expect(out.trimEnd().split('\n').at(-1)).toBe(`?study=${token}`);
    const again = await printed(() => studyRegister([`--data=${data}`, '--link', token]));
    expect(again).toMatch(/already registered \(unchanged\)/);
    const store = ResultStore.open(path.join(data, 'results.sqlite'));
    expect(store.studies().map((s) => [s.study_id, s.token])).toEqual([['reg', token]]);
    store.close();
  });

  it('takes the study link flags through the given parser, or a definition file', async () => {
    const data = tempDir();
    const seen: string[][] = [];
    const out = await printed(() =>
      studyRegister(['--seed', '3', '--data', data, '--study-id', 'reg'], (argv) => {
        seen.push(argv);
        return def;
      }),
    );
    expect(seen).toEqual([['--seed', '3', '--study-id', 'reg']]);
    expect(out.trimEnd().split('\n').at(-1)).toBe(`?study=${token}`);
    const file = path.join(data, 'def.json');
    writeFileSync(file, JSON.stringify(withDefaults({ studyId: 'other' })));
    expect(await printed(() => studyRegister(['--data', data, '--definition', file]))).toMatch(
      /^study other: registered/,
    );
  });

  it('warns when the study it registers sends nothing to a results server', async () => {
    const data = tempDir();
    // `printed` restores every spy when it is done, so each run gets its own.
    const stderrOf = async (link: string) => {
      let err = '';
      const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
        err += String(chunk);
        return true;
      });
      await printed(() => studyRegister(['--data', data, '--link', link]));
      spy.mockRestore();
      return err;
    };
    expect(await stderrOf(token)).toMatch(/study reg has no results-server sink/);
    const withServer = encodeStudyLink(withDefaults({ studyId: 'reg2', sinks: [{ kind: 'server' }] }));
    expect(await stderrOf(withServer)).toBe('');
  });

  it('says what is missing or wrong', async () => {
    await expect(studyRegister(['--link', token])).rejects.toThrow(UsageError);
    await expect(studyRegister(['--data', tempDir()])).rejects.toThrow(/--link/);
    await expect(studyRegister(['--data', tempDir(), '--link', 's1.abc'])).rejects.toThrow(CliError);
    await expect(studyRegister(['--data', tempDir(), '--link', token, '--seed', '4'])).rejects.toThrow(
      /take no study flags/,
    );
  });
});

describe('results export', () => {
  it('writes CSV or JSON from the database and ends with sessions=<n> rows=<n>', async () => {
    const data = tempDir();
    const store = ResultStore.open(path.join(data, 'results.sqlite'));
    store.registerStudy({ token });
    const rows = [makeRow('reg', 's1', 0), makeRow('reg', 's1', 1), makeRow('reg', 's2', 0)];
    store.ingest({ sessions: [makeSession('reg', 's1')], rows });
    store.close();
    const json = path.join(data, 'out.json');
    const out = await printed(() => resultsCommand(['export', '--data', data, '--out', json]));
    expect(out.trimEnd().split('\n').at(-1)).toBe('sessions=2 rows=3');
    expect(JSON.parse(readFileSync(json, 'utf8'))).toMatchObject({ rows, sessions: [makeSession('reg', 's1')] });
    const csv = path.join(data, 'out.csv');
    await printed(() => resultsCommand(['export', '--data', data, '--out', csv, '--study', 'reg']));
    expect(readFileSync(csv, 'utf8').split('\r\n')[0]).toMatch(/^study_id,session_id,/);
    await expect(resultsCommand(['export', '--data', data, '--out', 'x.txt'])).rejects.toThrow(/\.csv or \.json/);
    await expect(resultsCommand(['export', '--data', tempDir(), '--out', csv])).rejects.toThrow(/no results database/);
    await expect(resultsCommand(['export', '--data', data, '--out', csv, '--study', 'zz'])).rejects.toThrow(
      /no study "zz"/,
    );
  });
});
