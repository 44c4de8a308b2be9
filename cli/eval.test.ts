import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClutrrCsv, writeClutrrCsv } from '../src/core/formats/clutrrCsv';
import { unbracket } from '../src/core/text/render';
import { ANSWER_WORDS, answerWordOf } from '../src/llm/answers';
import { useBackend } from '../src/ml/backend';
import { CLASSES, questionFromRow } from '../src/ml/encoding';
import { GraphNet, saveGat } from '../src/ml/graph/graphNet';
import { GAT_IMPROVED } from '../src/ml/graph/relationComposer';
import { loadModel } from '../src/ml/load';
import { bestClass } from '../src/ml/model';
import { MODEL_KINDS } from '../src/ml/modelKinds';
import { main } from './main';
import { captureOutput } from './testOutput';

const FIXTURES = 'src/core/formats/fixtures';
const dir = mkdtempSync(path.join(tmpdir(), 'eval-'));
const modelDir = path.join(dir, 'model');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An untrained (seeded) improved GAT written as a model folder: eval's wiring, not its skill, is tested. */
beforeAll(async () => {
  await useBackend('cpu');
  const gat = new GraphNet(GAT_IMPROVED, 'cli-eval-test');
  const { modelJson, weights } = await saveGat(gat, 'gat-improved');
  gat.dispose();
  mkdirSync(modelDir);
  writeFileSync(path.join(modelDir, 'model.json'), JSON.stringify(modelJson));
  writeFileSync(path.join(modelDir, 'weights.bin'), new Uint8Array(weights));
});

/** Correct answers of the folder's model on a file, computed without the CLI. */
async function expectedCorrect(file: string, folder = modelDir): Promise<number> {
  const bin = readFileSync(path.join(folder, 'weights.bin'));
  const model = loadModel(
    JSON.parse(readFileSync(path.join(folder, 'model.json'), 'utf8')),
    bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength),
  );
  const questions = parseClutrrCsv(readFileSync(file, 'utf8')).map((r) => questionFromRow(r).question);
  const answers = await model.answer(questions);
  model.dispose();
  return answers.filter((a, i) => bestClass(a.probs) === questions[i]!.graph.label).length;
}

