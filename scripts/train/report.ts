/**
 * `npm run report:models -- [--only ID,...] [--rows N] [--seed S] [--templates FILE] [--sample FILE]
 * [--timing-rows N] [--out DIR] [--backend wasm|cpu]`: how every shipped model (public/models,
 * each folder of index.json, or those --only names by id `lstm/1` or model `lstm`) does on text
 * and puzzles it has not seen, each accuracy with the majority-answer baseline beside it:
 *
 * - (a) **held-out paraphrases**: fresh test rows of the model's own preset and labels, k = 2..10,
 *   made with another seed than training (`--seed`, default `report`) but told with the test
 *   half of the paraphrase split that the model's training seed made: no sentence of these
 *   stories was in its training text.
 * - (b) **a user template file** in the original AMT format (`--templates`, default our own
 *   scripts/train/fixtures/amt-templates.json): the same puzzles as (a) told with that file's
 *   paraphrases (facts it has no paraphrase for in plain sentences), so the two differ only in
 *   wording.
 * - (c) **AMT-format rows** of a CLUTRR CSV file (`--sample`, default
 *   ../shared/reference/clutrr-format-sample.csv beside the project): measured only, read from
 *   where it lies at report time; the test set is all its rows (a breakdown by task follows, for
 *   reading: the sample's tasks have 5 to 10 rows each).
 *
 * The majority baseline of a set is the share of its rows whose answer is the set's most frequent
 * answer: the best any one constant answer scores on it. A model "beats" it when its accuracy is
 * strictly higher. Also: training time (metadata.json) and inference time by k (one puzzle at a
 * time, median ms, on the chosen backend in Node; the browser's figures are bench:models').
 * Markdown on stdout; with --out, one `<model>-<version>.md` per folder too.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseClutrrCsv } from '../../src/core/formats/clutrrCsv';
import type { ClutrrRow } from '../../src/core/formats/clutrrRow';
import type { PresetName } from '../../src/core/puzzle/datasetOptions';
import { createRng } from '../../src/core/random/rng';
import { datasetRenderer, type TemplateSource } from '../../src/core/text/datasetText';
import { readTemplateFiles, strictSource } from '../../src/core/text/templateFile';
import { TemplateFormatError } from '../../src/core/text/templates';
import { CLASSES, questionFromPuzzle, questionFromRow } from '../../src/ml/encoding';
import { loadModel } from '../../src/ml/load';
import {
  bestClass,
  type ClutrrModel,
  type ModelIndex,
  type ModelMetadata,
  type ModelQuestion,
} from '../../src/ml/model';
import { makeExamples, NOISE_TASK, TEST_KS, TEXT_SETTINGS } from '../../src/ml/testData';
import { useBackend } from './main';

const USAGE = `usage: npm run report:models -- [--only ID,...] [--rows N] [--seed S] [--templates FILE]
       [--sample FILE] [--timing-rows N] [--out DIR] [--backend wasm|cpu]`;

export const DEFAULT_TEMPLATES = path.join('scripts', 'train', 'fixtures', 'amt-templates.json');
export const DEFAULT_SAMPLE = path.join('..', 'shared', 'reference', 'clutrr-format-sample.csv');

/** The most frequent answer of a set and the share of rows that have it (-1 and 0 for no rows). */
export function majority(labels: readonly number[]): { label: number; share: number } {
  const counts = new Map<number, number>();
  for (const l of labels) counts.set(l, (counts.get(l) ?? 0) + 1);
  let label = -1;
  let count = 0;
  // Ties: the smaller class index, so the same set always names the same answer.
  for (const [l, c] of counts) if (c > count || (c === count && l < label)) [label, count] = [l, c];
  return { label, share: labels.length === 0 ? 0 : count / labels.length };
}

/** One test set's result: accuracy with its majority baseline. */
export interface SetResult {
  readonly name: string;
  readonly rows: number;
  readonly correct: number;
  readonly majority: { readonly label: number; readonly share: number };
}

export const accuracyOf = (r: SetResult): number => (r.rows === 0 ? 0 : r.correct / r.rows);
export const beats = (r: SetResult): boolean => accuracyOf(r) > r.majority.share;

const answerWord = (label: number) => (label >= 0 ? (CLASSES[label] ?? '?') : '(none)');

