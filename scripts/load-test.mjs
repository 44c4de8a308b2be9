#!/usr/bin/env node
// Load test of the results server; a measurement, not a test in `npm test`.
//
//   node scripts/load-test.mjs [--participants 200] [--trials 50] [--drop 0.05] [--think-ms 200-400]
//                              [--sessions issued|browser] [--flood-connections 4] [--timeout 110]
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
// --sessions issued (the default): the study is registered as issued-only; each
// participant first asks for a session (POST api/sessions, with its Prolific-like id, so a lost
// answer retried gets the same session) and sends rows that follow its schedule, with the
// session's secret. --sessions browser: made-up session ids, as links did before sessions were issued. Each participant
// has its own address (X-Forwarded-For, the server started with --trust-proxy loopback), so the
// per-address limits see 200 participants, not one loopback client. Rows carry what the server
// checks of an issued session: the trial's real story, names and gold word (rebuilt with the
// study's generator), and times that can be true.
//
// A flooder runs beside them for the whole run, from an address of its own, on --flood-connections
// connections (0: none) with no pause: it asks for new sessions of the same study again and again,
// and sends rows of the sessions it gets, 20 a request, with 20,000-character stories (every other
// request the true rows instead, the most it could store). At the end: what the honest participants
// stored, lost and got twice, their latency, and what the flooder got (sessions, rows and bytes
// stored, the statuses it was answered).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { importBundled } from './bundle.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = `usage: node scripts/load-test.mjs [options]

Runs the results server on loopback with a fresh data folder, many participants at once and a
flooder beside them; prints what was stored, lost and duplicated, the latency, and what the
flooder got. Stops by itself after --timeout seconds at the latest (then it fails).

  --participants <n>       honest participants at once (default 200)
  --trials <n>             trials each (default 50)
  --drop <p>               share of requests dropped, before or after the server (default 0.05)
  --think-ms <min-max>     pause before each trial (default 200-400)
  --sessions <mode>        issued (sessions asked of the server) or browser (made-up ids) (default issued)
  --flood-connections <n>  the flooder's parallel connections; 0: no flooder (default 4)
  --timeout <s>            the whole run's limit (default 110)
  --seed <n>               the drops' seed (default 1)
  --help                   this text
`;
let values;
try {
  ({ values } = parseArgs({
    options: {
      participants: { type: 'string', default: '200' },
      trials: { type: 'string', default: '50' },
      drop: { type: 'string', default: '0.05' },
      'think-ms': { type: 'string', default: '200-400' },
      timeout: { type: 'string', default: '110' },
      seed: { type: 'string', default: '1' },
      sessions: { type: 'string', default: 'issued' },
      'flood-connections': { type: 'string', default: '4' },
      help: { type: 'boolean', default: false },
    },
  }));
} catch (e) {
  process.stderr.write(`load test: ${e.message}\n\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const issued = values.sessions === 'issued';
