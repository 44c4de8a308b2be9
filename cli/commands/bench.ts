import { writeClutrrCsv } from '../../src/core/formats/clutrrCsv';
import { rowsToClutrr } from '../../src/core/formats/fromPuzzle';
import { DEFAULT_DATASET, generateDataset } from '../../src/core/puzzle/dataset';
import { generatePuzzle } from '../../src/core/puzzle/puzzle';
import { TASK_IDS, type TaskId } from '../../src/core/puzzle/tasks';
import { OUR_BANK } from '../../src/core/text/bank';
import { createParaphraseRenderer } from '../../src/core/text/paraphrase';
import { type FlagSpec, helpText, parseArgs } from '../args';

const FLAGS: Record<string, FlagSpec> = {
  ms: { type: 'integer', help: 'time spent on each (k, task) cell, in milliseconds', default: 800 },
  'max-k': { type: 'integer', help: 'largest k to measure', default: 10 },
  'dataset-rows': { type: 'integer', help: 'rows of the dataset whose peak memory is measured', default: 10000 },
};

const HELP = helpText(
  'usage: npm run cli -- bench [options]',
  'Measures, on one core (this process), puzzles generated per second for k = 2..max-k and each\ntask, then the peak memory (max RSS) of generating and writing a dataset of dataset-rows rows.',
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

  // Memory first, while the heap holds nothing else.
  const rows = flags['dataset-rows'] as number;
  const t0 = performance.now();
  const data = generateDataset({
    ...DEFAULT_DATASET,
    trainTasks: [{ task: 1, k: 4 }],
    testTasks: [],
    trainRows: rows,
    testRows: 0,
  });
  const render = createParaphraseRenderer({ bank: OUR_BANK, combinationLength: 3 });
  const csv = writeClutrrCsv(rowsToClutrr(data.train, render));
  const secs = (performance.now() - t0) / 1000;
  const maxRss = process.resourceUsage().maxRSS / 1024;
  out(
    `dataset: ${rows} rows of task 1.4 generated, paraphrased and written in ${secs.toFixed(2)} s (${(rows / secs).toFixed(0)} rows/s), CSV ${(csv.length / 1e6).toFixed(1)} MB, peak RSS ${maxRss.toFixed(0)} MB`,
  );

  out(`\npuzzles per second, one core (node ${process.version}, ${ms} ms per cell)`);
  out(['k'.padStart(3), ...TASK_IDS.map((t) => `task ${t}`.padStart(9))].join(' '));
  for (let k = 2; k <= maxK; k++) {
    const cells = TASK_IDS.map((task) => rate(k, task, ms).toFixed(0).padStart(9));
    out([String(k).padStart(3), ...cells].join(' '));
  }
  out(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  return 0;
}
