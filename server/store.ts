/**
 * The results database: one SQLite file (`<data>/results.sqlite`) holding the registered
 * studies, the sessions' facts and one row per (session_id, trial_index). The server and the
 * offline CLI (`results export`, `study register`) both open it through this module, so there
 * is one schema and one set of rules.
 *
 * Durability: WAL journal with `synchronous = FULL`, so a transaction that has returned is on
 * disk (the WAL is synced at every commit) and survives a killed process or a lost machine;
 * the server acknowledges a request only after its transaction has returned.
 *
 * Append-only: nothing here updates or deletes a row. A row sent again unchanged is a no-op;
 * a row sent again with different content is a conflict and the first one stands.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { encodeStudyLink, decodeStudyLink } from '../src/study/definition/link';
import { checkStudyDefinition, type StudyDefinition } from '../src/study/definition/definition';
import { readParticipantParams } from '../src/study/delivery/route';
import { storedAs, type StoredAs } from '../src/study/results/resultFields';
import { RESULT_COLUMNS, sortRows, type ResultRow, type SessionInfo } from '../src/study/results/results';
import { MAX_DEVICES_PER_SESSION, sameDevice, sameSessionFacts } from '../src/study/delivery/sessionModel';
import { prepareDatabaseFile, tightenDatabaseFiles } from './files';
import type { IngestBody } from './schema';

export const DATABASE_FILE = 'results.sqlite';

/** How a result column is stored, from its kind in src/study/results/resultFields.ts (SQLite has no booleans). */
type ColumnKind = StoredAs;

const ROW_COLUMNS = Object.fromEntries(RESULT_COLUMNS.map((c) => [c, storedAs(c)])) as Record<
  keyof ResultRow,
  ColumnKind
>;

/**
 * The schema, one step per version: step i takes `PRAGMA user_version` from i to i + 1. A step,
 * once released, never changes (databases in the field have run it); changes are new steps.
 * Exported so a test can pin the released steps' text.
 */
