import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CLASSES } from '../../src/ml/encoding';
import { loadModel } from '../../src/ml/load';
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
