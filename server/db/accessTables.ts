/**
 * The SQL of issued sessions and the per-study switches (`study_access`, `issued_sessions`,
 * `free_participants`, `server_meta`), as typed methods for sessions.ts and studySwitches.ts.
 */
import type { EarlierRow } from '../../src/study/kinds';
import type { IssuedRow, SessionMode } from '../sessionRecords';
import type { Connection } from './connection';

/** A stored row's place, k and outcome (SQLite keeps booleans as 0 and 1). */
type StoredHistoryRow = Omit<EarlierRow, 'correct'> & { readonly correct: number };

/** A study's switches as stored (absent for a study registered without one). */
export interface AccessRow {
  readonly sessions: SessionMode;
  readonly closed: number;
  readonly max_sessions: number | null;
  readonly next_participant: number;
}

export class AccessTables {
  private readonly q;

  constructor(db: Connection) {
    this.q = {
      addressKey: db.prepare<[], string>("SELECT value FROM server_meta WHERE name = 'address_key'").pluck(),
      access: db.prepare<[string], AccessRow>(
        'SELECT sessions, closed, max_sessions, next_participant FROM study_access WHERE study_id = ?',
      ),
      ensureAccess: db.prepare<[string, string]>(
        'INSERT INTO study_access (study_id, sessions) VALUES (?, ?) ON CONFLICT (study_id) DO NOTHING',
      ),
      setAccess: db.prepare(
        `UPDATE study_access SET sessions = @sessions, closed = @closed, max_sessions = @max_sessions,
           next_participant = @next_participant WHERE study_id = @study_id`,
      ),
      issuedCount: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM issued_sessions WHERE study_id = ?'),
      holdingCount: db.prepare<[string], { n: number }>(
        'SELECT COUNT(*) AS n FROM issued_sessions WHERE study_id = ? AND released_at IS NULL',
      ),
      byCode: db.prepare<[string, string], IssuedRow>(
        'SELECT * FROM issued_sessions WHERE study_id = ? AND resume_code = ?',
      ),
      setCode: db.prepare<[string, string]>('UPDATE issued_sessions SET resume_code = ? WHERE session_id = ?'),
      fromAddress: db.prepare<[string, string, string], { n: number; first: string | null }>(
        'SELECT COUNT(*) AS n, MIN(issued_at) AS first FROM issued_sessions WHERE study_id = ? AND address = ? AND issued_at > ?',
      ),
      releaseIdle: db.prepare<
        { study_id: string; now: string; cutoff: string },
        { session_id: string; participant: number; from_counter: number }
      >(
        `UPDATE issued_sessions SET released_at = @now
         WHERE study_id = @study_id AND released_at IS NULL AND issued_at < @cutoff
           AND NOT EXISTS (SELECT 1 FROM trials t WHERE t.session_id = issued_sessions.session_id)
         RETURNING session_id, participant, from_counter`,
      ),
      freeUp: db.prepare<[string, number, string]>(
        'INSERT OR IGNORE INTO free_participants (study_id, participant, released_from) VALUES (?, ?, ?)',
      ),
      freeParticipant: db
        .prepare<[string], number>(
          'SELECT participant FROM free_participants WHERE study_id = ? ORDER BY participant LIMIT 1',
        )
        .pluck(),
      takeFree: db.prepare<[string, number]>('DELETE FROM free_participants WHERE study_id = ? AND participant = ?'),
      unrelease: db.prepare<[string]>('UPDATE issued_sessions SET released_at = NULL WHERE session_id = ?'),
      issued: db.prepare<[string], IssuedRow>('SELECT * FROM issued_sessions WHERE session_id = ?'),
      answered: db
        .prepare<[string], number>('SELECT trial_index FROM trials WHERE session_id = ? ORDER BY trial_index')
        .pluck(),
      history: db.prepare<[string], StoredHistoryRow>(
        'SELECT trial_index, phase, k, correct, ended_on FROM trials WHERE session_id = ? ORDER BY trial_index',
      ),
      mainHistory: db.prepare<[string, number], StoredHistoryRow>(
        `SELECT trial_index, phase, k, correct, ended_on FROM trials WHERE session_id = ? AND phase = 'main'
         ORDER BY trial_index LIMIT ?`,
      ),
      issuedFor: db.prepare<[string, string], IssuedRow>(
        'SELECT * FROM issued_sessions WHERE study_id = ? AND participant_id = ?',
      ),
      insertIssued: db.prepare(
        `INSERT INTO issued_sessions (session_id, study_id, secret, participant, condition, participant_id,
           prolific_study_id, prolific_session_id, issued_at, resume_code, address, from_counter, released_at)
         VALUES (@session_id, @study_id, @secret, @participant, @condition, @participant_id,
           @prolific_study_id, @prolific_session_id, @issued_at, @resume_code, @address, @from_counter, @released_at)`,
      ),
      knownSession: db.prepare<[string, string, string]>(
        `SELECT 1 FROM sessions WHERE session_id = ? UNION ALL SELECT 1 FROM trials WHERE session_id = ?
         UNION ALL SELECT 1 FROM issued_sessions WHERE session_id = ? LIMIT 1`,
      ),
      browserSessionCount: db.prepare<[string, string], { n: number }>(
        `SELECT COUNT(*) AS n FROM (SELECT session_id FROM sessions WHERE study_id = ?
           UNION SELECT session_id FROM trials WHERE study_id = ?)`,
      ),
    };
  }

