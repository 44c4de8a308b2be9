import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { noUsableTemplate, parseTemplateJson } from '../../src/core/text/templateFile';
import { CliError, UsageError } from '../errors';
import { readTemplateSource, templatesCommand } from './templates';

const LAST_LINE = /^keys1=\d+ keys2=\d+ keys3=\d+ paraphrases=\d+ words=\d+ jaccard1=\d\.\d{3} jaccard2=\d\.\d{3}$/;

async function run(argv: string[]): Promise<{ code: number; out: string }> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  try {
    const code = await templatesCommand(argv);
    return { code, out };
  } finally {
    spy.mockRestore();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'clutrr-templates-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

afterEach(() => vi.restoreAllMocks());

describe('templates --stats', () => {
  it('prints a table by key size and ends with the exact summary line', async () => {
    const { code, out } = await run(['--stats']);
    expect(code).toBe(0);
    const lines = out.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(LAST_LINE);
    expect(lines.at(-1)).toMatch(/^keys1=20 keys2=62 keys3=1\d\d /);
    expect(out).toMatch(/facts +keys +paraphrases +words +jaccard1 +jaccard2/);
    expect(out.endsWith('\n')).toBe(true);
  });

  it('reads a file in the original format, neice included', async () => {
    const path = file(
      'amt.json',
      JSON.stringify({
        neice: {
          'male-female': ['ENT_1_female is the niece of ENT_0_male.', 'ENT_0_male took his niece ENT_1_female out.'],
        },
        'father-sister': { 'female-male-female': ['ENT_0_female and her dad ENT_1_male met his sister ENT_2_female.'] },
      }),
    );
    const { out } = await run(['--stats', '--templates', path]);
    expect(out.trimEnd().split('\n').at(-1)).toMatch(
      /^keys1=1 keys2=1 keys3=0 paraphrases=3 words=\d+ jaccard1=0\.\d{3} jaccard2=0\.\d{3}$/,
    );
  });

  it('names the file and the key of a bad template file', async () => {
    const path = file('bad.json', JSON.stringify({ father: { 'male-male': ['ENT_1_male is the father.'] } }));
    await expect(run(['--stats', '--templates', path])).rejects.toThrow(CliError);
    await expect(run(['--stats', '--templates', path])).rejects.toThrow(
      /bad\.json: key "father", gender comb "male-male", template 0: never names ENT_0_male/,
    );
    await expect(run(['--stats', '--templates', join(dir, 'missing.json')])).rejects.toThrow(
      /cannot read template file .*missing\.json/,
    );
  });

  it('rejects bad usage', async () => {
    await expect(run([])).rejects.toThrow(UsageError);
    await expect(run(['--stats', '--nope'])).rejects.toThrow(/unknown flag --nope/);
    await expect(run(['--stats', 'extra'])).rejects.toThrow(/unexpected argument/);
    await expect(run(['--stats', '--split-seed', '3'])).rejects.toThrow(/needs --export/);
  });

  it('prints help', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    expect(out).toMatch(/--templates/);
  });
});

describe('templates --export', () => {
  it('writes our bank in the original format and its template split', async () => {
    const path = join(dir, 'ours.json');
    await run(['--export', path, '--split-seed', '5']);
    const text = readFileSync(path, 'utf8');
    expect(text).toMatch(/"neice"/);
    const whole = parseTemplateJson(text, path);
    const source = readTemplateSource(join(dir, 'ours.train.json'));
    expect(source.halves).toBeDefined();
    expect(Object.keys(source.bank).sort()).toEqual(Object.keys(whole).sort());
    const train = new Set(Object.values(source.halves!.train).flatMap((g) => Object.values(g).flat()));
    for (const t of Object.values(source.halves!.test).flatMap((g) => Object.values(g).flat()))
      expect(train.has(t)).toBe(false);
  });
});

describe('template files that cannot be used', () => {
  const good = { son: { 'female-male': ['ENT_0_female took her son ENT_1_male out.'] } };

  it('refuses a file with no usable template in the words the app uses', async () => {
    const empty = file('empty.json', '{}');
    expect(() => readTemplateSource(empty)).toThrow(CliError);
    expect(() => readTemplateSource(empty)).toThrow(`bad template file: ${noUsableTemplate(empty)}`);
    await expect(run(['--stats', '--templates', empty])).rejects.toThrow(noUsableTemplate(empty));
  });

  it('refuses a file that is not JSON, naming it', () => {
    const path = file('broken.json', '{"son": ');
    expect(() => readTemplateSource(path)).toThrow(/^bad template file: .*broken\.json: not valid JSON/);
  });

  it('reads both halves of a split and refuses a problem in either', () => {
    const train = file('pair.train.json', JSON.stringify(good));
    file('pair.test.json', '{}');
    const source = readTemplateSource(train);
    expect(source.halves!.train).toEqual(good);
    expect(source.halves!.test).toEqual({});
    expect(Object.keys(source)).toEqual(['bank', 'halves']);
    file('pair.test.json', JSON.stringify({ sonn: {} }));
    expect(() => readTemplateSource(train)).toThrow(/pair\.test\.json: key "sonn": "sonn" is not a relation word/);
  });

  it('reads a half alone when the other is missing', () => {
    const lone = file('lone.test.json', JSON.stringify(good));
    expect(readTemplateSource(lone)).toEqual({ bank: good });
  });
});
