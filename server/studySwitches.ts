/**
 * The per-study switches that go with issued sessions: whether a study accepts only issued
 * sessions, closed or open, its quota, and its participant counter; and registering a study
 * with its session mode.
 *
 * Compatibility: a study is `issued` (rows only of sessions issued here) or `browser` (also
 * session ids the browser made, as links did before sessions were issued); studies registered
 * before that schema step are `browser`; a new registration takes the mode it is given, else
 * NEW_STUDY_SESSIONS; `study open --issued-only` switches a study.
 */
import type { AccessTables } from './db/accessTables';
import { collectSettings, liveReviewProblem } from './reviewQueue';
import { SESSION_MODES, type AccessState, type SessionMode } from './sessionRecords';
import { StoreError, type RegisterOutcome, type ResultStore } from './store';

export class StudySwitches {
  private readonly tables: AccessTables;

  constructor(
    private readonly store: ResultStore,
    /** The mode of a study registered without one (NEW_STUDY_SESSIONS). */
    private readonly newMode: SessionMode,
  ) {
    this.tables = store.accessTables();
  }

  /** The switches and counts of a registered study, or undefined. */
  state(studyId: string): AccessState | undefined {
    if (this.store.registry.token(studyId) === undefined) return undefined;
    const a = this.tables.access(studyId);
    return {
      study_id: studyId,
      sessions: a?.sessions ?? this.newMode,
      closed: a?.closed === 1,
      max_sessions: a?.max_sessions ?? null,
      issued: this.tables.issuedCount(studyId),
      holding: this.tables.holdingCount(studyId),
      next_participant: a?.next_participant ?? 0,
    };
  }

  /**
   * Registers a study (as ResultStore.registerStudy) and records its session mode: `mode` when
   * given, else the mode it already has, else the default for new studies. A study with issued
   * sessions is not replaced by another definition (their schedules would change).
   */
  register(input: { token: string } | { definition: unknown }, mode?: SessionMode): RegisterOutcome & AccessState {
    return this.store.transaction(() => {
      const r = this.store.registerStudy(input);
      if (r.outcome === 'replaced' && this.tables.issuedCount(r.studyId) > 0) {
        throw new StoreError(
          `the study id "${r.studyId}" is registered with another definition and already has issued sessions; give the changed study another id`,
        );
      }
      // A live review study's stories come from a paraphrase study on this server: said now, to
      // the researcher, rather than to each reviewer later.
      const definition = (id: string) => this.store.registry.get(id)?.def;
      const live = liveReviewProblem(r.studyId, collectSettings(definition(r.studyId)!), definition);
      if (live?.reason === 'no-source') {
        throw new StoreError(
          `${live.message.replace(/; the researcher must register it here$/, '')}: register it first`,
        );
      }
      this.tables.ensureAccess(r.studyId, mode ?? this.newMode);
      if (mode !== undefined) this.update(r.studyId, { sessions: mode });
      return { ...r, ...this.state(r.studyId)! };
    });
  }

  /** Closes or opens a study, sets its quota (null: none) or its session mode. Throws StoreError for an unknown study. */
  update(
    studyId: string,
    change: { closed?: boolean; maxSessions?: number | null; sessions?: SessionMode },
  ): AccessState {
    return this.store.transaction(() => {
      const old = this.state(studyId);
      if (!old) throw new StoreError(`no study "${studyId}" is registered here`);
      this.tables.ensureAccess(studyId, old.sessions);
      this.tables.setAccess({
        study_id: studyId,
        sessions: change.sessions ?? old.sessions,
        closed: (change.closed ?? old.closed) ? 1 : 0,
        max_sessions: change.maxSessions === undefined ? old.max_sessions : change.maxSessions,
        next_participant: old.next_participant,
      });
      return this.state(studyId)!;
    });
  }
}

/**
 * The session mode a registration asks for (`"sessions"` in `POST api/studies`), or undefined
 * for none; a StoreError for anything else.
 */
export function sessionModeOf(body: unknown): SessionMode | undefined {
  const mode = typeof body === 'object' && body !== null ? (body as { sessions?: unknown }).sessions : undefined;
  if (mode === undefined) return undefined;
  if (SESSION_MODES.includes(mode as SessionMode)) return mode as SessionMode;
  throw new StoreError('"sessions" must be "issued" (rows only of sessions this server issued) or "browser"');
}
