import { describe, expect, it } from 'vitest';
import {
  describeFileProblems,
  NO_USABLE_TEMPLATE,
  noUsableTemplate,
  otherHalf,
  pairHalves,
  parseTemplateJson,
  readTemplateFiles,
  readTemplateText,
  strictSource,
  usableSource,
} from './templateFile';
import { bankSize, TemplateFormatError } from './templates';

const json = (o: unknown) => JSON.stringify(o);
const TRAIN = json({ son: { 'female-male': ['ENT_0_female took her son ENT_1_male out.'] } });
const TEST = json({
  son: { 'female-male': ['ENT_0_female drove her son ENT_1_male home.'] },
  neice: { 'male-female': ['ENT_0_male phoned his niece ENT_1_female.'] },
});

const refusal = (f: () => unknown): TemplateFormatError => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(TemplateFormatError);
    return e as TemplateFormatError;
  }
  throw new Error('expected a TemplateFormatError');
};

describe('pairHalves and otherHalf', () => {
  it('pairs x.train.json with x.test.json in either order, paths included', () => {
    expect(pairHalves(['amt.train.json', 'amt.test.json'])).toEqual({ train: 0, test: 1 });
    expect(pairHalves(['amt.test.json', 'amt.train.json'])).toEqual({ train: 1, test: 0 });
    expect(pairHalves(['/d/amt.Train.json', '/d/amt.test.JSON'])).toEqual({ train: 0, test: 1 });
  });

  it('does not pair other names, stems or counts', () => {
    expect(pairHalves(['amt.train.json'])).toBeNull();
    expect(pairHalves(['a.train.json', 'b.test.json'])).toBeNull();
    expect(pairHalves(['a.train.json', 'a.train.json'])).toBeNull();
    expect(pairHalves(['a.json', 'a.test.json'])).toBeNull();
    expect(pairHalves(['a.train.json', 'a.test.json', 'c.json'])).toBeNull();
  });

  it('names the other half of a split, keeping its case', () => {
    expect(otherHalf('/d/amt.train.json')).toBe('/d/amt.test.json');
    expect(otherHalf('amt.test.json')).toBe('amt.train.json');
    expect(otherHalf('AMT.TEST.JSON')).toBe('AMT.TRAIN.JSON');
    expect(otherHalf('train.json')).toBeNull();
    expect(otherHalf('amt.json')).toBeNull();
  });
});

describe('readTemplateText', () => {
  it('keeps the valid part and names file, key, gender comb and index of each problem', () => {
    const { bank, problems } = readTemplateText({
      name: 'bad.json',
      text: json({
        son: { 'female-male': ['ENT_0_female took her son out.', 'ENT_0_female hugged her son ENT_1_male.'] },
        sonn: { 'male-male': ['ENT_0_male and ENT_1_male.'] },
      }),
    });
    expect(bankSize(bank)).toBe(1);
    expect(problems.map((p) => [p.file, p.fComb, p.genderComb, p.index])).toEqual([
      ['bad.json', 'son', 'female-male', 0],
      ['bad.json', 'sonn', undefined, undefined],
    ]);
    expect(describeFileProblems(problems)).toEqual([
      'bad.json: key "son", gender comb "female-male", template 0: never names ENT_1_male (in "ENT_0_female took her son out.")',
      'bad.json: key "sonn": "sonn" is not a relation word',
    ]);
  });

  it('turns text that is not JSON into a problem, not an exception', () => {
    const { bank, problems } = readTemplateText({ name: 'x.json', text: '{ nope' });
    expect(bank).toEqual({});
    expect(describeFileProblems(problems)[0]).toMatch(/^x\.json: not valid JSON/);
  });

  it('reports progress up to the whole file', () => {
    const seen: number[] = [];
    readTemplateText({ name: 'a.json', text: TEST }, (f) => seen.push(f));
    expect(seen.at(-1)).toBe(1);
  });
});

describe('readTemplateFiles', () => {
  it('turns a train/test pair into halves and their merged bank', () => {
    const r = readTemplateFiles([
      { name: 'amt.test.json', text: TEST },
      { name: 'amt.train.json', text: TRAIN },
    ]);
    expect(r.name).toBe('amt.test.json + amt.train.json');
    expect(r.halves!.train.son!['female-male']).toEqual(['ENT_0_female took her son ENT_1_male out.']);
    expect(Object.keys(r.halves!.test)).toEqual(['son', 'niece']);
    expect(r.bank.son!['female-male']).toHaveLength(2);
    expect(usableSource(r)).toEqual({ name: r.name, bank: r.bank, halves: r.halves });
  });

  it('merges unpaired files without halves', () => {
    const r = readTemplateFiles([
      { name: 'a.json', text: TRAIN },
      { name: 'b.json', text: TEST },
    ]);
    expect(r.halves).toBeUndefined();
    expect(bankSize(r.bank)).toBe(3);
  });

  it('gives no source for files without a usable template', () => {
    expect(usableSource(readTemplateFiles([{ name: 'empty.json', text: '{}' }]))).toBeNull();
    expect(usableSource(readTemplateFiles([{ name: 'x.json', text: '[1]' }]))).toBeNull();
  });
});

