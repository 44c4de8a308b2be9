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
import { encodeStudyLink, decodeStudyLink } from '../src/study/definition/link';
import { checkStudyDefinition, type StudyDefinition } from '../src/study/definition/definition';
import { readParticipantParams } from '../src/study/delivery/route';
import { RESULT_COLUMNS, sortRows, type ResultRow, type SessionInfo } from '../src/study/results/results';
import { NO_ESTIMATE } from '../src/study/results/resultFields';
import { kindSpec, type EarlierRow } from '../src/study/kinds';
import { MAX_DEVICES_PER_SESSION, sameDevice, sameSessionFacts } from '../src/study/delivery/sessionModel';
import { AccessTables } from './db/accessTables';
import { databaseBytes, fileOf, openConnection, openReadOnly, StoreError, type Connection } from './db/connection';
import { LimitBucketTable } from './db/limitBuckets';
import { ResultTables, type DeviceRecord, type SessionSummary } from './db/resultTables';
import { ReviewTables } from './db/reviewTables';
import { Snapshot } from './db/snapshot';
import { sessionRows } from './rowChecks';
import type { IngestBody } from './schema';
import { StudyRegistry } from './studyRegistry';

export { MIGRATIONS, SCHEMA_VERSION } from './db/migrations';
export { SESSION_FIELDS, type SessionSummary } from './db/resultTables';
export { StoreError };

export const DATABASE_FILE = 'results.sqlite';

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

