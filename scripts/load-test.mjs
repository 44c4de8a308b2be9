#!/usr/bin/env node
// Load test of the results server (issue 10); a measurement, not a test in `npm test`.
//
//   node scripts/load-test.mjs [--participants 200] [--trials 50] [--drop 0.05] [--think-ms 200-400]
//                              [--sessions issued|browser]
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
//
// --sessions issued (the default, issue 20): the study is registered as issued-only; each
// participant first asks for a session (POST api/sessions, with its Prolific-like id, so a lost
// answer retried gets the same session) and sends rows that follow its schedule, with the
// session's secret. --sessions browser: made-up session ids, as before issue 20. Each participant
// has its own address (X-Forwarded-For with --trust-proxy), so the per-address limits see 200
// participants, not one loopback client.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { importBundled } from './bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    participants: { type: 'string', default: '200' },
    trials: { type: 'string', default: '50' },
    drop: { type: 'string', default: '0.05' },
    'think-ms': { type: 'string', default: '200-400' },
    timeout: { type: 'string', default: '300' },
    seed: { type: 'string', default: '1' },
    sessions: { type: 'string', default: 'issued' },
  },
});
const issued = values.sessions === 'issued';
if (!issued && values.sessions !== 'browser') throw new Error('--sessions must be issued or browser');
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
// The schedule (which item each trial shows), to send rows an issued session's checks accept.
const { scheduleParticipant } = await importBundled({
  entry: 'src/study/schedule.ts',
  outfile: 'dist-server/schedule.mjs',
  sources: ['src/core', 'src/study'],
});
const serverArgs = ['--port', '0', '--data', data, '--trust-proxy'];
const server = spawn(process.execPath, [path.join(root, 'scripts', 'serve.mjs'), ...serverArgs], {
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
    [
      path.join(root, 'scripts', 'cli.mjs'),
      'study',
      'link',
      '--study-id',
      'load',
      // Exactly --trials trials: one k, no practice, no checks.
      '--k',
      '2',
      '--per-k',
      String(trials),
      '--practice',
      '0',
      '--attention-checks',
      '0',
      '--sink',
      'server',
      '--json',
    ],
    {
      cwd: root,
      env: { ...process.env, INIT_CWD: root },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (link.status !== 0) throw new Error(`study link failed: ${link.stderr}`);
  const studyPath = link.stdout.trimEnd().split('\n').at(-1);
  const json = link.stdout.slice(link.stdout.indexOf('\n{') + 1, link.stdout.lastIndexOf('\n}') + 2);
  const definition = JSON.parse(json);
  const reg = await fetch(`${url}/api/studies`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ token: studyPath, sessions: values.sessions }),
  });
  if (reg.status !== 201) throw new Error(`registering the study: ${reg.status} ${await reg.text()}`);

  const counts = { requests: 0, droppedBefore: 0, droppedAfter: 0, retries: 0, limited: 0, errors: 0 };
  const latencies = [];
  /** The server's own share (Server-Timing: body received → commit returned). */
  const serverTimes = [];
  const sent = [];
  const sessionLatencies = [];
  const grants = [];

  const rowFor = (session, t, participantId, schedule) => ({
    study_id: 'load',
    session_id: session,
    participant_id: participantId,
    condition: schedule.condition.id,
    trial_index: t,
    phase: schedule.trials[t].item.phase,
    puzzle_id: schedule.trials[t].item.puzzleId,
    seed: schedule.trials[t].item.seed,
    k: schedule.trials[t].item.k,
    task: schedule.trials[t].item.task,
    strict: definition.strict,
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

  /** POSTs `body` to `endpoint` until a 2xx, dropping requests as the flags say; the response's JSON. */
  const deliver = async (endpoint, body, address) => {
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
      let answer;
      try {
        res = await fetch(`${url}${endpoint}`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain;charset=UTF-8', 'x-forwarded-for': address },
          body,
        });
        answer = await res.text();
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
      if (res.status !== 200 && res.status !== 201) throw new Error(`unexpected status ${res.status}: ${answer}`);
      if (endpoint === '/api/sessions') {
        sessionLatencies.push(performance.now() - started);
        return JSON.parse(answer);
      }
      latencies.push(performance.now() - started);
      const timing = /ingest;dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '');
      if (timing) serverTimes.push(Number(timing[1]));
      return JSON.parse(answer);
    }
  };

  const participant = async (i) => {
    const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const participantId = `P-load-${String(i).padStart(4, '0')}`;
    let id = `load-${String(i).padStart(4, '0')}`;
    let number = i;
    let secrets;
    if (issued) {
      const grant = await deliver(
        '/api/sessions',
        JSON.stringify({ study_id: 'load', participant_id: participantId }),
        address,
      );
      ({ session_id: id, participant: number } = grant);
      secrets = [{ session_id: id, secret: grant.secret }];
      grants.push(grant);
    }
    const schedule = scheduleParticipant(definition, { participantNumber: number, sessionSeed: id });
    const session = {
      study_id: 'load',
      session_id: id,
      participant_id: participantId,
      condition: schedule.condition.id,
      user_agent: 'load-test',
      screen: '1280x800@1',
      started_at: new Date().toISOString(),
    };
    for (let t = 0; t < trials; t++) {
      await sleep(thinkMin + random() * (thinkMax - thinkMin));
      const row = rowFor(id, t, participantId, schedule);
      sent.push(row);
      await deliver(
        '/api/rows',
        JSON.stringify({ sessions: [session], rows: [row], ...(secrets ? { secrets } : {}) }),
        address,
      );
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
  const ok =
    duplicates === 0 &&
    losses === 0 &&
    mismatches === 0 &&
    exported.rows.length === sent.length &&
    (!issued || new Set(grants.map((g) => g.session_id)).size === participants);
  process.stdout.write(
    [
      `participants=${participants} trials=${trials} drop=${drop} think=${thinkMin}-${thinkMax}ms`,
      `requests=${counts.requests} dropped_before_server=${counts.droppedBefore} answer_lost=${counts.droppedAfter} rate_limited=${counts.limited} network_errors=${counts.errors} retries=${counts.retries}`,
      `rows sent=${sent.length} stored=${exported.rows.length} duplicates=${duplicates} losses=${losses} changed=${mismatches}`,
      `ingest latency p50=${pct(50)} ms p99=${pct(99)} ms max=${latencies.at(-1).toFixed(1)} ms (${latencies.length} acknowledged requests)`,
      `in the server (body received to commit) p50=${pct(50, serverTimes)} ms p99=${pct(99, serverTimes)} ms`,
      issued
        ? `sessions issued=${new Set(grants.map((g) => g.session_id)).size} (of ${participants}; a lost answer retried gets the same one), ` +
          `POST api/sessions p50=${pct(
            50,
            sessionLatencies.sort((a, b) => a - b),
          )} ms p99=${pct(99, sessionLatencies)} ms`
        : 'sessions: made up by the clients (--sessions browser)',
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
