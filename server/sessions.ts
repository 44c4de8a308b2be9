/**
 * Sessions the server issues, and the per-study switches that go with them: whether a study
 * accepts only issued sessions, closed or open, its quota.
 *
 * A participant's page asks for a session after consent (`POST api/sessions`, the request and
 * answer shapes in src/study/delivery/serverSession.ts). The server answers with a random session id, a
 * random secret the session's rows must carry, a resume code, and the participant number from a
 * counter per study (or a number an idle session gave back): `scheduleParticipant` turns
 * consecutive numbers into balanced blocks of (conditions × lists) cells, so every block of that
 * many participants fills every cell once. Resuming needs the resume code or the same Prolific
 * PID and SESSION_ID; the server, not the page, chooses condition and number.
 *
 * What a request's rows must be before they are stored is ingestChecks.ts's; the records shared
 * by both are sessionRecords.ts's. Compatibility: a study is `issued` (rows only of sessions issued
 * here) or `browser` (also session ids the browser made, as links did before sessions were
 * issued); studies registered before that schema step are `browser`; a new registration takes
 * the mode it is given, else NEW_STUDY_SESSIONS; `study open --issued-only` switches a study.
 */
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { z } from 'zod';
import { withDefaults, type StudyDefinition } from '../src/study/definition/definition';
import { decodeStudyLink, encodeStudyLink } from '../src/study/definition/link';
import { ONLINE_SESSIONS_PER_ADDRESS } from '../src/study/definition/studyOptions';
import {
  MAX_ID_LENGTH,
  normalResumeCode,
  RESUME_CODE_ALPHABET,
  RESUME_CODE_LENGTH,
  type SessionGrant,
  type StudyLinkAnswer,
} from '../src/study/delivery/serverSession';
import { IngestChecks } from './ingestChecks';
import { collectSettings, liveReviewProblem, ReviewQueue, type ItemsOutcome, type QueueRefusal } from './reviewQueue';
import { controlCharacterField, type IngestBody } from './schema';
import {
  CLOSED_MESSAGE,
  FULL_MESSAGE,
  NEEDS_CODE_MESSAGE,
  NEW_STUDY_SESSIONS,
  OTHER_SUBMISSION_MESSAGE,
  sameSecret,
  SESSION_MODES,
  WRONG_CODE_MESSAGE,
  type AccessState,
  type IssuedRow,
  type IssueOutcome,
  type Refusal,
  type SessionMode,
} from './sessionRecords';
import { StoreError, tokenFrom, type RegisterOutcome, type ResultStore } from './store';

export {
  CLOSED_MESSAGE,
  FULL_MESSAGE,
  NEEDS_CODE_MESSAGE,
  NEW_STUDY_SESSIONS,
  OTHER_SUBMISSION_MESSAGE,
  SESSION_MODES,
  WRONG_CODE_MESSAGE,
  type AccessState,
  type IssueOutcome,
  type Refusal,
  type SessionMode,
};

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const idText = z.string().max(MAX_ID_LENGTH);

const sessionRequestSchema = z.strictObject({
  study_id: z.string().regex(ID, 'not a study id').optional(),
  token: z.string().max(70_000).optional(),
  participant_id: idText.optional(),
  prolific_study_id: idText.optional(),
  prolific_session_id: idText.optional(),
  participant: z.number().int().min(0).max(999_999_999).optional(),
  condition: z.string().max(64).optional(),
  resume_code: z.string().max(40).optional(),
});

/** What the HTTP layer knows of a session request besides its body. */
export interface IssueContext {
  /**
   * The rate limits asked before a new session is made (not for a resumed one); `room`: the study
   * is taken in a room, where one address is many participants (its own limit per address applies).
   */
  readonly gate?: (studyId: string, room: boolean) => Refusal | undefined;
  /** The request carries the researcher's token: the link's condition and participant number are honoured. */
  readonly researcher?: boolean;
  /** The client's address (limits.ts clientAddress), for the per-address limit of new sessions. */
  readonly address?: string;
  /** Asked after a wrong resume code: a refusal (429) once an address has guessed too often. */
  readonly wrongCode?: () => Refusal | undefined;
}

const base64url = (bytes: Buffer) => bytes.toString('base64url');

export interface StudyAccessOptions {
  /** The mode of a study registered without one (NEW_STUDY_SESSIONS). */
  readonly newStudySessions?: SessionMode;
  readonly random?: (n: number) => Buffer;
  readonly now?: () => Date;
}

