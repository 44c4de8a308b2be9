/**
 * The results server checks an adaptive study's rows by replaying its procedure: each row's k and
 * puzzle must be what the session's earlier answers (stored, or sent before it in the same body)
 * decide; a row past the stopping rule, or one whose earlier rows have not arrived, is refused.
 * In-process through Hono's app.request() with a real SQLite file, as sessions.test.ts.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withDefaults, type StudyDefinition } from '../src/study/definition/definition';
import { encodeStudyLink } from '../src/study/definition/link';
import type { SessionGrant } from '../src/study/delivery/serverApi';
import type { EarlierRow } from '../src/study/kinds';
import Database from 'better-sqlite3';
import { adaptiveAnswers, adaptiveItem, adaptiveStateOf, storedEstimate } from '../src/study/kinds/adaptive';
import { rowsToCsv } from '../src/study/results/results';
import { readResultsFile } from '../src/study/results/resultsFile';
import { ExportReader } from './export';
import type { ResultRow } from '../src/study/results/results';
import { studyTrialContent } from '../src/study/schedule/trialFacts';
import { ResultStore } from './store';
import { downgradeDatabase, makeRow, tempDirs, testApp } from './testServer';
import { SCHEMA_VERSION } from './store';

const tempDir = tempDirs('clutrr-adaptive-');
const RESEARCHER = 'researcher-token-for-tests-0123456789';

const STUDY: StudyDefinition = withDefaults({
  kind: 'adaptive',
  studyId: 'adapt',
  seed: 31,
  adaptive: 'staircase',
  adaptiveTrials: 8,
  practice: 0,
  sinks: [{ kind: 'server' }],
});

function setup() {
  const store = ResultStore.open(path.join(tempDir(), 'results.sqlite'));
  const app = testApp(store, RESEARCHER, () => undefined, { trustProxy: true });
  const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request(p, {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers },
      body: JSON.stringify(body),
    });
  return { store, post };
}

/** The row of adaptive trial n, as a page would record it after `before` (answered right iff k ≤ 4). */
function adaptiveRow(def: StudyDefinition, grant: SessionGrant, before: readonly EarlierRow[], n: number): ResultRow {
  const item = adaptiveItem(def, adaptiveAnswers(before))!;
  const content = studyTrialContent(def, item);
  const right = item.k <= 4;
  const answered = Date.now() - 1000;
  return makeRow(def.studyId, grant.session_id, n, {
    participant_id: '',
    condition: def.conditions[0]!.id,
    time_limit_s: def.conditions[0]!.perPuzzleLimitS,
    phase: 'main',
    puzzle_id: item.puzzleId,
    seed: item.seed,
    k: item.k,
    task: item.task,
    strict: def.strict,
    query_a: content.queryA,
    query_b: content.queryB,
    gold: content.gold,
    story: content.story,
    response: right ? content.gold : content.gold === 'father' ? 'mother' : 'father',
    correct: right,
    ended_on: 'response',
    difficulty: 3,
    rt_ms: 4000,
    started_at: new Date(answered - 5000).toISOString(),
    answered_at: new Date(answered).toISOString(),
  });
}

async function begin() {
  const t = setup();
  const reg = await t.post(
    '/api/studies',
    { token: encodeStudyLink(STUDY), sessions: 'issued' },
    {
      authorization: `Bearer ${RESEARCHER}`,
    },
  );
  expect(reg.status).toBe(201);
  const res = await t.post('/api/sessions', { study_id: 'adapt' }, { 'x-forwarded-for': '192.0.2.1' });
  expect(res.status).toBe(201);
  const grant = (await res.json()) as SessionGrant;
  const secrets = [{ session_id: grant.session_id, secret: grant.secret }];
  const rows: ResultRow[] = [];
  for (let n = 0; n < STUDY.adaptiveTrials; n++) rows.push(adaptiveRow(STUDY, grant, rows, n));
  return { ...t, grant, secrets, rows };
}

