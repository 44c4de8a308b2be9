import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import {
  CLUTRR_CSV_HEADER,
  DATASET_FORMATS,
  type DatasetFormat,
  datasetConfig,
  fileInFormat,
  planDataset,
  type PlannedJob,
} from '../../src/core/formats/datasetFolder';
import {
  DATASET_OPTIONS,
  type DatasetValues,
  PRESET_NAMES,
  presetValues,
  readDatasetOptions,
  unknownPreset,
  matchingPreset,
} from '../../src/core/puzzle/datasetOptions';
import { GenerationError } from '../../src/core/puzzle/puzzle';
import { formatCount } from '../../src/core/util/format';
import {
  datasetRenderer,
  factsTold,
  factsToldConfig,
  factsToldLine,
  type FactsTold,
  type TemplateSource,
} from '../../src/core/text/datasetText';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { UsageError } from '../errors';
import { prepareOutputFolder } from '../outputFolder';
import { progressBar } from '../progress';
import { defaultThreadPlan, PUZZLE_THREAD_ROWS, SECOND_THREAD_ROWS } from '../rowThreads';
import { type RowMakers, startRowMakers } from '../rowWorkers';
import { readTemplateSource } from './templates';
import { WIDE_BANK, WIDE_BANK_NAME } from '../../src/core/text/wideBank';

/** The generation options come from core's one table; the CLI adds where to write and how. */
const FLAGS: Record<string, FlagSpec> = {
  ...Object.fromEntries(
    DATASET_OPTIONS.map((o) => [
      o.flag,
      o.kind === 'boolean'
        ? { type: 'boolean', help: o.help }
        : {
            type: 'string',
            help: o.help,
            default: o.default as string,
            hint:
              o.kind === 'text' || o.kind === 'tasks'
                ? 'value'
                : o.kind === 'choice'
                  ? (o.choices ?? []).join('|')
                  : 'n',
          },
    ]),
  ),
  preset: {
    type: 'string',
    help: `the shape of a dataset released with the paper (${PRESET_NAMES.join(', ')}): its tasks, rows and --equal; flags given as well win`,
  },
  templates: {
    type: 'string',
    help: 'paraphrases from a template file in the original format (amt_placeholders_clean.json or a .train/.test half)',
  },
  bank: {
    type: 'string',
    help: 'ours: our paraphrase bank; wide: ours plus its wide files (plural and collective kin words, several facts a sentence)',
    default: 'ours',
    hint: 'value',
  },
  'templates-only': {
    type: 'boolean',
    help: 'never fall back to a plain sentence: a fact no paraphrase tells stops the run, naming the fact',
  },
  format: {
    type: 'string',
    help: 'csv: CLUTRR CSV files, as released; jsonl: one JSON object a row (id, k, task, story, question, answer, choices) for evaluation harnesses',
    default: 'csv',
    hint: 'value',
  },
  out: {
    type: 'string',
    help: 'output folder (created if missing; a previous dataset folder there is replaced whole)',
  },
  workers: {
    type: 'integer',
    help: `threads that make rows, this one included unless --writer-thread (default: one per core, at most 4, in worker threads while this one writes; on 2 cores, two from ${formatCount(SECOND_THREAD_ROWS)} rows, this one alone below that)`,
  },
  'writer-thread': {
    type: 'boolean',
    help: 'this thread only writes the files and the --workers row makers are all worker threads (the default with two or more makers: it keeps memory flat on long runs)',
  },
  'puzzle-thread': {
    type: 'boolean',
    help: `with one row-making thread, generate the puzzles in a second thread while this one tells them (the default on 2 cores from ${formatCount(PUZZLE_THREAD_ROWS)} rows up to ${formatCount(SECOND_THREAD_ROWS)})`,
  },
};

const HELP = helpText(
  'usage: npm run cli -- generate --out DIR [options]',
  'Writes a CLUTRR dataset folder: <train tasks>_train.csv, one <task>_test.csv per test task and\nconfig.json (.jsonl files with --format jsonl). Every row is uniquely entailed by its facts and\nreproducible from its seed. Rows stream to the files as they are made, and the folder appears only\nonce it is complete.',
  FLAGS,
);

