#!/usr/bin/env node
// Load test of the results server (issue 10); a measurement, not a test in `npm test`.
//
//   node scripts/load-test.mjs [--participants 200] [--trials 50] [--drop 0.05] [--think-ms 200-400]
//
// Starts the real server (scripts/serve.mjs) on loopback with a fresh data folder, registers a
// study, then runs every participant at once: each answers its trials one after the other
// (a think time between them) and POSTs each row as the browser's outbox does. A share of the
// requests is dropped: half before they reach the server (never sent), half after (the server
// stores the row but the answer is lost); both are retried with backoff, as the outbox retries.
// At the end it reads the export back and prints rows stored, duplicates, losses, the ingest
// latency (p50/p99 of the requests answered 200: as the client saw it, and the server's own share
// from its Server-Timing header) and the server's peak resident memory (VmHWM).
// Everything is bounded: past --timeout seconds the server is killed and the script fails.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    participants: { type: 'string', default: '200' },
    trials: { type: 'string', default: '50' },
    drop: { type: 'string', default: '0.05' },
    'think-ms': { type: 'string', default: '200-400' },
    timeout: { type: 'string', default: '300' },
    seed: { type: 'string', default: '1' },
  },
});
const participants = Number(values.participants);
const trials = Number(values.trials);
const drop = Number(values.drop);
const [thinkMin, thinkMax] = values['think-ms'].split('-').map(Number);
const timeoutS = Number(values.timeout);