describe('an adaptive study on the results server', () => {
  it('stores rows whose items the procedure picks, sent one at a time or together', async () => {
    const t = await begin();
    expect(new Set(t.rows.map((r) => r.k)).size).toBeGreaterThan(1);
    // The first three one by one (each checked against the stored rows before it), the rest in one body.
    for (const r of t.rows.slice(0, 3)) {
      const res = await t.post('/api/rows', { sessions: [], rows: [r], secrets: t.secrets });
      expect(res.status).toBe(200);
    }
    const rest = await t.post('/api/rows', { sessions: [], rows: t.rows.slice(3), secrets: t.secrets });
    expect(rest.status).toBe(200);
    expect(t.store.rows('adapt')).toHaveLength(STUDY.adaptiveTrials);
  });

  it('refuses a k or a puzzle the procedure would not have chosen, saying why', async () => {
    const t = await begin();
    const ok = await t.post('/api/rows', { sessions: [], rows: t.rows.slice(0, 4), secrets: t.secrets });
    expect(ok.status).toBe(200);
    const next = t.rows[4]!;
    const otherK = next.k === 2 ? 3 : next.k - 1;
    for (const [change, pattern] of [
      [{ k: otherK }, /^rows\.0\.k: \d+ is not what the adaptive procedure picks for trial 4/],
      [{ puzzle_id: `adaptive-k${next.k}-t1-9` }, /^rows\.0\.puzzle_id: .* adaptive procedure picks/],
      [{ seed: next.seed + 1 }, /^rows\.0\.seed: /],
    ] as const) {
      const res = await t.post('/api/rows', { sessions: [], rows: [{ ...next, ...change }], secrets: t.secrets });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(pattern);
    }
    // A right answer claimed where the procedure's earlier rows say wrong changes the next item: refused.
    const flipped = { ...t.rows[4]!, response: t.rows[4]!.gold, correct: true };
    const wrongNext = adaptiveRow(STUDY, t.grant, [...t.rows.slice(0, 4), flipped], 5);
    const res = await t.post('/api/rows', { sessions: [], rows: [t.rows[4]!, wrongNext], secrets: t.secrets });
    if (wrongNext.puzzle_id !== t.rows[5]!.puzzle_id) {
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/^rows\.1\.(k|puzzle_id|seed|task): /);
    }
    expect(t.store.rows('adapt').length).toBeLessThanOrEqual(5);
  });

  it('refuses a row whose earlier rows have not arrived, and a row past the stopping rule', async () => {
    const t = await begin();
    const gap = await t.post('/api/rows', { sessions: [], rows: [t.rows[2]!], secrets: t.secrets });
    expect(gap.status).toBe(400);
    expect(((await gap.json()) as { error: string }).error).toMatch(/only 0 have arrived; send the rows in order/);
    const all = await t.post('/api/rows', { sessions: [], rows: t.rows, secrets: t.secrets });
    expect(all.status).toBe(200);
    // Trial 8 does not exist (8 trials at most): past the schedule.
    const extra = { ...t.rows[7]!, trial_index: 8 };
    const past = await t.post('/api/rows', { sessions: [], rows: [extra], secrets: t.secrets });
    expect(past.status).toBe(400);
    expect(((await past.json()) as { error: string }).error).toMatch(/trial_index: 8 is past/);
  });

  it('refuses a row after the interval has stopped the run', async () => {
    const def = withDefaults({ ...STUDY, studyId: 'adapt-ci', adaptive: 'quest', adaptiveTrials: 40, ciWidth: 2.5 });
    const t = setup();
    const reg = await t.post(
      '/api/studies',
      { token: encodeStudyLink(def), sessions: 'issued' },
      { authorization: `Bearer ${RESEARCHER}` },
    );
    expect(reg.status).toBe(201);
    const grant = (await (
      await t.post('/api/sessions', { study_id: 'adapt-ci' }, { 'x-forwarded-for': '192.0.2.9' })
    ).json()) as SessionGrant;
    const secrets = [{ session_id: grant.session_id, secret: grant.secret }];
    const rows: ResultRow[] = [];
    while (adaptiveItem(def, adaptiveAnswers(rows)) !== null) rows.push(adaptiveRow(def, grant, rows, rows.length));
    expect(rows.length).toBeLessThan(40);
    expect((await t.post('/api/rows', { sessions: [], rows, secrets })).status).toBe(200);
    const after = { ...rows[rows.length - 1]!, trial_index: rows.length };
    const res = await t.post('/api/rows', { sessions: [], rows: [after], secrets });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(
      new RegExp(`^rows\\.0\\.trial_index: the adaptive procedure of this session stopped before trial ${rows.length}`),
    );
  });

  it('gives a session continued on another device its earlier rows, from which that device picks the next item', async () => {
    const t = await begin();
    // Device A answers three adaptive trials (two right, one wrong, per the k ≤ 4 rule) and stops.
    const a = await t.post('/api/rows', { sessions: [], rows: t.rows.slice(0, 3), secrets: t.secrets });
    expect(a.status).toBe(200);
    expect(t.grant.earlier).toBeUndefined();

    // Device B continues the session with its resume code (another network).
    const res = await t.post(
      '/api/sessions',
      { study_id: 'adapt', resume_code: t.grant.resume_code.toLowerCase() },
      { 'x-forwarded-for': '198.51.100.7' },
    );
    expect(res.status).toBe(200);
    const b = (await res.json()) as SessionGrant;
    expect([b.session_id, b.resumed, b.answered]).toEqual([t.grant.session_id, true, [0, 1, 2]]);
    // Only what the next item follows, of the session's own stored rows.
    expect(b.earlier).toEqual(
      t.rows.slice(0, 3).map((r) => ({
        trial_index: r.trial_index,
        phase: r.phase,
        k: r.k,
        correct: r.correct,
        ended_on: r.ended_on,
      })),
    );

    // B decides trial 3 from those facts alone: the item A would have shown, which the server accepts.
    const next = adaptiveRow(STUDY, b, b.earlier!, 3);
    expect([next.k, next.puzzle_id, next.seed]).toEqual([t.rows[3]!.k, t.rows[3]!.puzzle_id, t.rows[3]!.seed]);
    const sent = await t.post('/api/rows', {
      sessions: [],
      rows: [next],
      secrets: [{ session_id: b.session_id, secret: b.secret }],
    });
    expect(sent.status).toBe(200);
    const stored = t.store.rows('adapt').sort((x, y) => x.trial_index - y.trial_index);
    expect(stored.map((r) => r.k)).toEqual(t.rows.slice(0, 4).map((r) => r.k));

    // Continued again: the facts now include B's row, still at most the study's trials.
    const again = (await (
      await t.post(
        '/api/sessions',
        { study_id: 'adapt', resume_code: b.resume_code },
        { 'x-forwarded-for': '198.51.100.8' },
      )
    ).json()) as SessionGrant;
    expect(again.earlier?.map((f) => f.trial_index)).toEqual([0, 1, 2, 3]);
  });
});