const participants = Number(values.participants);
const trials = Number(values.trials);
const drop = Number(values.drop);
const [thinkMin, thinkMax] = values['think-ms'].split('-').map(Number);
const timeoutS = Number(values.timeout);
const floodConnections = Number(values['flood-connections']);
const bad = [
  !issued && values.sessions !== 'browser' && '--sessions must be issued or browser',
  !(Number.isInteger(participants) && participants > 0) && '--participants must be a whole number above 0',
  !(Number.isInteger(trials) && trials > 0) && '--trials must be a whole number above 0',
  !(drop >= 0 && drop < 1) && '--drop must be from 0 to below 1',
  !(thinkMin >= 0 && thinkMax >= thinkMin) && '--think-ms must be like 200-400',
  !(timeoutS > 0) && '--timeout must be a number of seconds above 0',
  !(Number.isInteger(floodConnections) && floodConnections >= 0) && '--flood-connections must be a whole number',
].find(Boolean);
if (bad) {
  process.stderr.write(`load test: ${bad}\n`);
  process.exit(2);
}
/** The flooder's address, apart from the participants' 10.x.y.z. */
const FLOODER = '192.0.2.66';
const LONG_STORY = 20_000;
const FLOOD_ROWS = 20;

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
  entry: 'src/study/schedule/schedule.ts',
  outfile: 'dist-server/schedule.mjs',
  sources: ['src/core', 'src/study'],
});
// Each trial's story, names and gold word, as the page's generator makes them (the server checks them).
const { studyTrialContent } = await importBundled({
  entry: 'src/study/schedule/trialFacts.ts',
  outfile: 'dist-server/trialFacts.mjs',
  sources: ['src/core', 'src/study'],
});
// Requests come from loopback; X-Forwarded-For names the simulated participant.
const serverArgs = ['--port', '0', '--data', data, '--trust-proxy', 'loopback'];
const server = spawn(process.execPath, [path.join(root, 'scripts', 'serve.mjs'), ...serverArgs], {
  cwd: root,
  env: { ...process.env, INIT_CWD: root },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let serverOut = '';
// The last 64 KB only: the flood makes the server log a line per refusal.
const keep = (d) => (serverOut = (serverOut + d).slice(-65_536));
server.stdout.setEncoding('utf8').on('data', keep);
server.stderr.setEncoding('utf8').on('data', keep);
const deadline = setTimeout(() => {
  process.stderr.write(`load test: not done after ${timeoutS} s; stopping\n${serverOut.slice(-2000)}\n`);
  server.kill('SIGKILL');
  rmSync(data, { recursive: true, force: true });
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

  /** A participant's ids as issued (a Prolific participant: the same ids again resume the session). */
  const idsOf = (i) => ({
    participant_id: `P-load-${String(i).padStart(4, '0')}`,
    prolific_study_id: 'load-prolific',
    prolific_session_id: `S-load-${String(i).padStart(4, '0')}`,
  });
  // Made once per item: participants share the study's items, and making one costs milliseconds
  // of this process's event loop, which would count in every latency measured here.
  const contents = new Map();
  const contentOf = (item) => {
    const key = `${item.puzzleId}@${item.seed}/${item.phase}`;
    if (!contents.has(key)) contents.set(key, studyTrialContent(definition, item));
    return contents.get(key);
  };
  /** Trial `t` of a session as the page records it: the trial's own puzzle, answered right, `rt_ms` before now. */
  const rowFor = (session, t, ids, schedule) => {
    const item = schedule.trials[t].item;
    const content = contentOf(item);
    const rt = 3000 + t;
    const answered = Date.now();
    return {
      study_id: 'load',
      session_id: session,
      participant_id: ids.participant_id,
      condition: schedule.condition.id,
      trial_index: t,
      phase: item.phase,
      puzzle_id: item.puzzleId,
      seed: item.seed,
      k: item.k,
      task: item.task,
      strict: definition.strict,
      query_a: content.queryA,
      query_b: content.queryB,
      gold: content.gold,
      response: content.gold,
      correct: true,
      difficulty: 1 + (t % 5),
      rt_ms: rt,
      ended_on: 'response',
      time_limit_s: null,
      answer_changes: 0,
      hidden_ms: 0,
      resumed: false,
      started_at: new Date(answered - rt - 20).toISOString(),
      answered_at: new Date(answered).toISOString(),
      story: content.story,
      prolific_study_id: ids.prolific_study_id,
      prolific_session_id: ids.prolific_session_id,
    };
  };

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
    const ids = idsOf(i);
    let id = `load-${String(i).padStart(4, '0')}`;
    let number = i;
    let condition;
    let secrets;
    if (issued) {
      const grant = await deliver('/api/sessions', JSON.stringify({ study_id: 'load', ...ids }), address);
      ({ session_id: id, participant: number } = grant);
      condition = grant.condition ?? undefined;
      secrets = [{ session_id: id, secret: grant.secret }];
      grants.push(grant);
    }
    const schedule = scheduleParticipant(definition, {
      participantNumber: number,
      sessionSeed: id,
      forcedCondition: condition,
    });
    const session = {
      study_id: 'load',
      session_id: id,
      participant_id: ids.participant_id,
      condition: schedule.condition.id,
      user_agent: 'load-test',
      screen: '1280x800@1',
      started_at: new Date().toISOString(),
    };
    for (let t = 0; t < trials; t++) {
      await sleep(thinkMin + random() * (thinkMax - thinkMin));
      const row = rowFor(id, t, ids, schedule);
      sent.push(row);
      await deliver(
        '/api/rows',
        JSON.stringify({ sessions: [session], rows: [row], ...(secrets ? { secrets } : {}) }),
        address,
      );
    }
  };

  // ---- the flooder: one address, no pause, for as long as the participants run ----
  const flood = { sessions: new Map(), rows: new Map(), grants: [], requests: 0 };
  const count = (map, status) => map.set(status, (map.get(status) ?? 0) + 1);
  let honestDone = false;
  const flooder = async () => {
    let next = 0;
    for (let n = 0; !honestDone; n++) {
      const s = await floodPost('/api/sessions', JSON.stringify({ study_id: 'load' }));
      count(flood.sessions, s.status);
      if (s.status === 201) flood.grants.push(JSON.parse(s.text));
      if (flood.grants.length === 0 || honestDone) continue;
      // The next trials of its sessions: long stories, and every other request the true rows.
      const rows = [];
      const secrets = new Map();
      const sessions = new Map();
      const long = n % 2 === 0;
      for (let r = 0; r < FLOOD_ROWS; r++) {
        const slot = next++ % (flood.grants.length * trials);
        const grant = flood.grants[Math.floor(slot / trials)];
        grant.schedule ??= scheduleParticipant(definition, {
          participantNumber: grant.participant,
          sessionSeed: grant.session_id,
          forcedCondition: grant.condition ?? undefined,
        });
        const { schedule } = grant;
        const ids = { participant_id: '', prolific_study_id: '', prolific_session_id: '' };
        // The same row each time it is sent again (a changed one would only be a conflict).
        grant.rows ??= new Map();
        if (!grant.rows.has(slot % trials))
          grant.rows.set(slot % trials, rowFor(grant.session_id, slot % trials, ids, schedule));
        const row = { ...grant.rows.get(slot % trials) };
        if (long) row.story = `${row.story} ${'x'.repeat(Math.max(0, LONG_STORY - row.story.length - 1))}`;
        rows.push(row);
        secrets.set(grant.session_id, grant.secret);
        grant.info ??= {
          study_id: 'load',
          session_id: grant.session_id,
          participant_id: '',
          condition: schedule.condition.id,
          user_agent: 'flooder',
          screen: '1x1@1',
          started_at: new Date().toISOString(),
        };
        sessions.set(grant.session_id, grant.info);
      }
      const body = JSON.stringify({
        sessions: [...sessions.values()],
        rows,
        secrets: [...secrets].map(([session_id, secret]) => ({ session_id, secret })),
      });
      count(flood.rows, (await floodPost('/api/rows', body)).status);
    }
  };
  /** One request of the flooder's; a network error or timeout counts as status 0. */
  const floodPost = async (endpoint, body) => {
    flood.requests++;
    try {
      const res = await fetch(`${url}${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain;charset=UTF-8', 'x-forwarded-for': FLOODER },
        body,
        signal: AbortSignal.timeout(15_000),
      });
      return { status: res.status, text: await res.text() };
    } catch {
      return { status: 0, text: '' };
    }
  };

  const t0 = performance.now();
  const flooders = Array.from({ length: floodConnections }, () => flooder());
  await Promise.all(Array.from({ length: participants }, (_, i) => participant(i)));
  const wall = (performance.now() - t0) / 1000;
  honestDone = true;
  await Promise.all(flooders);

  const peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? NaN);
  const exported = await (await fetch(`${url}/api/results.json`, { headers: auth })).json();
  const key = (r) => `${r.session_id}/${r.trial_index}`;
  const flooderSessions = new Set(flood.grants.map((g) => g.session_id));
  const floodRows = exported.rows.filter((r) => flooderSessions.has(r.session_id));
  const floodBytes = floodRows.reduce((sum, r) => sum + Buffer.byteLength(JSON.stringify(r)), 0);
  const honestRows = exported.rows.filter((r) => !flooderSessions.has(r.session_id));
  const stored = new Map();
  let duplicates = 0;
  for (const r of honestRows) {
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
  const statuses = (map) =>
    [...map]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s === 0 ? 'network-error' : s}×${n}`)
      .join(' ') || 'none';
  const statusTotal = (s) => (flood.sessions.get(s) ?? 0) + (flood.rows.get(s) ?? 0);
  const pct = (p, list = latencies) => list[Math.min(list.length - 1, Math.floor((p / 100) * list.length))].toFixed(1);

  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  const ok =
    duplicates === 0 &&
    losses === 0 &&
    mismatches === 0 &&
    honestRows.length === sent.length &&
    (!issued || new Set(grants.map((g) => g.session_id)).size === participants);
  process.stdout.write(
    [
      `participants=${participants} trials=${trials} drop=${drop} think=${thinkMin}-${thinkMax}ms`,
      `requests=${counts.requests} dropped_before_server=${counts.droppedBefore} answer_lost=${counts.droppedAfter} rate_limited=${counts.limited} network_errors=${counts.errors} retries=${counts.retries}`,
      `honest rows sent=${sent.length} stored=${honestRows.length} duplicated=${duplicates} lost=${losses} changed=${mismatches}`,
      `honest ingest latency p50=${pct(50)} ms p99=${pct(99)} ms max=${latencies.at(-1).toFixed(1)} ms (${latencies.length} acknowledged requests)`,
      `in the server (body received to commit) p50=${pct(50, serverTimes)} ms p99=${pct(99, serverTimes)} ms`,
      issued
        ? `sessions issued=${new Set(grants.map((g) => g.session_id)).size} (of ${participants}; a lost answer retried gets the same one), ` +
          `POST api/sessions p50=${pct(
            50,
            sessionLatencies.sort((a, b) => a - b),
          )} ms p99=${pct(99, sessionLatencies)} ms`
        : 'sessions: made up by the clients (--sessions browser)',
      floodConnections === 0
        ? 'flooder: none (--flood-connections 0)'
        : `flooder (${FLOODER}, ${floodConnections} connections, ${flood.requests} requests): sessions granted=${flooderSessions.size}, ` +
          `rows stored=${floodRows.length} (${(floodBytes / 1024).toFixed(1)} KiB), ` +
          `answered 429=${statusTotal(429)} 403=${statusTotal(403)} 400=${statusTotal(400)}; ` +
          `POST api/sessions ${statuses(flood.sessions)}; POST api/rows ${statuses(flood.rows)}`,
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
