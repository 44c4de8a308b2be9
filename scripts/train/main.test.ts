import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { writeClutrrCsv } from '../../src/core/formats/clutrrCsv';
import { puzzleToRow } from '../../src/core/formats/fromPuzzle';
import { generatePuzzle } from '../../src/core/puzzle/puzzle';
import { createRng } from '../../src/core/random/rng';
import { renderPlain } from '../../src/core/text/plain';
import { CLASSES } from '../../src/ml/encoding';
import { loadModel } from '../../src/ml/load';
import { modelFacts } from '../../src/ml/modelKinds';
import { main } from './main';

const out = mkdtempSync(path.join(tmpdir(), 'train-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('npm run train', () => {
  it('writes model.json, weights.bin and metadata.json that load back (tiny run on cpu)', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((s: string) => void lines.push(s));
    const args = ['--model', 'gat-improved', '--epochs', '1', '--train-rows', '20', '--test-rows', '4'];
    expect(await main([...args, '--backend', 'cpu', '--out', out])).toBe(0);
    vi.restoreAllMocks();
    expect(lines).toHaveLength(9);
    expect(lines[0]).toMatch(/^k=2 rows=4 correct=\d accuracy=\d\.\d{3}$/);
    const metadata = JSON.parse(readFileSync(path.join(out, 'metadata.json'), 'utf8'));
    expect(metadata.classes).toEqual(CLASSES);
    expect(Object.keys(metadata.test.accuracy)).toEqual(['2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(metadata.config.inverseEdges).toBe(true);
    // What the model is, from the descriptor, and what it was trained on.
    expect(metadata).toMatchObject({ ...modelFacts('gat-improved'), kind: 'gat' });
    expect(metadata.label).toBe('Relation composer, rule-supervised');
    expect(metadata.training).toMatchObject({ noise: 'clean', preset: 'emnlp-systematic', labels: 'family', rows: 20 });
    const weights = readFileSync(path.join(out, 'weights.bin'));
    const model = loadModel(
      JSON.parse(readFileSync(path.join(out, 'model.json'), 'utf8')),
      weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
    );
    expect(model.name).toBe('gat-improved');
    expect(metadata.robustness.map((r: { test: string }) => r.test)).toEqual([
      'clean',
      'supporting',
      'irrelevant',
      'disconnected',
    ]);
    model.dispose();
  });
  it('--keep-best measures each epoch on validation rows of their own and keeps the best epoch', async () => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const dir = path.join(out, 'keep-best');
    const args = ['--model', 'gat', '--epochs', '3', '--train-rows', '20', '--test-rows', '4', '--keep-best'];
    expect(await main([...args, '--backend', 'cpu', '--out', dir])).toBe(0);
    vi.restoreAllMocks();
    const metadata = JSON.parse(readFileSync(path.join(dir, 'metadata.json'), 'utf8'));
    const history = metadata.training.history as { epoch: number; testAccuracy23: number }[];
    expect(metadata.training.validation).toMatchObject({ datasetSeed: '1/validation', rowsPerK: 4, ks: [2, 3] });
    // The kept epoch is the first with the best validation figure.
    const best = Math.max(...history.map((h) => h.testAccuracy23));
    expect(metadata.training.keptEpoch).toBe(history.find((h) => h.testAccuracy23 === best)!.epoch);
  });

  it('--describe refreshes the descriptive facts of the folders under --out, nothing else', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'describe-'));
    try {
      const dir = path.join(root, 'gat', '1');
      mkdirSync(dir, { recursive: true });
      const old = { model: 'gat', kind: 'gat', label: 'GAT', version: '1', test: { rows: 2, accuracy: { '2': 0.5 } } };
      writeFileSync(
        path.join(dir, 'metadata.json'),
        JSON.stringify({ ...old, training: { noise: 'clean', tasks: [], rows: 2 } }),
      );
      writeFileSync(path.join(dir, 'weights.bin'), new Uint8Array(4));
      vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      expect(await main(['--describe', '--out', root])).toBe(0);
      vi.restoreAllMocks();
      const meta = JSON.parse(readFileSync(path.join(dir, 'metadata.json'), 'utf8'));
      expect(meta).toMatchObject({ ...modelFacts('gat'), test: old.test });
      const index = JSON.parse(readFileSync(path.join(root, 'index.json'), 'utf8'));
      expect(index.models[0]).toMatchObject({ id: 'gat/1', label: 'GAT (paper)', weightBytes: 4 });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
  it('refuses an unknown model or noise kind, naming the flag', async () => {
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((s: string) => void errors.push(s));
    expect(await main(['--model', 'bert'])).toBe(2);
    expect(await main(['--model', 'gat', '--noise', 'loud'])).toBe(2);
    expect(errors[0]).toMatch(/^--model must be one of gat, gat-improved.* \(got bert\)/);
    expect(errors[1]).toMatch(/^--noise must be one of clean, supporting, irrelevant, disconnected \(got loud\)/);
    vi.restoreAllMocks();
  });

  it('refuses an unknown --bank, and --bank beside --train-csv', async () => {
    const errors: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((s: string) => void errors.push(s));
    expect(await main(['--model', 'lstm-mean', '--bank', 'huge'])).toBe(2);
    expect(await main(['--model', 'lstm-mean', '--bank', 'wide', '--train-csv', 'a.csv'])).toBe(2);
    expect(errors[0]).toMatch(/^--bank must be ours or wide \(got huge\)/);
    expect(errors[1]).toMatch(/^--bank tells generated stories; with --train-csv/);
    vi.restoreAllMocks();
  });

  describe('on CLUTRR CSV files', () => {
    /** A CLUTRR CSV of our generator's rows (task 1) at these k, `per` rows each. */
    const csvFile = (name: string, ks: readonly number[], per: number): string => {
      const rows = ks.flatMap((k) =>
        Array.from({ length: per }, (_, i) => {
          const p = generatePuzzle({ seed: `${name}:${k}:${i}`, k, task: 1 });
          return puzzleToRow(p, renderPlain(p, 'train', createRng(p.seed, 'text')), {
            index: i,
            id: `${name}-${k}-${i}`,
            split: 'train',
          });
        }),
      );
      const file = path.join(out, name);
      writeFileSync(file, writeClutrrCsv(rows));
      return file;
    };
    const quiet = () => {
      const err: string[] = [];
      vi.spyOn(process.stderr, 'write').mockImplementation((s) => (err.push(String(s)), true));
      const lines: string[] = [];
      vi.spyOn(console, 'log').mockImplementation((s: string) => void lines.push(s));
      const errors: string[] = [];
      vi.spyOn(console, 'error').mockImplementation((s: string) => void errors.push(s));
      return { err, lines, errors };
    };
    const train = () => csvFile('train-23.csv', [2, 3], 30);
    const test = () => csvFile('test-234.csv', [2, 3, 4], 5);

    it('--train-csv and --test-csv: trains on the files, tests by k, records names, rows and digests', async () => {
      const [a, b] = [train(), test()];
      const dir = path.join(out, 'from-csv');
      const io = quiet();
      const args = ['--model', 'gat', '--train-csv', a, '--test-csv', b, '--epochs', '1', '--batch', '20'];
      expect(await main([...args, '--backend', 'cpu', '--out', dir])).toBe(0);
      vi.restoreAllMocks();
      expect(io.lines).toHaveLength(3);
      expect(io.lines.map((l) => l.replace(/correct=\d+ accuracy=\d\.\d{3}/, 'X'))).toEqual([
        'k=2 rows=5 X',
        'k=3 rows=5 X',
        'k=4 rows=5 X',
      ]);
      const metadata = JSON.parse(readFileSync(path.join(dir, 'metadata.json'), 'utf8'));
      const digest = createHash('sha256').update(readFileSync(a)).digest('hex');
      // Six of the 60 rows are the validation slice: 54 trained on.
      expect(metadata.training).toMatchObject({
        source: 'files',
        noise: 'clean',
        labels: 'clutrr',
        rows: 54,
        validationRows: 6,
        files: [{ name: 'train-23.csv', rows: 60, used: 60, sha256: digest, ks: [2, 3] }],
        tasks: [
          { task: 1, k: 2 },
          { task: 1, k: 3 },
        ],
      });
      expect(metadata.training.history).toHaveLength(1);
      expect(metadata.training.history[0].testAccuracy23).toBeGreaterThanOrEqual(0);
      expect(metadata.test.files.map((f: { name: string }) => f.name)).toEqual(['test-234.csv']);
      expect(Object.keys(metadata.test.accuracy)).toEqual(['2', '3', '4']);
      // The folder records where the data came from, never the data.
      const text = readFileSync(path.join(dir, 'metadata.json'), 'utf8');
      expect(text).not.toMatch(/\[[A-Z][a-z]+\]/);
      expect(JSON.stringify(metadata)).not.toContain(readFileSync(a, 'utf8').split('\n')[1]!.slice(40, 80));
    });

    it('--resume goes on from a folder (epochs numbered on); --max-seconds keeps what one step learned', async () => {
      const a = train();
      const first = path.join(out, 'first');
      const second = path.join(out, 'second');
      quiet();
      const base = ['--model', 'rn', '--train-csv', a, '--batch', '20', '--backend', 'cpu'];
      expect(await main([...base, '--epochs', '1', '--out', first])).toBe(0);
      expect(await main([...base, '--epochs', '1', '--resume', first, '--out', second])).toBe(0);
      const history = JSON.parse(readFileSync(path.join(second, 'metadata.json'), 'utf8')).training.history;
      expect(history.map((h: { epoch: number }) => h.epoch)).toEqual([1, 2]);
      // The resumed model kept the first run's tokeniser.
      const tokenizer = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8')).tokenizer;
      expect(tokenizer(second)).toEqual(tokenizer(first));
      const capped = path.join(out, 'capped');
      expect(await main([...base, '--epochs', '5', '--max-seconds', '0.001', '--out', capped])).toBe(0);
      vi.restoreAllMocks();
      const meta = JSON.parse(readFileSync(path.join(capped, 'metadata.json'), 'utf8'));
      expect(meta.training.history).toHaveLength(1);
      expect(meta.training.history[0].batches).toBe(1);
      expect(meta.training.maxSeconds).toBe(0.001);
      expect(existsSync(path.join(capped, 'weights.bin'))).toBe(true);
    });

    it('refuses what cannot be: generation flags beside files, a folder of another model, a malformed file', async () => {
      const a = train();
      const io = quiet();
      expect(await main(['--model', 'gat', '--train-csv', a, '--noise', 'supporting'])).toBe(2);
      expect(io.errors[0]).toMatch(/^--noise shapes generated data; with --train-csv every row/);
      expect(await main(['--model', 'gat', '--test-csv', a])).toBe(2);
      expect(io.errors[1]).toMatch(/^--test-csv goes with --train-csv/);
      expect(await main(['--model', 'gat', '--train-csv', '--epochs', '1'])).toBe(2);
      expect(io.errors[2]).toMatch(/^--train-csv needs at least one CLUTRR CSV file/);
      expect(await main(['--model', 'rn', '--train-csv', a, '--resume', path.join(out, 'from-csv')])).toBe(1);
      expect(io.errors[3]).toMatch(/its model is gat, not --model rn/);
      const bad = path.join(out, 'bad.csv');
      writeFileSync(bad, 'a,b\n1,2\n');
      expect(await main(['--model', 'gat', '--train-csv', bad, '--backend', 'cpu'])).toBe(1);
      expect(io.errors[4]).toContain('bad.csv');
      expect(io.errors[4]).toContain('story_edges');
      vi.restoreAllMocks();
    });
  });
});