/** The estimate after each row of a session, by replaying its procedure over the rows up to it. */
const expectedEstimates = (def: StudyDefinition, rows: readonly ResultRow[]) =>
  rows.map((_, i) => {
    const state = adaptiveStateOf(def, rows.slice(0, i + 1));
    return [
      storedEstimate(state.estimate.threshold),
      storedEstimate(state.estimate.low),
      storedEstimate(state.estimate.high),
      def.adaptive,
      state.stopped ?? '',
    ];
  });
const estimateOf = (r: ResultRow) => [
  r.threshold_k,
  r.threshold_low,
  r.threshold_high,
  r.adaptive_procedure,
  r.adaptive_stop,
];

describe("the estimate stored with an adaptive study's rows", () => {
  it("is the server's own: recomputed from the session's rows, a tampered value overwritten", async () => {
    const t = await begin();
    const want = expectedEstimates(STUDY, t.rows);
    // The page's rows carry no estimate (as a page loaded before the columns) or a tampered one.
    const sent = t.rows.map((r, i) =>
      i % 2 === 0
        ? r
        : { ...r, threshold_k: 9.5, threshold_low: 9, threshold_high: 10, adaptive_stop: 'interval' as const },
    );
    for (const r of sent.slice(0, 3)) {
      expect((await t.post('/api/rows', { sessions: [], rows: [r], secrets: t.secrets })).status).toBe(200);
    }
    expect((await t.post('/api/rows', { sessions: [], rows: sent.slice(3), secrets: t.secrets })).status).toBe(200);
    const stored = t.store.rows('adapt');
    expect(stored.map(estimateOf)).toEqual(want);
    expect(stored.at(-1)!.adaptive_stop).toBe('trials');
    expect(new Set(stored.map((r) => r.threshold_k)).size).toBeGreaterThan(1);
    // Sent again with the server's values, or with a tampered one: unchanged, never a conflict, never stored.
    const again = await t.post('/api/rows', {
      sessions: [],
      rows: [stored[1]!, { ...stored[2]!, threshold_k: 1 }],
      secrets: t.secrets,
    });
    expect(await again.json()).toEqual({ stored: 0, unchanged: 2 });
    expect(t.store.rows('adapt').map(estimateOf)).toEqual(want);
    // The exports carry them: the CSV reads back to the same values.
    const reader = ExportReader.open(t.store);
    const csv = [...reader.chunks('csv', 'adapt')].join('');
    reader.close();
    expect(csv).toBe(rowsToCsv(t.store.rows('adapt'), t.store.sessionInfos('adapt')));
    expect(readResultsFile('adapt.csv', csv).rows.map(estimateOf)).toEqual(want);
    expect(csv.split('\r\n')[0]).toContain(
      ',threshold_k,threshold_low,threshold_high,adaptive_procedure,adaptive_stop,',
    );
  });

  it('is empty for a solve study whatever the page sends', async () => {
    const store = ResultStore.open(path.join(tempDir(), 'results.sqlite'));
    store.registerStudy({ definition: withDefaults({ studyId: 'plain' }) });
    const row = makeRow('plain', 's', 0, { threshold_k: 3, adaptive_procedure: 'quest' });
    expect(store.ingest({ sessions: [], rows: [row] }).status).toBe('stored');
    expect(estimateOf(store.rows('plain')[0]!)).toEqual([null, null, null, '', '']);
    store.close();
  });

  it("is computed for a browser-made session's rows in order, and left empty when a row before is missing", () => {
    const store = ResultStore.open(path.join(tempDir(), 'results.sqlite'));
    const def = withDefaults({ ...STUDY, studyId: 'adapt-b', sinks: [] });
    store.registerStudy({ definition: def });
    const grant = { session_id: 'b-1' } as SessionGrant;
    const rows: ResultRow[] = [];
    for (let n = 0; n < 5; n++) rows.push({ ...adaptiveRow(def, grant, rows, n), participant_id: '' });
    expect(store.ingest({ sessions: [], rows: rows.slice(0, 2) }).status).toBe('stored');
    // Trial 3 before trial 2: no estimate can be told for it.
    expect(store.ingest({ sessions: [], rows: [rows[3]!] }).status).toBe('stored');
    expect(store.ingest({ sessions: [], rows: [rows[2]!, rows[4]!] }).status).toBe('stored');
    const want = expectedEstimates(def, rows);
    expect(store.rows('adapt-b').map(estimateOf)).toEqual([
      want[0],
      want[1],
      want[2],
      [null, null, null, '', ''],
      want[4],
    ]);
    store.close();
  });

  it('comes with a schema step that keeps the rows of an older database, their estimate empty', () => {
    const file = path.join(tempDir(), 'results.sqlite');
    {
      const old = ResultStore.open(file);
      old.registerStudy({ definition: withDefaults({ studyId: 'kept' }) });
      old.ingest({ sessions: [], rows: [makeRow('kept', 's1', 0), makeRow('kept', 's1', 1)] });
      downgradeDatabase(old.handleForTests(), 4);
      old.close();
      const db = new Database(file);
      expect(db.pragma('user_version', { simple: true })).toBe(4);
      const columns = (db.prepare('PRAGMA table_info(trials)').all() as { name: string }[]).map((c) => c.name);
      expect(columns).not.toContain('threshold_k');
      db.close();
    }
    const store = ResultStore.open(file);
    expect(store.handleForTests().pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(store.rows('kept')).toEqual([makeRow('kept', 's1', 0), makeRow('kept', 's1', 1)]);
    expect(store.ingest({ sessions: [], rows: [makeRow('kept', 's1', 2)] }).status).toBe('stored');
    expect(() =>
      store.handleForTests().prepare("UPDATE trials SET adaptive_stop = 'bored' WHERE trial_index = 2").run(),
    ).toThrow(/CHECK constraint/);
    store.close();
  });
});
