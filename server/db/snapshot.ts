/**
 * One snapshot of the results database for an export (export.ts, psychDs.ts): a read
 * transaction on its own read-only connection, so the export sees one state of the database
 * while the server's connection keeps committing (WAL), and the cursors below do not tie up the
 * server's connection (a better-sqlite3 connection runs nothing else while an iterator is open).
 */
import { RESULT_COLUMNS, type SessionInfo } from '../../src/study/results/results';
import type { Connection } from './connection';
import { SESSION_FIELDS } from './resultTables';

export type SqlValue = string | number | null;

export class Snapshot {
  private closed = false;

  /** `own`: the connection is the snapshot's, closed with it (not the store's, for an in-memory database). */
  constructor(
    private readonly db: Connection,
    private readonly own: boolean,
  ) {
    db.exec('BEGIN');
    // The snapshot starts at the first read, not at BEGIN: read now so every later query sees it.
    db.prepare('SELECT COUNT(*) FROM studies').get();
  }

  /** Sessions as `results.ts`' sessions listing counts them: ids from sessions and from rows. */
  sessionCount(studyId?: string): number {
    const where = studyId === undefined ? '' : ' WHERE study_id = @studyId';
    const r = this.db
      .prepare<{ studyId?: string }, { n: number }>(
        `SELECT COUNT(*) AS n FROM (SELECT session_id FROM sessions${where} UNION SELECT session_id FROM trials${where})`,
      )
      .get(studyId === undefined ? {} : { studyId });
    return r?.n ?? 0;
  }

  /**
   * Rows by session, then trial (the primary key's order), as stored (booleans 0/1). With
   * `withSession`, each also has the user agent and screen of the device that sent it
   * (`s_user_agent`, `s_screen`) and whether its session was found (`s_found`).
   */
  rowCursor(studyId: string | undefined, withSession: boolean): IterableIterator<Record<string, SqlValue>> {
    const columns = RESULT_COLUMNS.map((c) => `t.${c}`);
    // Each row's browser and screen are those of the device that sent it (sessionModel.ts): the
    // session's first device, or a later one from session_devices.
    const session = withSession
      ? `, COALESCE(d.user_agent, s.user_agent) AS s_user_agent, COALESCE(d.screen, s.screen) AS s_screen,
         s.session_id IS NOT NULL AS s_found`
      : '';
    // The CSV takes user agent and screen from the sessions of the exported study only (as rowsToCsv's map does).
    const join = withSession
      ? ` LEFT JOIN sessions s ON s.session_id = t.session_id${studyId === undefined ? '' : ' AND s.study_id = @studyId'}
          LEFT JOIN session_devices d ON t.device > 0 AND d.session_id = s.session_id AND d.device = t.device`
      : '';
    const where = studyId === undefined ? '' : ' WHERE t.study_id = @studyId';
    return this.db
      .prepare<{ studyId?: string }, Record<string, SqlValue>>(
        `SELECT ${columns.join(', ')}${session} FROM trials t${join}${where} ORDER BY t.session_id, t.trial_index`,
      )
      .iterate(studyId === undefined ? {} : { studyId });
  }

  /** The sessions' facts (of one study, or all), by session id. */
  sessionCursor(studyId: string | undefined): IterableIterator<SessionInfo> {
    const where = studyId === undefined ? '' : ' WHERE study_id = @studyId';
    return this.db
      .prepare<{ studyId?: string }, SessionInfo>(
        `SELECT ${SESSION_FIELDS.join(', ')} FROM sessions${where} ORDER BY session_id`,
      )
      .iterate(studyId === undefined ? {} : { studyId });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.db.inTransaction) this.db.exec('COMMIT');
    if (this.own) this.db.close();
  }
}