/** The session id must look like one this server issues (or a browser makes) before the database is asked. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,200}$/;

export class StudyAccess {
  private readonly q;
  private readonly defs = new Map<string, { token: string; def: StudyDefinition }>();
  private readonly newMode: SessionMode;
  private readonly random: (n: number) => Buffer;
  private readonly now: () => Date;
  /** The live review queue of review studies (reviewQueue.ts). */
  readonly reviews: ReviewQueue;
  /** The key client addresses are hashed with (this database's own, made by its schema step 4). */
  private readonly addressSecret: string;
  /** When each study's idle sessions were last released (ms), so a launch does not rescan every request. */
  private readonly lastRelease = new Map<string, number>();
  /** The checks of participants' requests before they are stored (ingestChecks.ts). */
  private readonly checks: IngestChecks;

  constructor(
    readonly store: ResultStore,
    options: StudyAccessOptions = {},
  ) {
    const db = store.db;
    this.newMode = options.newStudySessions ?? NEW_STUDY_SESSIONS;
    this.random = options.random ?? randomBytes;
    this.now = options.now ?? (() => new Date());
    this.reviews = new ReviewQueue(store, (id) => this.definition(id)?.def, { now: this.now });
    this.checks = new IngestChecks({
      definition: (id) => this.definition(id),
      state: (id) => this.state(id),
      issued: (id) => this.q.issued.get(id),
      known: (id) => this.q.knownSession.get(id, id, id) !== undefined,
      browserSessions: (id) => this.q.browserSessionCount.get(id, id)!.n,
      reviews: this.reviews,
      now: this.now,
    });
    this.addressSecret = db
      .prepare<[], string>("SELECT value FROM server_meta WHERE name = 'address_key'")
      .pluck()
      .get()!;
    this.q = {
      study: db.prepare<[string], { token: string; definition: string }>(
        'SELECT token, definition FROM studies WHERE study_id = ?',
      ),
      access: db.prepare<
        [string],
        { sessions: SessionMode; closed: number; max_sessions: number | null; next_participant: number }
      >('SELECT sessions, closed, max_sessions, next_participant FROM study_access WHERE study_id = ?'),
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

  /** The registered definition of a study (cached by its token), or undefined. */
  definition(studyId: string): { token: string; def: StudyDefinition } | undefined {
    const row = this.q.study.get(studyId);
    if (!row) return undefined;
    const cached = this.defs.get(studyId);
    if (cached && cached.token === row.token) return cached;
    // Read through the defaults of its kind: a study registered by an earlier version of this
    // server lacks the settings added since (the minutes to the first answer, participation).
    const fresh = { token: row.token, def: withDefaults(JSON.parse(row.definition) as Partial<StudyDefinition>) };
    this.defs.set(studyId, fresh);
    return fresh;
  }

  /** A registered study's token for a short link (`GET api/studies/<id>/link`), or undefined. */
  link(studyId: string): StudyLinkAnswer | undefined {
    const row = ID.test(studyId) ? this.q.study.get(studyId) : undefined;
    return row ? { study_id: studyId, token: row.token } : undefined;
  }

  /** The switches and counts of a registered study, or undefined. */
  state(studyId: string): AccessState | undefined {
    if (!this.q.study.get(studyId)) return undefined;
    const a = this.q.access.get(studyId);
    return {
      study_id: studyId,
      sessions: a?.sessions ?? this.newMode,
      closed: a?.closed === 1,
      max_sessions: a?.max_sessions ?? null,
      issued: this.q.issuedCount.get(studyId)!.n,
      holding: this.q.holdingCount.get(studyId)!.n,
      next_participant: a?.next_participant ?? 0,
    };
  }

  /**
   * Registers a study (as ResultStore.registerStudy) and records its session mode: `mode` when
   * given, else the mode it already has, else the default for new studies. A study with issued
   * sessions is not replaced by another definition (their schedules would change).
   */
  register(input: { token: string } | { definition: unknown }, mode?: SessionMode): RegisterOutcome & AccessState {
    return this.store.db
      .transaction(() => {
        const r = this.store.registerStudy(input);
        if (r.outcome === 'replaced' && this.q.issuedCount.get(r.studyId)!.n > 0) {
          throw new StoreError(
            `the study id "${r.studyId}" is registered with another definition and already has issued sessions; give the changed study another id`,
          );
        }
        // A live review study's stories come from a paraphrase study on this server: said now, to
        // the researcher, rather than to each reviewer later.
        const live = liveReviewProblem(
          r.studyId,
          collectSettings(this.definition(r.studyId)!.def),
          (id) => this.definition(id)?.def,
        );
        if (live?.reason === 'no-source') {
          throw new StoreError(
            `${live.message.replace(/; the researcher must register it here$/, '')}: register it first`,
          );
        }
        this.q.ensureAccess.run(r.studyId, mode ?? this.newMode);
        if (mode !== undefined) this.update(r.studyId, { sessions: mode });
        return { ...r, ...this.state(r.studyId)! };
      })
      .immediate();
  }

  /** Closes or opens a study, sets its quota (null: none) or its session mode. Throws StoreError for an unknown study. */
  update(
    studyId: string,
    change: { closed?: boolean; maxSessions?: number | null; sessions?: SessionMode },
  ): AccessState {
    return this.store.db
      .transaction(() => {
        const old = this.state(studyId);
        if (!old) throw new StoreError(`no study "${studyId}" is registered here`);
        this.q.ensureAccess.run(studyId, old.sessions);
        this.q.setAccess.run({
          study_id: studyId,
          sessions: change.sessions ?? old.sessions,
          closed: (change.closed ?? old.closed) ? 1 : 0,
          max_sessions: change.maxSessions === undefined ? old.max_sessions : change.maxSessions,
          next_participant: old.next_participant,
        });
        return this.state(studyId)!;
      })
      .immediate();
  }

  /**
   * Starts a session for a participant (`POST api/sessions`), or says why not.
   *
   * - Resuming needs what only the participant has: the session's resume code, or, for a
   *   Prolific participant, the same PROLIFIC_PID and Prolific SESSION_ID. A participant id alone
   *   gets no secret (403 `resume-code`: the page asks for the code). Running sessions finish even
   *   once the study is closed or full.
   * - The server decides the assignment: a `condition` or `participant` in the body is used only
   *   when the request carries the researcher's token, or (the condition) when the study assigns
   *   conditions by link.
   * - New sessions: idle sessions first give their places back (`releaseIdle`); then closed, the
   *   quota (sessions holding a place), the rate limits (`context.gate`) and the study's limit
   *   of new sessions per address an hour (participation online or room).
   */
  issue(body: unknown, context: IssueContext = {}): IssueOutcome {
    const parsed = sessionRequestSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const where = issue.path.length > 0 ? issue.path.join('.') : 'the body';
      return refuse(400, 'invalid', `${where}: ${issue.message}`);
    }
    const request = parsed.data;
    const control = controlCharacterField(request);
    if (control !== undefined) return refuse(400, 'invalid', `${control}: control characters are not allowed`);
    if ((request.study_id === undefined) === (request.token === undefined)) {
      return refuse(400, 'invalid', 'name the study by "study_id" or by its link "token" (one of the two)');
    }
    let studyId: string;
    if (request.token !== undefined) {
      const decoded = decodeStudyLink(tokenFrom(request.token));
      if (!decoded.ok) return refuse(400, 'invalid', decoded.error.message);
      studyId = decoded.definition.studyId;
      const registered = this.definition(studyId);
      if (registered && registered.token !== encodeStudyLink(decoded.definition)) {
        return refuse(
          409,
          'invalid',
          'This link is for another version of the study than the one this server runs. Please ask the researcher for the current link.',
        );
      }
    } else studyId = request.study_id!;
    const found = this.definition(studyId);
    if (!found) {
      return refuse(404, 'unknown-study', `There is no study "${studyId}" here. Please check the link you were given.`);
    }
    const { def } = found;
    const researcher = context.researcher === true;
    const asked = request.condition === undefined || request.condition === '' ? null : request.condition;
    // A balanced study's counter is the server's: a page cannot choose its cell (or its number).
    const condition = researcher || def.assignment === 'url' ? asked : null;
    if (condition !== null && !def.conditions.some((c) => c.id === condition)) {
      return refuse(
        400,
        'invalid',
        `The link asks for condition "${condition}", which this study does not have. Please check the link you were given.`,
      );
    }
    if (condition === null && def.assignment === 'url') {
      return refuse(
        400,
        'invalid',
        'This study assigns conditions by link, and the link names none (condition=<id>). Please check the link you were given.',
      );
    }
    const participantNumber = researcher ? request.participant : undefined;
    const participantId = request.participant_id?.trim() ?? '';
    const prolificSession = request.prolific_session_id?.trim() ?? '';
    const now = this.now();
    return this.store.db
      .transaction((): IssueOutcome => {
        if (request.resume_code !== undefined) {
          const code = normalResumeCode(request.resume_code);
          const old = code === null ? undefined : this.q.byCode.get(studyId, code);
          if (!old || (participantId !== '' && old.participant_id !== participantId)) {
            const limited = context.wrongCode?.();
            if (limited) return { ok: false, ...limited };
            return refuse(403, 'resume-code', WRONG_CODE_MESSAGE);
          }
          return this.resume(old, now);
        }
        if (participantId !== '') {
          const old = this.q.issuedFor.get(studyId, participantId);
          if (old) {
            if (old.prolific_session_id !== '' && prolificSession !== '') {
              return prolificSession === old.prolific_session_id
                ? this.resume(old, now)
                : refuse(403, 'resume-refused', OTHER_SUBMISSION_MESSAGE);
            }
            return refuse(403, 'resume-code', NEEDS_CODE_MESSAGE);
          }
        }
        this.releaseIdle(studyId, def, now);
        const state = this.state(studyId)!;
        if (state.closed) return refuse(403, 'closed', CLOSED_MESSAGE);
        if (state.max_sessions !== null && state.holding >= state.max_sessions)
          return refuse(403, 'full', FULL_MESSAGE);
        const address = this.addressKey(context.address ?? 'unknown');
        const perHour = def.participation === 'room' ? def.roomSessions : ONLINE_SESSIONS_PER_ADDRESS;
        const recent = this.q.fromAddress.get(studyId, address, new Date(now.getTime() - HOUR_MS).toISOString())!;
        if (!researcher && recent.n >= perHour) {
          const retryAfterS = Math.max(1, Math.ceil((Date.parse(recent.first!) + HOUR_MS - now.getTime()) / 1000));
          return {
            ok: false,
            status: 429,
            reason: 'rate',
            message: `This study takes at most ${perHour} new participant${perHour === 1 ? '' : 's'} an hour from one network. If you already started it, use the same link on the device you started on, or enter your resume code; otherwise please try again later.`,
            retryAfterS,
          };
        }
        const gated = context.gate?.(studyId, def.participation === 'room');
        if (gated) return { ok: false, ...gated };
        this.q.ensureAccess.run(studyId, state.sessions);
        let participant = participantNumber;
        let fromCounter = 0;
        if (participant === undefined) {
          fromCounter = 1;
          participant = this.q.freeParticipant.get(studyId);
          if (participant !== undefined) this.q.takeFree.run(studyId, participant);
          else {
            participant = state.next_participant;
            this.q.setAccess.run({
              study_id: studyId,
              sessions: state.sessions,
              closed: state.closed ? 1 : 0,
              max_sessions: state.max_sessions,
              next_participant: state.next_participant + 1,
            });
          }
        }
        const row: IssuedRow = {
          session_id: `i${base64url(this.random(16))}`,
          study_id: studyId,
          secret: base64url(this.random(24)),
          participant,
          condition,
          participant_id: participantId,
          prolific_study_id: request.prolific_study_id?.trim() ?? '',
          prolific_session_id: prolificSession,
          issued_at: now.toISOString(),
          resume_code: this.newResumeCode(studyId),
          address,
          from_counter: fromCounter,
          released_at: null,
        };
        this.q.insertIssued.run(row);
        return { ok: true, status: 201, grant: grantOf(row, null, now) };
      })
      .immediate();
  }

  /** A session continued (on this device or another): its place is taken back if it had given it up. */
  private resume(old: IssuedRow, now: Date): IssueOutcome {
    if (old.released_at !== null) this.reclaim(old);
    let code = old.resume_code;
    if (code === null) {
      // Sessions issued before resume codes get one when they are continued.
      code = this.newResumeCode(old.study_id);
      this.q.setCode.run(code, old.session_id);
    }
    const grant = grantOf({ ...old, resume_code: code }, this.q.answered.all(old.session_id), now);
    return { ok: true, status: 200, grant };
  }

  /** A resume code not used in the study yet. */
  private newResumeCode(studyId: string): string {
    for (;;) {
      const letters = Array.from({ length: RESUME_CODE_LENGTH }, () => RESUME_CODE_ALPHABET[randomInt(32)]).join('');
      const code = `${letters.slice(0, 4)}-${letters.slice(4)}`;
      if (!this.q.byCode.get(studyId, code)) return code;
    }
  }

  /**
   * Sessions of a study that stored no row within its claimMinutes give their places back: they
   * stop counting towards the quota and their counter values are handed to the next sessions, so
   * a balanced design stays balanced. Run before a new session is issued (at most once a second
   * per study: it scans the study's sessions).
   */
  releaseIdle(studyId: string, def: StudyDefinition, now: Date): number {
    const last = this.lastRelease.get(studyId);
    if (last !== undefined && now.getTime() - last < 1000 && now.getTime() >= last) return 0;
    this.lastRelease.set(studyId, now.getTime());
    const cutoff = new Date(now.getTime() - def.claimMinutes * 60_000).toISOString();
    const released = this.q.releaseIdle.all({ study_id: studyId, now: now.toISOString(), cutoff });
    for (const r of released) {
      if (r.from_counter === 1) this.q.freeUp.run(studyId, r.participant, r.session_id);
    }
    return released.length;
  }

  /**
   * A released session is back (a row, or a resume): it holds a place again. Its counter value
   * goes back to it if no one took it meanwhile; otherwise it shares that cell (logged by the caller).
   */
  private reclaim(old: IssuedRow): boolean {
    this.q.unrelease.run(old.session_id);
    if (old.from_counter !== 1) return true;
    return this.q.takeFree.run(old.study_id, old.participant).changes > 0;
  }

  /** A client address as stored: keyed with this database's own key, so the file holds no addresses. */
  private addressKey(address: string): string {
    return createHmac('sha256', this.addressSecret).update(address).digest('base64url').slice(0, 22);
  }

  /**
   * The review items of an issued session of a live review study (`GET
   * api/studies/<id>/review-items?session=…`, the session's secret in `X-Session-Secret`): the
   * session must be one this server issued for that study, and the secret its own.
   */
  reviewItems(studyId: string, sessionId: string | undefined, secret: string | undefined): ItemsOutcome {
    const refused = (
      status: QueueRefusal['status'],
      reason: QueueRefusal['reason'],
      message: string,
    ): QueueRefusal => ({
      ok: false,
      status,
      reason,
      message,
    });
    if (!ID.test(studyId) || !this.definition(studyId)) {
      return refused(
        404,
        'unknown-study',
        `There is no study "${studyId}" here. Please check the link you were given.`,
      );
    }
    if (sessionId === undefined || !SESSION_ID.test(sessionId)) {
      return refused(400, 'invalid', 'session: name the session the review items are for (?session=<session id>)');
    }
    const issued = this.q.issued.get(sessionId);
    if (!issued || issued.study_id !== studyId) {
      return refused(
        403,
        'not-issued',
        `session: "${sessionId}" is not a session this server issued for study "${studyId}"`,
      );
    }
    if (secret === undefined || !sameSecret(secret, issued.secret)) {
      return refused(
        403,
        'secret',
        `the secret of session "${sessionId}" is ${secret === undefined ? 'missing (send it in the X-Session-Secret header)' : 'wrong'}`,
      );
    }
    return this.reviews.itemsFor(issued);
  }

  /**
   * Checks a participant's request before it is stored (ingestChecks.ts): the first refusal; or
   * none, and then the sessions among its rows that had given their places back (no answer
   * within the study's claimMinutes) hold one again, their rows stored like any other. `shared`:
   * those whose counter value another session took meanwhile (they share its cell), for the log.
   */
  admitRows(body: IngestBody): { readonly refusal?: Refusal; readonly shared: readonly string[] } {
    const checked = this.checks.check(body);
    if ('refusal' in checked) return { refusal: checked.refusal, shared: [] };
    const shared: string[] = [];
    for (const issued of checked.released) {
      if (!this.store.db.transaction(() => this.reclaim(issued)).immediate()) shared.push(issued.session_id);
    }
    return { shared };
  }
}

const refuse = (status: Refusal['status'], reason: Refusal['reason'], message: string): IssueOutcome => ({
  ok: false,
  status,
  reason,
  message,
});

/**
 * The answer to a session request. `answered`: for a resumed session, the trials this server
 * already stores (the participant may come back on another device, whose browser has none of
 * them: it skips these instead of answering them again, which would be 409 conflicts); null for a
 * new session.
 */
const grantOf = (r: IssuedRow, answered: readonly number[] | null, now: Date): SessionGrant => ({
  study_id: r.study_id,
  session_id: r.session_id,
  secret: r.secret,
  participant: r.participant,
  condition: r.condition,
  resumed: answered !== null,
  answered: answered ?? [],
  resume_code: r.resume_code ?? '',
  server_time: now.toISOString(),
});

const HOUR_MS = 3_600_000;

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
