import { describe, expect, it } from 'vitest';
import { firstProblems, readTemplateFiles, summaryLine } from './templatesClient';

const json = (o: unknown) => JSON.stringify(o);
const TRAIN = json({ son: { 'female-male': ['ENT_0_female took her son ENT_1_male out.'] } });
const TEST = json({
  son: { 'female-male': ['ENT_0_female drove her son ENT_1_male home.'] },
  neice: { 'male-female': ['ENT_0_male phoned his niece ENT_1_female.'] },
});

describe('readTemplateFiles', () => {
  it('reads one file, normalising neice, and summarises it', () => {
    const r = readTemplateFiles([{ name: 'amt.test.json', text: TEST }]);
    expect(r.problems).toEqual([]);
    expect(r.halves).toBe(false);
    expect(Object.keys(r.source!.bank).sort()).toEqual(['niece', 'son']);
    expect(r.source!.halves).toBeUndefined();
    expect(summaryLine(r)).toBe('2 keys, 2 paraphrases');
  });

  it('turns a train/test pair into halves and their merged bank', () => {
    const r = readTemplateFiles([
      { name: 'amt.test.json', text: TEST },
      { name: 'amt.train.json', text: TRAIN },
    ]);
    expect(r.halves).toBe(true);
    expect(r.name).toBe('amt.test.json + amt.train.json');
    expect(r.source!.halves!.train.son!['female-male']).toEqual(['ENT_0_female took her son ENT_1_male out.']);
    expect(Object.keys(r.source!.halves!.test)).toEqual(['son', 'niece']);
    expect(r.source!.bank.son!['female-male']).toHaveLength(2);
    expect(summaryLine(r)).toBe('2 keys, 3 paraphrases (train and test halves)');
  });

  it('merges unpaired files without halves', () => {
    const r = readTemplateFiles([
      { name: 'a.json', text: TRAIN },
      { name: 'b.json', text: TEST },
    ]);
    expect(r.halves).toBe(false);
    expect(r.source!.halves).toBeUndefined();
    expect(r.paraphrases).toBe(3);
  });

  it('keeps the valid part and names the file, key, gender comb and template of each problem', () => {
    const bad = json({
      son: { 'female-male': ['ENT_0_female took her son out.', 'ENT_0_female hugged her son ENT_1_male.'] },
      sonn: { 'male-male': ['ENT_0_male and ENT_1_male.'] },
    });
    const r = readTemplateFiles([{ name: 'bad.json', text: bad }]);
    expect(r.paraphrases).toBe(1);
    expect(r.problems).toHaveLength(2);
    expect(r.problems[0]).toMatch(/^bad\.json: key "son", gender comb "female-male", template 0: /);
    expect(r.problems[1]).toMatch(/^bad\.json: key "sonn": "sonn" is not a relation word/);
  });

  it('reports a file that is not JSON and uses nothing', () => {
    const r = readTemplateFiles([{ name: 'x.json', text: '{ nope' }]);
    expect(r.source).toBeNull();
    expect(r.problems[0]).toMatch(/^x\.json: not valid JSON/);
  });

  it('reports the wrong top-level shape', () => {
    const r = readTemplateFiles([{ name: 'x.json', text: '[1, 2]' }]);
    expect(r.source).toBeNull();
    expect(r.problems[0]).toMatch(/x\.json: expected an object/);
  });

  it('gives no source for a file with no usable template', () => {
    const r = readTemplateFiles([{ name: 'empty.json', text: '{}' }]);
    expect(r).toEqual({ source: null, name: 'empty.json', keys: 0, paraphrases: 0, halves: false, problems: [] });
  });
});

describe('firstProblems', () => {
  it('shows the first ten and counts the rest', () => {
    const ps = Array.from({ length: 13 }, (_, i) => `p${i}`);
    expect(firstProblems(ps)).toEqual({ shown: ps.slice(0, 10), more: 3 });
    expect(firstProblems(ps.slice(0, 2))).toEqual({ shown: ps.slice(0, 2), more: 0 });
  });
});
