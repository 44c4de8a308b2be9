import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClutrrCsv, writeClutrrCsv } from '../src/core/formats/clutrrCsv';
import type { ClutrrRow } from '../src/core/formats/clutrrRow';
import { parseWord, PRED_CODE } from '../src/core/kinship/relations';
import { DEFAULT_PATH_LIMIT, derive } from '../src/core/reasoning/solver';
import { main } from './main';
import { captureOutput } from './testOutput';

const io = captureOutput();

const tmp = () => mkdtempSync(path.join(tmpdir(), 'clutrr-cli-'));
const lastLine = (s: string) => s.trim().split('\n').at(-1);

/** Rows that strict mode would reject: the sound rules alone derive nothing for the query. */
const strictRejects = (rows: readonly ClutrrRow[]): number =>
  rows.filter((r) => {
    const facts = r.edgeTypes.map((w, i) => ({
      from: r.storyEdges[i]![0],
      to: r.storyEdges[i]![1],
      predicate: PRED_CODE[parseWord(w)!.predicate],
    }));
    return derive(r.genders.length, facts, r.queryEdge[0], r.queryEdge[1], DEFAULT_PATH_LIMIT, true).mask === 0;
  }).length;

describe('generate', () => {
  it('writes the dataset folder with exact row counts, and check finds every row entailed', async () => {
    const dir = tmp();
    const code = await main([
      'generate',
      '--train-tasks',
      '1.2,2.3',
      '--test-tasks',
      '1.2,3.3,4.4,5.3,6.3,7.2',
      '--train-rows',
      '40',
      '--test-rows',
      '9',
      '--holdout',
      '--equal',
      '--seed',
      '7',
      '--out',
      dir,
    ]);
    expect(io.err).toBe('');
    expect(code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(
      [
        '1.2,2.3_train.csv',
        '1.2_test.csv',
        '3.3_test.csv',
        '4.4_test.csv',
        '5.3_test.csv',
        '6.3_test.csv',
        '7.2_test.csv',
        'config.json',
      ].sort(),
    );
    const train = parseClutrrCsv(readFileSync(path.join(dir, '1.2,2.3_train.csv'), 'utf8'));
    expect(train).toHaveLength(80);
    expect(train.filter((r) => r.taskName === 'task_2.3')).toHaveLength(40);
    const noisy = train.find((r) => r.taskName === 'task_2.3')!;
    expect(noisy.edgeTypes.length).toBe(noisy.storyEdges.length); // every edge typed, noise included
    expect(noisy.story).toMatch(/\[\w+\]/);
    const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({ seed: '7', train_rows: 40, test_rows: 9, holdout: 0.1, equal: true });

    io.out = '';
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.csv'))
      .map((f) => path.join(dir, f));
    expect(await main(['check', ...files])).toBe(0);
    // Our own rows: the assumed ones are exactly those strict mode rejects, and all are possible.
    const assumed = strictRejects(files.flatMap((f) => parseClutrrCsv(readFileSync(f, 'utf8'))));
    expect(assumed).toBeGreaterThan(0);
    expect(lastLine(io.out)).toBe(`rows=134 entailed=134 ambiguous=0 unsupported=0 assumed=${assumed} impossible=0`);
    expect(io.out.trim().split('\n')).toHaveLength(files.length + 1);
  });

  it('is reproducible: the same flags write the same bytes', async () => {
    const a = tmp();
    const b = tmp();
    const flags = [
      '--train-tasks',
      '1.3',
      '--test-tasks',
      '2.4',
      '--train-rows',
      '25',
      '--test-rows',
      '5',
      '--seed',
      'x',
    ];
    await main(['generate', ...flags, '--out', a]);
    await main(['generate', ...flags, '--out', b]);
    for (const f of readdirSync(a))
      expect(readFileSync(path.join(a, f), 'utf8')).toBe(readFileSync(path.join(b, f), 'utf8'));
  });

  it('round-trips export → import → export byte for byte', async () => {
    const dir = tmp();
    await main([
      'generate',
      '--train-tasks',
      '5.4',
      '--test-tasks',
      '6.3',
      '--train-rows',
      '30',
      '--test-rows',
      '5',
      '--out',
      dir,
    ]);
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.csv'))) {
      const text = readFileSync(path.join(dir, f), 'utf8');
      expect(writeClutrrCsv(parseClutrrCsv(text, f))).toBe(text);
    }
  });

  it('refuses impossible settings with a message and a non-zero status', async () => {
    const cases: [string[], RegExp][] = [
      [['--train-tasks', '1.60'], /k in "1.60" must be a whole number from 1 to 10/],
      [['--train-tasks', '1.10', '--test-tasks', '1.10', '--max-levels', '1'], /k = 10 needs 11 different people/],
      [['--min-child', '0', '--max-child', '0'], /max-child is 0/],
      [
        ['--train-tasks', '1.3', '--test-tasks', '1.3', '--patterns', 'husband-son-grandmother'],
        /ambiguous under the rule base \(mother or mother-in-law\)/,
      ],
      [
        ['--train-tasks', '1.3', '--test-tasks', '1.3', '--patterns', 'son-*-cousin'],
        /"cousin" is not a relation word/,
      ],
      [['--train-tasks', '1.3', '--patterns', 'son-*-aunt'], /no pattern has 2 relation words/],
      [['--train-tasks', '9.3'], /task 9 in "9.3" is not one of 1–7/],
      [['--train-rows', 'many'], /--train-rows must be a whole number/],
      [['--bogus'], /unknown flag --bogus/],
      [['--p-marry', '2'], /p-marry must be between 0 and 1/],
    ];
    for (const [flags, message] of cases) {
      io.err = '';
      const code = await main([
        'generate',
        '--train-rows',
        '3',
        '--test-rows',
        '1',
        '--test-tasks',
        '1.2',
        ...flags,
        '--out',
        tmp(),
      ]);
      expect(code, flags.join(' ')).not.toBe(0);
      expect(io.err, flags.join(' ')).toMatch(message);
      expect(io.err).not.toMatch(/\n\s+at /); // no stack trace
    }
    io.err = '';
    expect(await main(['generate'])).toBe(2);
    expect(io.err).toMatch(/--out DIR is required/);
  });
});

