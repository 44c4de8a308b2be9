import { closeSync, existsSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ClutrrRowReader } from '../../src/core/formats/clutrrCsv';
import type { ClutrrRow } from '../../src/core/formats/clutrrRow';
import { useBackend } from '../../src/ml/backend';
import { CLASSES, questionFromRow } from '../../src/ml/encoding';
import { answeredRow, EvalBreakdown } from '../../src/ml/evalReport';
import { loadModel } from '../../src/ml/load';
import { bestClass, type ClutrrModel, type ModelMetadata, type ModelQuestion, trainedOn } from '../../src/ml/model';
import {
  MODEL_KINDS,
  modelKind,
  type ModelKindInfo,
  paperModelText,
  SUPERVISION_TEXT,
  trainedOnText,
} from '../../src/ml/modelKinds';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { CliError, UsageError } from '../errors';
import { readText } from '../readText';

const MODEL_IDS = Object.keys(MODEL_KINDS);

const FLAGS: Record<string, FlagSpec> = {
  model: { type: 'string', help: `a shipped model (public/models/<model>/): ${MODEL_IDS.join(', ')}` },
  version: {
    type: 'string',
    default: '1',
    help: 'the shipped version of --model (public/models/<model>/<version>/), e.g. 1-clutrr-labels or 1-supporting',
  },
  'model-dir': {
    type: 'string',
    help: 'a model folder instead (model.json + weights.bin, e.g. from npm run train -- --out DIR)',
  },
  backend: { type: 'string', default: 'wasm', help: 'tfjs backend: wasm or cpu' },
  list: { type: 'boolean', help: 'print the ids of rows answered wrong, with both answers' },
  rows: {
    type: 'string',
    help: "write one JSON line per row to this file: id, file, k, task, gold, predicted, correct, top5, the audit's verdict",
  },
};

const HELP = helpText(
  `usage: npm run cli -- eval --model ${MODEL_IDS.join('|')} [--version V] [--rows OUT.jsonl] FILE.csv...`,
  `Answers every row of CLUTRR CSV files (ours or the released ones) with a trained model and
counts correct answers (the model's most probable class equals the row's target). The models
(src/ml/modelKinds.ts):
${Object.entries(MODEL_KINDS)
  .map(([id, k]) => `  ${id}: ${k.label}, reads the ${k.reads}`)
  .join('\n')}
A graph model reads the symbolic columns (story_edges, edge_types, query_edge): edges without a
type are left out of its graph, and the rows that had one are counted and named. A text model
reads story and query. A target outside the 18 answer classes can never be answered; such rows
are counted as wrong and named. When a file's noise edges carry no type (the released noisy
files type only the path's edges), the people those edges alone reached are left out too and a
note says that the file cannot measure the model's robustness to that noise. The first line says
what the model is and what it was trained on; one line per file follows, then the answers broken
down by the audit's verdict on each row (entailed; assumed, possible; true in no family;
ambiguous; unsupported) and by predicted class, each with its majority baseline, then as the
very last line
  rows=<n> correct=<n> accuracy=<x.xxx>`,
  FLAGS,
);

const BATCH = 100;
/** How many row ids a note names before "…". */
const NAMED = 5;

/** The project folder (its package.json is clutrr-lab's), found from this module's place. */
function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && /"name":\s*"clutrr-lab"/.test(readFileSync(pkg, 'utf8'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new CliError('cannot find the clutrr-lab project folder to load shipped models from');
    dir = up;
  }
}

function readModel(dir: string, label: string): ClutrrModel {
  const json = path.join(dir, 'model.json');
  const bin = path.join(dir, 'weights.bin');
  if (!existsSync(json) || !existsSync(bin)) throw new CliError(`${label}: no model.json and weights.bin in ${dir}`);
  let modelJson: unknown;
  try {
    modelJson = JSON.parse(readFileSync(json, 'utf8'));
  } catch (e) {
    throw new CliError(`${json}: not JSON (${(e as Error).message})`);
  }
  const weights = readFileSync(bin);
  try {
    return loadModel(modelJson, weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength));
  } catch (e) {
    throw new CliError(`${label}: ${(e as Error).message}`);
  }
}