  /** The key client addresses are hashed with (this database's own, made by its schema step 4). */
  addressKey(): string {
    return this.q.addressKey.get()!;
  }

  access(studyId: string): AccessRow | undefined {
    return this.q.access.get(studyId);
  }

  /** Gives a study its switches' row, in `mode`, unless it has one. */
  ensureAccess(studyId: string, mode: SessionMode): void {
    this.q.ensureAccess.run(studyId, mode);
  }

  setAccess(row: AccessRow & { study_id: string }): void {
    this.q.setAccess.run(row);
  }

  issuedCount(studyId: string): number {
    return this.q.issuedCount.get(studyId)!.n;
  }

  /** Issued sessions holding a place (not released). */
  holdingCount(studyId: string): number {
    return this.q.holdingCount.get(studyId)!.n;
  }

  byCode(studyId: string, code: string): IssuedRow | undefined {
    return this.q.byCode.get(studyId, code);
  }

  setCode(sessionId: string, code: string): void {
    this.q.setCode.run(code, sessionId);
  }

  /** Sessions issued to an address (its keyed hash) since `since`, and the first of them. */
  fromAddress(studyId: string, address: string, since: string): { n: number; first: string | null } {
    return this.q.fromAddress.get(studyId, address, since)!;
  }

  /** Marks the study's sessions issued before `cutoff` with no row as released at `now`; those it marked. */
  releaseIdle(
    studyId: string,
    now: string,
    cutoff: string,
  ): { session_id: string; participant: number; from_counter: number }[] {
    return this.q.releaseIdle.all({ study_id: studyId, now, cutoff });
  }

  /** Offers a released participant number to the next session. */
  freeUp(studyId: string, participant: number, releasedFrom: string): void {
    this.q.freeUp.run(studyId, participant, releasedFrom);
  }

  /** The lowest participant number given back, or undefined. */
  freeParticipant(studyId: string): number | undefined {
    return this.q.freeParticipant.get(studyId);
  }

  /** Takes a given-back number; false when it was not (or no longer) free. */
  takeFree(studyId: string, participant: number): boolean {
    return this.q.takeFree.run(studyId, participant).changes > 0;
  }

  unrelease(sessionId: string): void {
    this.q.unrelease.run(sessionId);
  }

  issued(sessionId: string): IssuedRow | undefined {
    return this.q.issued.get(sessionId);
  }

  /** A session's stored rows as an adaptive study's next item depends on them, in trial order. */
  history(sessionId: string): EarlierRow[] {
    return this.q.history.all(sessionId).map((r) => ({ ...r, correct: r.correct === 1 }));
  }

  /** A session's first `limit` stored main rows, as an adaptive study's next item depends on them, in trial order. */
  mainHistory(sessionId: string, limit: number): EarlierRow[] {
    return this.q.mainHistory.all(sessionId, limit).map((r) => ({ ...r, correct: r.correct === 1 }));
  }

  /** The trial indices a session has stored, in order. */
  answered(sessionId: string): number[] {
    return this.q.answered.all(sessionId);
  }

  issuedFor(studyId: string, participantId: string): IssuedRow | undefined {
    return this.q.issuedFor.get(studyId, participantId);
  }

  insertIssued(row: IssuedRow): void {
    this.q.insertIssued.run(row);
  }

  /** Has this session id any record here (session, row or issued)? */
  knownSession(sessionId: string): boolean {
    return this.q.knownSession.get(sessionId, sessionId, sessionId) !== undefined;
  }

  /** Sessions of a study made by browsers (ids from sessions and rows). */
  browserSessionCount(studyId: string): number {
    return this.q.browserSessionCount.get(studyId, studyId)!.n;
  }
}
