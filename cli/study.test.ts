import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STUDY, type StudyDefinition } from '../src/study/definition';
import { decodeStudyLink } from '../src/study/link';
import { readParticipantParams } from '../src/study/route';
import { main } from './main';
import { captureOutput } from './testOutput';

const io = captureOutput();

const lastLine = (s: string) => s.trim().split('\n').at(-1)!;

/** Runs `study link` with these flags; the definition its last line carries. */
async function link(...flags: string[]): Promise<{ line: string; def: StudyDefinition }> {
  io.out = '';
  io.err = '';
  expect(await main(['study', 'link', ...flags])).toBe(0);
  expect(io.err).toBe('');
  const line = lastLine(io.out);
  expect(line.startsWith('?study=')).toBe(true);
  const token = readParticipantParams(line).token!;
  const decoded = decodeStudyLink(token);
  if (!decoded.ok) throw new Error(decoded.error.message);
  return { line, def: decoded.definition };
}

/** Runs `study link` expecting a refusal; the one stderr line. */
async function refused(...flags: string[]): Promise<string> {
  io.out = '';
  io.err = '';
  expect(await main(['study', 'link', ...flags])).toBe(2);
  expect(io.out).toBe('');
  expect(io.err.trim().split('\n')).toHaveLength(1);
  return io.err.trim();
}

