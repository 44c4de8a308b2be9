import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CLASSES } from '../../src/ml/encoding';
import { loadGat } from '../../src/ml/gat';
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
    const model = loadGat(
      JSON.parse(readFileSync(path.join(out, 'model.json'), 'utf8')),
      weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
    );
    model.dispose();
  });
  it('refuses an unknown model', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await main(['--model', 'lstm'])).toBe(2);
    vi.restoreAllMocks();
  });
});