export const MIGRATIONS: readonly string[] = [
  // Written out, not derived from the column table: a released step never changes, and a column
  // added to the table comes with a step of its own.
  `CREATE TABLE studies (
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
   CREATE INDEX trials_by_study ON trials (study_id, session_id, trial_index);`,
  // Issued sessions (server/sessions.ts). Studies registered before keep accepting browser-made
  // session ids ('browser'); a study without a study_access row takes NEW_STUDY_SESSIONS.
  `CREATE TABLE study_access (
     study_id TEXT PRIMARY KEY REFERENCES studies (study_id),
     sessions TEXT NOT NULL CHECK (sessions IN ('issued', 'browser')),
     closed INTEGER NOT NULL DEFAULT 0 CHECK (closed IN (0, 1)),
     max_sessions INTEGER CHECK (max_sessions IS NULL OR max_sessions >= 0),
     next_participant INTEGER NOT NULL DEFAULT 0
   ) STRICT;
   INSERT INTO study_access (study_id, sessions) SELECT study_id, 'browser' FROM studies;
   CREATE TABLE issued_sessions (
     session_id TEXT PRIMARY KEY,
     study_id TEXT NOT NULL REFERENCES studies (study_id),
     secret TEXT NOT NULL,
     participant INTEGER NOT NULL,
     condition TEXT,
     participant_id TEXT NOT NULL,
     prolific_study_id TEXT NOT NULL,
     prolific_session_id TEXT NOT NULL,
     issued_at TEXT NOT NULL
   ) STRICT;
   CREATE UNIQUE INDEX issued_by_participant ON issued_sessions (study_id, participant_id) WHERE participant_id <> '';
   CREATE INDEX issued_by_study ON issued_sessions (study_id);`,
  // The live review queue (server/reviewQueue.ts, issue 24): which stories of a paraphrase study
  // were handed to which issued session of a review study, in order. A new table only: existing
  // studies, sessions and rows are untouched.
  `CREATE TABLE review_assignments (
     session_id TEXT NOT NULL REFERENCES issued_sessions (session_id),
     position INTEGER NOT NULL CHECK (position >= 0),
     study_id TEXT NOT NULL REFERENCES studies (study_id),
     story_id TEXT NOT NULL,
     source_session TEXT NOT NULL,
     source_trial INTEGER NOT NULL,
     issued_at TEXT NOT NULL,
     expires_at TEXT NOT NULL,
     PRIMARY KEY (session_id, position),
     UNIQUE (session_id, story_id)
   ) STRICT;
   CREATE INDEX review_by_story ON review_assignments (study_id, story_id);`,
  // Sessions that hold across devices and against one client (src/study/delivery/sessionModel.ts): a
  // session's later devices, the device that sent each row (0: the first, in \`sessions\`), the
  // issued sessions' resume codes, the (keyed hash of the) address that asked, slots given back by
  // idle sessions, and the limits' buckets kept across restarts. Existing rows keep their meaning:
  // earlier sessions have no resume code and their participant numbers are never handed out again.
  `CREATE TABLE session_devices (
     session_id TEXT NOT NULL,
     device INTEGER NOT NULL CHECK (device >= 1),
     user_agent TEXT NOT NULL,
     screen TEXT NOT NULL,
     started_at TEXT NOT NULL,
     received_at TEXT NOT NULL,
     PRIMARY KEY (session_id, device)
   ) STRICT, WITHOUT ROWID;
   ALTER TABLE trials ADD COLUMN device INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE issued_sessions ADD COLUMN resume_code TEXT;
   ALTER TABLE issued_sessions ADD COLUMN address TEXT NOT NULL DEFAULT '';
   ALTER TABLE issued_sessions ADD COLUMN from_counter INTEGER NOT NULL DEFAULT 0 CHECK (from_counter IN (0, 1));
   ALTER TABLE issued_sessions ADD COLUMN released_at TEXT;
   CREATE UNIQUE INDEX issued_by_code ON issued_sessions (study_id, resume_code) WHERE resume_code IS NOT NULL;
   CREATE INDEX issued_by_address ON issued_sessions (study_id, address, issued_at);
   CREATE TABLE free_participants (
     study_id TEXT NOT NULL REFERENCES studies (study_id),
     participant INTEGER NOT NULL,
     released_from TEXT NOT NULL,
     PRIMARY KEY (study_id, participant)
   ) STRICT, WITHOUT ROWID;
   CREATE TABLE server_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
   INSERT INTO server_meta (name, value) VALUES ('address_key', lower(hex(randomblob(32))));
   CREATE TABLE limit_buckets (
     name TEXT NOT NULL,
     key TEXT NOT NULL,
     tokens REAL NOT NULL,
     at_ms INTEGER NOT NULL,
     PRIMARY KEY (name, key)
   ) STRICT, WITHOUT ROWID;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** A problem the caller can tell the user about (no stack trace needed). */
export class StoreError extends Error {
  override name = 'StoreError';
}

export interface RegisterOutcome {
  readonly studyId: string;
  readonly token: string;
  /** `added`: new; `unchanged`: the same study again; `replaced`: a changed study that had no rows yet. */
  readonly outcome: 'added' | 'unchanged' | 'replaced';
}

/** One key whose stored content differs from what was sent (or belongs to another study). */
export interface Conflict {
  readonly kind: 'row' | 'session';
  readonly study_id: string;
  readonly session_id: string;
  readonly trial_index?: number;
  readonly reason: string;
}

export type IngestOutcome =
  | { readonly status: 'stored'; readonly added: number; readonly unchanged: number }
  | { readonly status: 'unknown-study'; readonly studyId: string }
  | { readonly status: 'invalid'; readonly message: string }
  | { readonly status: 'conflict'; readonly conflicts: readonly Conflict[] };

export interface StudySummary {
  readonly study_id: string;
  readonly token: string;
  readonly registered_at: string;
  readonly conditions: readonly string[];
  readonly sessions: number;
  readonly rows: number;
}

export interface SessionSummary {
  readonly session_id: string;
  readonly study_id: string;
  readonly participant_id: string;
  readonly condition: string;
  /** Rows stored, and of them main trials. */
  readonly rows: number;
  readonly main_rows: number;
  readonly started_at: string;
  /** The latest answered_at among the session's rows; empty before the first row. */
  readonly last_answered_at: string;
  readonly last_received_at: string;
}

type SqlRow = Record<string, string | number | null>;

const toSql = (row: ResultRow): SqlRow =>
  Object.fromEntries(
    RESULT_COLUMNS.map((c) => {
      const v = row[c];
      return [c, typeof v === 'boolean' ? (v ? 1 : 0) : v];
    }),
  );

const fromSql = (r: SqlRow): ResultRow =>
  Object.fromEntries(
    RESULT_COLUMNS.map((c) => [c, ROW_COLUMNS[c] === 'boolean' ? r[c] === 1 : r[c]]),
  ) as unknown as ResultRow;

/** The stored columns of a session, in the order the sessions table and the exports list them. */
export const SESSION_FIELDS = [
  'study_id',
  'session_id',
  'participant_id',
  'condition',
  'user_agent',
  'screen',
  'started_at',
] as const;

const sameRow = (a: ResultRow, b: ResultRow) => RESULT_COLUMNS.every((c) => a[c] === b[c]);

/** A device of a session as stored: 0 is the session's first (the `sessions` table), then 1, 2, … */
interface DeviceRecord {
  readonly device: number;
  readonly user_agent: string;
  readonly screen: string;
  readonly started_at: string;
}

/** A study token from what a researcher pastes: the token, `?study=<token>`, or a whole participant URL. */
export function tokenFrom(text: string): string {
  const t = text.trim();
  const q = t.indexOf('?');
  if (q < 0) return t;
  return readParticipantParams(t.slice(q)).token ?? t;
}

/** Undoes one request's savepoint and carries its outcome out of the transaction. */
class Abort extends Error {
  constructor(readonly outcome: IngestOutcome) {
    super('abort');
  }
}

export class ResultStore {
  private readonly statements;
  private readonly conditionsCache = new Map<string, { token: string; conditions: Set<string> }>();

  private constructor(readonly db: Database.Database) {
    this.statements = {
      study: db.prepare<[string], { token: string; definition: string }>(
        'SELECT token, definition FROM studies WHERE study_id = ?',
      ),
      insertStudy: db.prepare(
        'INSERT INTO studies (study_id, token, definition, registered_at) VALUES (@study_id, @token, @definition, @registered_at)',
      ),
      replaceStudy: db.prepare(
        'UPDATE studies SET token = @token, definition = @definition, registered_at = @registered_at WHERE study_id = @study_id',
      ),
      studyHasData: db.prepare<[string, string]>(
        'SELECT 1 FROM trials WHERE study_id = ? UNION ALL SELECT 1 FROM sessions WHERE study_id = ? LIMIT 1',
      ),
      session: db.prepare<[string], SessionInfo>(
        `SELECT ${SESSION_FIELDS.join(', ')} FROM sessions WHERE session_id = ?`,
      ),
      insertSession: db.prepare(
        `INSERT INTO sessions (${SESSION_FIELDS.join(', ')}, received_at) VALUES (${SESSION_FIELDS.map((f) => `@${f}`).join(', ')}, @received_at)`,
      ),
      sessionStudyFromRows: db.prepare<[string], { study_id: string }>(
        'SELECT study_id FROM trials WHERE session_id = ? LIMIT 1',
      ),
      row: db.prepare<[string, number], SqlRow>(
        `SELECT ${RESULT_COLUMNS.join(', ')} FROM trials WHERE session_id = ? AND trial_index = ?`,
      ),
      insertRow: db.prepare(
        `INSERT INTO trials (${RESULT_COLUMNS.join(', ')}, received_at, device) VALUES (${RESULT_COLUMNS.map((c) => `@${c}`).join(', ')}, @received_at, @device)`,
      ),
      devices: db.prepare<[string], DeviceRecord>(
        'SELECT device, user_agent, screen, started_at FROM session_devices WHERE session_id = ? ORDER BY device',
      ),
      insertDevice: db.prepare(
        `INSERT INTO session_devices (session_id, device, user_agent, screen, started_at, received_at)
         VALUES (@session_id, @device, @user_agent, @screen, @started_at, @received_at)`,
      ),
    };
  }

  /**
   * Opens (creating if need be) the database at `file`, in WAL mode with full sync, and brings
   * its schema up to date. `readonly` opens an existing file without changing it.
   */
  static open(file: string, options: { readonly?: boolean; mustExist?: boolean } = {}): ResultStore {
    const mustExist = (options.readonly ?? false) || (options.mustExist ?? false);
    if (mustExist && !existsSync(file)) {
      throw new StoreError(`there is no results database at ${file} (start the server with this --data folder first)`);
    }
    // Private whoever opens it first (the server or the CLI): folder 700, files 600 (files.ts).
    if (!mustExist) prepareDatabaseFile(file);
    let db: Database.Database;
    try {
      db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: mustExist });
    } catch (e) {
      throw new StoreError(`cannot open the results database ${file}: ${(e as Error).message}`);
    }
    try {
      // Another process (the CLI, while the server runs) may hold the write lock for a moment.
      db.pragma('busy_timeout = 5000');
      if (!options.readonly) {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = FULL');
        tightenDatabaseFiles(file);
      }
      db.pragma('foreign_keys = ON');
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) {
        throw new StoreError(
          `${file} has schema version ${version}, made by a newer version of this app (this one knows up to ${SCHEMA_VERSION})`,
        );
      }
      if (version < SCHEMA_VERSION) {
        if (options.readonly) {
          throw new StoreError(`${file} has schema version ${version}; start the server once to update it`);
        }
        db.transaction(() => {
          for (let v = version; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
          db.pragma(`user_version = ${SCHEMA_VERSION}`);
        }).immediate();
      }
      return new ResultStore(db);
    } catch (e) {
      db.close();
      if (e instanceof StoreError) throw e;
      throw new StoreError(`cannot use the results database ${file}: ${(e as Error).message}`);
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /**
   * Registers a study from its link token (or a participant URL holding it) or its definition.
   * The same study again changes nothing. A different study under a registered id replaces it
   * only while nothing has been recorded for it; after that the id is taken.
   */
  registerStudy(input: { token: string } | { definition: unknown }): RegisterOutcome {
    let definition: StudyDefinition;
    let token: string;
    if ('token' in input) {
      token = tokenFrom(input.token);
      const decoded = decodeStudyLink(token);
      if (!decoded.ok) throw new StoreError(decoded.error.message);
      definition = decoded.definition;
      // The canonical token of the definition: the same study registers as the same text.
      token = encodeStudyLink(definition);
    } else {
      const problems = checkStudyDefinition(input.definition);
      if (problems.length > 0) throw new StoreError(`${problems[0]!.field}: ${problems[0]!.message}`);
      definition = input.definition as StudyDefinition;
      token = encodeStudyLink(definition);
    }
    const record = {
      study_id: definition.studyId,
      token,
      definition: JSON.stringify(definition),
      registered_at: new Date().toISOString(),
    };
    return this.db
      .transaction((): RegisterOutcome => {
        const old = this.statements.study.get(record.study_id);
        if (!old) {
          this.statements.insertStudy.run(record);
          return { studyId: record.study_id, token, outcome: 'added' };
        }
        if (old.token === token) return { studyId: record.study_id, token, outcome: 'unchanged' };
        if (this.statements.studyHasData.get(record.study_id, record.study_id)) {
          throw new StoreError(
            `the study id "${record.study_id}" is registered with another definition and already has results; give the changed study another id`,
          );
        }
        this.statements.replaceStudy.run(record);
        this.conditionsCache.delete(record.study_id);
        return { studyId: record.study_id, token, outcome: 'replaced' };
      })
      .immediate();
  }

  /** The condition ids of a registered study, or undefined when it is not registered. */
  private conditionsOf(studyId: string): Set<string> | undefined {
    const row = this.statements.study.get(studyId);
    if (!row) return undefined;
    const cached = this.conditionsCache.get(studyId);
    if (cached && cached.token === row.token) return cached.conditions;
    const def = JSON.parse(row.definition) as StudyDefinition;
    const conditions = new Set(def.conditions.map((c) => c.id));
    this.conditionsCache.set(studyId, { token: row.token, conditions });
    return conditions;
  }

  /**
   * Stores a participant's request in one transaction, all or nothing: every row and session
   * must name a registered study and a condition of it; a key already stored with other content
   * (or under another study) makes the whole request a conflict and nothing is written.
   * Returns once the transaction has committed (durable).
   */
  ingest(body: IngestBody, receivedAt = new Date().toISOString()): IngestOutcome {
    return this.ingestBatch([body], receivedAt)[0]!;
  }

  /**
   * Several requests in one transaction (group commit: one sync of the WAL for all of them),
   * each inside its own savepoint, so that each is still all or nothing on its own. Returns
   * once the transaction has committed; throws (and stores nothing) if the commit fails.
   */
  ingestBatch(bodies: readonly IngestBody[], receivedAt = new Date().toISOString()): IngestOutcome[] {
    return this.db
      .transaction(() =>
        bodies.map((body) => {
          try {
            return this.ingestOne(body, receivedAt);
          } catch (e) {
            if (e instanceof Abort) return e.outcome;
            throw e;
          }
        }),
      )
      .immediate();
  }

  /** One request, as a nested transaction (a savepoint): an Abort undoes exactly this request. */
  private ingestOne(body: IngestBody, receivedAt: string): IngestOutcome {
    this.ingestOneTx ??= this.db.transaction((b: IngestBody, at: string) => this.ingestChecked(b, at));
    return this.ingestOneTx(body, receivedAt);
  }

  private ingestOneTx?: Database.Transaction<(body: IngestBody, receivedAt: string) => IngestOutcome>;

  private ingestChecked(body: IngestBody, receivedAt: string): IngestOutcome {
    const studies = new Set([...body.rows, ...body.sessions].map((r) => r.study_id));
    for (const studyId of studies) {
      if (!this.conditionsOf(studyId)) throw new Abort({ status: 'unknown-study', studyId });
    }
    const check = (where: string, r: { study_id: string; condition: string }) => {
      if (!this.conditionsOf(r.study_id)!.has(r.condition)) {
        throw new Abort({
          status: 'invalid',
          message: `${where}.condition: "${r.condition}" is not a condition of study "${r.study_id}"`,
        });
      }
    };
    const conflicts: Conflict[] = [];
    // The device of each session this request speaks for: its rows are stored with it.
    const deviceOf = new Map<string, number>();
    // Sessions first, so that a row can be checked against its session's study.
    body.sessions.forEach((s, i) => {
      check(`sessions.${i}`, s);
      const old = this.statements.session.get(s.session_id);
      const studyOfRows = this.statements.sessionStudyFromRows.get(s.session_id)?.study_id;
      if (old && sameSessionFacts(old, s)) {
        // The same session from the same or another device (src/study/delivery/sessionModel.ts).
        const device = this.deviceFor(old, s, receivedAt);
        if (device === undefined) {
          conflicts.push({
            kind: 'session',
            study_id: s.study_id,
            session_id: s.session_id,
            reason: `the session already has ${MAX_DEVICES_PER_SESSION} devices, the most one session may have`,
          });
        } else deviceOf.set(s.session_id, device);
      } else if (old) {
        conflicts.push({
          kind: 'session',
          study_id: s.study_id,
          session_id: s.session_id,
          reason:
            old.study_id === s.study_id
              ? 'the session was recorded with other facts'
              : `the session belongs to study "${old.study_id}"`,
        });
      } else if (!old && studyOfRows !== undefined && studyOfRows !== s.study_id) {
        conflicts.push({
          kind: 'session',
          study_id: s.study_id,
          session_id: s.session_id,
          reason: `the session belongs to study "${studyOfRows}"`,
        });
      } else if (!old) this.statements.insertSession.run({ ...s, received_at: receivedAt });
    });
    let added = 0;
    let unchanged = 0;
    body.rows.forEach((row, i) => {
      check(`rows.${i}`, row);
      const sessionStudy =
        this.statements.session.get(row.session_id)?.study_id ??
        this.statements.sessionStudyFromRows.get(row.session_id)?.study_id;
      const old = this.statements.row.get(row.session_id, row.trial_index);
      if (sessionStudy !== undefined && sessionStudy !== row.study_id) {
        conflicts.push({
          kind: 'row',
          study_id: row.study_id,
          session_id: row.session_id,
          trial_index: row.trial_index,
          reason: `the session belongs to study "${sessionStudy}"`,
        });
      } else if (!old) {
        this.statements.insertRow.run({
          ...toSql(row),
          received_at: receivedAt,
          device: deviceOf.get(row.session_id) ?? 0,
        });
        added++;
      } else if (sameRow(fromSql(old), row)) unchanged++;
      else {
        conflicts.push({
          kind: 'row',
          study_id: row.study_id,
          session_id: row.session_id,
          trial_index: row.trial_index,
          reason: 'the trial was recorded with other content; the first row stands',
        });
      }
    });
    if (conflicts.length > 0) throw new Abort({ status: 'conflict', conflicts });
    return { status: 'stored', added, unchanged };
  }

  /**
   * The device of a session record whose fixed facts match the stored session: an existing one
   * with the same device facts, else a new one (undefined when the session has the most devices
   * it may have).
   */
  private deviceFor(first: SessionInfo, s: SessionInfo, receivedAt: string): number | undefined {
    if (sameDevice(first, s)) return 0;
    const devices = this.statements.devices.all(s.session_id);
    const known = devices.find((d) => sameDevice(d, s));
    if (known) return known.device;
    if (devices.length + 1 >= MAX_DEVICES_PER_SESSION) return undefined;
    const device = devices.length + 1;
    this.statements.insertDevice.run({
      session_id: s.session_id,
      device,
      user_agent: s.user_agent,
      screen: s.screen,
      started_at: s.started_at,
      received_at: receivedAt,
    });
    return device;
  }

  /** The later devices of a session (after the first, which is its `sessions` record). */
  devices(sessionId: string): DeviceRecord[] {
    return this.statements.devices.all(sessionId);
  }

  studies(): StudySummary[] {
    const rows = this.db
      .prepare<
        [],
        { study_id: string; token: string; definition: string; registered_at: string; sessions: number; rows: number }
      >(
        `SELECT st.study_id, st.token, st.definition, st.registered_at,
           (SELECT COUNT(*) FROM (SELECT session_id FROM sessions WHERE study_id = st.study_id
                                  UNION SELECT session_id FROM trials WHERE study_id = st.study_id)) AS sessions,
           (SELECT COUNT(*) FROM trials WHERE study_id = st.study_id) AS rows
         FROM studies st ORDER BY st.study_id`,
      )
      .all();
    return rows.map(({ definition, ...r }) => ({
      ...r,
      conditions: (JSON.parse(definition) as StudyDefinition).conditions.map((c) => c.id),
    }));
  }

  /** Every session (of one study, or all), with how far it got. */
  sessions(studyId?: string): SessionSummary[] {
    const where = studyId === undefined ? '' : 'WHERE ids.study_id = @studyId';
    return this.db
      .prepare<{ studyId?: string }, SessionSummary>(
        `WITH ids AS (SELECT session_id, study_id FROM sessions UNION SELECT session_id, study_id FROM trials)
         SELECT ids.session_id, ids.study_id,
           COALESCE(s.participant_id, MIN(r.participant_id), '') AS participant_id,
           COALESCE(s.condition, MIN(r.condition), '') AS condition,
           COUNT(r.trial_index) AS rows,
           COALESCE(SUM(r.phase = 'main'), 0) AS main_rows,
           COALESCE(s.started_at, MIN(r.started_at), '') AS started_at,
           COALESCE(MAX(r.answered_at), '') AS last_answered_at,
           COALESCE(MAX(r.received_at), s.received_at, '') AS last_received_at
         FROM ids LEFT JOIN sessions s ON s.session_id = ids.session_id
                  LEFT JOIN trials r ON r.session_id = ids.session_id
         ${where}
         GROUP BY ids.session_id ORDER BY ids.session_id`,
      )
      .all(studyId === undefined ? {} : { studyId });
  }

  /** The rows (of one study, or all), sorted as the exports are: by session, then trial. */
  rows(studyId?: string): ResultRow[] {
    const sql = `SELECT ${RESULT_COLUMNS.join(', ')} FROM trials${studyId === undefined ? '' : ' WHERE study_id = ?'}`;
    const stmt = this.db.prepare<unknown[], SqlRow>(sql);
    return sortRows((studyId === undefined ? stmt.all() : stmt.all(studyId)).map(fromSql));
  }

  /** The sessions' facts (of one study, or all), for the export's user_agent and screen columns. */
  sessionInfos(studyId?: string): SessionInfo[] {
    const sql = `SELECT ${SESSION_FIELDS.join(', ')} FROM sessions${studyId === undefined ? '' : ' WHERE study_id = ?'} ORDER BY session_id`;
    const stmt = this.db.prepare<unknown[], SessionInfo>(sql);
    return studyId === undefined ? stmt.all() : stmt.all(studyId);
  }

  /** Is this a registered study? */
  hasStudy(studyId: string): boolean {
    return this.statements.study.get(studyId) !== undefined;
  }
}
