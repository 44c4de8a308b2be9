import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FORM, readDatasetForm } from '../src/features/dataset/form';
import { parseClutrrCsv } from '../src/core/formats/clutrrCsv';
import { CHOICE_WORDS, parseJsonl } from '../src/core/formats/jsonl';
import { main } from './main';
import { captureOutput } from './testOutput';

/**
 * `generate` with what people really do: runs into a used folder, Ctrl-C in the middle of a
 * write, bad --out, duplicate tasks, relative paths from a subfolder, absurd seeds.
 */
const io = captureOutput();

const tmp = () => mkdtempSync(path.join(tmpdir(), 'clutrr-gen-'));
const SMALL = ['--train-tasks', '1.2', '--train-rows', '8', '--test-rows', '3', '--seed', 's'];
const contents = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]),
  );
const leftovers = (parent: string) => readdirSync(parent).filter((f) => f.startsWith('.'));

describe('generate writes a folder whole or not at all', () => {
  it('a used dataset folder ends up holding exactly the new run’s files', async () => {
    const parent = tmp();
    const dir = path.join(parent, 'data');
    expect(await main(['generate', ...SMALL, '--test-tasks', '1.2,1.4', '--out', dir])).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['1.2_test.csv', '1.2_train.csv', '1.4_test.csv', 'config.json']);
    expect(await main(['generate', ...SMALL, '--test-tasks', '1.3', '--out', dir])).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['1.2_train.csv', '1.3_test.csv', 'config.json']);
    expect(JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')).test_tasks).toBe('1.3');
    expect(leftovers(parent)).toEqual([]);
  });

  it('refuses a folder holding other things, and a file, before generating anything', async () => {
    const parent = tmp();
    const mine = path.join(parent, 'mine');
    mkdirSync(mine);
    writeFileSync(path.join(mine, 'notes.txt'), 'keep me');
    expect(await main(['generate', ...SMALL, '--out', mine])).toBe(2);
    expect(io.err).toMatch(/--out .*mine already holds other things \(notes\.txt\)/);
    expect(readdirSync(mine)).toEqual(['notes.txt']);
    io.err = '';
    const file = path.join(parent, 'file.csv');
    writeFileSync(file, 'x');
    // A run big enough to notice if it were generated first: the refusal comes before any row.
    expect(await main(['generate', '--train-rows', '5000000', '--out', file])).toBe(2);
    expect(io.err).toMatch(/--out .*file\.csv is a file, not a folder/);
    expect(io.out).toBe('');
    expect(leftovers(parent)).toEqual([]);
  });

  it('Ctrl-C in the middle of the write leaves the old complete folder, and no temporary one', async () => {
    const parent = tmp();
    const dir = path.join(parent, 'data');
    const bundle = ['scripts/cli.mjs', 'generate', '--train-tasks', '1.2', '--test-tasks', '1.2', '--seed', 'old'];
    const first = spawnSync('node', [...bundle, '--train-rows', '20', '--test-rows', '5', '--out', dir], {
      encoding: 'utf8',
    });
    expect(first.status).toBe(0);
    const before = contents(dir);
    const child = spawn(
      'node',
      [
        ...bundle.slice(0, -2),
        '--seed',
        'new',
        '--train-rows',
        '400000',
        '--test-rows',
        '5',
        '--workers',
        '2',
        '--out',
        dir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // Wait until the new train file is being written in the temporary folder, then interrupt.
    const partial = () => leftovers(parent).find((f) => f.startsWith('.data.partial-'));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const p = partial();
      const train = p ? path.join(parent, p, '1.2_train.csv') : '';
      if (train && existsSync(train) && readFileSync(train, 'utf8').split('\n').length > 100) break;
      if (Date.now() > deadline) throw new Error('the run never started writing');
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/interrupted; .*data was left as it was/);
    expect(contents(dir)).toEqual(before);
    expect(leftovers(parent)).toEqual([]);
  }, 60_000);

  it('a new folder interrupted mid-write does not appear at all', async () => {
    const parent = tmp();
    const dir = path.join(parent, 'fresh');
    const child = spawn(
      'node',
      ['scripts/cli.mjs', 'generate', '--train-tasks', '1.2', '--train-rows', '400000', '--out', dir],
      { stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 30_000;
    while (!leftovers(parent).some((f) => f.startsWith('.fresh.partial-'))) {
      if (Date.now() > deadline) throw new Error('the run never started');
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(existsSync(dir)).toBe(false);
    expect(leftovers(parent)).toEqual([]);
  }, 60_000);
});

describe('generate in worker threads', () => {
  it('writes the same bytes with 3 threads, a puzzle thread, or two worker threads while this one writes, as in one thread (the bundle runs the threads)', () => {
    const parent = tmp();
    const run = (...workers: string[]) => {
      const dir = path.join(parent, `w${workers.join('')}`);
      const r = spawnSync(
        'node',
        [
          'scripts/cli.mjs',
          'generate',
          '--train-tasks',
          '1.2,2.3',
          '--test-tasks',
          '1.3,4.3',
          '--train-rows',
          '1300',
          '--test-rows',
          '700',
          '--equal',
          '--seed',
          'threads',
          '--workers',
          ...workers,
          '--out',
          dir,
        ],
        { encoding: 'utf8' },
      );
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      return contents(dir);
    };
    const one = run('1');
    expect(Object.keys(one)).toHaveLength(4);
    expect(run('3')).toEqual(one);
    expect(run('1', '--puzzle-thread')).toEqual(one);
    expect(run('2', '--writer-thread')).toEqual(one);
  }, 120_000);
});

describe('generate refuses what the builder refuses, in the same words', () => {
  it.each([
    ['duplicate train tasks', { trainTasks: '1.2,1.2' }, ['--train-tasks', '1.2,1.2'], 'trainTasks'],
    ['duplicate test tasks', { testTasks: '1.3,1.4,1.3' }, ['--test-tasks', '1.3,1.4,1.3'], 'testTasks'],
    ['a seed too long for a link', { seed: 'x'.repeat(5000) }, ['--seed', 'x'.repeat(5000)], 'seed'],
    ['a bad number', { trainRows: '1e3x' }, ['--train-rows', '1e3x'], 'trainRows'],
    ['an impossible family', { minChild: '5', maxChild: '3' }, ['--min-child', '5', '--max-child', '3'], 'maxChild'],
  ] as const)('%s', async (_, form, flags, field) => {
    const reading = readDatasetForm({ ...DEFAULT_FORM, ...form });
    expect(reading.ok).toBe(false);
    const formMessage = reading.ok ? '' : reading.errors[field];
    const dir = path.join(tmp(), 'never');
    expect(await main(['generate', ...flags, '--out', dir])).toBe(2);
    expect(io.err).toBe(`clutrr generate: ${formMessage}\n`);
    expect(existsSync(dir)).toBe(false);
  });
});

describe('paths on the command line are the user’s', () => {
  it('npm run cli from a subfolder reads a relative path from that subfolder', async () => {
    const dir = path.join('test-results', `rel-${process.pid}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    expect(await main(['generate', ...SMALL, '--test-tasks', '1.2', '--out', path.join(dir, 'set')])).toBe(0);
    const r = spawnSync('npm', ['run', '-s', 'cli', '--', 'check', 'set/1.2_test.csv'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n').at(-1)).toMatch(
      /^rows=3 entailed=3 ambiguous=0 unsupported=0 assumed=[0-3] impossible=0$/,
    );
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});

describe('presets and story order', () => {
  it('--preset sets the released shape, flags given as well win, and config.json names a preset it matches', async () => {
    const dir = path.join(tmp(), 'p');
    const flags = ['--preset', 'emnlp-robust-clean', '--train-rows', '6', '--test-rows', '2', '--out', dir];
    expect(await main(['generate', ...flags])).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(
      [
        '1.2,1.3_train.csv',
        '1.2_test.csv',
        '1.3_test.csv',
        '2.3_test.csv',
        '3.3_test.csv',
        '4.3_test.csv',
        'config.json',
      ].sort(),
    );
    const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({ equal: true, train_rows: 6, test_rows: 2, story_order: 'shuffled' });
    // Rows changed from the preset's 5,000 and 100: the folder does not claim to be the preset.
    expect(config.preset).toBeUndefined();
    expect(await main(['generate', '--preset', 'emnlp-lost', '--out', dir])).toBe(2);
    expect(io.err).toMatch(/--preset "emnlp-lost" is not a preset; the presets are emnlp-systematic, /);
  });

  it('--story-order path tells each story, and its clean story, in path order', async () => {
    const dir = path.join(tmp(), 'o');
    const flags = ['--train-tasks', '1.4', '--test-tasks', '1.2', '--train-rows', '30', '--test-rows', '2'];
    expect(await main(['generate', ...flags, '--story-order', 'path', '--combination-length', '1', '--out', dir])).toBe(
      0,
    );
    const rows = parseClutrrCsv(readFileSync(path.join(dir, '1.4_train.csv'), 'utf8'));
    for (const r of rows) {
      // Path order: sentence i tells fact i, between path people i and i + 1 (entities are
      // numbered along the path, so genders lists them in that order).
      const sentences = r.story.split(/(?<=[.!?])\s+(?=\[|[A-Z])/);
      expect(sentences).toHaveLength(4);
      sentences.forEach((s, i) => {
        expect(s).toContain(`[${r.genders[i]!.name}]`);
        expect(s).toContain(`[${r.genders[i + 1]!.name}]`);
      });
      expect(r.cleanStory).toBe(r.story);
    }
    expect(JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')).story_order).toBe('path');
    expect(await main(['generate', ...flags, '--story-order', 'random', '--out', dir])).toBe(2);
    expect(io.err).toMatch(/--story-order must be shuffled or path \(got "random"\)/);
  });
});

describe('--labels clutrr', () => {
  it("writes CLUTRR's labels: config.json records it, check finds every row entailed and names the assumed ones", async () => {
    const dir = path.join(tmp(), 'c');
    const flags = ['--train-tasks', '1.2,1.3', '--test-tasks', '1.3', '--train-rows', '300', '--test-rows', '0'];
    expect(await main(['generate', ...flags, '--labels', 'clutrr', '--synthetic', '--out', dir])).toBe(0);
    const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'));
    expect(config.labels).toBe('clutrr');
    io.out = '';
    expect(await main(['check', '--list', path.join(dir, '1.2,1.3_train.csv')])).toBe(0);
    const last = io.out.trim().split('\n').at(-1)!;
    const m = /^rows=600 entailed=600 ambiguous=0 unsupported=0 assumed=(\d+) impossible=(\d+)$/.exec(last);
    expect(m, last).not.toBeNull();
    const [assumed, impossible] = [Number(m![1]), Number(m![2])];
    // At k = 2, the eight patterns child-uncle/aunt/grandparent need an assumption rule.
    const rows = parseClutrrCsv(readFileSync(path.join(dir, '1.2,1.3_train.csv'), 'utf8'));
    const k2 = rows.filter((r) => /^(son|daughter)-(uncle|aunt|grandfather|grandmother)$/.test(r.fComb)).length;
    expect(k2).toBeGreaterThan(0);
    expect(assumed).toBeGreaterThan(k2);
    expect(impossible).toBeGreaterThan(0);
    expect(impossible).toBeLessThan(assumed);
    const listed = io.out.split('\n').filter((l) => / entailed, assumed \(/.test(l));
    expect(listed).toHaveLength(assumed);
    expect(listed.filter((l) => l.includes('(true in no family)'))).toHaveLength(impossible);
    expect(listed.some((l) => l.endsWith("my child's grandparent is my parent"))).toBe(true);
    expect(listed.some((l) => l.endsWith("my child's uncle or aunt is my sibling"))).toBe(true);

    // The default labels of the same flags: nothing true in no family.
    const ours = path.join(tmp(), 'f');
    expect(await main(['generate', ...flags, '--synthetic', '--out', ours])).toBe(0);
    expect(JSON.parse(readFileSync(path.join(ours, 'config.json'), 'utf8'))).not.toHaveProperty('labels');
    io.out = '';
    expect(await main(['check', path.join(ours, '1.2,1.3_train.csv')])).toBe(0);
    expect(io.out.trim().split('\n').at(-1)).toMatch(
      /^rows=600 entailed=600 ambiguous=0 unsupported=0 assumed=\d+ impossible=0$/,
    );
  }, 60_000);

  it('is refused with --strict, and an unknown source is named', async () => {
    io.err = '';
    expect(await main(['generate', ...SMALL, '--strict', '--labels', 'clutrr', '--out', path.join(tmp(), 'x')])).toBe(
      2,
    );
    expect(io.err).toMatch(/--strict and --labels clutrr cannot be combined/);
    io.err = '';
    expect(await main(['generate', ...SMALL, '--labels', 'released', '--out', path.join(tmp(), 'y')])).toBe(2);
    expect(io.err).toMatch(/--labels must be family or clutrr \(got "released"\)/);
  });
});

describe('generate says where its facts were told from (--templates, --templates-only)', () => {
  // A template file with a few single-fact paraphrases: most facts of a story have none.
  const templateFile = () => {
    const file = path.join(tmp(), 'few.json');
    writeFileSync(
      file,
      JSON.stringify({
        sister: {
          'male-female': [
            'ENT_1_female is the sister of ENT_0_male.',
            'ENT_0_male went out with his sister ENT_1_female.',
          ],
          'female-female': ['ENT_0_female and her sister ENT_1_female talked.'],
        },
        brother: { 'female-male': ["ENT_1_male is ENT_0_female's brother."] },
      }),
    );
    return file;
  };
  const flags = [
    '--train-tasks',
    '1.3',
    '--test-tasks',
    '1.3',
    '--train-rows',
    '60',
    '--test-rows',
    '6',
    '--seed',
    'tpl',
  ];

  it('--templates FILE prints how many facts the file, the bank and plain sentences told, and config.json records them', async () => {
    const dir = path.join(tmp(), 'd');
    expect(await main(['generate', ...flags, '--templates', templateFile(), '--out', dir])).toBe(0);
    const m =
      /^clutrr generate: facts told: (\d+) by the template file \([\d.]+%\), 0 by the bank, (\d+) by plain sentences \([\d.]+%\)$/m.exec(
        io.err,
      );
    expect(m, io.err).not.toBeNull();
    const [file, plain] = [Number(m![1]), Number(m![2])];
    // Task 1.3: three facts a row, 66 rows; every one told once.
    expect(file + plain).toBe(66 * 3);
    expect(file).toBeGreaterThan(0);
    expect(plain).toBeGreaterThan(file);
    const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'));
    expect(config.facts_told).toEqual({ template_file: file, bank: 0, plain });
    // The plain sentences are really in the stories.
    const rows = parseClutrrCsv(readFileSync(path.join(dir, '1.3_train.csv'), 'utf8'));
    expect(rows.some((r) => /\[\w+\]'s \w+ is \[\w+\]\.|\[\w+\] is the \w+ of \[\w+\]\./.test(r.story))).toBe(true);
  });

  it('our bank tells every fact: config.json records it, and stderr stays quiet', async () => {
    const dir = path.join(tmp(), 'b');
    expect(await main(['generate', ...flags, '--out', dir])).toBe(0);
    expect(io.err).toBe('');
    expect(JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')).facts_told).toEqual({
      template_file: 0,
      bank: 66 * 3,
      plain: 0,
    });
  });

  it('--templates-only refuses to fall back, naming the first fact without a template, and writes nothing', async () => {
    const dir = path.join(tmp(), 'refused');
    expect(await main(['generate', ...flags, '--templates', templateFile(), '--templates-only', '--out', dir])).toBe(1);
    expect(io.err).toMatch(
      /^clutrr generate: row 0 \(id [0-9a-f-]+, task 1\.3\): .*few\.json has no template for the fact "\[\w+\]'s \w+ is \[\w+\]\." \(relation [\w-]+, genders (male|female)-(male|female)\), and falling back to a plain sentence is refused \(--templates-only\)$/m,
    );
    expect(existsSync(dir)).toBe(false);
    // With our bank, which tells every fact, the same flag passes.
    io.err = '';
    const ok = path.join(tmp(), 'ok');
    expect(await main(['generate', ...flags, '--templates-only', '--out', ok])).toBe(0);
    expect(io.err).toMatch(
      /^clutrr generate: facts told: 0 by the template file, 198 by the bank \(100\.0%\), 0 by plain sentences$/m,
    );
    expect(JSON.parse(readFileSync(path.join(ok, 'config.json'), 'utf8')).templates_only).toBe(true);
    io.err = '';
    expect(await main(['generate', ...flags, '--templates-only', '--synthetic', '--out', ok])).toBe(2);
    expect(io.err).toMatch(/--templates-only asks for paraphrases only; --synthetic writes plain sentences/);
  });
});

describe('generate --format jsonl', () => {
  it('writes one object a row beside what the CSV holds: id, k, task, story, question, answer, the 18 choices', async () => {
    const flags = [
      '--train-tasks',
      '1.2,2.3',
      '--test-tasks',
      '1.4',
      '--train-rows',
      '25',
      '--test-rows',
      '5',
      '--seed',
      'j',
    ];
    const csvDir = path.join(tmp(), 'csv');
    const jsonDir = path.join(tmp(), 'jsonl');
    expect(await main(['generate', ...flags, '--out', csvDir])).toBe(0);
    expect(await main(['generate', ...flags, '--format', 'jsonl', '--out', jsonDir])).toBe(0);
    expect(readdirSync(jsonDir).sort()).toEqual(['1.2,2.3_train.jsonl', '1.4_test.jsonl', 'config.json']);
    expect(io.out).toMatch(/wrote .*1\.4_test\.jsonl$/m);
    expect(JSON.parse(readFileSync(path.join(jsonDir, 'config.json'), 'utf8')).format).toBe('jsonl');
    for (const [csvName, jsonName] of [
      ['1.2,2.3_train.csv', '1.2,2.3_train.jsonl'],
      ['1.4_test.csv', '1.4_test.jsonl'],
    ]) {
      const csv = parseClutrrCsv(readFileSync(path.join(csvDir, csvName!), 'utf8'));
      const text = readFileSync(path.join(jsonDir, jsonName!), 'utf8');
      expect(text.endsWith('}\n')).toBe(true);
      const rows = parseJsonl(text);
      expect(rows).toHaveLength(csv.length);
      rows.forEach((r, i) => {
        const c = csv[i]!;
        expect(Object.keys(r)).toEqual(['id', 'k', 'task', 'story', 'question', 'answer', 'choices']);
        expect([r.id, r.story, r.answer, `task_${r.task}.${r.k}`]).toEqual([c.id, c.story, c.target, c.taskName]);
        expect(r.question).toContain(`[${c.query[1]}]`);
        expect(r.choices).toEqual(CHOICE_WORDS);
        expect(r.choices).toHaveLength(18);
      });
    }
    expect(await main(['generate', ...flags, '--format', 'xml', '--out', path.join(tmp(), 'x')])).toBe(2);
    expect(io.err).toMatch(/--format must be csv or jsonl \(got "xml"\)/);
  });
});