const sameRow = (a: ResultRow, b: ResultRow) => RESULT_COLUMNS.every((c) => a[c] === b[c]);

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
  private readonly tables: ResultTables;
  /** The registered studies' definitions, read once (studyRegistry.ts): the one the whole server asks. */
  readonly registry: StudyRegistry;
  private accessTablesMade?: AccessTables;
  private reviewTablesMade?: ReviewTables;

  private constructor(private readonly db: Connection) {
    this.tables = new ResultTables(db);
    this.registry = new StudyRegistry(this.tables);
  }

  /**
   * Opens (creating if need be) the database at `file`, in WAL mode with full sync, and brings
   * its schema up to date (db/connection.ts). `readonly` opens an existing file without changing it.
   */
  static open(file: string, options: { readonly?: boolean; mustExist?: boolean } = {}): ResultStore {
    return new ResultStore(openConnection(file, options));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /** For tests only (pragmas, schema downgrades, hand edits): the connection itself. Server code uses the methods. */
  handleForTests(): Connection {
    return this.db;
  }

  /** The database file, or null for an in-memory database. */
  get file(): string | null {
    return fileOf(this.db);
  }

  /** The database's size: its pages and its `-wal` file (the storage budget's measure). */
  bytes(): number {
    return databaseBytes(this.db);
  }

  /** Runs `fn` in one write transaction (a savepoint inside another), all or nothing. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** The issued sessions' tables (sessions.ts, studySwitches.ts); prepared at first use. */
  accessTables(): AccessTables {
    return (this.accessTablesMade ??= new AccessTables(this.db));
  }

  /** The review queue's tables (reviewQueue.ts); prepared at first use. */
  reviewTables(): ReviewTables {
    return (this.reviewTablesMade ??= new ReviewTables(this.db));
  }

  /** The saved buckets of the per-client limits (limits.ts). */
  limitBuckets(): LimitBucketTable {
    return new LimitBucketTable(this.db);
  }

  /**
   * One snapshot of the database for an export: a second, read-only connection (the store's own
   * for an in-memory database), inside one read transaction.
   */
  snapshot(): Snapshot {
    const own = openReadOnly(this.db);
    return own === null ? new Snapshot(this.db, false) : new Snapshot(own, true);
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
    return this.transaction((): RegisterOutcome => {
      const old = this.tables.study(record.study_id);
      if (!old) {
        this.tables.insertStudy(record);
        return { studyId: record.study_id, token, outcome: 'added' };
      }
      if (old.token === token) return { studyId: record.study_id, token, outcome: 'unchanged' };
      if (this.tables.studyHasData(record.study_id)) {
        throw new StoreError(
          `the study id "${record.study_id}" is registered with another definition and already has results; give the changed study another id`,
        );
      }
      this.tables.replaceStudy(record);
      return { studyId: record.study_id, token, outcome: 'replaced' };
    });
  }

  /** The condition ids of a registered study, or undefined when it is not registered. */
  private conditionsOf(studyId: string): ReadonlySet<string> | undefined {
    return this.registry.get(studyId)?.conditions;
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
    return this.transaction(() =>
      bodies.map((body) => {
        try {
          return this.ingestOne(body, receivedAt);
        } catch (e) {
          if (e instanceof Abort) return e.outcome;
          throw e;
        }
      }),
    );
  }

  /** One request, as a nested transaction (a savepoint): an Abort undoes exactly this request. */
  private ingestOne(body: IngestBody, receivedAt: string): IngestOutcome {
    this.ingestOneTx ??= this.db.transaction((b: IngestBody, at: string) => this.ingestChecked(b, at));
    return this.ingestOneTx(body, receivedAt);
  }

  private ingestOneTx?: (body: IngestBody, receivedAt: string) => IngestOutcome;

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
      const old = this.tables.session(s.session_id);
      const studyOfRows = this.tables.sessionStudyFromRows(s.session_id);
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
      } else if (!old) this.tables.insertSession(s, receivedAt);
    });
    let added = 0;
    let unchanged = 0;
    this.withEstimates(body.rows).forEach((row, i) => {
      check(`rows.${i}`, row);
      const sessionStudy =
        this.tables.session(row.session_id)?.study_id ?? this.tables.sessionStudyFromRows(row.session_id);
      const old = this.tables.row(row.session_id, row.trial_index);
      if (sessionStudy !== undefined && sessionStudy !== row.study_id) {
        conflicts.push({
          kind: 'row',
          study_id: row.study_id,
          session_id: row.session_id,
          trial_index: row.trial_index,
          reason: `the session belongs to study "${sessionStudy}"`,
        });
      } else if (!old) {
        this.tables.insertRow(row, receivedAt, deviceOf.get(row.session_id) ?? 0);
        added++;
      } else if (sameRow(old, row)) unchanged++;
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
   * The rows with the server's own estimate columns, whatever the page sent in them: an adaptive
   * study's main row gets the estimate after its answer over the session's stored rows and the
   * request's (the kind's `follows.estimate`, the function the page ran); every other row gets
   * none. So a tampered estimate is overwritten, never stored, and a row sent again with the page's
   * own (equal) values is `unchanged`.
   */
  private withEstimates(rows: readonly ResultRow[]): ResultRow[] {
    const defs = new Map<string, StudyDefinition | undefined>();
    const sessions = new Map<string, EarlierRow[]>();
    const sent = new Map<string, ResultRow[]>();
    for (const r of rows) {
      const list = sent.get(r.session_id);
      if (list) list.push(r);
      else sent.set(r.session_id, [r]);
    }
    return rows.map((row) => {
      if (!defs.has(row.study_id)) defs.set(row.study_id, this.registry.get(row.study_id)?.def);
      const def = defs.get(row.study_id);
      const follows = def && kindSpec(def.kind).follows;
      if (!def || !follows) return { ...row, ...NO_ESTIMATE };
      let session = sessions.get(row.session_id);
      if (!session) {
        session = sessionRows(this.accessTables().history(row.session_id), sent.get(row.session_id)!);
        sessions.set(row.session_id, session);
      }
      return { ...row, ...follows.estimate(def, row, session) };
    });
  }

  /**
   * The device of a session record whose fixed facts match the stored session: an existing one
   * with the same device facts, else a new one (undefined when the session has the most devices
   * it may have).
   */
  private deviceFor(first: SessionInfo, s: SessionInfo, receivedAt: string): number | undefined {
    if (sameDevice(first, s)) return 0;
    const devices = this.tables.devices(s.session_id);
    const known = devices.find((d) => sameDevice(d, s));
    if (known) return known.device;
    if (devices.length + 1 >= MAX_DEVICES_PER_SESSION) return undefined;
    const device = devices.length + 1;
    this.tables.insertDevice({
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
    return this.tables.devices(sessionId);
  }

  studies(): StudySummary[] {
    return this.tables.studies().map(({ definition, ...r }) => ({
      ...r,
      conditions: this.registry.read(r.study_id, { token: r.token, definition }).def.conditions.map((c) => c.id),
    }));
  }

  /** Every session (of one study, or all), with how far it got. */
  sessions(studyId?: string): SessionSummary[] {
    return this.tables.sessions(studyId);
  }

  /** The rows (of one study, or all), sorted as the exports are: by session, then trial. */
  rows(studyId?: string): ResultRow[] {
    return sortRows(this.tables.rows(studyId));
  }

  /** The sessions' facts (of one study, or all), for the export's user_agent and screen columns. */
  sessionInfos(studyId?: string): SessionInfo[] {
    return this.tables.sessionInfos(studyId);
  }

  /** Is this a registered study? */
  hasStudy(studyId: string): boolean {
    return this.tables.study(studyId) !== undefined;
  }
}