interface FileTally {
  rows: number;
  correct: number;
  untyped: string[];
  /** People left out with the untyped edges that alone reached them. */
  dropped: number;
  notAClass: string[];
  wrong: string[];
}

const accuracy = (correct: number, rows: number) => (rows === 0 ? 0 : correct / rows).toFixed(3);

function named(ids: readonly string[]): string {
  return ids.slice(0, NAMED).join(', ') + (ids.length > NAMED ? `, … (${ids.length - NAMED} more)` : '');
}

/** What a model reads: its descriptor's word (by model.json's name), else its format's. */
function readsGraph(model: ClutrrModel): boolean {
  return (modelKind(model.name)?.reads ?? (model.kind === 'gat' ? 'graph' : 'text')) === 'graph';
}

/**
 * The first line: the folder, what its model is (its descriptor, by `model`, or model.json's
 * name for --model-dir) and what it was trained on (its metadata.json, when the folder has one).
 */
function describeLine(label: string, kind: ModelKindInfo | undefined, folder: string): string {
  let line = `model ${label}: `;
  line += kind
    ? `${kind.label}; reads the ${kind.reads}; supervised by the ${SUPERVISION_TEXT[kind.supervision]}; paper model: ${paperModelText(kind.paperModel)}`
    : 'not a model of src/ml/modelKinds.ts';
  const meta = path.join(folder, 'metadata.json');
  if (!existsSync(meta)) return `${line}; no metadata.json`;
  try {
    return `${line}; trained on ${trainedOnText(trainedOn(JSON.parse(readFileSync(meta, 'utf8')) as ModelMetadata))}`;
  } catch (e) {
    return `${line}; metadata.json unreadable (${(e as Error).message})`;
  }
}

/** The versions of `model` shipped under public/models/<model>/, for the message when one is missing. */
function shippedVersions(root: string, model: string): string[] {
  const dir = path.join(root, model);
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((v) => existsSync(path.join(dir, v, 'model.json')))
        .sort()
    : [];
}

/** Where each answered row goes besides the file's tally: the breakdown and `--rows`. */
interface RowSinks {
  readonly list: boolean;
  readonly breakdown: EvalBreakdown;
  /** An open file descriptor for `--rows`, or null. */
  readonly rowsFd: number | null;
}

async function evalFile(file: string, model: ClutrrModel, sinks: RowSinks): Promise<FileTally> {
  const tally: FileTally = { rows: 0, correct: 0, untyped: [], dropped: 0, notAClass: [], wrong: [] };
  const graph = readsGraph(model);
  let pending: { id: string; question: ModelQuestion; row: ClutrrRow }[] = [];
  const flush = async () => {
    const part = pending;
    pending = [];
    if (part.length === 0) return;
    const answers = await model.answer(part.map((p) => p.question));
    let lines = '';
    answers.forEach((a, i) => {
      const { id, question, row } = part[i]!;
      const best = bestClass(a.probs);
      if (best === question.graph.label) tally.correct++;
      else if (sinks.list) tally.wrong.push(`${id} answered ${CLASSES[best]}, target ${row.target}`);
      const answered = answeredRow(file, id, row, a.probs);
      sinks.breakdown.add(answered);
      if (sinks.rowsFd !== null) lines += `${JSON.stringify(answered)}\n`;
    });
    if (sinks.rowsFd !== null) writeSync(sinks.rowsFd, lines);
  };
  const reader = new ClutrrRowReader((row, n) => {
    const { question, untypedEdges, droppedPeople } = questionFromRow(row);
    const id = row.id || `row ${n}`;
    tally.rows++;
    if (graph && untypedEdges.length > 0) {
      tally.untyped.push(id);
      tally.dropped += droppedPeople.length;
    }
    if (question.graph.label < 0) tally.notAClass.push(`${id} (${row.target})`);
    pending.push({ id, question, row });
  }, file);
  for await (const chunk of readText(file)) {
    reader.push(chunk);
    if (pending.length >= BATCH) await flush();
  }
  reader.end();
  await flush();
  return tally;
}

