import { strFromU8, strToU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STUDY, withDefaults } from '../definition/definition';
import { buildJzip, derivedUuid, jatosDirName, JzipError, type BuildFile } from './jzip';
import { encodeStudyLink } from '../definition/link';

const def = withDefaults({ studyId: 'pilot_1', k: [2, 3], itemsPerK: 2, seed: 5 });
const token = encodeStudyLink(def);
const files: BuildFile[] = [
  { path: 'index.html', bytes: strToU8('<!doctype html><script src="./assets/index-abc.js"></script>') },
  { path: 'assets/index-abc.js', bytes: strToU8('console.log(1)') },
  { path: 'assets/logo.png', bytes: new Uint8Array([137, 80, 78, 71, 1, 2, 3]) },
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('buildJzip', () => {
  it('holds one .jas and every build file under the one assets folder', () => {
    const zip = unzipSync(buildJzip(def, token, files));
    const names = Object.keys(zip).sort();
    expect(names).toEqual(['clutrr_pilot_1.jas', ...files.map((f) => `clutrr_pilot_1/${f.path}`)].sort());
    for (const f of files) expect(zip[`clutrr_pilot_1/${f.path}`]).toEqual(f.bytes);
    const tops = new Set(names.map((n) => n.split('/')[0]));
    expect(tops).toEqual(new Set(['clutrr_pilot_1.jas', 'clutrr_pilot_1']));
  });

  it('writes the JATOS 3 study description: one reloadable component on index.html with the token as its input', () => {
    const zip = unzipSync(buildJzip(def, token, files));
    const jas = JSON.parse(strFromU8(zip['clutrr_pilot_1.jas']!));
    expect(jas.version).toBe('3');
    const study = jas.data;
    expect(study).toMatchObject({ title: 'CLUTRR study pilot_1', dirName: 'clutrr_pilot_1', jsonData: null });
    expect(study.uuid).toMatch(UUID);
    expect(study.description).toContain('4 main items');
    expect(study.description).not.toMatch(/[<>]/);
    expect(study.componentList).toHaveLength(1);
    const [component] = study.componentList;
    expect(component).toMatchObject({ htmlFilePath: 'index.html', reloadable: true, active: true });
    expect(component.uuid).toMatch(UUID);
    // JATOS keeps component input as JSON text.
    expect(typeof component.jsonData).toBe('string');
    expect(JSON.parse(component.jsonData)).toEqual({ clutrrStudy: token });
    expect(study.batchList).toHaveLength(1);
    expect(study.batchList[0].uuid).toMatch(UUID);
    expect(new Set([study.uuid, component.uuid, study.batchList[0].uuid]).size).toBe(3);
    // JATOS's component path rule.
    expect(component.htmlFilePath).toMatch(/^[\w-][\w/-]*\.[\w-]+$/);
  });

  it('gives the same bytes for the same study; another study gets other UUIDs', () => {
    expect(buildJzip(def, token, files)).toEqual(buildJzip(def, token, files));
    const other = withDefaults({ ...def, seed: 6 });
    const a = JSON.parse(strFromU8(unzipSync(buildJzip(def, token, files))['clutrr_pilot_1.jas']!));
    const b = JSON.parse(strFromU8(unzipSync(buildJzip(other, encodeStudyLink(other), files))['clutrr_pilot_1.jas']!));
    expect(b.data.uuid).not.toBe(a.data.uuid);
    expect(b.data.componentList[0].uuid).not.toBe(a.data.componentList[0].uuid);
  });

  it('refuses a build without index.html, a path leaving the folder, a repeated file', () => {
    expect(() => buildJzip(def, token, files.slice(1))).toThrow(new JzipError('the build has no index.html'));
    for (const path of ['../x.js', '/etc/passwd', 'a//b', 'a\\b', './index.html', '']) {
      expect(() => buildJzip(def, token, [...files, { path, bytes: new Uint8Array() }])).toThrow(JzipError);
    }
    expect(() => buildJzip(def, token, [...files, files[1]!])).toThrow(/listed twice/);
  });

  it('names the assets folder so it is never one of JATOS reserved names', () => {
    for (const studyId of ['assets', 'publix', 'study_assets', 'jatos']) {
      expect(jatosDirName({ studyId })).toBe(`clutrr_${studyId}`);
    }
    expect(jatosDirName(DEFAULT_STUDY)).toBe('clutrr_study');
  });

  it('derives well-formed, distinct UUIDs from names', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const u = derivedUuid('x', String(i));
      expect(u).toMatch(UUID);
      ids.add(u);
    }
    expect(ids.size).toBe(200);
    expect(derivedUuid('a', 'b')).toBe(derivedUuid('a', 'b'));
  });
});