describe('cli eval', () => {
  const io = captureOutput();
  const run = (...args: string[]) => main(['eval', '--model-dir', modelDir, '--backend', 'cpu', ...args]);

  it('prints a line per file and, last, exactly rows=<n> correct=<n> accuracy=<x.xxx>', async () => {
    const a = path.join(FIXTURES, 'stats-generated.csv');
    const b = path.join(FIXTURES, 'mini-clutrr.csv');
    expect(await run(a, b)).toBe(0);
    const lines = io.out.trimEnd().split('\n');
    const ca = await expectedCorrect(a);
    const cb = await expectedCorrect(b);
    // First what the model is (model.json's name is a descriptor id; this folder has no metadata).
    expect(lines[0]).toBe(
      `model ${modelDir}: Relation composer, rule-supervised; reads the graph; supervised by the answer plus every pair's relation from the rule base, unsound rules included; paper model: not in the paper; no metadata.json`,
    );
    expect(lines[1]).toBe(`${a}: rows=60 correct=${ca} accuracy=${(ca / 60).toFixed(3)}`);
    expect(lines).toContain(`${b}: rows=4 correct=${cb} accuracy=${(cb / 4).toFixed(3)}`);
    expect(lines.at(-1)).toBe(`rows=64 correct=${ca + cb} accuracy=${((ca + cb) / 64).toFixed(3)}`);
  });

  it('counts and names rows with an untyped edge or a target outside the classes, without failing', async () => {
    const rows = parseClutrrCsv(readFileSync(path.join(FIXTURES, 'mini-clutrr.csv'), 'utf8'));
    const edited = rows.map((r, i) =>
      i === 0 ? { ...r, edgeTypes: r.edgeTypes.slice(0, 1) } : i === 1 ? { ...r, target: 'husband' } : r,
    );
    const file = path.join(dir, 'released-style.csv');
    writeFileSync(file, writeClutrrCsv(edited));
    expect(await run(file)).toBe(0);
    // Rows 2 and 3 of the fixture type only their path edges, as the released noisy files do.
    const untyped = edited.filter((r) => r.edgeTypes.length < r.storyEdges.length).map((r) => r.id);
    expect(untyped).toHaveLength(3);
    expect(io.out).toContain(`3 row(s) had edges without a type, left out of the graph: ${untyped.join(', ')}\n`);
    expect(io.out).toContain(
      `1 row(s) have a target outside the 18 classes, counted as wrong: ${rows[1]!.id} (husband)`,
    );
    expect(io.out.trimEnd().split('\n').at(-1)).toMatch(/^rows=4 correct=[0-3] accuracy=0\.\d{3}$/);
  });

  it('says a file with untyped noise edges cannot measure robustness to its noise', async () => {
    const file = path.join(FIXTURES, 'mini-clutrr.csv');
    expect(await run(file)).toBe(0);
    // Rows 2 and 3 type only their path edges; one and two people are reached by those alone.
    expect(io.out).toContain(
      '  the file does not type its noise edges: they and the 3 people only they reached were left out, so this file cannot measure robustness to its noise',
    );
  });

  it('says nothing of noise for a file that types every edge', async () => {
    expect(await run(path.join(FIXTURES, 'stats-generated.csv'))).toBe(0);
    expect(io.out).toContain('rows=60 correct=');
    expect(io.out).not.toContain('does not type its noise edges');
  });

  it('--rows writes every answer with the audit verdict; the breakdown counts them by verdict and by answer', async () => {
    // Rows whose verdicts the rule base fixes (audit.test.ts works the first three out).
    const base = parseClutrrCsv(readFileSync(path.join(FIXTURES, 'mini-clutrr.csv'), 'utf8'))[1]!;
    const as = (id: string, types: string[], genders: string[], target: string) => ({
      ...base,
      id,
      edgeTypes: types,
      genders: base.genders.map((g, j) => ({ ...g, gender: genders[j]! })),
      target,
    });
    const rows = [
      as('impossible', ['son', 'mother', 'father'], ['male', 'male', 'female', 'male'], 'father'),
      as('sound', ['brother', 'brother', 'son'], ['female', 'male', 'male', 'male'], 'nephew'),
      as('assumed', ['daughter', 'brother', 'uncle'], ['male', 'female', 'male', 'male'], 'brother'),
      as('ambiguous', ['husband', 'son', 'grandmother'], ['female', 'male', 'male', 'female'], 'mother'),
      as('sound-2', ['brother', 'brother', 'son'], ['female', 'male', 'male', 'male'], 'nephew'),
    ];
    const file = path.join(dir, 'verdicts.csv');
    writeFileSync(file, writeClutrrCsv(rows));
    const out = path.join(dir, 'answers.jsonl');
    expect(await run('--rows', out, file)).toBe(0);
    const answered = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(answered.map((a) => [a.id, a.k, a.task, a.gold, a.verdict])).toEqual([
      ['impossible', 3, base.taskName, 'father', 'true in no family'],
      ['sound', 3, base.taskName, 'nephew', 'entailed'],
      ['assumed', 3, base.taskName, 'brother', 'assumed, possible'],
      ['ambiguous', 3, base.taskName, 'mother', 'ambiguous'],
      ['sound-2', 3, base.taskName, 'nephew', 'entailed'],
    ]);
    // The model's own answers, computed without the CLI, are the file's.
    const bin = readFileSync(path.join(modelDir, 'weights.bin'));
    const model = loadModel(
      JSON.parse(readFileSync(path.join(modelDir, 'model.json'), 'utf8')),
      bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength),
    );
    const probs = (await model.answer(rows.map((r) => questionFromRow(r).question))).map((a) => a.probs);
    model.dispose();
    answered.forEach((a, i) => {
      const top = a.top5 as { answer: string; p: number }[];
      expect(top).toHaveLength(5);
      expect(a.predicted).toBe(CLASSES[bestClass(probs[i]!)]);
      expect(top[0]!.answer).toBe(a.predicted);
      expect(top[0]!.p).toBeCloseTo(Math.max(...probs[i]!), 4);
      expect(a.correct).toBe(a.predicted === a.gold);
    });
    const right = (ids: string[]) => answered.filter((a) => ids.includes(a.id as string) && a.correct).length;
    const lines = io.out.trimEnd().split('\n');
    const entailed = right(['sound', 'sound-2']);
    expect(lines).toContain(
      `  entailed: rows=2 correct=${entailed} accuracy=${(entailed / 2).toFixed(3)} majority=1.000 (nephew)`,
    );
    expect(lines).toContain(
      `  true in no family: rows=1 correct=${right(['impossible'])} accuracy=${right(['impossible']).toFixed(3)} majority=1.000 (father)`,
    );
    expect(lines).toContain('majority baseline: always "nephew" accuracy=0.400');
    const given = answered.filter((a) => a.predicted === 'nephew').length;
    const nephewRight = answered.filter((a) => a.predicted === 'nephew' && a.correct).length;
    expect(lines).toContain(`  nephew: given=${given} right=${nephewRight} gold=2`);
    const all = answered.filter((a) => a.correct).length;
    expect(lines.at(-1)).toBe(`rows=5 correct=${all} accuracy=${(all / 5).toFixed(3)}`);
  });

  it('--model and --version pick a shipped folder: the paper GAT on CLUTRR’s labels', async () => {
    const file = path.join(FIXTURES, 'mini-clutrr.csv');
    expect(await main(['eval', '--model', 'gat', '--version', '1-clutrr-labels', '--backend', 'cpu', file])).toBe(0);
    const lines = io.out.trimEnd().split('\n');
    expect(lines[0]).toBe(
      "model gat/1-clutrr-labels: GAT (paper); reads the graph; supervised by the answer only; paper model: GAT; trained on 5,000 clean puzzles per k, k = 2, 3; balanced patterns (--preset emnlp-systematic); CLUTRR's labels",
    );
    const correct = await expectedCorrect(file, path.join('public', 'models', 'gat', '1-clutrr-labels'));
    expect(lines.at(-1)).toBe(`rows=4 correct=${correct} accuracy=${(correct / 4).toFixed(3)}`);
  });

  it('--model takes every model of the descriptor and nothing else', async () => {
    const file = path.join(FIXTURES, 'mini-clutrr.csv');
    for (const id of Object.keys(MODEL_KINDS)) {
      io.err = '';
      expect(await main(['eval', '--model', id, '--version', 'zz-none', file])).toBe(1);
      expect(io.err).toContain(`no shipped model ${id}/zz-none`);
    }
    io.err = '';
    expect(await main(['eval', '--model', 'bert', file])).toBe(2);
    expect(io.err).toContain(`--model must be one of ${Object.keys(MODEL_KINDS).join(', ')} (got bert)`);
    io.err = '';
    expect(await main(['eval', '--model', 'gat-pairs', file])).toBe(1);
    expect(io.err).toContain('no version of gat-pairs is shipped');
  });

  it('refuses a malformed file, a missing model and bad flags with a message naming them', async () => {
    const bad = path.join(dir, 'bad.csv');
    writeFileSync(bad, 'a,b\n1,2\n');
    expect(await run(bad)).toBe(1);
    expect(io.err).toContain(`clutrr eval: ${bad}, column story_edges: the header has no "story_edges" column`);
    io.err = '';
    expect(await main(['eval', '--model-dir', path.join(dir, 'nothing'), bad])).toBe(1);
    expect(io.err).toContain('no model.json and weights.bin in');
    io.err = '';
    expect(await main(['eval', '--model', 'gat', '--version', 'no-such', bad])).toBe(1);
    expect(io.err).toMatch(/no shipped model gat\/no-such \(looked in .*public\/models\/gat\/no-such\)/);
    expect(io.err).toMatch(/shipped versions of gat: 1, 1-clutrr-labels, 1-disconnected/);
    io.err = '';
    expect(await main(['eval', path.join(FIXTURES, 'mini-clutrr.csv')])).toBe(2);
    expect(io.err).toContain('name a model with --model');
    io.err = '';
    expect(await run('--backend', 'webgl', bad)).toBe(2);
    expect(io.err).toContain('--backend must be wasm or cpu (got webgl)');
  });
});