// A seeded generator (mulberry32): the same run drops the same requests.
let state = Number(values.seed) >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const data = mkdtempSync(path.join(tmpdir(), 'clutrr-load-'));
const server = spawn(process.execPath, [path.join(root, 'scripts', 'serve.mjs'), '--port', '0', '--data', data], {
  cwd: root,
  env: { ...process.env, INIT_CWD: root },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let serverOut = '';
server.stdout.setEncoding('utf8').on('data', (d) => (serverOut += d));
server.stderr.setEncoding('utf8').on('data', (d) => (serverOut += d));
const deadline = setTimeout(() => {
  process.stderr.write(`load test: not done after ${timeoutS} s; stopping\n${serverOut.slice(-2000)}\n`);
  server.kill('SIGKILL');
  process.exit(1);
}, timeoutS * 1000);
deadline.unref();

try {
  const url = await new Promise((resolve, reject) => {
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(serverOut);
      if (m) resolve(m[1]);
    };
    server.stdout.on('data', onData);
    server.once('exit', (code) => reject(new Error(`the server exited (${code}):\n${serverOut}`)));
  });
  const token = readFileSync(path.join(data, 'token'), 'utf8').trim();
  const auth = { authorization: `Bearer ${token}` };

  // The study: made by the CLI, as a researcher would.
  const link = spawnSync(
    process.execPath,
    [path.join(root, 'scripts', 'cli.mjs'), 'study', 'link', '--study-id', 'load'],
    {
      cwd: root,
      env: { ...process.env, INIT_CWD: root },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (link.status !== 0) throw new Error(`study link failed: ${link.stderr}`);
  const studyPath = link.stdout.trimEnd().split('\n').at(-1);
  const reg = await fetch(`${url}/api/studies`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ token: studyPath }),
  });
  if (reg.status !== 201) throw new Error(`registering the study: ${reg.status} ${await reg.text()}`);

  const counts = { requests: 0, droppedBefore: 0, droppedAfter: 0, retries: 0, limited: 0, errors: 0 };
  const latencies = [];
  /** The server's own share (Server-Timing: body received → commit returned). */
  const serverTimes = [];
  const sent = [];

  const rowFor = (session, t) => ({
    study_id: 'load',
    session_id: session,
    participant_id: `P${session}`,
    condition: 'untimed',
    trial_index: t,
    phase: 'main',
    puzzle_id: `p${t}`,
    seed: t,
    k: 2 + (t % 3),
    task: 1,
    strict: true,
    query_a: 'Anna',
    query_b: 'Ben',
    gold: 'nephew',
    response: 'nephew',
    correct: true,
    difficulty: 1 + (t % 5),
    rt_ms: 3000 + t,
    ended_on: 'response',
    time_limit_s: null,
    answer_changes: 0,
    hidden_ms: 0,
    resumed: false,
    started_at: new Date().toISOString(),
    answered_at: new Date().toISOString(),
    story: `Anna went shopping with her brother Carl. Carl's son Ben waved at them. (${session}/${t})`,
    prolific_study_id: '',
    prolific_session_id: '',
  });

  /** One row to the server until it is acknowledged (a 2xx), as the outbox does. */
  const deliver = async (session, row) => {
    const body = JSON.stringify({ sessions: [session], rows: [row] });
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) {
        counts.retries++;
        await sleep(Math.min(2000, 50 * 2 ** (attempt - 1)) * (0.5 + random()));
      }
      const fate = random();
      if (fate < drop / 2) {
        counts.droppedBefore++;
        continue;
      }
      counts.requests++;
      const started = performance.now();
      let res;
      try {
        res = await fetch(`${url}/api/rows`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain;charset=UTF-8' },
          body,
        });
        await res.arrayBuffer();
      } catch {
        counts.errors++;
        continue;
      }
      if (fate < drop) {
        counts.droppedAfter++;
        continue;
      }
      if (res.status === 429) {
        counts.limited++;
        continue;
      }
      if (res.status !== 200) throw new Error(`unexpected status ${res.status}`);
      latencies.push(performance.now() - started);
      const timing = /ingest;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '');
      if (timing) serverTimes.push(Number(timing[1]));
      return;
    }
  };

  const participant = async (i) => {
    const id = `load-${String(i).padStart(4, '0')}`;
    const session = {
      study_id: 'load',
      session_id: id,
      participant_id: `P${id}`,
      condition: 'untimed',
      user_agent: 'load-test',
      screen: '1280x800@1',
      started_at: new Date().toISOString(),
    };
    for (let t = 0; t < trials; t++) {
      await sleep(thinkMin + random() * (thinkMax - thinkMin));
      const row = rowFor(id, t);
      sent.push(row);
      await deliver(session, row);
    }
  };

  const t0 = performance.now();
  await Promise.all(Array.from({ length: participants }, (_, i) => participant(i)));
  const wall = (performance.now() - t0) / 1000;

  const peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? NaN);
  const exported = await (await fetch(`${url}/api/results.json`, { headers: auth })).json();
  const key = (r) => `${r.session_id}/${r.trial_index}`;
  const stored = new Map();
  let duplicates = 0;
  for (const r of exported.rows) {
    if (stored.has(key(r))) duplicates++;
    stored.set(key(r), r);
  }
  let losses = 0;
  let mismatches = 0;
  for (const r of sent) {
    const s = stored.get(key(r));
    if (!s) losses++;
    else if (JSON.stringify(s) !== JSON.stringify(r)) mismatches++;
  }
  latencies.sort((a, b) => a - b);
  serverTimes.sort((a, b) => a - b);
  const pct = (p, list = latencies) => list[Math.min(list.length - 1, Math.floor((p / 100) * list.length))].toFixed(1);

  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  const ok = duplicates === 0 && losses === 0 && mismatches === 0 && exported.rows.length === sent.length;
  process.stdout.write(
    [
      `participants=${participants} trials=${trials} drop=${drop} think=${thinkMin}-${thinkMax}ms`,
      `requests=${counts.requests} dropped_before_server=${counts.droppedBefore} answer_lost=${counts.droppedAfter} rate_limited=${counts.limited} network_errors=${counts.errors} retries=${counts.retries}`,
      `rows sent=${sent.length} stored=${exported.rows.length} duplicates=${duplicates} losses=${losses} changed=${mismatches}`,
      `ingest latency p50=${pct(50)} ms p99=${pct(99)} ms max=${latencies.at(-1).toFixed(1)} ms (${latencies.length} acknowledged requests)`,
      `in the server (body received to commit) p50=${pct(50, serverTimes)} ms p99=${pct(99, serverTimes)} ms`,
      `peak server RSS=${(peakKb / 1024).toFixed(1)} MiB`,
      `wall time=${wall.toFixed(1)} s (${(counts.requests / wall).toFixed(0)} requests/s)`,
      ok ? 'load test: ok' : 'load test: FAILED',
      '',
    ].join('\n'),
  );
  process.exitCode = ok ? 0 : 1;
} catch (e) {
  process.stderr.write(`load test: ${e.message}\n`);
  server.kill('SIGKILL');
  process.exitCode = 1;
} finally {
  rmSync(data, { recursive: true, force: true });
}
