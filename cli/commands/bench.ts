import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PRED_CODE } from '../../src/core/kinship/relations';
import { COMPOSE_SOUND, COMPOSE_STRIDE } from '../../src/core/kinship/rules';
import { recordMaker, taskRowNumbers } from '../../src/core/puzzle/dataset';
import { DEFAULT_DATASET_VALUES, readDatasetOptions } from '../../src/core/puzzle/datasetOptions';
import { generatePuzzle, type Puzzle } from '../../src/core/puzzle/puzzle';
import { bit, DEFAULT_PATH_LIMIT, derive } from '../../src/core/reasoning/solver';
import { TASK_IDS, type TaskId } from '../../src/core/puzzle/tasks';
import { formatCount } from '../../src/core/util/format';
import { median } from '../../src/study/results/stats';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { UsageError } from '../errors';
import { type CpuProfile, profileStages, STAGE_HELP, STAGES } from '../profileStages';
import { defaultThreadPlan } from '../rowThreads';

const FLAGS: Record<string, FlagSpec> = {
  ms: { type: 'integer', help: 'time spent on each (k, task) cell, in milliseconds', default: 800 },
  'max-k': { type: 'integer', help: 'largest k to measure', default: 10 },
  'pipeline-rows': {
    type: 'string',
    help: 'row counts of the end-to-end generate runs, comma-separated (empty: none)',
    default: '30000,300000',
  },
  'by-k-rows': {
    type: 'integer',
    help: 'rows of the end-to-end generate run of task 1.k for each k = 2..max-k (0: none)',
    default: 30000,
  },
  'profile-rows': {
    type: 'integer',
    help: 'rows of the profiled generate runs (one thread, node --cpu-prof) that give the share of each stage (0: none)',
    default: 30000,
  },
  'profile-k': {
    type: 'string',
    help: 'the k of each profiled run, comma-separated',
    default: '3,6',
  },
  'strict-report': {
    type: 'boolean',
    help: 'instead of timing: for k = 2..max-k, the share of non-strict task 1 puzzles that strict mode rejects',
  },
  'report-puzzles': { type: 'integer', help: 'puzzles per k for --strict-report', default: 2000 },
  'engine-run': {
    type: 'integer',
    help: 'instead of timing: make the puzzles of by-k-rows rows of task 1.<n> as generate would, on one thread, with no story, CSV or file, and exit (the run bench times beside its by-k lines)',
  },
};

const HELP = helpText(
  'usage: npm run cli -- bench [options]',
  'Measures the whole pipeline first: `generate` of paraphrased task 1.3 datasets of each\npipeline-rows size, run as its own process (rows per second end to end, from process start to\nexit, and its peak RSS, worker threads included), then of task 1.k for each k (by-k-rows), with\nthe engine alone beside k = 3 and 6 (the same puzzles in a process of its own). Then where the\ntime goes: profiled runs on one thread, the share of each stage (family, closure, puzzle, text,\nCSV, collector) and the functions with the most self time. Then the engine alone, on one core\n(this process): puzzles generated per second for k = 2..max-k and each task.',
  FLAGS,
);

/** Puzzles per second for one setting, over about `ms` milliseconds after a short warm-up. */
function rate(k: number, task: TaskId, ms: number): number {
  for (let i = 0; i < 50; i++) generatePuzzle({ seed: `warm-${i}`, k, task });
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    for (let i = 0; i < 20; i++) generatePuzzle({ seed: `bench-${k}-${task}-${n++}`, k, task });
    t = performance.now();
  }
  return (n * 1000) / (t - t0);
}

