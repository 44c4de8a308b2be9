import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../src/core/formats/csv';
import { withDefaults } from '../src/study/definition/definition';
import { encodeStudyLink } from '../src/study/definition/link';
import { rowsToCsv } from '../src/study/results/results';
import { OutputExistsError } from './files';
import {
  DATAFILE_NAME,
  datasetDescription,
  PSYCH_DS_SCHEMA_VERSION,
  psychDsFiles,
  psychDsZip,
  studyKey,
  type DatasetDescription,
} from '../src/study/results/psychDs';
import { writePsychDs } from './psychDs';
import { ResultStore } from './store';
import { makeRow, makeSession, runCli, tempDirs } from './testServer';

const tempDir = tempDirs('clutrr-psychds-');

/** Two studies (one id with characters psych-DS keywords do not allow), odd cells, a session without facts. */
function sampleStore(dir: string): ResultStore {
  const store = ResultStore.open(path.join(dir, 'results.sqlite'));
  for (const studyId of ['lab', 'pilot-2_b'])
    store.registerStudy({ token: encodeStudyLink(withDefaults({ studyId })) });
  const bodies = [
    { sessions: [makeSession('lab', 's-b')], rows: [0, 1, 2].map((t) => makeRow('lab', 's-b', t)) },
    {
      sessions: [makeSession('lab', 's-a')],
      rows: ['=1+1', 'comma, "quote"\r\nline', 'café ☕'].map((story, t) => makeRow('lab', 's-a', t, { story })),
    },
    { sessions: [], rows: [3, 1].map((t) => makeRow('lab', 's-c', t, { difficulty: null })) },
    { sessions: [makeSession('pilot-2_b', 's-o')], rows: [makeRow('pilot-2_b', 's-o', 0)] },
  ];
  for (const body of bodies) expect(store.ingest(body).status).toBe('stored');
  return store;
}

/** The keys psych-DS 1.1.0 requires of dataset_description.json (rules/compiled_metadata.yaml, rules_and_conventions.md). */
const REQUIRED_KEYS = ['@context', '@type', 'name', 'description', 'variableMeasured'] as const;

