/**
 * Sessions the server issued (issue 20), and the per-study switches that go with them: whether a
 * study accepts only issued sessions, closed or open, and its quota.
 *
 * A participant's page asks for a session before its first trial (`POST api/sessions`, the
 * request and answer shapes in src/study/serverSession.ts). The server answers with a random
 * session id, a random secret the session's rows must carry, and the participant number from a
 * counter per study: the k-th session started without `participant=` gets number k, and
 * `scheduleParticipant` turns consecutive numbers into balanced blocks of (conditions × lists)
 * cells, so every block of that many participants fills every cell once.
 *
 * Rows of an issued session are checked against the schedule the server can rebuild (study
 * definition, participant number, session id, forced condition): trial index within the study,
 * the condition and its time limit, the item (puzzle id, phase, seed, k, task), strictness, and
 * the participant's ids. So one session stores at most its study's trials, and each field is
 * either fixed by the study or bounded by the body schema.
 *
 * Compatibility: a study is `issued` (rows only for sessions issued here) or `browser` (also rows
 * with session ids the browser made, as before issue 20). Studies registered before this schema
 * step are `browser`; a new registration takes the mode it is given, else NEW_STUDY_SESSIONS.
 * `study open --issued-only` switches a study. Rows of an issued session are checked (secret,
 * schedule) in both modes; rows of a browser-made session against what the definition alone
 * fixes (the condition's time limit, k, task, strictness).
 */
import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { StudyDefinition } from '../src/study/definition';
import { decodeStudyLink, encodeStudyLink } from '../src/study/link';
import type { ResultRow, SessionInfo } from '../src/study/results';
import { scheduleParticipant, type ParticipantSchedule } from '../src/study/schedule';
import { ONLINE_SESSIONS_PER_ADDRESS } from '../src/study/studyOptions';
import {
  MAX_ID_LENGTH,
  normalResumeCode,
  RESUME_CODE_ALPHABET,
  RESUME_CODE_LENGTH,
  type SessionGrant,
  type SessionRefusalReason,
  type StudyLinkAnswer,
} from '../src/study/serverSession';
import { paraphraseRowProblem } from './collectChecks';
import { solveRowProblem, storyLengthProblem, timeProblem, TrialFacts } from './rowChecks';
import { collectSettings, liveReviewProblem, ReviewQueue, type ItemsOutcome, type QueueRefusal } from './reviewQueue';
import { CONTROL_CHARACTER, type IngestBody } from './schema';
import { StoreError, tokenFrom, type RegisterOutcome, type ResultStore } from './store';

export type SessionMode = 'issued' | 'browser';
export const SESSION_MODES: readonly SessionMode[] = ['issued', 'browser'];

/**
 * The mode of a study registered without one: `issued`, since the participant's page asks for a
 * session after consent (src/study/run.ts, `issueSession`). Studies registered before keep their
 * mode (`browser` for those of schema step 2); `--new-study-sessions browser` or `study open
 * --browser-sessions` opts out.
 */
export const NEW_STUDY_SESSIONS: SessionMode = 'issued';

export interface AccessState {
  readonly study_id: string;
  readonly sessions: SessionMode;
  readonly closed: boolean;
  /** Most sessions the study takes (issued, or browser-made in `browser` mode); null for no quota. */
  readonly max_sessions: number | null;
  /** Sessions issued so far. */
  readonly issued: number;
  /** Of them, those holding a place (not released for want of an answer): what the quota counts. */
  readonly holding: number;
  /** The counter's next value. */
  readonly next_participant: number;
}

/** A refusal as the HTTP layer sends it. */
export interface Refusal {
  readonly status: 400 | 403 | 404 | 409 | 429;
  readonly reason: SessionRefusalReason | 'not-issued' | 'secret' | 'rate';
  readonly message: string;
  /** For 429: seconds until a retry may succeed. */
  readonly retryAfterS?: number;
}

export type IssueOutcome =
  { readonly ok: true; readonly status: 200 | 201; readonly grant: SessionGrant } | ({ readonly ok: false } & Refusal);