export async function evalCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { flags, positional } = parseArgs('eval', argv, FLAGS);
  const name = flags.model as string | undefined;
  const dir = flags['model-dir'] as string | undefined;
  if (!name && !dir) throw new UsageError(`name a model with --model (${MODEL_IDS.join(', ')}) or --model-dir`);
  if (name && dir) throw new UsageError('give --model or --model-dir, not both');
  const backend = flags.backend as string;
  if (backend !== 'wasm' && backend !== 'cpu') throw new UsageError(`--backend must be wasm or cpu (got ${backend})`);
  if (positional.length === 0) throw new UsageError('name at least one CSV file (see eval --help)');
  if (name && !modelKind(name)) throw new UsageError(`--model must be one of ${MODEL_IDS.join(', ')} (got ${name})`);
  const version = flags.version as string;
  if (!/^[\w.-]+$/.test(version)) throw new UsageError(`--version: not a version (got ${version})`);

  const root = name ? path.join(projectRoot(), 'public', 'models') : '';
  const folder = dir ? path.resolve(dir) : path.join(root, name!, version);
  if (name && !existsSync(folder)) {
    const versions = shippedVersions(root, name);
    throw new CliError(
      `no shipped model ${name}/${version} (looked in ${folder}); ${versions.length ? `shipped versions of ${name}: ${versions.join(', ')}` : `no version of ${name} is shipped`} (public/models/index.json lists every folder)`,
    );
  }
  const wasmDir = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
  await useBackend(backend, wasmDir + path.sep);
  const label = name ? `${name}/${version}` : folder;
  const model = readModel(folder, label);
  const total = { rows: 0, correct: 0 };
  const rowsOut = flags.rows as string | undefined;
  let rowsFd: number | null = null;
  try {
    if (rowsOut !== undefined) {
      try {
        rowsFd = openSync(rowsOut, 'w');
      } catch (e) {
        throw new CliError(`--rows ${rowsOut}: cannot write it (${(e as Error).message})`);
      }
    }
    const sinks: RowSinks = { list: flags.list === true, breakdown: new EvalBreakdown(), rowsFd };
    process.stdout.write(`${describeLine(label, modelKind(name ?? model.name), folder)}\n`);
    for (const file of positional) {
      const t = await evalFile(file, model, sinks);
      process.stdout.write(`${file}: rows=${t.rows} correct=${t.correct} accuracy=${accuracy(t.correct, t.rows)}\n`);
      if (t.untyped.length > 0) {
        process.stdout.write(
          `  ${t.untyped.length} row(s) had edges without a type, left out of the graph: ${named(t.untyped)}\n`,
        );
        process.stdout.write(
          `  the file does not type its noise edges: they and the ${t.dropped} people only they reached were left out, so this file cannot measure robustness to its noise (its figure is the clean graph's)\n`,
        );
      }
      if (t.notAClass.length > 0) {
        process.stdout.write(
          `  ${t.notAClass.length} row(s) have a target outside the 18 classes, counted as wrong: ${named(t.notAClass)}\n`,
        );
      }
      for (const line of t.wrong) process.stdout.write(`  ${line}\n`);
      total.rows += t.rows;
      total.correct += t.correct;
    }
    for (const line of sinks.breakdown.lines()) process.stdout.write(`${line}\n`);
  } finally {
    model.dispose();
    if (rowsFd !== null) closeSync(rowsFd);
  }
  process.stdout.write(`rows=${total.rows} correct=${total.correct} accuracy=${accuracy(total.correct, total.rows)}\n`);
  return 0;
}
