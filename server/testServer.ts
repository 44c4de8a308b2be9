/**
 * For the tests: the real server as a child process on a free loopback port (spawnServer.ts,
 * shared with the e2e tests), and rows that look like a participant's. Every wait is bounded.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { withDefaults, type StudyDefinition } from '../src/study/definition/definition';
import type { ResultRow, SessionInfo } from '../src/study/results/results';
import { scheduleParticipant } from '../src/study/schedule/schedule';
import type { SessionGrant } from '../src/study/delivery/serverApi';
import { STUDY_KINDS } from '../src/study/kinds';
import { studyTrialContent } from '../src/study/schedule/trialFacts';
import { createApp, type AppOptions } from './app';
import type { ResultStore } from './store';
import { ROOT, spawnServer, type SpawnedServer } from './spawnServer';
import { NO_ESTIMATE } from '../src/study/results/resultFields';

export { ROOT };

export interface RunningServer extends SpawnedServer {
  readonly token: string;
}

/** A maker of temporary folders named `<prefix>…`, each removed after the test that made it. */
export function tempDirs(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const d = mkdtempSync(path.join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}

/** `npm run cli -- <args>` as a child process (bounded): its exit status and stdout + stderr. */
export function runCli(args: readonly string[]): { status: number; out: string } {
  try {
    return {
      status: 0,
      out: execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'cli.mjs'), ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 120_000,
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    };
  } catch (e) {
    const err = e as { status: number; stdout: string; stderr: string };
    return { status: err.status, out: `${err.stdout}${err.stderr}` };
  }
}

/** The real server on a free loopback port with `dataDir` (spawnServer.ts), and its researcher token. */
export async function startServer(dataDir: string, args: string[] = [], timeoutMs = 60_000): Promise<RunningServer> {
  const server = await spawnServer({ data: dataDir, args, timeoutMs });
  const token = readFileSync(path.join(dataDir, 'token'), 'utf8').trim();
  return { ...server, token };
}

/** A participant's row for trial `trial` of `session`; `over` changes any field. */
export function makeRow(studyId: string, session: string, trial: number, over: Partial<ResultRow> = {}): ResultRow {
  return {
    study_id: studyId,
    session_id: session,
    participant_id: `P-${session}`,
    condition: 'untimed',
    trial_index: trial,
    phase: trial < 1 ? 'practice' : 'main',
    puzzle_id: `puzzle-${trial}`,
    seed: 1000 + trial,
    k: 2 + (trial % 3),
    task: 1,
    strict: true,
    query_a: 'Anna',
    query_b: 'Ben',
    gold: 'nephew',
    response: trial % 4 === 0 ? 'uncle' : 'nephew',
    correct: trial % 4 !== 0,
    difficulty: trial % 5 === 0 ? null : trial % 5,
    rt_ms: 4000 + trial * 13,
    ended_on: trial % 5 === 0 ? 'timeout' : 'response',
    time_limit_s: null,
    answer_changes: trial % 2,
    hidden_ms: 0,
    resumed: false,
    started_at: `2026-11-26T07:00:${String(trial % 60).padStart(2, '0')}.000Z`,
    answered_at: `2026-11-26T07:01:${String(trial % 60).padStart(2, '0')}.000Z`,
    // A cell a spreadsheet would run as a formula, and a quote and a line break, in every story.
    story: `=HYPERLINK("x") Anna is Ben's aunt.\nTrial ${trial}, "quoted".`,
    prolific_study_id: '',
    prolific_session_id: '',
    ...NO_ESTIMATE,
    ...over,
  };
}

export function makeSession(studyId: string, session: string): SessionInfo {
  return {
    study_id: studyId,
    session_id: session,
    participant_id: `P-${session}`,
    condition: 'untimed',
    user_agent: 'Mozilla/5.0 (test)',
    screen: '1280x800@1',
    started_at: '2026-11-26T06:59:00.000Z',
  };
}

