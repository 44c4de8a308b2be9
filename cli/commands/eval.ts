import { closeSync, existsSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ClutrrRowReader } from '../../src/core/formats/clutrrCsv';
import type { ClutrrRow } from '../../src/core/formats/clutrrRow';
import { rowK } from '../../src/core/formats/toPuzzle';
import { completionsUrl, LlmError, type LlmEndpoint, type LlmSampling, type LlmTransport } from '../../src/llm/client';
import { isPromptKind, PROMPT_KINDS, PROMPTS, type PromptKind } from '../../src/llm/prompt';
import { askItems, type LlmItem, type LlmItemResult } from '../../src/llm/run';
import { CLASSES, questionFromRow } from '../../src/ml/encoding';
import { answeredRow, EvalBreakdown } from '../../src/ml/evalReport';
import { bestClass, type ClutrrModel, type ModelMetadata, type ModelQuestion, trainedOn } from '../../src/ml/model';
import {
  MODEL_KINDS,
  modelKind,
  type ModelKindInfo,
  paperModelText,
  SUPERVISION_TEXT,
  trainedOnText,
} from '../../src/ml/modelKinds';
import { median } from '../../src/study/results/stats';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { CliError, UsageError } from '../errors';
import { readText } from '../readText';
import { readModelFolder, shippedModelsDir, startBackend } from '../modelFolders';

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
    help: "write one JSON line per row to this file: id, file, k, task, gold, predicted, correct, top5, the audit's verdict (with --llm: prompt, reply, outcome, answer, correct, ms, tokens)",
  },
  llm: {
    type: 'string',
    help: 'ask a language model instead: an OpenAI-compatible server (http://127.0.0.1:8080/v1, or its …/chat/completions URL)',
  },
  'llm-model': { type: 'string', help: 'with --llm: the model name the server knows (e.g. llama3.1:8b)' },
  prompt: { type: 'string', default: 'zero-shot', help: `with --llm: ${PROMPT_KINDS.join(', ')} (src/llm/prompts/)` },
  'api-key-env': {
    type: 'string',
    help: 'with --llm: the environment variable holding the API key (sent only as Authorization: Bearer; never printed)',
  },
  concurrency: { type: 'integer', default: 4, help: 'with --llm: requests in flight at once', hint: 'n' },
  temperature: { type: 'number', default: 0, help: 'with --llm: sampling temperature, passed through', hint: 'n' },
  'max-tokens': {
    type: 'integer',
    help: `with --llm: max_tokens, passed through (default: ${PROMPT_KINDS.map((k) => `${k} ${PROMPTS[k].maxTokens}`).join(', ')})`,
    hint: 'n',
  },
  seed: { type: 'integer', help: 'with --llm: the sampling seed, passed through (servers that take one)', hint: 'n' },
};

