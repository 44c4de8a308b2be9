import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withDefaults } from '../src/study/definition/definition';
import { encodeStudyLink } from '../src/study/definition/link';
import { RESULT_COLUMNS } from '../src/study/results/results';
import { RateLimiter } from './rateLimit';
import { parseIngestBody } from './schema';
import { MIGRATIONS, ResultStore, SCHEMA_VERSION, StoreError, tokenFrom } from './store';
import { makeRow, makeSession } from './testServer';

const dirs: string[] = [];
const dbFile = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'clutrr-store-'));
  dirs.push(d);
  return path.join(d, 'results.sqlite');
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const token = encodeStudyLink(withDefaults({ studyId: 'lab' }));

describe('ResultStore', () => {
  it('creates the schema at the current version, in WAL mode with full sync', () => {
    const store = ResultStore.open(dbFile());
    expect(store.handleForTests().pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(store.handleForTests().pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.handleForTests().pragma('synchronous', { simple: true })).toBe(2); // FULL
    store.close();
  });

  it('refuses a database made by a newer version, and a missing one where it must exist', () => {
    const file = dbFile();
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => ResultStore.open(file)).toThrow(/newer version/);
    expect(() => ResultStore.open(`${file}.none`, { mustExist: true })).toThrow(StoreError);
  });

  it('registers a study by token, participant URL or definition; replaces it only while it has no results', () => {
    const store = ResultStore.open(dbFile());
    expect(store.registerStudy({ token: `https://lab.example/app/?study=${token}&preview=1` }).outcome).toBe('added');
    expect(store.registerStudy({ definition: withDefaults({ studyId: 'lab' }) }).outcome).toBe('unchanged');
    const changed = withDefaults({ studyId: 'lab', seed: 77 });
    expect(store.registerStudy({ definition: changed }).outcome).toBe('replaced');
    expect(store.ingest({ sessions: [], rows: [makeRow('lab', 's', 0)] }).status).toBe('stored');
    expect(() => store.registerStudy({ token })).toThrow(/already has results/);
    expect(() => store.registerStudy({ token: `${token.slice(0, -1)}0` })).toThrow(/changed or damaged|cut off/);
    expect(() => store.registerStudy({ definition: { ...changed, studyId: 'bad id' } })).toThrow(/^studyId: /);
    store.close();
  });

  it('keeps each request of a group commit all or nothing', () => {
    const store = ResultStore.open(dbFile());
    store.registerStudy({ token });
    store.ingest({ sessions: [], rows: [makeRow('lab', 'a', 0)] });
    const outcomes = store.ingestBatch([
      { sessions: [makeSession('lab', 'b')], rows: [makeRow('lab', 'b', 0)] },
      // Its first row is new, its second conflicts: neither may be stored.
      { sessions: [], rows: [makeRow('lab', 'a', 1), makeRow('lab', 'a', 0, { response: 'aunt' })] },
      { sessions: [], rows: [makeRow('nope', 'c', 0)] },
      { sessions: [], rows: [makeRow('lab', 'b', 1), makeRow('lab', 'b', 1)] },
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['stored', 'conflict', 'unknown-study', 'stored']);
    expect(outcomes[3]).toEqual({ status: 'stored', added: 1, unchanged: 1 });
    expect(store.rows().map((r) => `${r.session_id}/${r.trial_index}`)).toEqual(['a/0', 'b/0', 'b/1']);
    expect(store.rows()[0]).toEqual(makeRow('lab', 'a', 0));
    expect(store.sessionInfos()).toEqual([makeSession('lab', 'b')]);
    expect(store.sessions('lab').map((s) => [s.session_id, s.rows, s.main_rows])).toEqual([
      ['a', 1, 0],
      ['b', 2, 1],
    ]);
    store.close();
  });

  it('reads a token out of what a researcher pastes', () => {
    expect(tokenFrom(` ?study=${token} `)).toBe(token);
    expect(tokenFrom(token)).toBe(token);
  });
});

describe('parseIngestBody', () => {
  it('names the first problem and where it is', () => {
    expect(parseIngestBody('nope')).toEqual({ ok: false, message: 'the body is not JSON' });
    expect(parseIngestBody('{"sessions":[],"rows":[]}')).toMatchObject({ ok: false, message: /^rows: / });
    const row = { ...makeRow('lab', 's', 0), task: 9 };
    expect(parseIngestBody(JSON.stringify({ sessions: [], rows: [row] }))).toMatchObject({
      ok: false,
      message: /^rows\.0\.task: /,
    });
    const good = { sessions: [makeSession('lab', 's')], rows: [makeRow('lab', 's', 0)] };
    expect(parseIngestBody(JSON.stringify(good))).toEqual({ ok: true, value: good });
  });
});

describe('RateLimiter', () => {
  it('allows a burst, then the sustained rate, per key', () => {
    let now = 0;
    const limiter = new RateLimiter({ perSecond: 2, burst: 3 }, () => now);
    expect([1, 2, 3, 4].map(() => limiter.take('a'))).toEqual([0, 0, 0, 1]);
    expect(limiter.take('b')).toBe(0);
    now += 500; // one token back
    expect([limiter.take('a'), limiter.take('a')]).toEqual([0, 1]);
    now += 10_000; // idle buckets are dropped
    limiter.take('c');
    expect(limiter.size).toBe(1);
  });
});

// The first step builds the trials table from the result columns' kinds (src/study/results/resultFields.ts);
// databases in the field have run it, so its text must never change, whatever the table becomes.
const RELEASED_FIRST_STEP = `CREATE TABLE studies (
     study_id TEXT PRIMARY KEY,
     token TEXT NOT NULL,
     definition TEXT NOT NULL,
     registered_at TEXT NOT NULL
   ) STRICT;
   CREATE TABLE sessions (
     session_id TEXT PRIMARY KEY,
     study_id TEXT NOT NULL REFERENCES studies (study_id),
     participant_id TEXT NOT NULL,
     condition TEXT NOT NULL,
     user_agent TEXT NOT NULL,
     screen TEXT NOT NULL,
     started_at TEXT NOT NULL,
     received_at TEXT NOT NULL
   ) STRICT;
   CREATE INDEX sessions_by_study ON sessions (study_id);
   CREATE TABLE trials (
     study_id TEXT NOT NULL,
     session_id TEXT NOT NULL,
     participant_id TEXT NOT NULL,
     condition TEXT NOT NULL,
     trial_index INTEGER NOT NULL,
     phase TEXT NOT NULL,
     puzzle_id TEXT NOT NULL,
     seed INTEGER NOT NULL,
     k INTEGER NOT NULL,
     task INTEGER NOT NULL,
     strict INTEGER NOT NULL CHECK (strict IN (0, 1)),
     query_a TEXT NOT NULL,
     query_b TEXT NOT NULL,
     gold TEXT NOT NULL,
     response TEXT NOT NULL,
     correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
     difficulty INTEGER,
     rt_ms INTEGER NOT NULL,
     ended_on TEXT NOT NULL,
     time_limit_s INTEGER,
     answer_changes INTEGER NOT NULL,
     hidden_ms INTEGER NOT NULL,
     resumed INTEGER NOT NULL CHECK (resumed IN (0, 1)),
     started_at TEXT NOT NULL,
     answered_at TEXT NOT NULL,
     story TEXT NOT NULL,
     prolific_study_id TEXT NOT NULL,
     prolific_session_id TEXT NOT NULL,
     received_at TEXT NOT NULL,
     PRIMARY KEY (session_id, trial_index),
     FOREIGN KEY (study_id) REFERENCES studies (study_id)
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX trials_by_study ON trials (study_id, session_id, trial_index);`;

describe('MIGRATIONS', () => {
  it('keeps the released first step, trials table included, character for character', () => {
    expect(MIGRATIONS[0]).toBe(RELEASED_FIRST_STEP);
    // The steps together make every column of the table (a new column needs a step of its own).
    const fresh = ResultStore.open(dbFile());
    const names = (
      fresh.handleForTests().prepare('SELECT name FROM pragma_table_info(?)').pluck().all('trials') as string[]
    ).filter((n) => n !== 'received_at' && n !== 'device');
    expect(names).toEqual([...RESULT_COLUMNS]);
    fresh.close();
  });
});