/** Rows per batch handed to a row maker: big enough to amortise messages, small for memory. */
const BATCH_ROWS = 500;
/**
 * The first batches are smaller (this many rows, then twice as many each time up to BATCH_ROWS):
 * while a thread that has just started runs its first rows several times slower, the thread
 * waiting for its batch (the writer, or the one telling its puzzles) gets work sooner.
 */
const FIRST_BATCH_ROWS = 50;

export async function generateCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { flags, positional } = parseArgs('generate', argv, FLAGS);
  if (positional.length > 0) throw new UsageError(`unexpected argument "${positional[0]}"`);
  if (!flags.out) throw new UsageError('--out DIR is required (the dataset folder to write)');
  const given = new Set(argv.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')[0]));
  let preset: Partial<DatasetValues> = {};
  if (flags.preset !== undefined) {
    const p = presetValues(String(flags.preset));
    if (!p) throw new UsageError(unknownPreset(String(flags.preset)));
    preset = p;
  }
  // Each field: the flag when given, else the preset's value, else the flag's default.
  const values = Object.fromEntries(
    DATASET_OPTIONS.map((o) => {
      const raw = given.has(o.flag) || !(o.field in preset) ? flags[o.flag] : preset[o.field];
      return [o.field, o.kind === 'boolean' ? Boolean(raw) : String(raw)];
    }),
  ) as unknown as DatasetValues;
  const file = flags.templates as string | undefined;
  const reading = readDatasetOptions(values, { templates: Boolean(file) });
  if (!reading.ok) throw new UsageError(reading.problems[0]!.message);
  const { spec, text } = reading;
  const format = String(flags.format) as DatasetFormat;
  if (!DATASET_FORMATS.includes(format)) {
    throw new UsageError(`--format must be ${DATASET_FORMATS.join(' or ')} (got "${String(flags.format)}")`);
  }
  const templatesOnly = flags['templates-only'] === true;
  if (templatesOnly && text.synthetic) {
    throw new UsageError('--templates-only asks for paraphrases only; --synthetic writes plain sentences');
  }
  const plan = planDataset(spec);
  const threads = defaultThreadPlan(plan.totalRows);
  const workers = flags.workers === undefined ? threads.makers : (flags.workers as number);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64) {
    throw new UsageError(`--workers must be a whole number from 1 to 64 (got ${String(flags.workers)})`);
  }
  const bank = String(flags.bank);
  if (bank !== 'ours' && bank !== 'wide') throw new UsageError(`--bank must be ours or wide (got "${bank}")`);
  if (bank === 'wide' && (file || text.synthetic))
    throw new UsageError(
      `--bank wide tells stories with our wide bank; it does not go with ${file ? '--templates' : '--synthetic'}`,
    );
  const templates: TemplateSource | undefined =
    file && !text.synthetic
      ? { name: file, ...readTemplateSource(file) }
      : bank === 'wide'
        ? { name: WIDE_BANK_NAME, bank: WIDE_BANK, ours: true }
        : undefined;
  const renderer = datasetRenderer(text, spec.seed, templates, { templatesOnly });

  // Checked (and the temporary folder made) before any row is generated.
  const folder = prepareOutputFolder(String(flags.out));
  let interrupted: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = signal;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const makers = startRowMakers({ spec, text, templates, templatesOnly, format }, workers, {
    puzzleThread: flags['puzzle-thread'] === true || (flags.workers === undefined && threads.puzzleThread),
    writerThread: flags['writer-thread'] === true || (flags.workers === undefined && threads.writerThread),
  });
  const bar = progressBar('generating');
  const t0 = performance.now();
  let told: FactsTold;
  try {
    await writeFiles(plan.files, plan.jobs, makers, folder.dir, format, (done) => {
      if (interrupted) throw new Interrupted(interrupted);
      bar.update(done, plan.totalRows);
    });
    told = factsTold(makers.told(), renderer.source);
    const preset = matchingPreset(values);
    const recorded = {
      ...renderer.describe,
      ...(preset ? { preset } : {}),
      ...(format === 'csv' ? {} : { format }),
      facts_told: factsToldConfig(told),
    };
    writeFileSync(path.join(folder.dir, 'config.json'), datasetConfig(spec, recorded));
    if (interrupted) throw new Interrupted(interrupted);
    folder.commit();
  } catch (e) {
    folder.abort();
    if (e instanceof Interrupted) {
      process.stderr.write(`\nclutrr generate: interrupted; ${folder.target} was left as it was\n`);
      return 130;
    }
    if (e instanceof Error && e.name === 'GenerationError' && !(e instanceof GenerationError)) {
      throw new GenerationError(e.message);
    }
    throw e;
  } finally {
    await makers.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  bar.done(plan.totalRows, plan.totalRows);
  const secs = (performance.now() - t0) / 1000;
  const out = String(flags.out);
  for (const f of plan.files) process.stdout.write(`wrote ${path.join(out, fileInFormat(f.name, format))}\n`);
  // Said when a template file or --templates-only was given, or when paraphrases fell back to
  // plain sentences: a default run (our bank tells every fact) keeps a quiet stderr.
  if (file || templatesOnly || (!text.synthetic && told.plain > 0)) {
    process.stderr.write(`clutrr generate: ${factsToldLine(told)}\n`);
  }
  process.stdout.write(`rows=${plan.totalRows} files=${plan.files.length + 1} seconds=${secs.toFixed(2)}\n`);
  return 0;
}