describe('check', () => {
  it('names the file, row and column of a malformed row', async () => {
    const dir = tmp();
    await main([
      'generate',
      '--train-tasks',
      '1.2',
      '--test-tasks',
      '1.2',
      '--train-rows',
      '3',
      '--test-rows',
      '1',
      '--out',
      dir,
    ]);
    const file = path.join(dir, '1.2_train.csv');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('"[(0, 1), (1, 2)]"', '"[(0, 1), (1, 2"');
    writeFileSync(file, lines.join('\n'));
    io.err = '';
    expect(await main(['check', file])).toBe(1);
    expect(io.err).toContain(file);
    expect(io.err).toMatch(/row 2/);
    expect(io.err).toMatch(/column story_edges/);
    expect(io.err).not.toMatch(/\n\s+at /);
  });

  it('reports unreadable files and unknown relation words clearly', async () => {
    expect(await main(['check', '/nonexistent/file.csv'])).toBe(1);
    expect(io.err).toMatch(/cannot read \/nonexistent\/file.csv: no such file/);
    const dir = tmp();
    await main([
      'generate',
      '--train-tasks',
      '1.2',
      '--test-tasks',
      '1.2',
      '--train-rows',
      '2',
      '--test-rows',
      '1',
      '--out',
      dir,
    ]);
    const file = path.join(dir, '1.2_test.csv');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/"\['(\w+)', /, `"['cousin', `));
    io.err = '';
    expect(await main(['check', file])).toBe(1);
    expect(io.err).toMatch(/row 1, column edge_types: "cousin" \(item 1\) is not a CLUTRR relation word/);
  });

  it('counts ambiguous and unsupported rows, and --list names them', async () => {
    const dir = tmp();
    await main([
      'generate',
      '--train-tasks',
      '1.3',
      '--test-tasks',
      '1.3',
      '--train-rows',
      '2',
      '--test-rows',
      '2',
      '--out',
      dir,
    ]);
    const file = path.join(dir, '1.3_test.csv');
    const rows = parseClutrrCsv(readFileSync(file, 'utf8'));
    // Row 1 becomes husband-son-grandmother (two answers); row 2 gets a wrong label.
    const ambiguous = {
      ...rows[0]!,
      edgeTypes: ['husband', 'son', 'grandmother'],
      genders: rows[0]!.genders.map((g, i) => ({ ...g, gender: ['female', 'male', 'male', 'female'][i]! })),
      target: 'mother',
    };
    const wrong = { ...rows[1]!, target: rows[1]!.target === 'uncle' ? 'aunt' : 'uncle' };
    writeFileSync(file, writeClutrrCsv([ambiguous, wrong]));
    io.out = '';
    await main(['check', '--list', file]);
    expect(lastLine(io.out)).toBe('rows=2 entailed=0 ambiguous=1 unsupported=1 assumed=0 impossible=0');
    expect(io.out).toContain(`${ambiguous.id} ambiguous`);
    expect(io.out).toContain(`${wrong.id} unsupported`);
  });
});

describe('help', () => {
  it('prints --help for every subcommand', async () => {
    for (const cmd of ['generate', 'check', 'bench', 'templates']) {
      io.out = '';
      expect(await main([cmd, '--help'])).toBe(0);
      expect(io.out).toMatch(/usage: npm run cli -- /);
    }
  });

  it('runs through npm run cli (the esbuild bundle)', () => {
    const r = spawnSync('node', ['scripts/cli.mjs', 'check', '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/rows=<n> entailed=<n> ambiguous=<n> unsupported=<n> assumed=<n> impossible=<n>/);
  });

  it('bench runs generate end to end as its own process and reports its rate and memory, and at k = 3 its ratio to the original', () => {
    const r = spawnSync(
      'node',
      [
        ...['scripts/cli.mjs', 'bench', '--pipeline-rows', '300', '--by-k-rows', '300', '--max-k', '3'],
        ...['--profile-rows', '0', '--ms', '20'],
      ],
      { encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^ {2}300 rows: [\d,]+ rows\/s end to end \([\d.]+ s\), peak RSS \d+ MB$/m);
    expect(r.stdout).toMatch(/^ {2}k = {2}2: 300 rows: [\d,]+ rows\/s end to end \([\d.]+ s\), peak RSS \d+ MB$/m);
    // Node's own start, and without NODE_EXTRA_CA_CERTS exactly when the environment sets it.
    const start =
      /^ {2}node's own start \(node -e 0, median of 5\): (\d+) ms(?:; (\d+) ms without NODE_EXTRA_CA_CERTS, .*)?$/m.exec(
        r.stdout,
      );
    expect(start).not.toBeNull();
    expect(Number(start![1])).toBeGreaterThan(0);
    expect(start![2] === undefined).toBe(!process.env.NODE_EXTRA_CA_CERTS);
    const k3 =
      /^ {2}k = {2}3: 300 rows: ([\d,]+) rows\/s .*; (\d+)–(\d+)× the original generator's 26\.8–27\.1 rows\/s/m.exec(
        r.stdout,
      );
    expect(k3).not.toBeNull();
    // The printed rate is rounded: the ratios are those of a rate within half a row a second of it.
    const rate = Number(k3![1]!.replace(/,/g, ''));
    expect(Number(k3![2])).toBeGreaterThanOrEqual(Math.round((rate - 0.5) / 27.1));
    expect(Number(k3![2])).toBeLessThanOrEqual(Math.round((rate + 0.5) / 27.1));
    expect(Number(k3![3])).toBeGreaterThanOrEqual(Math.round((rate - 0.5) / 26.8));
    expect(Number(k3![3])).toBeLessThanOrEqual(Math.round((rate + 0.5) / 26.8));
    // Beside a k with the original's figure, the engine's own whole-process time (its floor) and
    // what 1,000× the original allows the whole run: 300 rows at 27.1 and 26.8 rows/s × 1,000.
    expect(r.stdout).toMatch(
      /^ {2}k = {2}3: 300 rows: .*\n {2}k = {2}3: the engine alone \(the puzzles of those rows on one thread; no story, CSV or file\): [\d.]+ s end to end; 1,000× the original's rate allows 0\.01–0\.01 s for the whole run$/m,
    );
    expect(r.stdout).not.toMatch(/k = {2}2: the engine alone/);
  }, 60_000);

  it('bench --engine-run makes the puzzles of a by-k run and nothing else, and refuses a k it cannot', () => {
    const run = (...args: string[]) => spawnSync('node', ['scripts/cli.mjs', 'bench', ...args], { encoding: 'utf8' });
    const r = run('--engine-run', '4', '--by-k-rows', '50');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // Task 1 puzzles tell their k path facts and no others.
    expect(r.stdout).toBe('puzzles=50 facts=200\n');
    const bad = run('--engine-run', '11');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--engine-run must be a whole number from 2 to 10 \(got 11\)/);
  }, 60_000);
});

describe('generate: story text', () => {
  it('writes paraphrased stories by default and plain ones with --synthetic', async () => {
    const para = tmp();
    const plain = tmp();
    const flags = ['--train-tasks', '1.3', '--test-tasks', '1.3', '--train-rows', '20', '--test-rows', '5'];
    expect(await main(['generate', ...flags, '--out', para])).toBe(0);
    expect(await main(['generate', ...flags, '--synthetic', '--out', plain])).toBe(0);
    const stories = (dir: string) =>
      parseClutrrCsv(readFileSync(path.join(dir, '1.3_train.csv'), 'utf8')).map((r) => r.story);
    const plainSentence = /^\[\w+\](?:'s [a-z-]+ is \[\w+\]| is the [a-z-]+ of \[\w+\])\.$/;
    for (const s of stories(plain)) for (const sentence of s.split(/(?<=\.) /)) expect(sentence).toMatch(plainSentence);
    expect(stories(para).some((s) => s.split(/(?<=\.) /).some((x) => !plainSentence.test(x)))).toBe(true);
    expect(JSON.parse(readFileSync(path.join(para, 'config.json'), 'utf8'))).toMatchObject({
      text: 'paraphrase',
      combination_length: 3,
    });
  });

  it('refuses bad text flags and unreadable template files with a message', async () => {
    const cases: [string[], RegExp][] = [
      [['--combination-length', '4'], /--combination-length must be 1, 2 or 3/],
      [['--templates', '/nonexistent/bank.json'], /cannot read template file \/nonexistent\/bank.json/],
      [['--synthetic', '--template-split'], /--synthetic writes plain sentences/],
    ];
    for (const [flags, message] of cases) {
      io.err = '';
      expect(await main(['generate', '--train-rows', '2', '--test-rows', '1', ...flags, '--out', tmp()])).not.toBe(0);
      expect(io.err).toMatch(message);
    }
  });
});

describe('generate --templates: a file with no usable template', () => {
  it('is refused before anything is written, in the words the app uses', async () => {
    const dir = tmp();
    const empty = path.join(dir, 'empty.json');
    writeFileSync(empty, '{}');
    const target = path.join(dir, 'out');
    const flags = ['--train-tasks', '1.2', '--test-tasks', '1.2', '--train-rows', '4', '--test-rows', '2'];
    expect(await main(['generate', ...flags, '--templates', empty, '--out', target])).toBe(1);
    expect(io.err).toContain(`${empty} holds no usable template`);
    expect(readdirSync(dir)).toEqual(['empty.json']);
  });
});
