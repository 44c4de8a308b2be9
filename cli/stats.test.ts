import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClutrrCsv } from '../src/core/formats/clutrrCsv';
import { createStoryStats, storyStatsLine } from '../src/core/formats/storyStats';
import { main } from './main';
import { captureOutput } from './testOutput';

const io = captureOutput();

const tmp = () => mkdtempSync(path.join(tmpdir(), 'clutrr-stats-'));
const lastLine = (s: string) => s.trim().split('\n').at(-1);
const FIXTURES = 'src/core/formats/fixtures';
const CONTRACT = /^rows=\d+ tau=-?\d\.\d{3} words_per_fact=\d+\.\d{2} first_is_q0=\d\.\d{3} last_word_acc=\d\.\d{3}$/;

describe('stats: assumption shares', () => {
  it('reports per k the share of entailed rows decided only through an assumption rule, and their patterns', async () => {
    const dir = tmp();
    const flags = ['--train-tasks', '1.2', '--test-tasks', '1.3', '--train-rows', '200', '--test-rows', '200'];
    expect(await main(['generate', ...flags, '--labels', 'clutrr', '--synthetic', '--seed', 'st', '--out', dir])).toBe(
      0,
    );
    const files = ['1.2_train.csv', '1.3_test.csv'].map((f) => path.join(dir, f));
    io.out = '';
    expect(await main(['stats', ...files])).toBe(0);
    // Counted independently: the k = 2 rows of the eight child-uncle/aunt/grandparent patterns.
    const k2 = parseClutrrCsv(readFileSync(files[0]!, 'utf8'));
    const assumed = k2.filter((r) => /^(son|daughter)-(uncle|aunt|grandfather|grandmother)$/.test(r.fComb)).length;
    const row2 = io.out.split('\n').find((l) => /^\s+2\s+200\s/.test(l))!;
    const cells = row2.trim().split(/\s+/);
    expect(cells.at(-2)).toBe((assumed / 200).toFixed(3));
    expect(cells.at(-1)).toBe('0.000');
    expect(io.out).toMatch(/assumed patterns \(f_comb → target: rows\):\n {2}k=2 \([1-8]\): /);
    expect(io.out).toMatch(/ {2}k=3 \(\d+\): /);
    expect(io.out).toMatch(/entailed 400: through an assumption rule 0\.\d{3}, true in no family 0\.\d{3}/);
  });
});

describe('stats', () => {
  it('ends with the exact summary line of a generated file (seed stats-fixture, tasks 1.2,1.3,5.3)', async () => {
    expect(await main(['stats', `${FIXTURES}/stats-generated.csv`])).toBe(0);
    expect(io.err).toBe('');
    expect(lastLine(io.out)).toBe('rows=60 tau=0.211 words_per_fact=12.66 first_is_q0=0.267 last_word_acc=0.200');
    expect(io.out).toMatch(/per story length k:\n\s+k\s+rows\s+patterns\s+tau/);
    expect(io.out).toMatch(/^\s+3\s+40\s/m);
    expect(io.out).toMatch(/k=3 supporting: /);
    expect(io.out).toMatch(/k=3 disconnected: /);
  });

  it('ends with the hand-worked figures of the released-style fixture', async () => {
    expect(await main(['stats', `${FIXTURES}/stats-hand.csv`])).toBe(0);
    expect(lastLine(io.out)).toBe('rows=5 tau=0.267 words_per_fact=5.58 first_is_q0=0.600 last_word_acc=0.600');
    expect(io.out).toContain('k=3 edges without a type: 1');
    expect(io.out).toContain('k=2 disconnected: sister 1');
  });

  it('on a freshly generated folder, pools every file into the last line, as the core accumulator does', async () => {
    const dir = tmp();
    await main([
      'generate',
      '--train-tasks',
      '1.2,1.3',
      '--test-tasks',
      '1.4,2.3',
      '--train-rows',
      '30',
      '--test-rows',
      '10',
      '--seed',
      'stats',
      '--out',
      dir,
    ]);
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.csv'))
      .sort()
      .map((f) => path.join(dir, f));
    io.out = '';
    expect(await main(['stats', ...files])).toBe(0);
    const expected = createStoryStats();
    for (const f of files) for (const row of parseClutrrCsv(readFileSync(f, 'utf8'))) expected.add(row);
    const line = lastLine(io.out)!;
    expect(line).toMatch(CONTRACT);
    expect(line).toBe(storyStatsLine(expected.result()));
    expect(line.startsWith('rows=80 ')).toBe(true);
    for (const f of files) expect(io.out).toContain(`${f}: rows=`);
  });

  it('rejects a malformed file with the same file, row and column as check', async () => {
    const dir = tmp();
    const file = path.join(dir, 'bad.csv');
    const lines = readFileSync(`${FIXTURES}/stats-hand.csv`, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('"[(0, 1), (1, 2)]"', '"[(0, 1), (1, 2"');
    writeFileSync(file, lines.join('\n'));
    expect(await main(['stats', file])).toBe(1);
    const statsErr = io.err;
    io.err = '';
    expect(await main(['check', file])).toBe(1);
    expect(statsErr).toBe(io.err.replace('clutrr check:', 'clutrr stats:'));
    expect(statsErr).toMatch(/bad\.csv, row 2, column story_edges/);

    io.err = '';
    expect(await main(['stats', '/nonexistent/file.csv'])).toBe(1);
    expect(io.err).toMatch(/cannot read \/nonexistent\/file.csv: no such file/);
  });

  it('asks for a file, and --help states the definitions and the last line', async () => {
    expect(await main(['stats'])).toBe(2);
    expect(io.err).toMatch(/name at least one CSV file/);
    expect(await main(['stats', '--help'])).toBe(0);
    expect(io.out).toContain('rows=<n> tau=<x.xxx> words_per_fact=<x.xx> first_is_q0=<x.xxx> last_word_acc=<x.xxx>');
    expect(io.out).toMatch(/mean of per-row ratios/);
    expect(io.out).toMatch(/Kendall tau-a/);
  });
});
