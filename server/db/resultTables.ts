/**
 * The SQL of the registered studies, the sessions' facts, their later devices and the rows
 * (`studies`, `sessions`, `session_devices`, `trials`): what ResultStore reads and writes, as
 * typed methods. Rows go in and out as ResultRow (SQLite has no booleans: 0/1 here).
 */
import { storedAs, type StoredAs } from '../../src/study/results/resultFields';
import { RESULT_COLUMNS, type ResultRow, type SessionInfo } from '../../src/study/results/results';
import type { Connection } from './connection';

/** How a result column is stored, from its kind in src/study/results/resultFields.ts. */
const ROW_COLUMNS = Object.fromEntries(RESULT_COLUMNS.map((c) => [c, storedAs(c)])) as Record<
  keyof ResultRow,
  StoredAs
>;

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

/** A registered study as stored: its canonical link token and its definition's JSON text. */
export interface StoredStudy {
  readonly token: string;
  readonly definition: string;
}

export interface StudyRecord extends StoredStudy {
  readonly study_id: string;
  readonly registered_at: string;
}

/** A device of a session as stored: 0 is the session's first (the `sessions` table), then 1, 2, … */
export interface DeviceRecord {
  readonly device: number;
  readonly user_agent: string;
  readonly screen: string;
  readonly started_at: string;
}

/** A registered study with how many sessions and rows it has. */
export interface StudyCounts extends StudyRecord {
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

export class ResultTables {
  private readonly s;

  constructor(private readonly db: Connection) {
    this.s = {
      study: db.prepare<[string], StoredStudy>('SELECT token, definition FROM studies WHERE study_id = ?'),
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

  /** A registered study's token and definition text, or undefined. */
  study(studyId: string): StoredStudy | undefined {
    return this.s.study.get(studyId);
  }

  insertStudy(record: StudyRecord): void {
    this.s.insertStudy.run(record);
  }

  replaceStudy(record: StudyRecord): void {
    this.s.replaceStudy.run(record);
  }

  /** Has anything been recorded for the study (a session or a row)? */
  studyHasData(studyId: string): boolean {
    return this.s.studyHasData.get(studyId, studyId) !== undefined;
  }

  session(sessionId: string): SessionInfo | undefined {
    return this.s.session.get(sessionId);
  }

  insertSession(s: SessionInfo, receivedAt: string): void {
    this.s.insertSession.run({ ...s, received_at: receivedAt });
  }

  /** The study of a session's stored rows (a session may have rows and no `sessions` record). */
  sessionStudyFromRows(sessionId: string): string | undefined {
    return this.s.sessionStudyFromRows.get(sessionId)?.study_id;
  }

  row(sessionId: string, trialIndex: number): ResultRow | undefined {
    const r = this.s.row.get(sessionId, trialIndex);
    return r && fromSql(r);
  }

  insertRow(row: ResultRow, receivedAt: string, device: number): void {
    this.s.insertRow.run({ ...toSql(row), received_at: receivedAt, device });
  }

  devices(sessionId: string): DeviceRecord[] {
    return this.s.devices.all(sessionId);
  }

  insertDevice(d: DeviceRecord & { session_id: string; received_at: string }): void {
    this.s.insertDevice.run(d);
  }

  /** Every registered study with its counts, by id. */
  studies(): StudyCounts[] {
    return this.db
      .prepare<[], StudyCounts>(
        `SELECT st.study_id, st.token, st.definition, st.registered_at,
           (SELECT COUNT(*) FROM (SELECT session_id FROM sessions WHERE study_id = st.study_id
                                  UNION SELECT session_id FROM trials WHERE study_id = st.study_id)) AS sessions,
           (SELECT COUNT(*) FROM trials WHERE study_id = st.study_id) AS rows
         FROM studies st ORDER BY st.study_id`,
      )
      .all();
  }

  /** The definitions' text as registered (one study, or all), by id. */
  definitions(studyId?: string): string[] {
    return this.db
      .prepare<{ studyId?: string }, string>(
        `SELECT definition FROM studies${studyId === undefined ? '' : ' WHERE study_id = @studyId'} ORDER BY study_id`,
      )
      .pluck()
      .all(studyId === undefined ? {} : { studyId });
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

  /** The rows (of one study, or all), in the table's order. */
  rows(studyId?: string): ResultRow[] {
    const sql = `SELECT ${RESULT_COLUMNS.join(', ')} FROM trials${studyId === undefined ? '' : ' WHERE study_id = ?'}`;
    const stmt = this.db.prepare<unknown[], SqlRow>(sql);
    return (studyId === undefined ? stmt.all() : stmt.all(studyId)).map(fromSql);
  }

  /** The sessions' facts (of one study, or all), by session id. */
  sessionInfos(studyId?: string): SessionInfo[] {
    const sql = `SELECT ${SESSION_FIELDS.join(', ')} FROM sessions${studyId === undefined ? '' : ' WHERE study_id = ?'} ORDER BY session_id`;
    const stmt = this.db.prepare<unknown[], SessionInfo>(sql);
    return studyId === undefined ? stmt.all() : stmt.all(studyId);
  }
}
