/**
 * Issuing sessions: `StudyAccess` is the door participants come through, and what it does itself
 * is hand out sessions (the registry, the switches, the row checks and the review queue it
 * answers through are studyRegistry.ts, studySwitches.ts, ingestChecks.ts and reviewQueue.ts).
 *
 * A participant's page asks for a session after consent (`POST api/sessions`, the request and
 * answer shapes in src/study/delivery/serverApi.ts). The server answers with a random session id, a
 * random secret the session's rows must carry, a resume code, and the participant number from a
 * counter per study (or a number an idle session gave back): `scheduleParticipant` turns
 * consecutive numbers into balanced blocks of (conditions × lists) cells, so every block of that
 * many participants fills every cell once. Resuming needs the resume code or the same Prolific
 * PID and SESSION_ID; the server, not the page, chooses condition and number. Sessions that
 * store no row within the study's claimMinutes give their places back, and take them again
 * when they return.
 */
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { z } from 'zod';
import type { StudyDefinition } from '../src/study/definition/definition';
import { decodeStudyLink, encodeStudyLink } from '../src/study/definition/link';
import { ONLINE_SESSIONS_PER_ADDRESS } from '../src/study/definition/vocabulary';
import {
  MAX_ID_LENGTH,
  normalResumeCode,
  RESUME_CODE_ALPHABET,
  RESUME_CODE_LENGTH,
  type EarlierFact,
  type SessionGrant,
  type StudyLinkAnswer,
} from '../src/study/delivery/serverApi';
import { kindSpec } from '../src/study/kinds';
import { IngestChecks } from './ingestChecks';
import type { AccessTables } from './db/accessTables';
import { ReviewQueue, type ItemsOutcome } from './reviewQueue';
import { controlCharacterField, type IngestBody } from './schema';
import {
  CLOSED_MESSAGE,
  FULL_MESSAGE,
  NEEDS_CODE_MESSAGE,
  NEW_STUDY_SESSIONS,
  OTHER_SUBMISSION_MESSAGE,
  SESSION_MODES,
  STUDY_ID,
  WRONG_CODE_MESSAGE,
  type AccessState,
  type IssuedRow,
  type IssueOutcome,
  type Refusal,
  type SessionMode,
} from './sessionRecords';
import { tokenFrom, type RegisterOutcome, type ResultStore } from './store';
import type { RegisteredStudy } from './studyRegistry';
import { StudySwitches } from './studySwitches';

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

const idText = z.string().max(MAX_ID_LENGTH);