/** A markdown table of set results: rows, accuracy, majority (answer), whether it beats it. */
export function resultTable(results: readonly SetResult[], first = 'set'): string[] {
  const lines = [`| ${first} | rows | accuracy | majority baseline | beats it |`, '|---|---|---|---|---|'];
  for (const r of results) {
    lines.push(
      `| ${r.name} | ${r.rows} | ${accuracyOf(r).toFixed(3)} | ${r.majority.share.toFixed(3)} (${answerWord(r.majority.label)}) | ${beats(r) ? 'yes' : '**no**'} |`,
    );
  }
  return lines;
}

/** Correct answers of a model on labelled questions, in batches. */
async function scoreQuestions(model: ClutrrModel, questions: readonly ModelQuestion[], batch = 250): Promise<number> {
  let correct = 0;
  for (let i = 0; i < questions.length; i += batch) {
    const part = questions.slice(i, i + batch);
    const answers = await model.answer(part);
    answers.forEach((a, j) => {
      if (bestClass(a.probs) === part[j]!.graph.label) correct++;
    });
  }
  return correct;
}

async function measure(model: ClutrrModel, name: string, questions: readonly ModelQuestion[]): Promise<SetResult> {
  return {
    name,
    rows: questions.length,
    correct: await scoreQuestions(model, questions),
    majority: majority(questions.map((q) => q.graph.label)),
  };
}