export async function benchCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { flags } = parseArgs('bench', argv, FLAGS);
  const ms = flags.ms as number;
  const maxK = flags['max-k'] as number;
  const out = (s: string) => process.stdout.write(s + '\n');
  if (flags['strict-report']) {
    const n = flags['report-puzzles'] as number;
    if (n < 1) throw new UsageError(`--report-puzzles must be ≥ 1 (got ${n})`);
    strictReport(maxK, n, out);
    return 0;
  }
  if (flags['engine-run'] !== undefined) {
    out(engineRun(flags['engine-run'] as number, flags['by-k-rows'] as number));
    return 0;
  }

  const sizes = String(flags['pipeline-rows'])
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new UsageError(
      `--pipeline-rows must be whole numbers ≥ 1, comma-separated (got "${flags['pipeline-rows']}")`,
    );
  }
  if (sizes.length > 0) {
    out(
      `generate end to end (task 1.3, paraphrased; default row-making threads on ${availableParallelism()} cores: ${sizes.map((n) => `${threadsText(n)} for ${formatCount(n)} rows`).join(', ')}; node ${process.version})`,
    );
    for (const rows of sizes) out(pipelineRun(rows));
  }
  const byK = flags['by-k-rows'] as number;
  if (byK > 0) {
    out(`\ngenerate end to end by k (task 1.k, ${formatCount(byK)} rows, default threads: ${threadsText(byK)})`);
    out(nodeStartLine());
    for (let k = 2; k <= maxK; k++) {
      out(pipelineRun(byK, k));
      if (ORIGINAL_ROWS_PER_SECOND[k]) out(engineFloorLine(byK, k));
    }
  }
  const profileRows = flags['profile-rows'] as number;
  if (profileRows > 0) {
    const ks = String(flags['profile-k'])
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean)
      .map(Number);
    if (ks.some((k) => !Number.isInteger(k) || k < 2 || k > 10)) {
      throw new UsageError(
        `--profile-k must be whole numbers from 2 to 10, comma-separated (got "${flags['profile-k']}")`,
      );
    }
    for (const k of ks.filter((k) => k <= maxK)) for (const line of profiledRun(profileRows, k)) out(line);
  }

  out(`\npuzzles per second, engine alone, one core (node ${process.version}, ${ms} ms per cell)`);
  out(['k'.padStart(3), ...TASK_IDS.map((t) => `task ${t}`.padStart(9))].join(' '));
  for (let k = 2; k <= maxK; k++) {
    const cells = TASK_IDS.map((task) => rate(k, task, ms).toFixed(0).padStart(9));
    out([String(k).padStart(3), ...cells].join(' '));
  }
  out(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  return 0;
}

/** How a default run of `rows` rows shares its work among threads, in a few words. */
function threadsText(rows: number): string {
  const plan = defaultThreadPlan(rows);
  if (plan.puzzleThread) return '1 + a puzzle thread';
  if (plan.writerThread) return `${plan.makers} + a writer`;
  return String(plan.makers);
}

/**
 * The original Python generator's whole-process rows per second on this 2-core machine, by k, as
 * issue 34 measured them (300 rows of task 1.k, its set-up included; the highest and lowest of its
 * runs, lowest first): the yardstick of the by-k lines. The original is not part of this project, so not run here.
 */
const ORIGINAL_ROWS_PER_SECOND: Partial<Record<number, readonly [number, number]>> = {
  3: [26.8, 27.1],
  6: [38.2, 41.9],
};

/**
 * The command line's script (scripts/cli.mjs) this process runs, which bench starts again in child
 * processes; undefined when bench runs otherwise (the test runner's sources): those runs are skipped.
 */
function benchedCli(): string | undefined {
  const cli = process.argv[1] ?? '';
  return cli.endsWith(path.join('scripts', 'cli.mjs')) ? cli : undefined;
}

/**
 * One `generate` run in a child process, started as a user starts it (`node scripts/cli.mjs`,
 * without npm): rows per second from spawn to exit, and its peak RSS.
 */