const HELP = helpText(
  `usage: npm run cli -- eval --model ${MODEL_IDS.join('|')} [--version V] [--rows OUT.jsonl] FILE.csv...
       npm run cli -- eval --llm URL --llm-model NAME [--prompt ${PROMPT_KINDS.join('|')}] [--api-key-env VAR] [--concurrency N] [--rows OUT.jsonl] FILE.csv...`,
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
  rows=<n> correct=<n> accuracy=<x.xxx>

With --llm, a language model behind an OpenAI-compatible chat-completions endpoint answers
instead (src/llm/README.md): each row's story (names without brackets) and question go into the
--prompt template; the reply is read as one of the 18 answers (the last relation stated, or the
one after "Answer:"); a reply naming none is unparseable and counted as wrong. The same per-file
lines follow the first line, then a line unparseable=<n>, then the same last line. The key is
read only from the environment variable --api-key-env names, and never printed or written.`,
  FLAGS,
);

const BATCH = 100;
/** How many row ids a note names before "…". */
const NAMED = 5;

interface FileTally {
  rows: number;
  correct: number;
  untyped: string[];
  /** People left out with the untyped edges that alone reached them. */
  dropped: number;
  notAClass: string[];
  wrong: string[];
}

/** The `--rows` file opened for writing (null without the flag); a path that cannot be written is a CliError. */
function openRowsFile(rowsOut: string | undefined): number | null {
  if (rowsOut === undefined) return null;
  try {
    return openSync(rowsOut, 'w');
  } catch (e) {
    throw new CliError(`--rows ${rowsOut}: cannot write it (${(e as Error).message})`);
  }
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

/** The notes under a file's line: rows read as no answer, rows that got no usable reply. */
function llmNotes(results: readonly LlmItemResult[]): string[] {
  const notes: string[] = [];
  const unparseable = results.filter((r) => r.outcome === 'unparseable').map((r) => r.id);
  const failed = results.filter((r) => r.outcome === 'error');
  if (unparseable.length > 0) {
    notes.push(
      `  ${unparseable.length} row(s) unparseable (no answer among the 18), counted as wrong: ${named(unparseable)}`,
    );
  }
  if (failed.length > 0) {
    notes.push(
      `  ${failed.length} row(s) got no usable reply, counted as wrong: ${named(failed.map((r) => r.id))} (first: ${failed[0]!.reason})`,
    );
  }
  return notes;
}

/** `eval --llm`: every row of the files asked of a chat-completions endpoint. */
async function evalLlmCommand(flags: Record<string, string | number | boolean | undefined>, files: string[]) {
  const url = flags.llm as string;
  const model = flags['llm-model'] as string | undefined;
  if (!model) throw new UsageError('--llm needs --llm-model NAME (the model name the server knows)');
  const prompt = flags.prompt as string;
  if (!isPromptKind(prompt)) throw new UsageError(`--prompt must be one of ${PROMPT_KINDS.join(', ')} (got ${prompt})`);
  const concurrency = flags.concurrency as number;
  if (concurrency < 1 || concurrency > 64)
    throw new UsageError(`--concurrency must be from 1 to 64 (got ${concurrency})`);
  let endpointUrl: string;
  try {
    endpointUrl = completionsUrl(url);
  } catch (e) {
    throw new UsageError(`--llm: ${(e as Error).message}`);
  }
  const keyVar = flags['api-key-env'] as string | undefined;
  let apiKey: string | undefined;
  if (keyVar !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(keyVar))
      throw new UsageError(`--api-key-env: not a variable name (got ${keyVar})`);
    apiKey = process.env[keyVar];
    if (!apiKey) throw new UsageError(`--api-key-env ${keyVar}: the variable is not set or empty`);
  }
  const endpoint: LlmEndpoint = { url: endpointUrl, model, apiKey };
  const sampling: LlmSampling = {
    temperature: flags.temperature as number,
    maxTokens: (flags['max-tokens'] as number | undefined) ?? PROMPTS[prompt as PromptKind].maxTokens,
    seed: flags.seed as number | undefined,
  };
  const transport: LlmTransport = {
    fetch: (u, init) => fetch(u, init),
    sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    now: () => performance.now(),
  };
  const rowsOut = flags.rows as string | undefined;
  let rowsFd: number | null = null;
  const total = { rows: 0, correct: 0, unparseable: 0 };
  const times: number[] = [];
  const tokens = { prompt: 0, completion: 0, counted: 0 };
  process.stdout.write(
    `llm ${model} at ${endpointUrl}: prompt ${prompt} (${PROMPTS[prompt].file}); temperature ${sampling.temperature}, max_tokens ${sampling.maxTokens}, seed ${sampling.seed ?? 'not sent'}; ${apiKey ? `key from $${keyVar}` : 'no key'}; ${concurrency} at once\n`,
  );
  try {
    rowsFd = openRowsFile(rowsOut);
    for (const file of files) {
      const rows: { item: LlmItem; row: ClutrrRow }[] = [];
      const reader = new ClutrrRowReader((row, n) => {
        const id = row.id || `row ${n}`;
        rows.push({ item: { id, story: row.story, a: row.query[0], b: row.query[1], gold: row.target }, row });
      }, file);
      for await (const chunk of readText(file)) reader.push(chunk);
      reader.end();
      const results: LlmItemResult[] = [];
      for (let i = 0; i < rows.length; i += BATCH) {
        const part = rows.slice(i, i + BATCH);
        let got: LlmItemResult[];
        try {
          got = await askItems(
            part.map((p) => p.item),
            { endpoint, prompt, sampling, concurrency },
            transport,
          );
        } catch (e) {
          if (e instanceof LlmError) throw new CliError(`--llm: ${e.message}`);
          throw e;
        }
        let lines = '';
        got.forEach((r, j) => {
          const row = part[j]!.row;
          results.push(r);
          if (r.ms !== null) times.push(r.ms);
          if (r.tokens?.prompt != null && r.tokens.completion != null) {
            tokens.prompt += r.tokens.prompt;
            tokens.completion += r.tokens.completion;
            tokens.counted++;
          }
          lines += `${JSON.stringify({ file, k: rowK(row), task: row.taskName, prompt_kind: prompt, model, ...r })}\n`;
        });
        if (rowsFd !== null) writeSync(rowsFd, lines);
      }
      const correct = results.filter((r) => r.correct).length;
      const unparseable = results.filter((r) => r.outcome === 'unparseable').length;
      process.stdout.write(
        `${file}: rows=${results.length} correct=${correct} accuracy=${accuracy(correct, results.length)}\n`,
      );
      for (const line of llmNotes(results)) process.stdout.write(`${line}\n`);
      total.rows += results.length;
      total.correct += correct;
      total.unparseable += unparseable;
    }
  } finally {
    if (rowsFd !== null) closeSync(rowsFd);
  }
  process.stdout.write(
    `time: median ${times.length ? median(times).toFixed(0) : '–'} ms per row; tokens: ${tokens.counted ? `${tokens.prompt} prompt, ${tokens.completion} completion over ${tokens.counted} row(s)` : 'not reported by the server'}\n`,
  );
  process.stdout.write(`unparseable=${total.unparseable}\n`);
  process.stdout.write(`rows=${total.rows} correct=${total.correct} accuracy=${accuracy(total.correct, total.rows)}\n`);
  return 0;
}

export async function evalCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { flags, positional } = parseArgs('eval', argv, FLAGS);
  const name = flags.model as string | undefined;
  const dir = flags['model-dir'] as string | undefined;
  if (flags.llm !== undefined) {
    if (name || dir) throw new UsageError('give --llm or --model / --model-dir, not both');
    if (positional.length === 0) throw new UsageError('name at least one CSV file (see eval --help)');
    return evalLlmCommand(flags, positional);
  }
  for (const f of ['llm-model', 'api-key-env', 'max-tokens', 'seed'] as const) {
    if (flags[f] !== undefined) throw new UsageError(`--${f} goes with --llm`);
  }
  if (!name && !dir) throw new UsageError(`name a model with --model (${MODEL_IDS.join(', ')}) or --model-dir`);
  if (name && dir) throw new UsageError('give --model or --model-dir, not both');
  const backend = flags.backend as string;
  if (backend !== 'wasm' && backend !== 'cpu') throw new UsageError(`--backend must be wasm or cpu (got ${backend})`);
  if (positional.length === 0) throw new UsageError('name at least one CSV file (see eval --help)');
  if (name && !modelKind(name)) throw new UsageError(`--model must be one of ${MODEL_IDS.join(', ')} (got ${name})`);
  const version = flags.version as string;
  if (!/^[\w.-]+$/.test(version)) throw new UsageError(`--version: not a version (got ${version})`);

  const root = name ? shippedModelsDir() : '';
  const folder = dir ? path.resolve(dir) : path.join(root, name!, version);
  if (name && !existsSync(folder)) {
    const versions = shippedVersions(root, name);
    throw new CliError(
      `no shipped model ${name}/${version} (looked in ${folder}); ${versions.length ? `shipped versions of ${name}: ${versions.join(', ')}` : `no version of ${name} is shipped`} (public/models/index.json lists every folder)`,
    );
  }
  await startBackend(backend);
  const label = name ? `${name}/${version}` : folder;
  const model = readModelFolder(folder, label);
  const total = { rows: 0, correct: 0 };
  const rowsOut = flags.rows as string | undefined;
  let rowsFd: number | null = null;
  try {
    rowsFd = openRowsFile(rowsOut);
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