const sessionRequestSchema = z.strictObject({
  study_id: z.string().regex(STUDY_ID, 'not a study id').optional(),
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

export class StudyAccess {
  private readonly tables: AccessTables;
  private readonly random: (n: number) => Buffer;
  private readonly now: () => Date;
  /** The per-study switches: session mode, closed, quota, the counter (studySwitches.ts). */
  readonly switches: StudySwitches;
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
    this.tables = store.accessTables();
    this.random = options.random ?? randomBytes;
    this.now = options.now ?? (() => new Date());
    this.switches = new StudySwitches(store, options.newStudySessions ?? NEW_STUDY_SESSIONS);
    this.reviews = new ReviewQueue(store, (id) => this.definition(id)?.def, { now: this.now });
    this.checks = new IngestChecks({
      definition: (id) => this.definition(id),
      state: (id) => this.state(id),
      issued: (id) => this.tables.issued(id),
      known: (id) => this.tables.knownSession(id),
      history: (id) => this.tables.history(id),
      browserSessions: (id) => this.tables.browserSessionCount(id),
      reviews: this.reviews,
      now: this.now,
    });
    this.addressSecret = this.tables.addressKey();
  }

  /** The registered study (the store's registry, studyRegistry.ts), or undefined. */
  definition(studyId: string): RegisteredStudy | undefined {
    return this.store.registry.get(studyId);
  }

  /** A registered study's token for a short link (`GET api/studies/<id>/link`), or undefined. */
  link(studyId: string): StudyLinkAnswer | undefined {
    const token = STUDY_ID.test(studyId) ? this.store.registry.token(studyId) : undefined;
    return token === undefined ? undefined : { study_id: studyId, token };
  }

  /** The switches and counts of a registered study, or undefined (studySwitches.ts). */
  state(studyId: string): AccessState | undefined {
    return this.switches.state(studyId);
  }

  /** Registers a study and records its session mode (studySwitches.ts). */
  register(input: { token: string } | { definition: unknown }, mode?: SessionMode): RegisterOutcome & AccessState {
    return this.switches.register(input, mode);
  }

  /** Closes or opens a study, sets its quota or its session mode (studySwitches.ts). */
  update(
    studyId: string,
    change: { closed?: boolean; maxSessions?: number | null; sessions?: SessionMode },
  ): AccessState {
    return this.switches.update(studyId, change);
  }

  /** The review items of an issued session of a live review study (reviewQueue.ts). */
  reviewItems(studyId: string, sessionId: string | undefined, secret: string | undefined): ItemsOutcome {
    return this.reviews.itemsForSession(studyId, sessionId, secret);
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
    return this.store.transaction((): IssueOutcome => {
      if (request.resume_code !== undefined) {
        const code = normalResumeCode(request.resume_code);
        const old = code === null ? undefined : this.tables.byCode(studyId, code);
        if (!old || (participantId !== '' && old.participant_id !== participantId)) {
          const limited = context.wrongCode?.();
          if (limited) return { ok: false, ...limited };
          return refuse(403, 'resume-code', WRONG_CODE_MESSAGE);
        }
        return this.resume(old, now);
      }
      if (participantId !== '') {
        const old = this.tables.issuedFor(studyId, participantId);
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
      if (state.max_sessions !== null && state.holding >= state.max_sessions) return refuse(403, 'full', FULL_MESSAGE);
      const address = this.addressKey(context.address ?? 'unknown');
      const perHour = def.participation === 'room' ? def.roomSessions : ONLINE_SESSIONS_PER_ADDRESS;
      const recent = this.tables.fromAddress(studyId, address, new Date(now.getTime() - HOUR_MS).toISOString());
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
      this.tables.ensureAccess(studyId, state.sessions);
      let participant = participantNumber;
      let fromCounter = 0;
      if (participant === undefined) {
        fromCounter = 1;
        participant = this.tables.freeParticipant(studyId);
        if (participant !== undefined) this.tables.takeFree(studyId, participant);
        else {
          participant = state.next_participant;
          this.tables.setAccess({
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
      this.tables.insertIssued(row);
      return { ok: true, status: 201, grant: grantOf(row, null, now) };
    });
  }

  /** A session continued (on this device or another): its place is taken back if it had given it up. */
  private resume(old: IssuedRow, now: Date): IssueOutcome {
    if (old.released_at !== null) this.reclaim(old);
    let code = old.resume_code;
    if (code === null) {
      // Sessions issued before resume codes get one when they are continued.
      code = this.newResumeCode(old.study_id);
      this.tables.setCode(old.session_id, code);
    }
    const grant = grantOf({ ...old, resume_code: code }, this.tables.answered(old.session_id), now);
    const earlier = this.earlierFacts(old);
    return { ok: true, status: 200, grant: earlier === undefined ? grant : { ...grant, earlier } };
  }

  /**
   * Of a resumed session of a study whose items follow the answers (adaptive), its stored main
   * rows as the next item depends on them (place, k, outcome), at most the study's trial count:
   * the device that continues it decides the next puzzle from them as the first device would
   * have. Undefined for any other study (its answer stays as it was).
   */
  private earlierFacts(old: IssuedRow): EarlierFact[] | undefined {
    const def = this.definition(old.study_id)?.def;
    if (!def || !kindSpec(def.kind).follows) return undefined;
    const bound = def.practice + def.adaptiveTrials;
    return this.tables.mainHistory(old.session_id, bound);
  }

  /** A resume code not used in the study yet. */
  private newResumeCode(studyId: string): string {
    for (;;) {
      const letters = Array.from({ length: RESUME_CODE_LENGTH }, () => RESUME_CODE_ALPHABET[randomInt(32)]).join('');
      const code = `${letters.slice(0, 4)}-${letters.slice(4)}`;
      if (!this.tables.byCode(studyId, code)) return code;
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
    const released = this.tables.releaseIdle(studyId, now.toISOString(), cutoff);
    for (const r of released) {
      if (r.from_counter === 1) this.tables.freeUp(studyId, r.participant, r.session_id);
    }
    return released.length;
  }

  /**
   * A released session is back (a row, or a resume): it holds a place again. Its counter value
   * goes back to it if no one took it meanwhile; otherwise it shares that cell (logged by the caller).
   */
  private reclaim(old: IssuedRow): boolean {
    this.tables.unrelease(old.session_id);
    if (old.from_counter !== 1) return true;
    return this.tables.takeFree(old.study_id, old.participant);
  }

  /** A client address as stored: keyed with this database's own key, so the file holds no addresses. */
  private addressKey(address: string): string {
    return createHmac('sha256', this.addressSecret).update(address).digest('base64url').slice(0, 22);
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
      if (!this.store.transaction(() => this.reclaim(issued))) shared.push(issued.session_id);
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