/** What the participant reads when a study takes no one new. */
export const CLOSED_MESSAGE =
  'This study is closed and does not take new participants. Thank you for your interest; please return it (on Prolific: "return submission").';
export const FULL_MESSAGE =
  'This study already has all the participants it needs. Thank you for your interest; please return it (on Prolific: "return submission").';
/** A participant id that already has a session, asked for without what continuing it needs. */
export const NEEDS_CODE_MESSAGE =
  'You already started this study. To continue here, enter the resume code you were shown when you started (it is also on the other device).';
export const WRONG_CODE_MESSAGE =
  'That resume code does not belong to a session of this study. Please check it (it looks like K7QM-4TZP) and try again.';
export const OTHER_SUBMISSION_MESSAGE =
  'Your Prolific ID already took part in this study in another Prolific session, which cannot be continued from this one. Please return this submission on Prolific, or contact the researcher.';

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

interface IssuedRow {
  session_id: string;
  study_id: string;
  secret: string;
  participant: number;
  condition: string | null;
  participant_id: string;
  prolific_study_id: string;
  prolific_session_id: string;
  issued_at: string;
  /** Continues the session on another device (null for sessions issued before resume codes). */
  resume_code: string | null;
  /** The keyed hash of the client address that asked (`addressKey`), for the per-address limit. */
  address: string;
  /** 1 when the participant number came from the counter (and may be handed out again once released). */
  from_counter: number;
  /** When the session gave its place back (no answer within the study's claimMinutes), or null. */
  released_at: string | null;
}

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

