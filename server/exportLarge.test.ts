/**
 * Issue 20: an export of a database of at least 1 GB in bounded memory. The test builds the
 * database (long stories, bulk inserts in one transaction), exports it with `results export` in
 * a child process and through the real server's `GET /api/results.json`, and asserts each
 * process's peak RSS stays under 200 MB. The figures go to the test's output.
 *
 * CLUTRR_EXPORT_TEST_MB sets the database's size (default 1024; 0 skips the test).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { withDefaults } from '../src/study/definition/definition';
import { encodeStudyLink } from '../src/study/definition/link';
import { RESULT_COLUMNS } from '../src/study/results/results';
import { ResultStore } from './store';
import { makeRow, makeSession, ROOT, startServer } from './testServer';

const MB = 1024 * 1024;
const TARGET_MB = Number(process.env.CLUTRR_EXPORT_TEST_MB ?? 1024);
const PEAK_LIMIT_MB = 200;
const STORY_CHARS = 20_000;
const ROWS_PER_SESSION = 50;

const dir = mkdtempSync(path.join(tmpdir(), 'clutrr-export-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The database: `bytes` of rows at least, of 20,000-character stories, 50 rows a session. */
function buildDatabase(data: string, bytes: number): { rows: number; sessions: number; fileBytes: number } {
  const file = path.join(data, 'results.sqlite');
  const store = ResultStore.open(file);
  store.registerStudy({ token: encodeStudyLink(withDefaults({ studyId: 'big' })) });
  store.close();
  const db = new Database(file);
  // Building only: no sync per page (the export under test reads the finished file).
  db.pragma('synchronous = OFF');
  const insertRow = db.prepare(
    `INSERT INTO trials (${RESULT_COLUMNS.join(', ')}, received_at) VALUES (${RESULT_COLUMNS.map((c) => `@${c}`).join(', ')}, @received_at)`,
  );
  const insertSession = db.prepare(
    `INSERT INTO sessions (study_id, session_id, participant_id, condition, user_agent, screen, started_at, received_at)
     VALUES (@study_id, @session_id, @participant_id, @condition, @user_agent, @screen, @started_at, @received_at)`,
  );
  const filler = 'Anna is the aunt of Ben, and Ben went to the market with his uncle Carl. '.repeat(
    Math.ceil(STORY_CHARS / 70),
  );
  const rows = Math.ceil(bytes / (STORY_CHARS + 600));
  const received_at = '2026-11-27T00:00:00.000Z';
  db.transaction(() => {
    for (let i = 0; i < rows; i++) {
      const session = `s-${String(Math.floor(i / ROWS_PER_SESSION)).padStart(6, '0')}`;
      const trial = i % ROWS_PER_SESSION;
      if (trial === 0) insertSession.run({ ...makeSession('big', session), received_at });
      const row = makeRow('big', session, trial, { story: `${i} ${filler}`.slice(0, STORY_CHARS) });
      insertRow.run({
        ...Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v])),
        received_at,
      });
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return { rows, sessions: Math.ceil(rows / ROWS_PER_SESSION), fileBytes: statSync(file).size };
}