describe('psych-DS export', () => {
  it("writes the description with the required keys, every column described, and each study's CSV export", () => {
    const dir = tempDir();
    const store = sampleStore(path.join(dir, 'data'));
    const out = path.join(dir, 'ds');
    const result = writePsychDs(store, out, { force: false });
    const description = JSON.parse(
      readFileSync(path.join(out, 'dataset_description.json'), 'utf8'),
    ) as DatasetDescription;
    for (const key of REQUIRED_KEYS) expect(description).toHaveProperty([key]);
    expect(description['@context']).toBe('https://schema.org');
    expect(description['@type']).toBe('Dataset');
    expect(description.schemaVersion).toBe(PSYCH_DS_SCHEMA_VERSION);
    expect(description.name).toContain('lab');
    expect(description.description).toContain('Study "pilot-2_b"');
    for (const v of description.variableMeasured) {
      expect(v['@type']).toBe('PropertyValue');
      expect(v.description.length).toBeGreaterThan(10);
    }
    expect(description.variableMeasured.find((v) => v.name === 'rt_ms')?.unitText).toBe('ms');

    const dataFiles = readdirSync(path.join(out, 'data')).sort();
    expect(dataFiles).toEqual(['study-lab_data.csv', 'study-pilot2b_data.csv']);
    for (const f of dataFiles) expect(f).toMatch(DATAFILE_NAME);
    const described = new Set(description.variableMeasured.map((v) => v.name));
    for (const [file, studyId] of [
      ['study-lab_data.csv', 'lab'],
      ['study-pilot2b_data.csv', 'pilot-2_b'],
    ] as const) {
      const text = readFileSync(path.join(out, 'data', file), 'utf8');
      // The data are the CSV export of that study, byte for byte.
      expect(text).toBe(rowsToCsv(store.rows(studyId), store.sessionInfos(studyId)));
      const header = parseCsv(text)[0]!;
      expect(header.length).toBe(35);
      for (const column of header) expect(described.has(column), column).toBe(true);
      const definition = JSON.parse(
        readFileSync(path.join(out, 'materials', file.replace('_data.csv', '_definition.json')), 'utf8'),
      ) as { studyId: string };
      expect(definition.studyId).toBe(studyId);
    }
    expect(result).toMatchObject({ sessions: store.sessions().length, rows: store.rows().length });
    expect(statSync(path.join(out, 'data', 'study-lab_data.csv')).mode & 0o777).toBe(0o600);
    // Only the study asked for.
    const one = writePsychDs(store, path.join(dir, 'one'), { force: false, studyId: 'pilot-2_b' });
    expect(readdirSync(path.join(dir, 'one', 'data'))).toEqual(['study-pilot2b_data.csv']);
    expect(one).toMatchObject({ sessions: 1, rows: 1 });
    store.close();
  });

  it('refuses an existing folder unless forced, and leaves nothing behind on failure', () => {
    const dir = tempDir();
    const store = sampleStore(path.join(dir, 'data'));
    const out = path.join(dir, 'ds');
    writePsychDs(store, out, { force: false });
    writeFileSync(path.join(out, 'stale.txt'), 'old');
    expect(() => writePsychDs(store, out, { force: false })).toThrow(OutputExistsError);
    expect(existsSync(path.join(out, 'stale.txt'))).toBe(true);
    writePsychDs(store, out, { force: true });
    // Replaced whole: the old folder's files are gone.
    expect(existsSync(path.join(out, 'stale.txt'))).toBe(false);
    expect(existsSync(path.join(out, 'dataset_description.json'))).toBe(true);
    store.close();
    // A closed store fails the export: no folder, no temporary folder.
    expect(() => writePsychDs(store, path.join(dir, 'never'), { force: false })).toThrow();
    expect(existsSync(path.join(dir, 'never'))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);
  });

  it('the ZIP the dashboard downloads holds the same files as the CLI folder', () => {
    const dir = tempDir();
    const store = sampleStore(path.join(dir, 'data'));
    const now = new Date('2026-01-02T03:04:05Z');
    writePsychDs(store, path.join(dir, 'ds'), { force: false, now });
    const files = psychDsFiles(
      store.studies().map((s) => ({
        definition: JSON.parse(
          readFileSync(path.join(dir, 'ds', 'materials', `study-${studyKey(s.study_id)}_definition.json`), 'utf8'),
        ) as never,
        csv: rowsToCsv(store.rows(s.study_id), store.sessionInfos(s.study_id)),
      })),
      now,
    );
    const zipped = unzipSync(psychDsZip('clutrr-dataset', files));
    const inZip = Object.keys(zipped).sort();
    expect(inZip).toEqual(
      [
        'dataset_description.json',
        'data/study-lab_data.csv',
        'data/study-pilot2b_data.csv',
        'materials/study-lab_definition.json',
        'materials/study-pilot2b_definition.json',
      ]
        .map((f) => `clutrr-dataset/${f}`)
        .sort(),
    );
    for (const name of inZip) {
      expect(strFromU8(zipped[name]!), name).toBe(
        readFileSync(path.join(dir, 'ds', name.slice('clutrr-dataset/'.length)), 'utf8'),
      );
    }
    store.close();
  });

  it('makes keyword values of letters and digits, distinct for distinct ids', () => {
    expect(studyKey('pilot-2_b')).toBe('pilot2b');
    expect(studyKey('a-b', new Set(['ab']))).toBe('ab2');
    expect(studyKey('--')).toBe('study');
    // Two ids that meet: the description names each one's own definition file.
    const both = datasetDescription([withDefaults({ studyId: 'a-b' }), withDefaults({ studyId: 'ab' })]);
    expect(both.description).toContain('Study "a-b"');
    expect(both.description).toContain('materials/study-ab_definition.json');
    expect(both.description).toContain('materials/study-ab2_definition.json');
  });

  it('the CLI: --format psych-ds writes the folder and ends with sessions= rows=', () => {
    const dir = tempDir();
    const data = path.join(dir, 'data');
    const store = sampleStore(data);
    const sessions = store.sessions().length;
    const rows = store.rows().length;
    const csvAll = rowsToCsv(store.rows(), store.sessionInfos());
    store.close();

    const out = path.join(dir, 'ds');
    const first = runCli(['results', 'export', '--data', data, '--format', 'psych-ds', '--out', out]);
    expect(first.status, first.out).toBe(0);
    expect(first.out.trimEnd().split('\n').at(-1)).toBe(`sessions=${sessions} rows=${rows}`);
    // The studies' files together hold the rows of the whole CSV export.
    const bodies = ['study-lab_data.csv', 'study-pilot2b_data.csv'].map((f) =>
      parseCsv(readFileSync(path.join(out, 'data', f), 'utf8')).slice(1),
    );
    const all = parseCsv(csvAll).slice(1);
    const key = (r: string[]) => JSON.stringify(r);
    expect(bodies.flat().map(key).sort()).toEqual(all.map(key).sort());
    expect(all.length).toBe(rows);
    const again = runCli(['results', 'export', '--data', data, '--format', 'psych-ds', '--out', out]);
    expect(again.status).not.toBe(0);
    expect(again.out).toMatch(/exists; give --force/);
    expect(runCli(['results', 'export', '--data', data, '--format', 'psych-ds', '--out', out, '--force']).status).toBe(
      0,
    );
    const bad = runCli(['results', 'export', '--data', data, '--format', 'xml', '--out', out]);
    expect(bad.status).not.toBe(0);
    expect(bad.out).toContain('--format must be psych-ds');
  }, 180_000);
});