/** POSTs rows as the browser's httpTransport does (text/plain JSON). */
export async function postRows(
  url: string,
  body: { sessions: readonly SessionInfo[]; rows: readonly ResultRow[] } | string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${url}/api/rows`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/**
 * The row a participant's page records for trial `i` of an issued session: the puzzle, condition
 * and limit of the session's schedule, so the server's checks against the study pass; `over` for
 * the rest (participant id, a long story…).
 */
export function scheduledRow(
  def: StudyDefinition,
  grant: SessionGrant,
  i: number,
  over: Partial<ResultRow> = {},
): ResultRow {
  const schedule = scheduleParticipant(def, {
    participantNumber: grant.participant,
    sessionSeed: grant.session_id,
    forcedCondition: grant.condition ?? undefined,
  });
  const t = schedule.trials[i]!;
  // A generated puzzle's facts as the server rebuilds them, answered right a few seconds ago.
  const content = STUDY_KINDS[def.kind].generated ? studyTrialContent(def, t.item) : undefined;
  const answered = Date.now() - 1000;
  return makeRow(def.studyId, grant.session_id, t.trialIndex, {
    participant_id: '',
    condition: schedule.condition.id,
    time_limit_s: schedule.condition.perPuzzleLimitS,
    puzzle_id: t.item.puzzleId,
    phase: t.item.phase,
    seed: t.item.seed,
    k: t.item.k,
    task: t.item.task,
    strict: def.strict,
    ...(content
      ? {
          query_a: content.queryA,
          query_b: content.queryB,
          gold: content.gold,
          story: content.story,
          response: content.gold,
          correct: true,
          ended_on: 'response',
          difficulty: 3,
        }
      : {}),
    rt_ms: 4000,
    started_at: new Date(answered - 5000).toISOString(),
    answered_at: new Date(answered).toISOString(),
    ...over,
  });
}

/**
 * For tests of schema steps: takes a database of this version back to `version` by undoing the
 * later steps (the same tables and columns as a database made by that older version).
 */
export function downgradeDatabase(db: { exec(sql: string): unknown }, version: number): void {
  const undo: Record<number, string> = {
    5: `ALTER TABLE trials DROP COLUMN adaptive_stop; ALTER TABLE trials DROP COLUMN adaptive_procedure;
        ALTER TABLE trials DROP COLUMN threshold_high; ALTER TABLE trials DROP COLUMN threshold_low;
        ALTER TABLE trials DROP COLUMN threshold_k;`,
    4: `DROP TABLE limit_buckets; DROP TABLE server_meta; DROP TABLE free_participants; DROP TABLE session_devices;
        DROP INDEX issued_by_code; DROP INDEX issued_by_address;
        ALTER TABLE issued_sessions DROP COLUMN released_at; ALTER TABLE issued_sessions DROP COLUMN from_counter;
        ALTER TABLE issued_sessions DROP COLUMN address; ALTER TABLE issued_sessions DROP COLUMN resume_code;
        ALTER TABLE trials DROP COLUMN device;`,
    3: 'DROP TABLE review_assignments;',
    2: 'DROP TABLE issued_sessions; DROP TABLE study_access;',
  };
  for (let step = 5; step > version; step--) db.exec(undo[step]!);
  db.exec(`PRAGMA user_version = ${version}`);
}

/** A two-condition (untimed, timed 30 s) × two-list study: four cells for the balanced counter. */
export function crossedStudy(studyId: string, seed: number): StudyDefinition {
  return withDefaults({
    studyId,
    seed,
    k: [2, 3],
    itemsPerK: 2,
    practice: 1,
    attentionChecks: 1,
    order: { mode: 'counterbalanced', lists: 2 },
    conditions: [
      { id: 'untimed', perPuzzleLimitS: null, overallLimitS: null, display: 'text', scratchpad: false },
      { id: 'timed', perPuzzleLimitS: 30, overallLimitS: null, display: 'text', scratchpad: false },
    ],
  });
}

/**
 * The app in-process on `store` as the server tests use it: no build, the researcher `token`, a
 * session limit no test reaches, events into `log`; `over` for the rest (limits, proxies, clock…).
 */
export function testApp(
  store: ResultStore,
  token: string,
  log: (event: Record<string, unknown>) => void,
  over: Partial<AppOptions> = {},
) {
  return createApp({
    store,
    token,
    distDir: null,
    allowedOrigins: [],
    maxBodyBytes: 512 * 1024,
    rate: { perSecond: 1000, burst: 1000 },
    log,
    ...over,
  });
}