/** Peak RSS of this process's child, as Linux reports it (VmHWM), in bytes; undefined elsewhere. */
function peakRss(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

describe.skipIf(TARGET_MB <= 0)(`an export of a ${TARGET_MB} MB database`, () => {
  const data = path.join(dir, 'data');
  let built: ReturnType<typeof buildDatabase>;

  it('is built', () => {
    const t0 = performance.now();
    built = buildDatabase(data, TARGET_MB * MB);
    console.log(
      `built ${mb(built.fileBytes)} database: ${built.rows} rows, ${built.sessions} sessions in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    expect(built.fileBytes).toBeGreaterThanOrEqual(TARGET_MB * MB);
  }, 600_000);

  it('is written by results export in bounded memory', () => {
    const out = path.join(dir, 'all.csv');
    const t0 = performance.now();
    // The CLI's own peak RSS, printed as it exits (process.resourceUsage().maxRSS is in KiB).
    const report = `data:text/javascript,process.on('exit',()=>process.stderr.write('maxrss_kb='+process.resourceUsage().maxRSS+'\\n'))`;
    const run = spawnSync(
      process.execPath,
      ['--import', report, path.join(ROOT, 'scripts', 'cli.mjs'), 'results', 'export', '--data', data, '--out', out],
      { cwd: ROOT, encoding: 'utf8', timeout: 600_000 },
    );
    if (run.status !== 0) throw new Error(`results export failed (${run.status ?? run.signal}): ${run.stderr}`);
    const seconds = (performance.now() - t0) / 1000;
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe(`sessions=${built.sessions} rows=${built.rows}`);
    const size = statSync(out).size;
    expect(size).toBeGreaterThan(built.rows * STORY_CHARS);
    rmSync(out);
    const rss = Number(/maxrss_kb=(\d+)/.exec(run.stderr)?.[1] ?? Number.NaN) * 1024;
    console.log(`results export: ${mb(size)} CSV in ${seconds.toFixed(1)} s, peak RSS ${mb(rss)}`);
    expect(rss).toBeLessThan(PEAK_LIMIT_MB * MB);
  }, 900_000);

  /** Starts `results export --force` over `kept.csv` and sends `signal` once its temporary file passes 1 MB. */
  async function interruptedExport(signal: NodeJS.Signals) {
    const out = path.join(dir, 'kept.csv');
    writeFileSync(out, 'the previous export\n');
    const child = spawn(
      process.execPath,
      [path.join(ROOT, 'scripts', 'cli.mjs'), 'results', 'export', '--data', data, '--out', out, '--force'],
      { cwd: ROOT, stdio: 'ignore' },
    );
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const partial = () => readdirSync(dir).find((f) => f.startsWith('.kept.csv.') && f.endsWith('.partial'));
    const deadline = Date.now() + 120_000;
    let seen: string | undefined;
    while (Date.now() < deadline) {
      seen = partial();
      if (seen && statSync(path.join(dir, seen)).size > MB) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    child.kill(signal);
    await gone;
    expect(seen, 'the export never started writing').toBeDefined();
    // The old file stands whole, whatever the signal.
    expect(readFileSync(out, 'utf8')).toBe('the previous export\n');
    return { child, leftover: partial() };
  }

  it('never leaves a truncated file at --out when results export is SIGKILLed', async () => {
    const { child, leftover } = await interruptedExport('SIGKILL');
    expect(child.signalCode).toBe('SIGKILL');
    // What was being written is only the temporary file.
    expect(leftover).toBeDefined();
    rmSync(path.join(dir, leftover!), { force: true });
  }, 300_000);

  it('removes its temporary file when results export is stopped with SIGTERM', async () => {
    const { child, leftover } = await interruptedExport('SIGTERM');
    expect(child.exitCode).toBe(143);
    expect(leftover).toBeUndefined();
  }, 300_000);

  it('is streamed by the server in bounded memory', async () => {
    const server = await startServer(data);
    try {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/api/results.json`, {
        headers: { authorization: `Bearer ${server.token}` },
        signal: AbortSignal.timeout(600_000),
      });
      expect(res.status).toBe(200);
      let bytes = 0;
      let tail = '';
      const decoder = new TextDecoder();
      // While the export streams, the server answers others: a health request every 200 ms.
      let streaming = true;
      const answers: { status: number; ms: number; duringStream: boolean }[] = [];
      const probes: Promise<void>[] = [];
      const probe = () => {
        const sent = performance.now();
        probes.push(
          fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(60_000) }).then((r) => {
            answers.push({ status: r.status, ms: performance.now() - sent, duringStream: streaming });
          }),
        );
      };
      const timer = setInterval(probe, 200);
      const body = res.body!.getReader();
      for (let next = await body.read(); !next.done; next = await body.read()) {
        const chunk = next.value;
        if (bytes === 0) probe();
        bytes += chunk.byteLength;
        tail = (tail + decoder.decode(chunk, { stream: true })).slice(-200);
      }
      streaming = false;
      clearInterval(timer);
      await Promise.all(probes);
      const seconds = (performance.now() - t0) / 1000;
      expect(tail.endsWith('\n  ]\n}\n')).toBe(true);
      expect(bytes).toBeGreaterThan(built.rows * STORY_CHARS);
      const rss = peakRss(server.child.pid!);
      const during = answers.filter((a) => a.duringStream);
      console.log(
        `GET /api/results.json: ${mb(bytes)} in ${seconds.toFixed(1)} s, server peak RSS ${rss === undefined ? 'unknown' : mb(rss)}; ` +
          `${during.length} health requests answered during the stream, slowest ${Math.max(...answers.map((a) => a.ms)).toFixed(0)} ms`,
      );
      if (rss !== undefined) expect(rss).toBeLessThan(PEAK_LIMIT_MB * MB);
      expect(answers.every((a) => a.status === 200)).toBe(true);
      // Answered while the export was still streaming: the export does not hold the event loop.
      expect(during.length).toBeGreaterThan(0);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  }, 900_000);
});