function pipelineRun(rows: number, k?: number): string {
  const cli = benchedCli();
  const label = k === undefined ? formatCount(rows) : `k = ${String(k).padStart(2)}: ${formatCount(rows)}`;
  if (cli === undefined) {
    return `  ${label} rows: skipped (run through npm run bench, which runs scripts/cli.mjs)`;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'clutrr-bench-'));
  const out = path.join(dir, 'data');
  const task = `1.${k ?? 3}`;
  const args = ['generate', '--train-tasks', task, '--test-tasks', task, '--train-rows', String(rows)];
  // scripts/cli.mjs reads its command line from process.argv[2] on, and its top-level await ends
  // with the command; its exit status and this process's peak RSS then go to stderr's last line.
  const script = `await import(${JSON.stringify(pathToFileURL(cli).href)});
process.stderr.write('\\n' + JSON.stringify({ code: process.exitCode ?? 0, maxRSS: process.resourceUsage().maxRSS }) + '\\n');`;
  try {
    const t0 = performance.now();
    const r = spawnSync(
      process.execPath,
      ['--input-type=module', '-e', script, 'cli', ...args, '--test-rows', '0', '--seed', 'bench', '--out', out],
      { encoding: 'utf8' },
    );
    const secs = (performance.now() - t0) / 1000;
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    const report = (last.startsWith('{') ? JSON.parse(last) : {}) as { code?: number; maxRSS?: number };
    if (r.status !== 0 || report.code !== 0) {
      return `  ${label} rows: failed (${r.stderr.trim().split('\n')[0] || `exit ${r.status}`})`;
    }
    const perSecond = rows / secs;
    const rate = formatCount(Math.round(perSecond));
    const original = k === undefined ? undefined : ORIGINAL_ROWS_PER_SECOND[k];
    const times = original
      ? `; ${Math.round(perSecond / original[1])}–${Math.round(perSecond / original[0])}× the original generator's ${original.join('–')} rows/s (issue 34, not run here)`
      : '';
    return `  ${label} rows: ${rate} rows/s end to end (${secs.toFixed(2)} s), peak RSS ${Math.round((report.maxRSS ?? 0) / 1024)} MB${times}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The puzzles of `rows` rows of task 1.k, made as `generate` makes them (the same seeds, options
 * and engine), on this thread, with no story, CSV or file: what `bench --engine-run k` does in a
 * process of its own. Returns a line that shows the work was done (puzzles and facts).
 */
function engineRun(k: number, rows: number): string {
  if (!Number.isInteger(k) || k < 2 || k > 10)
    throw new UsageError(`--engine-run must be a whole number from 2 to 10 (got ${k})`);
  if (!Number.isInteger(rows) || rows < 1) throw new UsageError(`--engine-run needs --by-k-rows ≥ 1 (got ${rows})`);
  const task = `1.${k}`;
  const reading = readDatasetOptions({
    ...DEFAULT_DATASET_VALUES,
    trainTasks: task,
    testTasks: task,
    trainRows: String(rows),
    testRows: '0',
    seed: 'bench',
  });
  if (!reading.ok) throw new UsageError(reading.problems.map((p) => p.message).join('; '));
  const { spec } = reading;
  const t = spec.trainTasks[0]!;
  const make = recordMaker(spec, t, 'train');
  let facts = 0;
  for (const n of taskRowNumbers(spec, t, 'train')) facts += make(n).facts.length;
  return `puzzles=${rows} facts=${facts}`;
}

/**
 * The floor under a by-k line: `bench --engine-run k` in a process of its own, started as
 * pipelineRun starts generate (spawn to exit): the engine's share of that run, which no work on the
 * stories, CSV or files can take away. Beside it, the time 1,000× the original generator's rate
 * (issue 34's bar) allows the whole run.
 */
function engineFloorLine(rows: number, k: number): string {
  const cli = benchedCli();
  const label = `  k = ${String(k).padStart(2)}: the engine alone (the puzzles of those rows on one thread; no story, CSV or file)`;
  if (cli === undefined) return `${label}: skipped (run through npm run bench)`;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [cli, 'bench', '--engine-run', String(k), '--by-k-rows', String(rows)], {
    encoding: 'utf8',
  });
  const secs = (performance.now() - t0) / 1000;
  if (r.status !== 0 || !r.stdout.startsWith(`puzzles=${rows} `)) {
    return `${label}: failed (${r.stderr.trim().split('\n')[0] || `exit ${r.status}`})`;
  }
  const original = ORIGINAL_ROWS_PER_SECOND[k]!;
  const allowed = original.map((perSecond) => rows / (1000 * perSecond)).reverse();
  return `${label}: ${secs.toFixed(2)} s end to end; 1,000× the original's rate allows ${allowed.map((s) => s.toFixed(2)).join('–')} s for the whole run`;
}

/** Runs of `node -e 0` whose median is Node's own start. */
const NODE_START_RUNS = 5;

/** Milliseconds of one `node -e 0` run, from spawn to exit, in this environment or `env`. */
function nodeStartMs(env: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0'], { env });
  return performance.now() - t0;
}

/**
 * Node's own start on this machine (`node -e 0`, median of NODE_START_RUNS runs): the part of every
 * end-to-end run above that is not the project's. When NODE_EXTRA_CA_CERTS is set, also without
 * it: Node 20 reads and parses that certificate file at every start, before any of our code runs
 * (70 ms of its 107 on the 2-core VM this was written on, where the environment sets it).
 */