describe('study link', () => {
  it('prints the participant path last; it decodes to the study the flags describe', async () => {
    const { line, def } = await link(
      '--k',
      '2,3',
      '--per-k',
      '2',
      '--seed',
      '5',
      '--time-limit',
      '60',
      '--practice',
      '0',
      '--strict',
    );
    expect(line).toMatch(/^\?study=s1\.[A-Za-z0-9_-]+\.[0-9a-f]{8}$/);
    expect(def).toEqual({
      ...DEFAULT_STUDY,
      k: [2, 3],
      itemsPerK: 2,
      seed: 5,
      practice: 0,
      conditions: [{ id: 'timed', perPuzzleLimitS: 60, overallLimitS: null, display: 'text', scratchpad: false }],
    });
    expect(io.out).toContain('items: 4 main (k 2,3 × task 1 × 2), 0 practice, 1 attention check; 5 trials');
    expect(io.out).toContain(`link: ${line.length} characters`);
  });

  it('the same flags give the same line; a different seed another', async () => {
    const flags = ['--k', '2,3', '--per-k', '2', '--seed', '5'];
    const a = await link(...flags);
    const b = await link(...flags);
    const c = await link('--k', '2,3', '--per-k', '2', '--seed', '6');
    expect(b.line).toBe(a.line);
    expect(c.line).not.toBe(a.line);
  });

  it('maps every flag onto its setting', async () => {
    const { def } = await link(
      ...['--study-id', 'pilot-2', '--tasks', '1,2', '--k', '4', '--per-k', '3', '--no-strict'],
      ...['--template-split', 'test', '--practice', '3', '--attention-checks', '2', '--order', 'counterbalanced:3'],
      ...['--overall-limit', '900', '--display', 'text+drawing', '--scratchpad', '--assignment', 'url'],
      ...['--consent', 'You **agree**.', '--instructions', 'Read.', '--completion', 'Done.'],
      ...['--break-every', '4', '--completion-code', 'C0DE', '--redirect', 'https://example.org/done'],
      ...['--resume', 'refuse', '--max-age', '60', '--http-sink', 'https://a.example/rows'],
      ...['--jatos', '--http-sink=https://b.example/rows'],
    );
    expect(def).toEqual({
      ...DEFAULT_STUDY,
      studyId: 'pilot-2',
      tasks: [1, 2],
      k: [4],
      itemsPerK: 3,
      strict: false,
      templateSplit: 'test',
      practice: 3,
      attentionChecks: 2,
      order: { mode: 'counterbalanced', lists: 3 },
      conditions: [
        { id: 'timed', perPuzzleLimitS: null, overallLimitS: 900, display: 'text+drawing', scratchpad: true },
      ],
      assignment: 'url',
      consentText: 'You **agree**.',
      instructionsText: 'Read.',
      completionText: 'Done.',
      breakEvery: 4,
      completionCode: 'C0DE',
      redirectUrl: 'https://example.org/done',
      resumePolicy: 'refuse',
      maxAgeMinutes: 60,
      sinks: [
        { kind: 'jatos' },
        { kind: 'http', url: 'https://a.example/rows' },
        { kind: 'http', url: 'https://b.example/rows' },
      ],
    });
  });

  it('takes several conditions, and a study from a definition file with flags over it', async () => {
    const { def } = await link(
      '--condition',
      'fast,limit=30',
      '--condition',
      'slow,limit=120,display=text+drawing,scratchpad',
    );
    expect(def.conditions).toEqual([
      { id: 'fast', perPuzzleLimitS: 30, overallLimitS: null, display: 'text', scratchpad: false },
      { id: 'slow', perPuzzleLimitS: 120, overallLimitS: null, display: 'text+drawing', scratchpad: true },
    ]);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'clutrr-study-')), 'study.json');
    writeFileSync(file, JSON.stringify({ ...def, seed: 9, sinks: [{ kind: 'jatos' }] }));
    const fromFile = await link('--from', file, '--per-k', '1');
    expect(fromFile.def).toEqual({ ...def, seed: 9, itemsPerK: 1, sinks: [{ kind: 'jatos' }] });
  });

  it('refuses a study that cannot run with exit 2 and the setting named', async () => {
    expect(await refused('--k', '2,11')).toMatch(/^clutrr study: k: k must be whole numbers from 1 to 10/);
    expect(await refused('--per-k', 'two')).toMatch(/^clutrr study: itemsPerK: /);
    expect(await refused('--per-k', '')).toMatch(/^clutrr study: itemsPerK: /);
    expect(await refused('--tasks', '8')).toMatch(/^clutrr study: tasks: /);
    expect(await refused('--consent', ' ')).toBe('clutrr study: consentText: the consent text must not be empty');
    expect(await refused('--time-limit', '0')).toMatch(/^clutrr study: conditions\.0\.perPuzzleLimitS: /);
    expect(await refused('--display', 'video')).toMatch(/^clutrr study: conditions\.0\.display: /);
    expect(await refused('--redirect', 'ftp://x')).toMatch(/^clutrr study: redirectUrl: /);
    expect(await refused('--http-sink', 'nowhere')).toMatch(/^clutrr study: sinks\.0\.url: /);
    expect(await refused('--order', 'random')).toMatch(/^clutrr study: order: /);
    expect(await refused('--order', 'counterbalanced:1')).toMatch(/^clutrr study: order\.lists: /);
    expect(await refused('--resume', 'maybe')).toMatch(/^clutrr study: resumePolicy: /);
    expect(await refused('--strict', '--no-strict')).toMatch(/^clutrr study: strict: /);
    expect(await refused('--condition', 'a', '--condition', 'a')).toMatch(
      /^clutrr study: conditions\.1\.id: .*used twice/,
    );
    expect(await refused('--condition', 'a,speed=3')).toMatch(/^clutrr study: conditions\.0: /);
    expect(await refused('--k', '2,3', '--per-k', '100', '--tasks', '1,2,3')).toMatch(
      /^clutrr study: itemsPerK: .*600 main items/,
    );
    expect(await refused('--bogus')).toMatch(/^clutrr study: unknown flag --bogus/);
  });

  it('needs the link subcommand; --help says strict is the default', async () => {
    expect(await main(['study'])).toBe(2);
    expect(io.err).toMatch(/clutrr study: name a subcommand/);
    io.out = '';
    expect(await main(['study', '--help'])).toBe(0);
    expect(io.out).toContain('Studies are strict by default');
    expect(io.out).toContain('--http-sink');
  });

  it('runs from the npm script: the last stdout line is the path', () => {
    const r = spawnSync(
      process.execPath,
      ['scripts/cli.mjs', 'study', 'link', '--k', '2,3', '--per-k', '2', '--seed', '5'],
      {
        encoding: 'utf8',
      },
    );
    expect(r.status).toBe(0);
    const token = readParticipantParams(lastLine(r.stdout)).token!;
    const decoded = decodeStudyLink(token);
    expect(decoded.ok && decoded.definition.seed).toBe(5);
    const bad = spawnSync(process.execPath, ['scripts/cli.mjs', 'study', 'link', '--k', '0'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^clutrr study: k: /);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});