/**
 * `eval --llm` against a real chat-completions server on loopback (node:http, a free port): the
 * stub reads each prompt's story, looks its row up and answers by a rule the test knows (right
 * with reasoning, wrong, or a refusal), after one 429 with Retry-After. It stops itself after a
 * minute whatever happens.
 */
describe('cli eval --llm', () => {
  const io = captureOutput();
  const KEY = 'sk-llm-test-NEVER-PRINTED-9931';
  const files = [path.join(FIXTURES, 'mini-clutrr.csv'), path.join(FIXTURES, 'stats-generated.csv')];
  const rowsOf = (f: string) => parseClutrrCsv(readFileSync(f, 'utf8'));
  const goldOf = new Map(files.flatMap((f) => rowsOf(f).map((r) => [unbracket(r.story).trim(), r.target] as const)));
  /** The stub's rule: by the story's length, right (with several relations on the way), wrong, or a refusal. */
  const policy = (story: string) => story.length % 3;
  const seen: {
    auth: string | undefined;
    body: { model: string; temperature?: number; max_tokens?: number; seed?: number };
  }[] = [];
  let server: Server;
  let url = '';
  let calls = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        calls++;
        if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
          res.writeHead(404).end('not here');
          return;
        }
        if (calls === 1) {
          res.writeHead(429, { 'Retry-After': '0', 'Content-Type': 'application/json' }).end('{"error":"busy"}');
          return;
        }
        const parsed = JSON.parse(body) as { model: string; messages: { content: string }[] };
        seen.push({ auth: req.headers.authorization, body: parsed });
        const prompt = parsed.messages[0]!.content;
        const story = /Story: ([\s\S]*?)\n\nQuestion:/.exec(prompt)![1]!.trim();
        const gold = goldOf.get(story) ?? 'unknown';
        const p = policy(story);
        const wrong = ANSWER_WORDS.find((w) => w !== answerWordOf(gold))!;
        const content =
          p === 0
            ? `Let me follow the links. The first person is a mother, the next a brother.\nAnswer: ${gold}`
            : p === 1
              ? `${wrong}`
              : 'I am not able to tell from this story. Lo siento.';
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(
          JSON.stringify({
            model: parsed.model,
            choices: [{ index: 0, message: { role: 'assistant', content } }],
            usage: { prompt_tokens: 100, completion_tokens: 7, total_tokens: 107 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    setTimeout(() => server.close(), 60_000).unref();
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('prints the per-file lines, unparseable=<n>, then rows= correct= accuracy=; --rows keeps prompt, reply and answer; the key nowhere', async () => {
    const rowsFile = path.join(dir, 'llm-rows.jsonl');
    process.env.H6_TEST_LLM_KEY = KEY;
    const code = await main([
      'eval',
      '--llm',
      url,
      '--llm-model',
      'stub-7b',
      '--prompt',
      'cot',
      '--api-key-env',
      'H6_TEST_LLM_KEY',
      '--concurrency',
      '3',
      '--seed',
      '11',
      '--rows',
      rowsFile,
      ...files,
    ]);
    delete process.env.H6_TEST_LLM_KEY;
    expect(io.err).toBe('');
    expect(code).toBe(0);
    const lines = io.out.trimEnd().split('\n');
    expect(lines[0]).toBe(
      `llm stub-7b at ${url}/chat/completions: prompt cot (src/llm/prompts/chainOfThought.ts); temperature 0, max_tokens 768, seed 11; key from $H6_TEST_LLM_KEY; 3 at once`,
    );
    let all = { rows: 0, correct: 0, unparseable: 0 };
    for (const f of files) {
      const rows = rowsOf(f);
      const right = rows.filter((r) => policy(unbracket(r.story).trim()) === 0 && answerWordOf(r.target) !== null);
      const unparseable = rows.filter(
        (r) =>
          policy(unbracket(r.story).trim()) === 2 ||
          (policy(unbracket(r.story).trim()) === 0 && !answerWordOf(r.target)),
      );
      expect(lines).toContain(
        `${f}: rows=${rows.length} correct=${right.length} accuracy=${(right.length / rows.length).toFixed(3)}`,
      );
      all = {
        rows: all.rows + rows.length,
        correct: all.correct + right.length,
        unparseable: all.unparseable + unparseable.length,
      };
    }
    expect(all.correct).toBeGreaterThan(0);
    expect(all.unparseable).toBeGreaterThan(0);
    expect(lines.at(-2)).toBe(`unparseable=${all.unparseable}`);
    expect(lines.at(-1)).toBe(
      `rows=${all.rows} correct=${all.correct} accuracy=${(all.correct / all.rows).toFixed(3)}`,
    );
    expect(lines).toContain(
      `time: median ${lines.find((l) => l.startsWith('time:'))!.match(/median (\d+)/)![1]} ms per row; tokens: ${100 * all.rows} prompt, ${7 * all.rows} completion over ${all.rows} row(s)`,
    );
    // Every request carried the key in its header, the model, the seed and the sampling settings.
    expect(seen).toHaveLength(all.rows);
    expect(seen.every((s) => s.auth === `Bearer ${KEY}`)).toBe(true);
    expect(seen[0]!.body).toMatchObject({ model: 'stub-7b', temperature: 0, max_tokens: 768, seed: 11 });

    const rows = readFileSync(rowsFile, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(all.rows);
    const first = rows[0]!;
    expect(first).toMatchObject({ file: files[0], k: 2, prompt_kind: 'cot', model: 'stub-7b' });
    expect(first.prompt).toContain('How is Maren related to Odile?');
    expect(first.prompt).toContain('Odile bought a kite for her son Bastien.');
    expect(typeof first.reply).toBe('string');
    expect(rows.filter((r) => r.outcome === 'unparseable')).toHaveLength(all.unparseable);
    expect(rows.filter((r) => r.correct === true)).toHaveLength(all.correct);
    // The retried 429 shows as a second attempt on some row.
    expect(rows.some((r) => r.attempts === 2)).toBe(true);
    for (const text of [io.out, io.err, readFileSync(rowsFile, 'utf8')]) expect(text).not.toContain(KEY);
  });

  it('refuses bad flags with a message naming them; a server not running stops the run', async () => {
    const f = files[0]!;
    expect(await main(['eval', '--llm', url, f])).toBe(2);
    expect(io.err).toContain('--llm needs --llm-model NAME');
    io.err = '';
    expect(await main(['eval', '--llm', url, '--llm-model', 'm', '--prompt', 'tree', f])).toBe(2);
    expect(io.err).toContain('--prompt must be one of zero-shot, few-shot, cot (got tree)');
    io.err = '';
    expect(await main(['eval', '--llm', url, '--llm-model', 'm', '--api-key-env', 'H6_NOT_SET_ANYWHERE', f])).toBe(2);
    expect(io.err).toContain('--api-key-env H6_NOT_SET_ANYWHERE: the variable is not set or empty');
    io.err = '';
    expect(await main(['eval', '--llm', 'ftp://x', '--llm-model', 'm', f])).toBe(2);
    expect(io.err).toContain('--llm: the endpoint must be http: or https:');
    io.err = '';
    expect(await main(['eval', '--model-dir', modelDir, '--llm-model', 'm', f])).toBe(2);
    expect(io.err).toContain('--llm-model goes with --llm');
    io.err = '';
    // A port nothing listens on (this server's, closed).
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await main(['eval', '--llm', `http://127.0.0.1:${port}`, '--llm-model', 'm', f])).toBe(1);
    expect(io.err).toContain(`clutrr eval: --llm: http://127.0.0.1:${port}/v1/chat/completions: no answer`);
  });
});