/** Equal secrets, compared in constant time (a wrong secret's prefix does not answer faster). */
function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

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
  /** Schedules of issued sessions, by session id (bounded; rebuilt when dropped). */
  private readonly schedules = new Map<string, ParticipantSchedule>();
  private readonly newMode: SessionMode;
  private readonly random: (n: number) => Buffer;
  private readonly now: () => Date;
  /** The live review queue of review studies (reviewQueue.ts). */
  readonly reviews: ReviewQueue;
  /** The key client addresses are hashed with (this database's own, made by its schema step 4). */
  private readonly addressSecret: string;
  /** When each study's idle sessions were last released (ms), so a launch does not rescan every request. */
  private readonly lastRelease = new Map<string, number>();
  /** The puzzles of the studies' items, rebuilt to check rows against (rowChecks.ts). */
  private readonly facts = new TrialFacts();

  constructor(
    readonly store: ResultStore,
    options: StudyAccessOptions = {},
  ) {
    const db = store.db;
    this.newMode = options.newStudySessions ?? NEW_STUDY_SESSIONS;
    this.random = options.random ?? randomBytes;
    this.now = options.now ?? (() => new Date());
    this.reviews = new ReviewQueue(store, (id) => this.definition(id)?.def, { now: this.now });
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
    const fresh = { token: row.token, def: JSON.parse(row.definition) as StudyDefinition };
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
    const control = controlProblem(request);
    if (control) return refuse(400, 'invalid', control);
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
   * Checks a participant's request before it is stored: sessions the server issued carry their
   * secret and agree with their schedule; a study in `issued` mode takes no other session; a
   * closed or full study takes no new browser-made session. Returns the first refusal, or
   * undefined. Unknown studies are left to the store (403 there).
   */
  checkIngest(body: IngestBody): Refusal | undefined {
    const secrets = new Map((body.secrets ?? []).map((s) => [s.session_id, s.secret]));
    const fresh = new Set<string>();
    // One look at each study's switches per request (a body may carry 200 rows).
    const states = new Map<string, AccessState | undefined>();
    const stateOf = (studyId: string) => {
      if (!states.has(studyId)) states.set(studyId, this.state(studyId));
      return states.get(studyId);
    };
    const check = (where: string, r: ResultRow | SessionInfo): Refusal | undefined => {
      const state = stateOf(r.study_id);
      if (!state) return undefined;
      const issued = this.q.issued.get(r.session_id);
      if (!issued) {
        if (state.sessions === 'issued') {
          return {
            status: 403,
            reason: 'not-issued',
            message: `${where}.session_id: the session "${r.session_id}" was not issued by this server; study "${r.study_id}" takes rows only of sessions its participants' pages asked for (POST api/sessions)`,
          };
        }
        if ((state.closed || state.max_sessions !== null) && !fresh.has(r.session_id)) {
          if (this.q.knownSession.get(r.session_id, r.session_id, r.session_id) === undefined) {
            if (state.closed) return { status: 403, reason: 'closed', message: CLOSED_MESSAGE };
            const n = this.q.browserSessionCount.get(r.study_id, r.study_id)!.n + fresh.size;
            if (n >= state.max_sessions!) return { status: 403, reason: 'full', message: FULL_MESSAGE };
            fresh.add(r.session_id);
          }
        }
        // A browser-made session has no schedule here; what the definition alone fixes is checked.
        // A live review study's items come from the queue, which hands them to issued sessions only.
        if ('trial_index' in r && isLiveReview(this.definition(r.study_id)!.def)) {
          return {
            status: 403,
            reason: 'not-issued',
            message: `${where}.session_id: study "${r.study_id}" reviews stories handed out by this server, to sessions it issued (POST api/sessions); "${r.session_id}" is not one`,
          };
        }
        const problem = 'trial_index' in r ? this.definitionProblem(r) : undefined;
        return problem === undefined ? undefined : { status: 400, reason: 'invalid', message: `${where}.${problem}` };
      }
      const secret = secrets.get(r.session_id);
      if (secret === undefined || !sameSecret(secret, issued.secret)) {
        return {
          status: 403,
          reason: 'secret',
          message: `${where}.session_id: the secret of session "${r.session_id}" is ${secret === undefined ? 'missing (send it in "secrets")' : 'wrong'}`,
        };
      }
      if (issued.study_id !== r.study_id) {
        return {
          status: 403,
          reason: 'not-issued',
          message: `${where}.study_id: the session "${r.session_id}" was issued for study "${issued.study_id}"`,
        };
      }
      const problem =
        'trial_index' in r ? this.rowProblem(issued, r) : sessionProblem(issued, r, this.scheduleOf(issued));
      return problem === undefined ? undefined : { status: 400, reason: 'invalid', message: `${where}.${problem}` };
    };
    for (const [i, s] of body.sessions.entries()) {
      const refusal = check(`sessions.${i}`, s);
      if (refusal) return refusal;
    }
    for (const [i, r] of body.rows.entries()) {
      const refusal = check(`rows.${i}`, r);
      if (refusal) return refusal;
    }
    return undefined;
  }

  /**
   * Sessions among a request's rows that had given their places back (no answer within the
   * study's claimMinutes) hold one again: their rows are stored like any other. Returns those
   * whose counter value another session took meanwhile (they share its cell), for the log.
   */
  reclaimReleased(body: IngestBody): string[] {
    const shared: string[] = [];
    for (const id of new Set(body.rows.map((r) => r.session_id))) {
      const issued = this.q.issued.get(id);
      if (issued?.released_at == null) continue;
      if (!this.store.db.transaction(() => this.reclaim(issued)).immediate()) shared.push(id);
    }
    return shared;
  }

  /** The schedule of an issued session: what its rows must say, trial by trial. */
  private scheduleOf(issued: IssuedRow): ParticipantSchedule {
    const cached = this.schedules.get(issued.session_id);
    if (cached) return cached;
    const schedule = scheduleParticipant(this.definition(issued.study_id)!.def, {
      participantNumber: issued.participant,
      // A review study with embedded stories leaves out the participant's own (schedule.ts).
      participantId: issued.participant_id,
      sessionSeed: issued.session_id,
      forcedCondition: issued.condition ?? undefined,
    });
    if (this.schedules.size >= 10_000) this.schedules.delete(this.schedules.keys().next().value!);
    this.schedules.set(issued.session_id, schedule);
    return schedule;
  }

  /**
   * What is wrong with a row of a browser-made session by the study's definition alone: the
   * condition's time limit, k and task among the study's, strictness. (Its puzzle and trial count
   * need the schedule, which only an issued session has.)
   */
  private definitionProblem(row: ResultRow): string | undefined {
    const { def } = this.definition(row.study_id)!;
    const condition = def.conditions.find((c) => c.id === row.condition);
    // An unknown condition is the store's 400 (it names the study's conditions).
    if (!condition) return undefined;
    if (row.time_limit_s !== condition.perPuzzleLimitS) {
      return `time_limit_s: ${JSON.stringify(row.time_limit_s)} is not the time limit of condition "${condition.id}" (${JSON.stringify(condition.perPuzzleLimitS)})`;
    }
    if (!def.k.includes(row.k)) return `k: ${row.k} is not a k of study "${def.studyId}" (${def.k.join(', ')})`;
    if (!def.tasks.includes(row.task)) {
      return `task: ${row.task} is not a task of study "${def.studyId}" (${def.tasks.join(', ')})`;
    }
    if (row.strict !== def.strict) return `strict: the study's puzzles are ${def.strict ? '' : 'not '}strict`;
    return undefined;
  }

  /** What is wrong with a row of an issued session (`<field>: <problem>`), or undefined. */
  private rowProblem(issued: IssuedRow, row: ResultRow): string | undefined {
    const { def } = this.definition(issued.study_id)!;
    const schedule = this.scheduleOf(issued);
    const trial = schedule.trials[row.trial_index];
    if (!trial) {
      return `trial_index: ${row.trial_index} is past the session's last trial (${schedule.trials.length - 1})`;
    }
    const item = trial.item;
    // A live review study's main trials review the stories the queue handed this session: their
    // puzzle id, seed, k and the rest are the story's (checked below), not the schedule's.
    const reviewTrial = item.phase === 'main' && isLiveReview(def);
    // A paraphrase study that favours uncovered clauses: the page picked them with the coverage it
    // read, which cannot be replayed here; the clause is checked on its own (collectChecks.ts).
    const ownClause = def.kind === 'paraphrase' && def.favourUncovered;
    const expected: Partial<Record<keyof ResultRow, string | number | boolean | null>> = {
      condition: schedule.condition.id,
      time_limit_s: schedule.condition.perPuzzleLimitS,
      ...(reviewTrial || ownClause ? {} : { puzzle_id: item.puzzleId, seed: item.seed, k: item.k }),
      phase: item.phase,
      task: item.task,
      strict: def.strict,
      participant_id: issued.participant_id,
      prolific_study_id: issued.prolific_study_id,
      prolific_session_id: issued.prolific_session_id,
    };
    for (const [field, want] of Object.entries(expected) as [keyof ResultRow, unknown][]) {
      if (row[field] !== want) {
        return `${field}: ${JSON.stringify(row[field])} is not what trial ${row.trial_index} of this session has (${JSON.stringify(want)})`;
      }
    }
    const timing = timeProblem(row, issued.issued_at, this.now());
    if (timing) return timing;
    if (reviewTrial) return this.reviews.reviewRowProblem(issued.session_id, row);
    if (def.kind === 'paraphrase') return storyLengthProblem(def, row) ?? paraphraseRowProblem(def, row);
    return def.kind === 'solve' ? solveRowProblem(this.facts.of(def, item), row) : undefined;
  }
}

/** A review study whose items the queue serves (a `sourceStudy` on this server), not a link's embedded stories. */
const isLiveReview = (def: StudyDefinition) => {
  const s = collectSettings(def);
  return s.kind === 'review' && s.sourceStudy !== '';
};

function sessionProblem(issued: IssuedRow, s: SessionInfo, schedule: ParticipantSchedule): string | undefined {
  if (s.condition !== schedule.condition.id) {
    return `condition: "${s.condition}" is not this session's condition ("${schedule.condition.id}")`;
  }
  if (s.participant_id !== issued.participant_id) {
    return `participant_id: "${s.participant_id}" is not the participant this session was issued to`;
  }
  return undefined;
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

/** The first string field of a session request holding a control character, as a message; or undefined. */
function controlProblem(request: Record<string, unknown>): string | undefined {
  for (const [field, value] of Object.entries(request)) {
    if (typeof value === 'string' && CONTROL_CHARACTER.test(value)) {
      return `${field}: control characters are not allowed`;
    }
  }
  return undefined;
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