function nodeStartLine(): string {
  const runs = (env: NodeJS.ProcessEnv) => median(Array.from({ length: NODE_START_RUNS }, () => nodeStartMs(env)));
  const here = `  node's own start (node -e 0, median of ${NODE_START_RUNS}): ${Math.round(runs(process.env))} ms`;
  if (!process.env.NODE_EXTRA_CA_CERTS) return here;
  const { NODE_EXTRA_CA_CERTS: _, ...without } = process.env;
  return `${here}; ${Math.round(runs(without))} ms without NODE_EXTRA_CA_CERTS, which this environment sets (Node reads that file at every start)`;
}

/** Whether a proof reads an unsound rule backwards somewhere (a head that is not the sound body). */
function proofUsesUnsound(p: Puzzle): boolean {
  return p.proof.some(
    (s) =>
      COMPOSE_SOUND[PRED_CODE[s.body[0].predicate] * COMPOSE_STRIDE + PRED_CODE[s.body[1].predicate]] !==
      PRED_CODE[s.head.predicate],
  );
}

/**
 * How many of the puzzles the default (non-strict) generator emits strict mode would refuse:
 * task 1 puzzles of seeds 0..n-1 for each k, counted when their proof uses an unsound rule and
 * when the strict solver, on the story's facts, does not derive exactly the target (then no proof
 * with sound rules exists, and a careful reader cannot settle the answer).
 */
function strictReport(maxK: number, n: number, out: (s: string) => void): void {
  out(`non-strict task 1 puzzles that strict mode rejects (seeds 0..${n - 1} per k)`);
  out(['k', 'unsound proof', 'strict solver: not the target'].map((h, i) => h.padStart(i === 0 ? 3 : 30)).join(' '));
  const cell = (c: number) => `${c} (${((100 * c) / n).toFixed(1)}%)`.padStart(30);
  for (let k = 2; k <= maxK; k++) {
    let unsound = 0;
    let unresolved = 0;
    for (let i = 0; i < n; i++) {
      const p = generatePuzzle({ seed: i, k, task: 1 });
      if (proofUsesUnsound(p)) unsound++;
      const facts = p.facts.map((f) => ({ from: f.from, to: f.to, predicate: PRED_CODE[f.predicate] }));
      const { mask } = derive(p.entities.length, facts, p.query[0], p.query[1], DEFAULT_PATH_LIMIT, true);
      if (mask !== bit(PRED_CODE[p.target.predicate])) unresolved++;
    }
    out([String(k).padStart(3), cell(unsound), cell(unresolved)].join(' '));
  }
}

/**
 * One `generate` of task 1.k on one thread (--workers 1) under `node --cpu-prof`, in a child
 * process: the share of its time in each stage of the pipeline (profileStages) and the functions
 * with the most self time. The profiler slows the run a little; the shares are what it is for.
 */
function profiledRun(rows: number, k: number): string[] {
  const cli = benchedCli();
  const title = `\nwhere the time goes: generate of task 1.${k}, ${formatCount(rows)} rows, one thread (node --cpu-prof)`;
  if (cli === undefined) return [title, '  skipped (run through npm run bench)'];
  const dir = mkdtempSync(path.join(tmpdir(), 'clutrr-profile-'));
  try {
    const task = `1.${k}`;
    const r = spawnSync(
      process.execPath,
      [
        '--cpu-prof',
        `--cpu-prof-dir=${path.join(dir, 'prof')}`,
        cli,
        'generate',
        ...['--train-tasks', task, '--test-tasks', task, '--train-rows', String(rows), '--test-rows', '0'],
        ...['--workers', '1', '--seed', 'bench', '--out', path.join(dir, 'data')],
      ],
      { encoding: 'utf8' },
    );
    const file =
      r.status === 0 ? readdirSync(path.join(dir, 'prof')).find((f) => f.endsWith('.cpuprofile')) : undefined;
    if (!file) return [title, `  failed (${r.stderr.trim().split('\n')[0] || `exit ${r.status}`})`];
    const report = profileStages(JSON.parse(readFileSync(path.join(dir, 'prof', file), 'utf8')) as CpuProfile);
    const pct = (ms: number) => `${((100 * ms) / report.totalMs).toFixed(1).padStart(5)}%`;
    return [
      `${title}: ${(report.totalMs / 1000).toFixed(2)} s sampled`,
      ...STAGES.map((s) => `  ${s.padEnd(8)} ${pct(report.ms[s])}  ${STAGE_HELP[s]}`),
      '  most self time:',
      ...report.top.map((f) => `    ${pct(f.ms)}  ${f.name} (${f.source})`),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
