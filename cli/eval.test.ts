import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClutrrCsv, writeClutrrCsv } from '../src/core/formats/clutrrCsv';
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
