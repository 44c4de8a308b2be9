import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ResultStore } from '../server/store';
import { clauseFromId, factSentences } from '../src/study/collect/clause';
import { storyRow } from '../src/study/collect/testRows';
import { rowsToCsv } from '../src/study/results/results';
import { DEFAULT_STUDY, type StudyDefinition, withDefaults } from '../src/study/definition/definition';
import { decodeStudyLink, encodeStudyLink } from '../src/study/definition/link';
import { readParticipantParams } from '../src/study/delivery/route';
import { NO_SINK_WARNING } from './commands/study';
import { main } from './main';
import { captureOutput } from './testOutput';

const io = captureOutput();

const lastLine = (s: string) => s.trim().split('\n').at(-1)!;
/** The `full link: ?study=…` line `study link --data` prints before the short link. */
const fullLink = (s: string) => {
  const line = s.split('\n').find((l) => l.startsWith('full link: '));
  return line === undefined ? '' : line.slice('full link: '.length);
};

/**
 * Runs `study link` with these flags; the definition its last line carries. stderr is empty, or,
 * for a study with no sink, exactly the warning that results only stay with the participants.
 */
async function link(...flags: string[]): Promise<{ line: string; def: StudyDefinition }> {
  io.out = '';
  io.err = '';
  expect(await main(['study', 'link', ...flags])).toBe(0);
  const line = lastLine(io.out);
  expect(line.startsWith('?study=')).toBe(true);
  const token = readParticipantParams(line).token!;
  const decoded = decodeStudyLink(token);
  if (!decoded.ok) throw new Error(decoded.error.message);
  expect(io.err).toBe(decoded.definition.sinks.length === 0 ? `clutrr study: ${NO_SINK_WARNING}\n` : '');
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
    expect(io.out).toContain('npm run cli -- study register --data DIR');
    expect(io.out).toMatch(/--sink <value> +server: send rows to the results server .*must be registered there/);
    expect(io.out).toMatch(/--send-instructions <value> +with --sink download: how participants send you their file/);
    expect(io.out).not.toMatch(/issue \d/i);
  });

  it('without a sink, still prints the link last, and warns on stderr that results stay with the participants', async () => {
    io.out = '';
    io.err = '';
    expect(await main(['study', 'link', '--k', '2'])).toBe(0);
    expect(lastLine(io.out)).toMatch(/^\?study=s1\./);
    expect(io.out).toContain("sinks: none (results stay in the participants' browsers)");
    expect(io.err).toBe(
      'clutrr study: warning: this study sends results nowhere: participants can only download their own file at the end, and nothing reaches you unless they send it. ' +
        'Say where results go: --jatos, --sink server, --http-sink URL, --sink download --send-instructions TEXT.\n',
    );
    // Any destination silences it.
    for (const flags of [['--jatos'], ['--sink', 'server'], ['--http-sink', 'https://x.org/r']]) {
      io.err = '';
      expect(await main(['study', 'link', '--k', '2', ...flags])).toBe(0);
      expect(io.err).toBe('');
    }
  });

  it('--sink download with --send-instructions: participants send the file, no warning', async () => {
    const how = 'E-mail the file to lab@example.org with the subject "CLUTRR".';
    const { def } = await link('--k', '2', '--sink', 'download', '--send-instructions', how);
    expect(def.sinks).toEqual([{ kind: 'download', instructions: how }]);
    expect(io.err).toBe('');
    expect(io.out).toContain(`sinks: participants send you their file (${JSON.stringify(how)})`);
    // The instructions alone choose the download sink; with the server, the server comes first.
    expect((await link('--send-instructions', how)).def.sinks).toEqual([{ kind: 'download', instructions: how }]);
    expect((await link('--sink', 'download', '--send-instructions', how, '--sink', 'server')).def.sinks).toEqual([
      { kind: 'server' },
      { kind: 'download', instructions: how },
    ]);
    // Without instructions the study cannot run: participants would not know where to send it.
    expect(await refused('--sink', 'download')).toBe(
      'clutrr study: sinks.0.instructions: say how participants send you the file (for example an e-mail address)',
    );
    expect(await refused('--sink', 'ftp')).toBe(
      'clutrr study: sinks: --sink takes "server" or "download", not "ftp"; --jatos and --http-sink name the others',
    );
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

describe('study link --sink server, and study register', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const d = mkdtempSync(path.join(tmpdir(), 'clutrr-study-sink-'));
    dirs.push(d);
    return path.join(d, 'data');
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const registered = (data: string) => {
    const store = ResultStore.open(path.join(data, 'results.sqlite'));
    try {
      return store.studies().map((s) => [s.study_id, s.token]);
    } finally {
      store.close();
    }
  };

  it('--sink server without --data only adds the sink (JATOS first, then the server, then HTTP)', async () => {
    expect((await link('--sink', 'server')).def.sinks).toEqual([{ kind: 'server' }]);
    const { def } = await link('--http-sink', 'https://x.org/r', '--sink=server', '--jatos');
    expect(def.sinks).toEqual([{ kind: 'jatos' }, { kind: 'server' }, { kind: 'http', url: 'https://x.org/r' }]);
    expect(io.out).toContain('sinks: jatos, the results server (api/rows beside the page), https://x.org/r');
  });

  it('--sink server --data registers the study in that data folder; the short link ?s=<study id> last', async () => {
    const data = dataDir();
    const flags = ['--k', '2', '--per-k', '1', '--study-id', 'srv', '--sink', 'server', '--data', data];
    io.out = '';
    io.err = '';
    expect(await main(['study', 'link', ...flags])).toBe(0);
    expect(io.err).toBe('');
    expect(lastLine(io.out)).toBe('?s=srv');
    const full = fullLink(io.out);
    const decoded = decodeStudyLink(readParticipantParams(full).token!);
    expect(decoded.ok && decoded.definition.sinks).toEqual([{ kind: 'server' }]);
    expect(io.out).toContain(`results server: registered in ${data}`);
    expect(registered(data)).toEqual([['srv', readParticipantParams(full).token]]);
    // Again: unchanged, still one study.
    io.out = '';
    expect(await main(['study', 'link', ...flags])).toBe(0);
    expect(io.out).toContain('results server: already registered (unchanged)');
    expect(registered(data)).toHaveLength(1);
  });

  it('refuses --data without the server sink, and other --sink values, before touching the folder', async () => {
    const data = dataDir();
    expect(await refused('--data', data)).toMatch(/^clutrr study: data: .*give --sink server as well$/);
    expect(await refused('--sink', 'jatos')).toMatch(/^clutrr study: sinks: --sink takes "server"/);
    expect(existsSync(data)).toBe(false);
  });

  it('study register takes the study link options, --link or --definition', async () => {
    const data = dataDir();
    expect(await main(['study', 'register', '--data', data, '--k', '3', '--per-k', '1', '--sink', 'server'])).toBe(0);
    const path1 = lastLine(io.out);
    const token = readParticipantParams(path1).token!;
    const decoded = decodeStudyLink(token);
    expect(decoded.ok && decoded.definition.k).toEqual([3]);
    expect(decoded.ok && decoded.definition.sinks).toEqual([{ kind: 'server' }]);
    expect(registered(data)).toEqual([['study', token]]);
    io.out = '';
    expect(await main(['study', 'register', '--data', data, '--link', path1])).toBe(0);
    expect(io.out).toMatch(/already registered \(unchanged\)/);
    io.err = '';
    expect(await main(['study', 'register', '--data', data, '--k', '0'])).toBe(2);
    expect(io.err.trim()).toMatch(/^clutrr study: k: /);
    io.err = '';
    expect(await main(['study', 'register', '--k', '2'])).toBe(2);
    expect(io.err).toMatch(/--data <folder> is needed/);
  });

  it('from the npm script, --sink server --data prints the short participant path last', () => {
    const data = dataDir();
    const r = spawnSync(
      process.execPath,
      ['scripts/cli.mjs', 'study', 'link', '--k', '2', '--per-k', '1', '--sink', 'server', '--data', data],
      { encoding: 'utf8' },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(lastLine(r.stdout)).toBe('?s=study');
    expect(registered(data)).toEqual([['study', readParticipantParams(fullLink(r.stdout)).token]]);
  });
});

describe('study link --kind paraphrase|review', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'clutrr-study-kinds-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A results export of a paraphrase study with `n` stories that passed the live checks. */
  function exportFile(n: number, name = `para-${n}.csv`): string {
    const rows = Array.from({ length: n }, (_, i) => {
      const c = clauseFromId(i % 2 === 0 ? 'c1.father-sister.female-male-female' : 'c1.son.female-male', 100 + i);
      if ('error' in c) throw new Error(c.error);
      return storyRow(`sess-${i}`, i % 3, c, `${factSentences(c).join(' ')} That was story number ${i} of the day.`);
    });
    const file = path.join(dir, name);
    writeFileSync(file, rowsToCsv(rows));
    return file;
  }

  it('--kind solve (the default) gives the link it always gave', async () => {
    const plain = await link('--k', '2', '--per-k', '1');
    expect((await link('--kind', 'solve', '--k', '2', '--per-k', '1')).line).toBe(plain.line);
    expect(plain.def.kind).toBe('solve');
  });

  it('makes a paraphrase study with its settings and its own texts, and says what it asks', async () => {
    const { def } = await link(
      ...['--kind', 'paraphrase', '--clause-k', '2,3', '--clauses-per-participant', '5', '--clause-genders', 'mixed'],
      ...['--min-words', '8', '--max-words', '80', '--sink', 'server', '--favour-uncovered'],
    );
    expect(def).toMatchObject({
      kind: 'paraphrase',
      clauseKs: [2, 3],
      clausesPerParticipant: 5,
      clauseGenders: 'mixed',
      minWords: 8,
      maxWords: 80,
      favourUncovered: true,
    });
    expect(def.instructionsText).toMatch(/implied fact/);
    expect(io.out).toContain('study id study: paraphrase study, seed 1\n');
    expect(io.out).toContain(
      'clauses: 5 per participant, 2,3 facts each, genders mixed, favouring the clauses with fewest stories; stories of 8 to 80 words\n',
    );
  });

  it('refuses settings that do not fit the kind, by setting and flag', async () => {
    expect(await refused('--kind', 'paraphrase', '--k', '3')).toBe(
      'clutrr study: k: “Story lengths k” (--k) belongs to puzzle-solving and adaptive studies; a paraphrase study leaves it out',
    );
    expect(await refused('--clauses-per-participant', '4')).toBe(
      'clutrr study: clausesPerParticipant: “Clauses per participant” (--clauses-per-participant) belongs to paraphrase studies; a puzzle-solving study leaves it out',
    );
    expect(await refused('--kind', 'paraphrase', '--favour-uncovered')).toMatch(
      /^clutrr study: favourUncovered: favouring the clauses with fewest stories needs the results server/,
    );
    expect(await refused('--kind', 'paraphrase', '--scratchpad')).toBe(
      'clutrr study: conditions.0.scratchpad: a paraphrase study has no scratchpad; leave it off',
    );
    expect(await refused('--kind', 'poem')).toBe(
      'clutrr study: kind: the kind of study must be one of solve, paraphrase, review, adaptive',
    );
    expect(await refused('--kind', 'review')).toMatch(
      /^clutrr study: reviewStories: a review study needs stories to review: embed them \(--stories FILE\) or name the paraphrase study/,
    );
    expect(await refused('--kind', 'review', '--source-study', 'para')).toMatch(
      /^clutrr study: sourceStudy: stories of another study are handed out by the results server: add --sink server/,
    );
  });

  it('embeds the stories of a results export in a review study, and says how many participants review each', async () => {
    const file = exportFile(6);
    const { def } = await link('--kind', 'review', '--stories', file, '--reviews-per-participant', '2', '--jatos');
    expect(def.reviewStories).toHaveLength(6);
    expect(def.reviewStories[0]).toMatchObject({
      id: 'sess-0/0',
      clause: 'c1.father-sister.female-male-female',
      seed: 100,
    });
    expect(def.reviewStories[0]!.author).toMatch(/^[0-9a-f]{8}$/);
    expect(io.out).toContain(
      'stories: 6 embedded; 2 per participant, 3 reviews per story: participants 0 to 8 (9) review each story 3 times\n',
    );
    const live = await link('--kind', 'review', '--source-study', 'para', '--sink', 'server');
    expect(live.def.sourceStudy).toBe('para');
    expect(io.out).toContain(
      'stories: served by the results server from study para; 3 per participant, 3 reviews per story\n',
    );
  });

  it('says what is wrong with a stories file, and refuses a link too long for web servers', async () => {
    expect(await refused('--kind', 'review', '--stories', path.join(dir, 'missing.csv'))).toBe(
      `clutrr study: reviewStories: ${path.join(dir, 'missing.csv')}: no such file`,
    );
    const empty = path.join(dir, 'empty.csv');
    writeFileSync(empty, rowsToCsv([]));
    expect(await refused('--kind', 'review', '--stories', empty)).toMatch(
      /empty\.csv: the file has a header but no rows$/,
    );
    const son = clauseFromId('c1.son.female-male', 1);
    if ('error' in son) throw new Error(son.error);
    writeFileSync(empty, rowsToCsv([storyRow('s', 0, son, 'Too short.')]));
    expect(await refused('--kind', 'review', '--stories', empty)).toMatch(
      /^clutrr study: reviewStories: .*empty\.csv: no paraphrase stories that passed the live checks/,
    );
    expect(await refused('--kind', 'review', '--stories', exportFile(200, 'many.csv'))).toMatch(
      /^clutrr study: link: the participant link is \d+ characters long, more than the 6000 that pass through common web servers/,
    );
  });
});

describe('the designer’s command line for a collection study', () => {
  // The words the designer writes for this study (src/features/studyDesigner/form.test.ts).
  it('makes the link the designer makes', async () => {
    const def = withDefaults({
      kind: 'paraphrase',
      seed: 3,
      clauseKs: [2, 3],
      favourUncovered: true,
      maxWords: 90,
      sinks: [{ kind: 'server' }],
    });
    const words = [
      ...['--kind', 'paraphrase', '--seed', '3', '--clause-k', '2,3', '--clauses-per-participant', '3'],
      ...['--favour-uncovered', '--max-words', '90', '--sink', 'server'],
    ];
    const { line } = await link(...words);
    expect(readParticipantParams(line).token).toBe(encodeStudyLink(def));
  });
});
