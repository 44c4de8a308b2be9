import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
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
});