/** Median ms per puzzle answered one at a time (after one warm-up answer). */
async function medianMs(model: ClutrrModel, questions: readonly ModelQuestion[]): Promise<number> {
  if (questions.length === 0) return NaN;
  await model.answer([questions[0]!]);
  const times: number[] = [];
  for (const q of questions) {
    const t0 = performance.now();
    await model.answer([q]);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const m = times.length >> 1;
  return times.length % 2 ? times[m]! : (times[m - 1]! + times[m]!) / 2;
}

/** A template file in the original format, strictly (any problem is an error naming the file). */
export function readTemplateSource(file: string): TemplateSource {
  const text = readFileSync(file, 'utf8');
  try {
    return strictSource(readTemplateFiles([{ name: path.basename(file), text }]));
  } catch (e) {
    if (e instanceof TemplateFormatError) throw new Error(`${file}: bad template file: ${e.message}`, { cause: e });
    throw e;
  }
}

export interface ReportOptions {
  readonly root: string;
  readonly only?: readonly string[];
  readonly rows: number;
  readonly seed: string;
  readonly templates: string;
  /** The AMT-format CSV; when it does not exist the section says so and is left out. */
  readonly sample: string;
  readonly timingRows: number;
}

export interface FolderReport {
  readonly id: string;
  readonly metadata: ModelMetadata;
  readonly heldOut: readonly SetResult[];
  readonly templateFile: readonly SetResult[];
  readonly sample: readonly SetResult[] | null;
  /** Rows of the sample with edges the file gives no type (its noise, in the released files). */
  readonly untypedSampleRows: number;
  readonly msByK: ReadonlyMap<number, number>;
}

/** Reports one model folder (the model is loaded from it and disposed). */
export async function reportFolder(
  id: string,
  options: ReportOptions,
  source: TemplateSource,
  sampleRows: readonly ClutrrRow[] | null,
  log: (s: string) => void = () => {},
): Promise<FolderReport> {
  const dir = path.join(options.root, id);
  const metadata = JSON.parse(readFileSync(path.join(dir, 'metadata.json'), 'utf8')) as ModelMetadata;
  const weights = new Uint8Array(readFileSync(path.join(dir, 'weights.bin')));
  const model = loadModel(JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8')), weights.buffer, id);
  try {
    const preset = (metadata.training.preset as PresetName | 'none' | undefined) ?? 'none';
    const dataOptions = {
      equal: preset !== 'none',
      ...(metadata.training.labels === 'clutrr' ? { labels: 'clutrr' as const } : {}),
    };
    const task = NOISE_TASK[metadata.training.noise];
    const userText = datasetRenderer({ ...TEXT_SETTINGS, templateSplit: false }, options.seed, source).render;
    const heldOut: SetResult[] = [];
    const templateFile: SetResult[] = [];
    const msByK = new Map<number, number>();
    for (const k of TEST_KS) {
      log(`  ${id}: k = ${k}\n`);
      const examples = makeExamples(options.seed, metadata.seed, { task, k }, 'test', options.rows, dataOptions);
      const questions = examples.map((e) => e.question);
      heldOut.push(await measure(model, `k = ${k}`, questions));
      const retold = examples.map((e) =>
        questionFromPuzzle(e.puzzle, userText(e.puzzle, 'test', createRng(e.puzzle.seed, 'text')).story),
      );
      templateFile.push(await measure(model, `k = ${k}`, retold));
      msByK.set(k, await medianMs(model, questions.slice(0, options.timingRows)));
    }
    let sample: SetResult[] | null = null;
    if (sampleRows) {
      const questions = sampleRows.map((r) => questionFromRow(r).question);
      sample = [await measure(model, 'all rows', questions)];
      const tasks = [...new Set(sampleRows.map((r) => r.taskName))].sort(byTaskName);
      for (const t of tasks) {
        sample.push(
          await measure(
            model,
            t,
            questions.filter((_, i) => sampleRows[i]!.taskName === t),
          ),
        );
      }
    }
    const untypedSampleRows = (sampleRows ?? []).filter((r) => questionFromRow(r).untypedEdges.length > 0).length;
    return { id, metadata, heldOut, templateFile, sample, untypedSampleRows, msByK };
  } finally {
    model.dispose();
  }
}

/** task_1.2 before task_1.10 before task_2.3. */
function byTaskName(a: string, b: string): number {
  const parse = (s: string) => (/(\d+)\.(\d+)$/.exec(s) ?? ['', '0', '0']).slice(1).map(Number);
  const [ta, ka] = parse(a);
  const [tb, kb] = parse(b);
  return ta! - tb! || ka! - kb! || (a < b ? -1 : a > b ? 1 : 0);
}

/** One folder's markdown section. */
export function folderMarkdown(r: FolderReport, options: ReportOptions): string {
  const m = r.metadata;
  const t = m.training;
  const lines = [
    `## ${r.id}: ${m.label}`,
    '',
    `Reads ${m.reads ?? '?'}; supervision: ${m.supervision ?? '?'}; trained on ${t.rows} ${t.noise} rows per task (${t.tasks.map((x) => `${x.task}.${x.k}`).join(', ')}), preset ${t.preset ?? 'none'}, labels ${t.labels ?? 'family'}; made by \`${m.madeBy}\`.`,
    `Training time: ${t.seconds} s for ${t.epochs} epochs (${(t.seconds / 60).toFixed(1)} min, as metadata.json records it).`,
    '',
    `### (a) Held-out paraphrases: fresh ${t.preset ?? 'unbalanced'} test rows (seed ${options.seed}, ${options.rows} per k), told with the test half of the paraphrase split of training seed ${m.seed}`,
    '',
    ...resultTable(r.heldOut, 'k'),
    '',
    `### (b) The same puzzles told with a user template file in the original AMT format (${options.templates})`,
    '',
    ...resultTable(r.templateFile, 'k'),
    '',
  ];
  if (r.sample) {
    lines.push(
      `### (c) AMT-format rows of ${options.sample} (measured only, never trained on)`,
      '',
      ...(m.reads === 'graph' && r.untypedSampleRows > 0
        ? [
            `${r.untypedSampleRows} of these rows type only their path edges (as the released noisy files do): the graph model reads them without their noise edges and without the people only those reached, so these rows cannot measure its robustness to noise.`,
            '',
          ]
        : []),
      ...resultTable(r.sample.slice(0, 1)),
      '',
      'By task (5 to 10 rows each: too few to be test sets of their own; for reading only):',
      '',
      ...resultTable(r.sample.slice(1), 'task'),
      '',
    );
  } else lines.push(`### (c) AMT-format rows: ${options.sample} not found, not measured`, '');
  lines.push(
    `### Inference time (median ms per puzzle, one at a time, first ${options.timingRows} rows of (a) per k, Node)`,
    '',
    `| k | ${[...r.msByK.keys()].join(' | ')} |`,
    `|---|${[...r.msByK.keys()].map(() => '---').join('|')}|`,
    `| ms | ${[...r.msByK.values()].map((x) => x.toFixed(1)).join(' | ')} |`,
    '',
  );
  return lines.join('\n');
}

/** The summary: per folder, the sets it does not beat the majority baseline on. */
export function summaryMarkdown(reports: readonly FolderReport[]): string {
  const lines = [
    '| model | reads | (a) held-out k = 2, 3 / 10 | (b) template file k = 2, 3 / 10 | (c) AMT rows | below the majority baseline on |',
    '|---|---|---|---|---|---|',
  ];
  const at = (rs: readonly SetResult[], k: number) => accuracyOf(rs.find((x) => x.name === `k = ${k}`)!).toFixed(3);
  for (const r of reports) {
    const sets = [
      ...r.heldOut.map((x) => ({ ...x, name: `(a) ${x.name}` })),
      ...r.templateFile.map((x) => ({ ...x, name: `(b) ${x.name}` })),
      ...(r.sample ?? []).slice(0, 1).map((x) => ({ ...x, name: `(c) ${x.name}` })),
    ];
    const below = sets.filter((x) => !beats(x)).map((x) => x.name);
    lines.push(
      `| ${r.id} | ${r.metadata.reads ?? '?'} | ${at(r.heldOut, 2)}, ${at(r.heldOut, 3)} / ${at(r.heldOut, 10)} | ${at(r.templateFile, 2)}, ${at(r.templateFile, 3)} / ${at(r.templateFile, 10)} | ${r.sample ? `${accuracyOf(r.sample[0]!).toFixed(3)} (majority ${r.sample[0]!.majority.share.toFixed(3)})` : 'n/a'} | ${below.length === 0 ? 'none' : below.join(', ')} |`,
    );
  }
  return lines.join('\n');
}

function readOptions(argv: string[]): (ReportOptions & { out?: string; backend: string }) | string {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string' },
      rows: { type: 'string', default: '200' },
      seed: { type: 'string', default: 'report' },
      templates: { type: 'string', default: DEFAULT_TEMPLATES },
      sample: { type: 'string', default: DEFAULT_SAMPLE },
      'timing-rows': { type: 'string', default: '20' },
      out: { type: 'string' },
      backend: { type: 'string', default: 'wasm' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return USAGE;
  const rows = Number(values.rows);
  const timingRows = Number(values['timing-rows']);
  if (!Number.isInteger(rows) || rows < 1) return `--rows must be a whole number ≥ 1 (got ${values.rows})`;
  if (!Number.isInteger(timingRows) || timingRows < 1)
    return `--timing-rows must be a whole number ≥ 1 (got ${values['timing-rows']})`;
  if (values.backend !== 'wasm' && values.backend !== 'cpu')
    return `--backend must be wasm or cpu (got ${values.backend})`;
  if (!existsSync(values.templates)) return `--templates: no file ${values.templates}`;
  return {
    root: path.resolve('public', 'models'),
    ...(values.only ? { only: values.only.split(',').map((s) => s.trim()) } : {}),
    rows,
    seed: values.seed,
    templates: values.templates,
    sample: values.sample,
    timingRows,
    ...(values.out ? { out: values.out } : {}),
    backend: values.backend,
  };
}

export async function main(argv: string[]): Promise<number> {
  let options: ReturnType<typeof readOptions>;
  try {
    options = readOptions(argv);
  } catch (e) {
    console.error(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (typeof options === 'string') {
    if (options === USAGE) console.log(USAGE);
    else console.error(`${options}\n${USAGE}`);
    return options === USAGE ? 0 : 2;
  }
  const log = (s: string) => void process.stderr.write(s);
  const index = JSON.parse(readFileSync(path.join(options.root, 'index.json'), 'utf8')) as ModelIndex;
  const only = options.only;
  const ids = index.models.filter((m) => !only || only.includes(m.id) || only.includes(m.model)).map((m) => m.id);
  if (ids.length === 0) {
    console.error(`no model folder in public/models/index.json matches --only ${only?.join(',')}`);
    return 2;
  }
  let source: TemplateSource;
  try {
    source = readTemplateSource(options.templates);
  } catch (e) {
    console.error((e as Error).message);
    return 2;
  }
  let sampleRows: ClutrrRow[] | null = null;
  if (existsSync(options.sample)) {
    try {
      sampleRows = parseClutrrCsv(readFileSync(options.sample, 'utf8'), options.sample);
    } catch (e) {
      console.error(`${options.sample}: ${(e as Error).message}`);
      return 2;
    }
  } else log(`${options.sample} not found: the AMT-format rows are not measured\n`);
  await useBackend(options.backend);
  const reports: FolderReport[] = [];
  for (const id of ids) reports.push(await reportFolder(id, options, source, sampleRows, log));
  const parts = [
    `# Models on text and puzzles they have not seen (npm run report:models -- ${argv.join(' ')})`,
    '',
    summaryMarkdown(reports),
    '',
    ...reports.map((r) => folderMarkdown(r, options)),
  ];
  process.stdout.write(parts.join('\n'));
  if (options.out) {
    mkdirSync(options.out, { recursive: true });
    for (const r of reports) {
      writeFileSync(path.join(options.out, `${r.id.replace('/', '-')}.md`), folderMarkdown(r, options));
    }
  }
  return 0;
}