describe('strictSource', () => {
  it('is the lenient reading when nothing is wrong', () => {
    const r = readTemplateFiles([
      { name: 'amt.train.json', text: TRAIN },
      { name: 'amt.test.json', text: TEST },
    ]);
    expect(strictSource(r)).toEqual(usableSource(r));
  });

  it('refuses any problem, naming the first and counting the rest', () => {
    const r = readTemplateFiles([
      { name: 'a.json', text: TRAIN },
      { name: 'b.json', text: json({ sonn: {}, daughterr: {}, x: [] }) },
    ]);
    const e = refusal(() => strictSource(r));
    expect(e.message).toBe('b.json: key "sonn": "sonn" is not a relation word (and 2 more problems)');
    expect(e.problems).toHaveLength(3);
  });

  it('refuses a file with no usable template in the words the app uses', () => {
    const e = refusal(() => strictSource(readTemplateFiles([{ name: 'empty.json', text: '{}' }])));
    expect(e.message).toBe('empty.json holds no usable template');
    expect(e.message).toBe(noUsableTemplate('empty.json'));
    expect(NO_USABLE_TEMPLATE).toBe('holds no usable template');
  });

  it('accepts an empty half when the other half has templates', () => {
    const r = readTemplateFiles([
      { name: 'amt.train.json', text: TRAIN },
      { name: 'amt.test.json', text: '{}' },
    ]);
    expect(bankSize(strictSource(r).halves!.test)).toBe(0);
  });
});

describe('parseTemplateJson', () => {
  it('is strict and names the file', () => {
    expect(() => parseTemplateJson('{"father": ', 'x.json')).toThrow(/^x\.json: not valid JSON/);
    expect(() => parseTemplateJson(json({ fathr: {} }))).toThrow(/^key "fathr": "fathr" is not a relation word$/);
    expect(parseTemplateJson('{}', 'empty.json')).toEqual({});
  });
});

describe('a large bank', () => {
  // Many long lists, as in the original's 80,000-template files: the duplicate check must not
  // compare every template with every other (that took seconds; this test has no time limit).
  const N = 80_000;
  const lists: Record<string, Record<string, string[]>> = {
    son: { 'female-male': [], 'male-male': [] },
    neice: { 'female-female': [] },
    niece: { 'female-female': [] },
  };
  const slots: [string, string][] = [
    ['son', 'female-male'],
    ['son', 'male-male'],
    ['neice', 'female-female'],
    ['niece', 'female-female'],
  ];
  for (let i = 0; i < N; i++) {
    const [key, g] = slots[i % 4]!;
    const [a, b] = g.split('-');
    // The niece lists repeat the neice list's templates, and every 10th template repeats itself.
    const n = key === 'niece' ? i - 1 : i;
    lists[key]![g]!.push(`ENT_0_${a} met ENT_1_${b} at stop ${n} of the tour.`);
    if (i % 10 === 0) lists[key]![g]!.push(`ENT_0_${a} met ENT_1_${b} at stop ${n} of the tour.`);
  }
  lists.son!['male-male']![7] = 'ENT_0_male met his son at stop 7.';

  it('is read whole, once per template, with the one bad template named', () => {
    const progress: number[] = [];
    const r = readTemplateFiles([{ name: 'big.json', text: json(lists) }], (f) => progress.push(f));
    expect(describeFileProblems(r.problems)).toEqual([
      'big.json: key "son", gender comb "male-male", template 7: never names ENT_1_male (in "ENT_0_male met his son at stop 7.")',
    ]);
    expect(r.bank.son!['female-male']).toHaveLength(N / 4);
    expect(r.bank.son!['male-male']).toHaveLength(N / 4 - 1);
    // `neice` and `niece` merge into one list of distinct templates, in first-seen order.
    const niece = r.bank.niece!['female-female']!;
    expect(niece).toHaveLength(N / 4);
    expect(new Set(niece).size).toBe(niece.length);
    expect(niece[0]).toBe('ENT_0_female met ENT_1_female at stop 2 of the tour.');
    expect(bankSize(r.bank)).toBe((3 * N) / 4 - 1);
    expect(progress.length).toBeGreaterThan(5);
    expect(progress.at(-1)).toBe(1);
  });
});
