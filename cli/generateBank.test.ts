import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClutrrCsv } from '../src/core/formats/clutrrCsv';
import { main } from './main';
import { captureOutput } from './testOutput';

/** `generate --bank wide`: our bank plus its wide files (src/core/text/wideBank.ts), opt-in. */
const io = captureOutput();
const tmp = () => mkdtempSync(path.join(tmpdir(), 'clutrr-bank-'));
const FLAGS = [
  '--train-tasks',
  '1.2',
  '--test-tasks',
  '1.3',
  '--train-rows',
  '150',
  '--test-rows',
  '20',
  '--seed',
  'wide',
];
const PLURAL =
  /\b(children|kids|sons|daughters|parents|siblings|brothers|sisters|grandchildren|grandkids|grandsons|granddaughters|grandparents|grandfathers|grandmothers|nephews|nieces|uncles|aunts|sons-in-law|daughters-in-law|parents-in-law)\b/;

describe('generate --bank', () => {
  it('wide tells some facts with plural kin words, the same puzzles as the default, and config.json names the bank', async () => {
    const ours = path.join(tmp(), 'ours');
    const wide = path.join(tmp(), 'wide');
    expect(await main(['generate', ...FLAGS, '--out', ours])).toBe(0);
    expect(await main(['generate', ...FLAGS, '--bank', 'wide', '--out', wide])).toBe(0);
    const rows = (dir: string) => parseClutrrCsv(readFileSync(path.join(dir, '1.2_train.csv'), 'utf8'));
    const a = rows(ours);
    const b = rows(wide);
    expect(b.map((r) => [r.query, r.target, r.edgeTypes])).toEqual(a.map((r) => [r.query, r.target, r.edgeTypes]));
    expect(a.filter((r) => PLURAL.test(r.story))).toHaveLength(0);
    expect(b.filter((r) => PLURAL.test(r.story)).length).toBeGreaterThan(20);
    const config = JSON.parse(readFileSync(path.join(wide, 'config.json'), 'utf8'));
    expect(config.templates).toBe('clutrr-lab wide bank');
    // Told by the bank (the wide files are ours), not by a template file.
    expect(config.facts_told.template_file).toBe(0);
    expect(JSON.parse(readFileSync(path.join(ours, 'config.json'), 'utf8')).templates).toBe('clutrr-lab bank');
  });

  it('refuses an unknown bank, and wide beside --templates or --synthetic', async () => {
    expect(await main(['generate', ...FLAGS, '--bank', 'huge', '--out', path.join(tmp(), 'x')])).toBe(2);
    expect(io.err).toMatch(/--bank must be ours or wide \(got "huge"\)/);
    expect(await main(['generate', ...FLAGS, '--bank', 'wide', '--synthetic', '--out', path.join(tmp(), 'y')])).toBe(2);
    expect(io.err).toMatch(/--bank wide .* does not go with --synthetic/);
  });
});