/** writeSync until every byte is written (a file may take fewer than asked at once). */
function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
}

class Interrupted extends Error {
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
  }
}

/**
 * Streams every job's rows into its file in order: batches go to the row makers (a few more in
 * flight than there are makers), and their CSV text is written as soon as every earlier batch
 * is, so memory holds only the batches in flight whatever the row count.
 */
async function writeFiles(
  files: readonly { readonly name: string; readonly jobs: readonly string[] }[],
  jobs: readonly PlannedJob[],
  makers: RowMakers,
  dir: string,
  format: DatasetFormat,
  onRows: (done: number) => void,
): Promise<void> {
  const byKey = new Map(jobs.map((j) => [j.key, j]));
  // Candidate numbers of every job up front, in parallel (only --equal makes this real work).
  const numbers = new Map(
    await Promise.all(jobs.map(async (j) => [j.key, await makers.numbers({ task: j.task, split: j.split })] as const)),
  );
  let done = 0;
  for (const f of files) {
    const fd = openSync(path.join(dir, fileInFormat(f.name, format)), 'w');
    try {
      if (format === 'csv') writeSync(fd, CLUTRR_CSV_HEADER);
      const batches: { job: PlannedJob; from: number; to: number }[] = [];
      for (const key of f.jobs) {
        const job = byKey.get(key)!;
        for (let from = 0; from < job.rows;) {
          const to = Math.min(job.rows, from + Math.min(BATCH_ROWS, FIRST_BATCH_ROWS * 2 ** batches.length));
          batches.push({ job, from, to });
          from = to;
        }
      }
      const inFlight: Promise<Uint8Array>[] = [];
      const ahead = makers.size * 2 + 2;
      let next = 0;
      const launch = () => {
        const b = batches[next++]!;
        const list = numbers.get(b.job.key)!.subarray(b.from, b.to);
        const p = makers.tell(b.job, list.slice(), b.job.fileOffset + b.from);
        // Awaited in order below; after a failure the rest are abandoned, not unhandled.
        p.catch(() => undefined);
        inFlight.push(p);
      };
      while (next < batches.length && inFlight.length < ahead) launch();
      for (let i = 0; i < batches.length; i++) {
        const bytes = await inFlight.shift()!;
        if (next < batches.length) launch();
        writeAll(fd, bytes);
        makers.release(bytes);
        done += batches[i]!.to - batches[i]!.from;
        onRows(done);
      }
    } finally {
      closeSync(fd);
    }
  }
}
