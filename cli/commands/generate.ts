import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { writeClutrrCsv } from '../../src/core/formats/clutrrCsv';
import { datasetConfig, datasetFileNames, rowsToClutrr } from '../../src/core/formats/fromPuzzle';
import { checkFamilyParams } from '../../src/core/family/family';
import { checkDatasetSpec, type DatasetSpec, generateDataset } from '../../src/core/puzzle/dataset';
import { checkPuzzleSettings } from '../../src/core/puzzle/puzzle';
import { parseTaskList } from '../../src/core/puzzle/tasks';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { UsageError } from '../errors';
import { progressBar } from '../progress';
import { rendererFromFlags, RENDER_FLAGS } from '../renderer';

const FLAGS: Record<string, FlagSpec> = {
  'train-tasks': { type: 'string', help: 'train tasks as task.k, comma-separated', default: '1.2,1.3' },
  'test-tasks': { type: 'string', help: 'test tasks as task.k, comma-separated', default: '1.2,1.3,1.4' },
  'train-rows': { type: 'integer', help: 'rows per train task, exactly', default: 5000 },
  'test-rows': { type: 'integer', help: 'rows per test task, exactly', default: 100 },
  holdout: { type: 'boolean', help: 'hold relation patterns of k > 2 out of training (test uses them)' },
  'holdout-share': { type: 'number', help: 'share of patterns held out with --holdout', default: 0.1 },
  equal: { type: 'boolean', help: 'balance the count of every relation pattern (f_comb)' },
  patterns: { type: 'string', help: 'only these f_comb patterns, comma-separated; * matches one word' },
  seed: { type: 'string', help: 'seed of the whole dataset', default: '1' },
  out: { type: 'string', help: 'output folder (created if missing)' },
  'max-levels': { type: 'integer', help: 'generations in each family', default: 3 },
  'min-child': { type: 'integer', help: 'fewest children per couple', default: 4 },
  'max-child': { type: 'integer', help: 'most children per couple', default: 4 },
  'p-marry': { type: 'number', help: 'probability that a person marries', default: 1 },
  ...RENDER_FLAGS,
};

const HELP = helpText(
  'usage: npm run cli -- generate --out DIR [options]',
  'Writes a CLUTRR dataset folder: <train tasks>_train.csv, one <task>_test.csv per test task and\nconfig.json. Every row is uniquely entailed by its facts and reproducible from its seed.',
  FLAGS,
);

export async function generateCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { flags, positional } = parseArgs('generate', argv, FLAGS);
  if (positional.length > 0) throw new UsageError(`unexpected argument "${positional[0]}"`);
  if (!flags.out) throw new UsageError('--out DIR is required (the dataset folder to write)');
  const tasks = (name: string) => {
    try {
      return parseTaskList(String(flags[name]), `--${name}`);
    } catch (e) {
      throw new UsageError(`${(e as Error).message}`);
    }
  };
  const spec: DatasetSpec = {
    seed: String(flags.seed),
    trainTasks: tasks('train-tasks'),
    testTasks: tasks('test-tasks'),
    trainRows: flags['train-rows'] as number,
    testRows: flags['test-rows'] as number,
    holdout: flags.holdout ? (flags['holdout-share'] as number) : 0,
    equal: Boolean(flags.equal),
    family: {
      maxLevels: flags['max-levels'] as number,
      minChild: flags['min-child'] as number,
      maxChild: flags['max-child'] as number,
      pMarry: flags['p-marry'] as number,
    },
    patterns: flags.patterns
      ? String(flags.patterns)
          .split(',')
          .map((s) => s.trim())
      : undefined,
  };
  const problem =
    checkFamilyParams(spec.family) ??
    checkDatasetSpec(spec) ??
    [...spec.trainTasks, ...spec.testTasks].map((t) => checkPuzzleSettings(t.k, t.task, spec.family)).find(Boolean);
  if (problem) throw new UsageError(`${problem}`);
  const { render, describe } = rendererFromFlags(flags);

  const bar = progressBar('generating');
  const t0 = performance.now();
  const data = generateDataset(spec, bar.update);
  const total = data.train.length + data.test.reduce((s, t) => s + t.length, 0);
  bar.done(total, total);

  const out = String(flags.out);
  mkdirSync(out, { recursive: true });
  const names = datasetFileNames(spec);
  const files: [string, string][] = [];
  if (spec.trainTasks.length > 0) files.push([names.train, writeClutrrCsv(rowsToClutrr(data.train, render))]);
  data.test.forEach((rows, i) => files.push([names.test[i]!, writeClutrrCsv(rowsToClutrr(rows, render))]));
  files.push(['config.json', datasetConfig(spec, describe)]);
  for (const [name, content] of files) writeFileSync(path.join(out, name), content);
  const secs = (performance.now() - t0) / 1000;
  for (const [name] of files.slice(0, -1)) process.stdout.write(`wrote ${path.join(out, name)}\n`);
  process.stdout.write(`rows=${total} files=${files.length} seconds=${secs.toFixed(2)}\n`);
  return 0;
}
