/**
 * A participant's run as a small state machine without React: which screen shows,
 * what each answer records, and when. The participant page renders `run.state` and calls the
 * methods below; the tests drive the same class with MemoryStorage and a fake clock.
 *
 * Order of a run: `openRun` (session identity, single-writer lock, resume policy, schedule) →
 * `prepare` (every trial's puzzle generated up front, so an answer is followed at once by the next
 * story) → consent → instructions → trials (practice with feedback; breaks every `breakEvery`
 * main trials) → completion. Consent can be declined: nothing is written before consent (the
 * session pointer of this browser is written when consent is given), so a participant who
 * declines leaves no session, row or trial mark behind; only a decline memo (the page's
 * sessionStorage) remembers it, so a reload shows the declined page again. A reopened session skips consent and instructions and carries on at
 * its first unanswered trial; a trial that was shown but not answered is shown again and its row
 * says `resumed: true`.
 *
 * Rows: a trial's row is committed (`await outbox.put`) before the next screen is set. Time limits:
 * a per-puzzle deadline counts from when the trial was first shown (a reload does not restart the
 * clock); the overall limit counts from the first main trial's first showing and covers main and
 * check trials. When it runs out, the trial on screen is recorded as `timeout` and every trial
 * not yet answered as `skipped` (response "", difficulty null, rt 0, started_at = answered_at = the
 * moment of the skip), so a session's file always has one row per trial; then completion.
 *
 * Issued sessions: when `deps.issuer` is given (the study sends to the results server,
 * not a preview), the session id, the participant number and the secret come from the server.
 * Until consent the run works under a provisional id (its lock, the puzzles: every participant
 * has the same items, so the contents are kept by puzzle id and survive the reschedule). After
 * consent, and before the instructions, `requestSession` is asked (`connecting` while it tries,
 * with backoff; a retry button after a while); a refusal shows `refused` and records nothing; a
 * grant is stored in the session pointer (with the secret beside the rows, `outbox.putSecret`),
 * so a reload resumes the same session without asking again. Ids the server would refuse are
 * caught in `open`, before consent.
 *
 * Across devices: the grant's resume code is kept in the pointer and shown after consent; typed on
 * another device (with consent, or on the `resume` screen when the server asks for it) it is sent
 * with the session request, and the grant's `answered` trials are not shown again. The grant's
 * `server_time` gives the offset of this browser's clock, kept in the pointer and added to every
 * time the run writes (`now()`), so a device whose clock is wrong still writes times the server
 * accepts. A trial's `rt_ms` sums its spells on screen across reloads (`spentKey`, written every
 * SPENT_HEARTBEAT_MS and when the tab is hidden or left), never more than answered_at − started_at.
 * A row a sink refuses for good is told at once (`refusal`, from the outbox's subscription).
 */
import type { RelationWord } from '../../core/kinship/relations';
import { hashSeed } from '../../core/random/rng';
import { type Clause, clauseFromId, pickClauses } from '../collect/clause';
import { checkParaphrase, type Problem } from '../collect/checks';
import { paraphraseFields, reviewFields } from '../collect/rows';
import { REVIEW_REASONS, type ReviewReason, type StudyCondition, type StudyDefinition } from '../definition/definition';
import { realTimer, type Timer } from '../delivery/lock';
import {
  type CoverageAnswer,
  itemOfStory,
  type ReviewItem,
  type ReviewItemsAnswer,
  reviewTask,
  type ReviewTask,
} from '../collect/reviewStories';
import type { Outbox } from '../delivery/outbox';
import type { OutboxStorage } from '../delivery/storage';
import { isDownloadOnly } from '../definition/sinks';
import type { EndedOn, ResultRow, SessionInfo } from '../results/results';
import {
  firstUnanswered,
  isLiveReview,
  resumeDecision,
  scheduleParticipant,
  StudyScheduleError,
  type ParticipantSchedule,
  type Step,
  type StudyItem,
  type Trial,
} from '../schedule/schedule';
import type { TrialContent } from '../schedule/trialContent';
import {
  normalResumeCode,
  sessionRequestOf,
  sessionRequestProblem,
  type SessionAnswer,
  type SessionGrant,
  type SessionRequest,
} from '../delivery/serverSession';
import { primarySinkId } from '../definition/sinks';

/** Who is taking part, from the URL (or JATOS). */
export interface RunIdentity {
  /** PROLIFIC_PID or the JATOS worker id; empty for an anonymous browser. */
  readonly participantId: string;
  readonly prolificStudyId: string;
  readonly prolificSessionId: string;
  /** `participant=<n>`; null: drawn from the session id (see participantNumberOf). */
  readonly participantNumber: number | null;
  /** `condition=<id>`, or null. */
  readonly forcedCondition: string | null;
}

/** What the run needs from its surroundings (the browser, or the tests' fakes). */
export interface RunDeps {
  readonly def: StudyDefinition;
  /** The link token: sessions are per (token, participant). */
  readonly token: string;
  readonly identity: RunIdentity;
  readonly outbox: Outbox;
  /** The same storage the outbox uses (for the session pointer of this browser). */
  readonly storage: OutboxStorage;
  /** Wall-clock milliseconds (Date.now). */
  readonly now: () => number;
  /** A fresh random id for an anonymous browser's session (crypto.randomUUID). */
  readonly newId: () => string;
  /** `user_agent` and `screen` for SessionInfo. */
  readonly device: { readonly userAgent: string; readonly screen: string };
  /** The trial for an item (generates its puzzle). */
  readonly makeTrial: (trial: Trial) => Promise<TrialContent>;
  /** Performance marks and measures (`performance` in the browser and in Node). */
  readonly perf?: Pick<Performance, 'mark' | 'measure' | 'now'>;
  /**
   * Asks the results server for a session; absent for studies without the `server`
   * sink, previews, and tests of browser-made sessions.
   */
  readonly issuer?: SessionIssuer;
  /** Waits before a retry of the session request (setTimeout in the browser, a fake clock in tests). */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * Remembers, outside the study's storage, that consent was declined (the page's
   * sessionStorage), so a reload shows the declined page again without recording anything.
   */
  readonly declines?: DeclineMemo;
  /**
   * A live review study's items for an issued session (`fetchReviewItems` bound to fetch and the
   * page); absent where there is no results server to ask (a preview, a page inside JATOS).
   */
  readonly reviewItems?: (sessionId: string, secret: string | undefined) => Promise<ReviewItemsAnswer>;
  /** Stories per clause so far (`fetchCoverage`), for a paraphrase study that favours the least covered. */
  readonly coverage?: () => Promise<CoverageAnswer>;
  /** The clock of the paraphrase draft's delayed save (the tests' fake timer). */
  readonly timer?: Timer;
}

/** The results server's session requests, as the run needs them (`requestSession` bound to fetch and the page). */
export interface SessionIssuer {
  /** How the request names the study: by id (a short link) or by its token (a full link). */
  readonly study: { readonly studyId: string } | { readonly token: string };
  request(request: SessionRequest): Promise<SessionAnswer>;
}

/** Automatic tries of the session request before the run waits for the participant's "Try again". */
export const CONNECT_ATTEMPTS = 6;
/** From this many failed tries on, the connecting screen says what is wrong and offers "Try again". */
export const CONNECT_PATIENCE = 3;
/** Backoff between tries: 1 s, 2 s, 4 s… at most this (or the server's Retry-After, bounded too). */
export const CONNECT_MAX_DELAY_MS = 15_000;

/** Where a decline is remembered: never the outbox storage, never a sink. */
export interface DeclineMemo {
  has(key: string): boolean;
  add(key: string): void;
  delete(key: string): void;
}

/**
 * Where the sinks stand on the completion screen: `sent` every row everywhere; `partly-sent` the
 * primary destination has every row and a copy is still on its way elsewhere; `refused` a sink
 * refused rows for good; `failed` rows still unsent after the patience; `sending`; `none` nothing
 * is sent (download-only).
 */
export type SinkState = 'none' | 'sending' | 'sent' | 'partly-sent' | 'failed' | 'refused';

export interface TrialScreen {
  readonly kind: 'trial';
  readonly trial: Trial;
  readonly content: TrialContent;
  readonly picked: RelationWord | null;
  readonly difficulty: number | null;
  /** Wall-clock ms when the per-puzzle limit ends, or null when untimed. */
  readonly deadline: number | null;
  /** Wall-clock ms when the overall limit ends (main and check trials), or null. */
  readonly overallDeadline: number | null;
  readonly resumed: boolean;
  /** The main or check trial before this one ran out of time. */
  readonly timeUp?: boolean;
}

/** What every kind of trial screen has: the trial, its deadlines, and whether it is shown again. */
interface TrialTiming {
  readonly trial: Trial;
  /** Wall-clock ms when the per-puzzle limit ends, or null when untimed. */
  readonly deadline: number | null;
  /** Wall-clock ms when the overall limit ends, or null. */
  readonly overallDeadline: number | null;
  readonly resumed: boolean;
  /** The main or check trial before this screen ran out of time (the page says so, without a click). */
  readonly timeUp?: boolean;
}

/** A paraphrase trial: the clause, the text as typed so far (a draft kept across reloads) and the live checks' problems. */
export interface ParaphraseScreen extends TrialTiming {
  readonly kind: 'paraphrase';
  readonly clause: Clause;
  readonly text: string;
  readonly problems: readonly Problem[];
}

/** A review trial: someone's story and its clause, the verdict so far and, for bad, the reasons ticked. */
export interface ReviewScreen extends TrialTiming {
  readonly kind: 'review';
  readonly task: ReviewTask;
  readonly verdict: 'good' | 'bad' | null;
  readonly reasons: readonly ReviewReason[];
}

/** Any screen that shows a trial and ends in its row. */
export type AnyTrialScreen = TrialScreen | ParaphraseScreen | ReviewScreen;

const isTrialScreen = (s: RunScreen): s is AnyTrialScreen =>
  s.kind === 'trial' || s.kind === 'paraphrase' || s.kind === 'review';

export type RunScreen =
  | { readonly kind: 'loading' }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'blocked'; readonly reason: string }
  | { readonly kind: 'preparing'; readonly done: number; readonly total: number }
  | { readonly kind: 'consent' }
  /**
   * Consent given; asking the results server for a session. `attempt` counts the tries so far;
   * `problem` (from CONNECT_PATIENCE failed tries on) says what is wrong and the page offers
   * "Try again"; `waiting` is false once the automatic tries are spent.
   */
  | {
      readonly kind: 'connecting';
      readonly attempt: number;
      readonly problem: string | null;
      readonly waiting: boolean;
    }
  /** The results server refused the session (closed, full, unknown study, ids): nothing was recorded. */
  | { readonly kind: 'refused'; readonly message: string }
  /**
   * Consent given; continuing a session begun on another device needs its resume code (the
   * server asked for it, or the code typed was not one). `problem` says why (the server's
   * sentence, or this page's); nothing was recorded.
   */
  | { readonly kind: 'resume'; readonly problem: string | null }
  /**
   * A live review study: asking the results server for the stories to review (after the session
   * was issued); the fields as `connecting`'s.
   */
  | {
      readonly kind: 'fetching';
      readonly attempt: number;
      readonly problem: string | null;
      readonly waiting: boolean;
    }
  /** A live review study whose queue has no story for this participant now: nothing was recorded. */
  | { readonly kind: 'no-items' }
  /** Consent was declined: nothing was recorded and nothing will be. */
  | { readonly kind: 'declined' }
  | { readonly kind: 'instructions' }
  | TrialScreen
  | ParaphraseScreen
  | ReviewScreen
  | {
      readonly kind: 'feedback';
      readonly content: TrialContent;
      readonly response: string;
      readonly correct: boolean;
      readonly timedOut: boolean;
    }
  | { readonly kind: 'break'; readonly done: number; readonly total: number; readonly timeUp?: boolean }
  | {
      readonly kind: 'complete';
      readonly rows: readonly ResultRow[];
      readonly session: SessionInfo;
      /** The overall time limit ended the run. */
      readonly timedOut: boolean;
      /** The last trial ran out of its per-puzzle time. */
      readonly timeUp?: boolean;
      /** The participant clicked a download on this session's completion screen (kept across reloads). */
      readonly downloaded: boolean;
    };

/** The mark `study:answer-to-next` is measured from (the submit click). */
export const SUBMIT_MARK = 'study:submit';

/** Keys of the run's own records in the outbox storage (the outbox uses row/, session/, started/, lock/). */
const pointerKey = (token: string, who: string) => `pointer/${hashHex(token)}/${encodeURIComponent(who)}`;

function hashHex(text: string): string {
  // Two independent 32-bit hashes: 64 bits, so two links or participants practically never collide.
  return [hashSeed(text, 'a'), hashSeed(text, 'b')].map((h) => h.toString(16).padStart(8, '0')).join('');
}

/** Set once the participant downloaded the session's answers from its completion screen. */
const downloadedKey = (sessionId: string) => `downloaded/${sessionId}`;

/**
 * A paraphrase trial's draft (the text box as last typed), beside the rows: kept across a
 * reload, deleted once the trial's row is committed. Never sent.
 */
export const draftKey = (sessionId: string, trialIndex: number) =>
  `draft/${encodeURIComponent(sessionId)}/${String(trialIndex).padStart(6, '0')}`;

/** How long typing pauses before the draft is written. */
export const DRAFT_DELAY_MS = 400;

/**
 * The time a trial spent on screen in earlier page loads (`ms`, and the `hidden_ms` part of it),
 * beside the rows: written when the tab is hidden or left and every SPENT_HEARTBEAT_MS while the
 * trial shows, so a reload (or a killed tab) adds to it rather than starting at zero. Deleted once
 * the trial's row is committed. Never sent.
 */
export const spentKey = (sessionId: string, trialIndex: number) =>
  `spent/${encodeURIComponent(sessionId)}/${String(trialIndex).padStart(6, '0')}`;

/** How often the time on screen is written while a trial shows: at most this much is lost when a tab is killed. */
export const SPENT_HEARTBEAT_MS = 5000;

interface Spent {
  readonly ms: number;
  readonly hidden_ms: number;
}

const NO_TIME: Spent = { ms: 0, hidden_ms: 0 };

const isSpent = (v: unknown): v is Spent =>
  typeof v === 'object' &&
  v !== null &&
  Number.isFinite((v as Spent).ms) &&
  Number.isFinite((v as Spent).hidden_ms) &&
  (v as Spent).ms >= 0 &&
  (v as Spent).hidden_ms >= 0;

/** A sink's refusal of rows of the running session, as the page tells the participant while the study goes on. */
export interface SinkRefusal {
  /** The transport id (`server`, `jatos`, `http:<url>`). */
  readonly sink: string;
  /** Rows of this session it refused for good. */
  readonly count: number;
  /** What it said last, or null. */
  readonly said: string | null;
}

/**
 * A collection study's items that came from outside the definition (the live review queue's
 * stories, clauses picked with the server's coverage), stored when they arrive so that a reload
 * shows the same trials without asking again.
 */
const assignedKey = (sessionId: string) => `assigned/${encodeURIComponent(sessionId)}`;

interface Assigned {
  readonly items: readonly StudyItem[];
  /** The live review queue's stories, by the items' puzzle ids (= story ids). */
  readonly reviews?: readonly ReviewItem[];
}

/** A stored draft: the text of the paraphrase box as last typed. */
const isDraft = (v: unknown): v is { text: string } =>
  typeof v === 'object' && v !== null && typeof (v as { text?: unknown }).text === 'string';

/** Where a trial's content is kept: puzzle ids are unique within a study, clause ids only with their seed. */
const contentKey = (item: StudyItem) => `${item.puzzleId}@${item.seed}`;

/** A session the results server issued, as the pointer keeps it. */
interface IssuedSession {
  readonly session_id: string;
  readonly secret: string;
  readonly participant: number;
  readonly condition: string | null;
  /** The code that continues the session on another device (absent in pointers written before codes). */
  readonly resume_code?: string;
  /** The server's clock minus this browser's when the session was granted: added to every time the run writes. */
  readonly clock_offset_ms?: number;
}

interface Pointer {
  readonly base: string;
  readonly restarts: number;
  /** The issued session; absent for browser-made sessions. */
  readonly issued?: IssuedSession;
}

const whoOf = (identity: RunIdentity) => (identity.participantId === '' ? 'browser' : `pid:${identity.participantId}`);
const idOfPointer = (p: Pointer) => p.issued?.session_id ?? (p.restarts === 0 ? p.base : `${p.base}-r${p.restarts}`);
const samePointer = (a: unknown, b: Pointer | undefined) =>
  a === b ||
  (a !== undefined &&
    b !== undefined &&
    (a as Pointer).base === b.base &&
    (a as Pointer).restarts === b.restarts &&
    (a as Pointer).issued?.session_id === b.issued?.session_id);

/** A new session pointer for (token, participant): derived from the participant's id, or random. */
function freshPointer(deps: Pick<RunDeps, 'token' | 'identity' | 'newId'>): Pointer {
  return {
    base: deps.identity.participantId === '' ? deps.newId() : hashHex(`${deps.token}\n${deps.identity.participantId}`),
    restarts: 0,
  };
}

/**
 * The session id for (token, participant): a participant with an id (Prolific, JATOS) gets one
 * derived from it, so the same person on another device continues the same session; an anonymous
 * browser gets a random id kept in its storage. A restart (resume policy `restart`) appends `-r<n>`.
 */
export async function sessionIdFor(deps: Pick<RunDeps, 'storage' | 'token' | 'identity' | 'newId'>): Promise<string> {
  const key = pointerKey(deps.token, whoOf(deps.identity));
  const stored = (await deps.storage.update(key, (old) =>
    old === undefined ? freshPointer(deps) : undefined,
  )) as Pointer;
  return idOfPointer(stored);
}

/**
 * The balanced counter's value when the URL gives none. Without a central counter the browser
 * cannot know how many took part before; a number drawn from the session id makes the
 * assignment random and unbiased (each cell of a balanced block is equally likely), which is
 * what a study without `participant=` numbering can have.
 */
export function participantNumberOf(sessionId: string): number {
  return hashSeed(sessionId, 'participant-number') % 1_000_000_000;
}

const iso = (ms: number) => new Date(ms).toISOString();

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The wait before try `attempt + 1` of a request to the results server: backoff from 1 s, or its Retry-After, at most CONNECT_MAX_DELAY_MS. */
const retryDelay = (attempt: number, retryAfterS: number | undefined) =>
  Math.min(CONNECT_MAX_DELAY_MS, retryAfterS === undefined ? 1000 * 2 ** (attempt - 1) : retryAfterS * 1000);

export class StudyRun {
  state: RunScreen = { kind: 'loading' };
  sessionId = '';
  schedule: ParticipantSchedule | null = null;
  /** Why the last put failed, if one did (the page shows it and offers the download). */
  storageProblem: string | null = null;

  private readonly listeners = new Set<() => void>();
  /** Trial contents by contentKey (every participant has the same items; only the order differs). */
  private contents = new Map<string, TrialContent>();
  /** A paraphrase study's clauses, by contentKey. */
  private clauses = new Map<string, Clause>();
  /** A review study's stories with their clauses, by story id (= puzzle id). */
  private reviews = new Map<string, ReviewTask>();
  /** Items from outside the definition (stored per session; see assignedKey). */
  private assigned: Assigned | undefined = undefined;
  /** The pending draft save of the paraphrase on screen, and its timer. */
  private draftSave: (() => Promise<void>) | null = null;
  private draftTimer: unknown = null;
  private answered = new Set<number>();
  private session: SessionInfo | null = null;
  private stepIndex = 0;
  private resumedRun = false;
  private overallStartMs: number | null = null;
  private shownAtMs = 0;
  private hiddenSinceMs: number | null = null;
  private hiddenMs = 0;
  private changes = 0;
  private started: Promise<void> = Promise.resolve();
  private busy = false;
  private continuing = false;
  /** The session pointer as found in storage when the run opened (undefined: none yet). */
  private storedPointer: Pointer | undefined = undefined;
  /** The pointer to write when consent is given (null: the stored one already names this session). */
  private pendingPointer: Pointer | null = null;
  /** Consent must be followed by a session request (issued sessions, none stored yet). */
  private needsIssue = false;
  /** Ends the wait between two session requests ("Try again"). */
  private retryNow: (() => void) | null = null;
  /** The resume code the participant typed (normalised), sent with the session request; null: none. */
  private typedResumeCode: string | null = null;
  /** "I have a resume code" was pressed while connecting: the resume screen after the current try. */
  private codeWanted = false;
  /** The server's clock minus this browser's (issued sessions), added to every time the run writes. */
  private offsetMs = 0;
  /** The trial on screen's time from earlier page loads (spentKey). */
  private spentBefore: Spent = NO_TIME;
  /** When the time on screen was last written (this run's clock). */
  private spentSavedAtMs = 0;
  /** The writes of the time on screen, one after another (a row's commit waits for them). */
  private spentWrite: Promise<void> = Promise.resolve();
  /** This session's rows refused for good by a sink (the page tells the participant at once). */
  refusal: SinkRefusal | null = null;

  constructor(readonly deps: RunDeps) {
    deps.outbox.subscribe(() => this.checkRefusals());
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private set(state: RunScreen): void {
    this.state = state;
    for (const l of this.listeners) l();
  }

  /**
   * The time the run writes (started_at, answered_at, the session's start): this browser's clock
   * corrected by the results server's for an issued session, so a device whose clock is wrong
   * still writes times the server accepts. The page's countdowns use it too.
   */
  now(): number {
    return this.deps.now() + this.offsetMs;
  }

  /** The code that continues this issued session on another device; null for any other session. */
  get resumeCode(): string | null {
    const code = this.storedPointer?.issued?.resume_code;
    return code === undefined || code === '' ? null : code;
  }

  /** The consent screen may take a resume code: the session is still to be asked of the results server. */
  get takesResumeCode(): boolean {
    return this.needsIssue;
  }

  /** Updates `refusal` from the outbox; the listeners hear of a change (not of every acknowledgement). */
  private checkRefusals(): void {
    if (this.sessionId === '') return;
    const reports = this.deps.outbox.sinkReports(this.sessionId).filter((r) => r.refused > 0);
    const primary = this.primarySink;
    const report = reports.find((r) => r.id === primary) ?? reports[0];
    const next: SinkRefusal | null = report ? { sink: report.id, count: report.refused, said: report.refusal } : null;
    const before = this.refusal;
    if (before?.sink === next?.sink && before?.count === next?.count && before?.said === next?.said) return;
    this.refusal = next;
    for (const l of this.listeners) l();
  }

  private get perf() {
    return this.deps.perf ?? performance;
  }

  get condition(): StudyCondition | null {
    return this.schedule?.condition ?? null;
  }

  /** Progress over main and check trials: [answered, total]. */
  progress(): [number, number] {
    const counted = this.schedule?.trials.filter((t) => t.item.phase !== 'practice') ?? [];
    return [counted.filter((t) => this.answered.has(t.trialIndex)).length, counted.length];
  }

  /**
   * Finds or starts the session, takes its lock, applies the resume policy and schedules the
   * participant. Ends on `blocked` or `error`, or ready for `prepare`.
   */
  async open(): Promise<boolean> {
    const { deps } = this;
    if (deps.issuer) {
      // Ids the server would refuse: said now, before consent, rather than after it.
      const problem = sessionRequestProblem(sessionRequestOf(deps.issuer.study, deps.identity));
      if (problem) {
        this.set({ kind: 'error', message: `This link cannot be used: ${problem}` });
        return false;
      }
    }
    if (isLiveReview(deps.def) && !deps.reviewItems) {
      this.set({
        kind: 'error',
        message:
          'This review study gets the stories to review from the results server, which this page cannot ask (a preview, or a page inside JATOS). Open the participant link the results server serves; to try the screens, embed stories in the study instead.',
      });
      return false;
    }
    // Read only: a new session's pointer is written when consent is given (acceptConsent).
    this.storedPointer = (await deps.storage.get(this.pointerKey)) as Pointer | undefined;
    let pointer = this.storedPointer ?? freshPointer(deps);
    this.pendingPointer = this.storedPointer ? null : pointer;
    this.offsetMs = pointer.issued?.clock_offset_ms ?? 0;
    let sessionId = idOfPointer(pointer);
    // A new session, or a pointer written (browser-made) before the study asked for sessions but
    // without a session record yet: consent is asked, then the server.
    this.needsIssue = deps.issuer !== undefined && pointer.issued === undefined;
    if (!(await deps.outbox.claim(sessionId))) {
      this.set({
        kind: 'blocked',
        reason: 'This study is already open in another tab or window of this browser. Carry on there.',
      });
      return false;
    }
    let info = await deps.outbox.getSession(sessionId);
    // The rows of a reopened session: read once, for the resume decision and the answered set.
    let rows: readonly ResultRow[] = [];
    if (info) {
      this.assigned = (await deps.storage.get(assignedKey(sessionId))) as Assigned | undefined;
      rows = await deps.outbox.rows(sessionId);
      const complete = this.trialCount(sessionId) === rows.length;
      const decision = complete ? 'resume' : resumeDecision(deps.def, Date.parse(info.started_at), this.now());
      if (decision === 'expired') {
        return this.block(
          `This session started more than ${deps.def.maxAgeMinutes} minutes ago and can no longer be continued.`,
        );
      }
      if (decision === 'refuse') {
        return this.block('This study was already started in this browser and cannot be taken again.');
      }
      if (decision === 'restart') {
        // The restarted session's pointer, like a new one, is written only when consent is given.
        await deps.outbox.release(sessionId);
        pointer = { base: pointer.base, restarts: pointer.restarts + 1 };
        this.pendingPointer = pointer;
        this.needsIssue = deps.issuer !== undefined;
        sessionId = idOfPointer(pointer);
        if (!(await deps.outbox.claim(sessionId))) return this.block('This study is already open in another tab.');
        info = undefined;
        rows = [];
        this.assigned = undefined;
      }
    }
    // A browser-made session already under way (begun before the study asked for sessions) goes on as it was.
    if (info && pointer.issued === undefined) this.needsIssue = false;
    this.sessionId = sessionId;
    if (!info && deps.declines?.has(this.declineKey)) {
      // Declined before (a reload of the declined page): still nothing to record.
      await deps.outbox.release(sessionId);
      this.set({ kind: 'declined' });
      return false;
    }
    if (!this.reschedule(sessionId, pointer.issued)) return false;
    if (info) {
      this.session = info;
      this.resumedRun = true;
      for (const row of rows) this.answered.add(row.trial_index);
    }
    this.checkRefusals();
    return true;
  }

  private get pointerKey(): string {
    return pointerKey(this.deps.token, whoOf(this.deps.identity));
  }

  /** The decline memo's key for this link and participant. */
  get declineKey(): string {
    return `clutrr-lab-declined/${hashHex(this.deps.token)}/${encodeURIComponent(whoOf(this.deps.identity))}`;
  }

  /** Who the schedule is for: the issued session's number and condition, else the link's (or a hash). */
  private participantInput(sessionId: string, issued: IssuedSession | undefined) {
    const { identity } = this.deps;
    return {
      participantNumber: issued ? issued.participant : (identity.participantNumber ?? participantNumberOf(sessionId)),
      sessionSeed: sessionId,
      forcedCondition:
        (issued ? (issued.condition ?? identity.forcedCondition) : identity.forcedCondition) ?? undefined,
      participantId: identity.participantId,
      items: this.assigned?.items,
    };
  }

  /** Schedules the participant (a provisional schedule until a session is issued); false after showing the error. */
  private reschedule(sessionId: string, issued: IssuedSession | undefined): boolean {
    try {
      this.schedule = scheduleParticipant(this.deps.def, this.participantInput(sessionId, issued));
      return true;
    } catch (e) {
      if (e instanceof StudyScheduleError) {
        this.set({ kind: 'error', message: e.message });
        return false;
      }
      throw e;
    }
  }

  private trialCount(sessionId: string): number {
    try {
      return scheduleParticipant(this.deps.def, this.participantInput(sessionId, this.storedPointer?.issued)).trials
        .length;
    } catch {
      return -1;
    }
  }

  private block(reason: string): false {
    this.set({ kind: 'blocked', reason });
    return false;
  }

  /** Generates every trial's puzzle (progress on screen), then shows consent, or carries on a resumed run. */
  async prepare(): Promise<void> {
    const trials = this.schedule!.trials;
    if (this.deps.def.kind === 'solve') {
      this.contents = new Map();
      for (const trial of trials) {
        this.set({ kind: 'preparing', done: this.contents.size, total: trials.length });
        this.contents.set(contentKey(trial.item), await this.deps.makeTrial(trial));
      }
    } else if (!this.prepareCollection()) return;
    if (this.resumedRun) await this.resumeCollection();
    else this.set({ kind: 'consent' });
  }

  /**
   * A collection study's trial contents, made on the page (no puzzle to generate): each
   * paraphrase item's clause from its id and seed, each review item's story and clause (embedded,
   * or as the queue handed it out). A live review study has none before its items arrive. False
   * after showing what cannot be shown.
   */
  private prepareCollection(): boolean {
    const { def } = this.deps;
    const fail = (message: string) => {
      this.set({ kind: 'error', message });
      return false;
    };
    if (def.kind === 'paraphrase') {
      for (const { item } of this.schedule!.trials) {
        const clause = clauseFromId(item.puzzleId, item.seed);
        if ('error' in clause) return fail(`This study cannot be shown: ${clause.error}.`);
        this.clauses.set(contentKey(item), clause);
      }
      return true;
    }
    const items: readonly ReviewItem[] = isLiveReview(def)
      ? (this.assigned?.reviews ?? [])
      : def.reviewStories.flatMap((s) => {
          const item = itemOfStory(s);
          return 'error' in item ? [] : [item];
        });
    for (const item of items) {
      const task = reviewTask(item);
      if ('error' in task) return fail(`This study cannot be shown: ${task.error}.`);
      this.reviews.set(item.story_id, task);
    }
    const missing = isLiveReview(def) && this.assigned === undefined ? [] : this.schedule!.trials;
    const unknown = missing.find((t) => !this.reviews.has(t.item.puzzleId));
    return unknown ? fail(`This study cannot be shown: it has no story "${unknown.item.puzzleId}".`) : true;
  }

  /** A reopened collection session: its items are fetched first if they never arrived (a live review). */
  private async resumeCollection(): Promise<void> {
    if (this.deps.def.kind !== 'solve' && this.assigned === undefined && isLiveReview(this.deps.def)) {
      if (!(await this.assignItems())) return;
    }
    await this.goToResumePoint();
  }

  /**
   * Consent given: the session pointer is written now (not before), then the instructions show.
   * If another tab of this browser gave consent to the same link in the meantime (it wrote another
   * anonymous session), this one is blocked rather than run as a second session.
   */
  async acceptConsent(resumeCode?: string): Promise<void> {
    if (this.state.kind !== 'consent' || this.busy) return;
    this.busy = true;
    try {
      if (this.needsIssue) {
        // The pointer is written with the issued session (nothing if the server refuses).
        this.deps.declines?.delete(this.declineKey);
        const typed = resumeCode?.trim() ?? '';
        if (typed !== '') return await this.askWithCode(typed);
        this.typedResumeCode = null;
        this.set({ kind: 'connecting', attempt: 0, problem: null, waiting: true });
        await this.issueSession();
        return;
      }
      const pending = this.pendingPointer;
      if (pending) {
        const expected = this.storedPointer;
        const after = await this.deps.storage.update(this.pointerKey, (old) =>
          samePointer(old, expected) ? pending : undefined,
        );
        if (!samePointer(after, pending)) {
          await this.deps.outbox.release(this.sessionId);
          this.block('This study was started in another tab or window of this browser. Carry on there.');
          return;
        }
        this.storedPointer = pending;
        this.pendingPointer = null;
      }
      this.deps.declines?.delete(this.declineKey);
      await this.beforeInstructions();
    } finally {
      this.busy = false;
    }
  }

  /**
   * The resume code typed on the `resume` screen (after the server asked for it): asks for the
   * session again with it. A text that cannot be a code is said at once, without a request.
   */
  async resume(code: string): Promise<void> {
    if (this.state.kind !== 'resume' || this.busy) return;
    this.busy = true;
    try {
      await this.askWithCode(code);
    } finally {
      this.busy = false;
    }
  }

  /** Back from the `resume` screen to the consent (to start without a code). */
  leaveResume(): void {
    if (this.state.kind !== 'resume' || this.busy) return;
    this.typedResumeCode = null;
    this.set({ kind: 'consent' });
  }

  private async askWithCode(typed: string): Promise<void> {
    const code = normalResumeCode(typed);
    if (code === null) {
      const shown = typed.trim();
      this.set({
        kind: 'resume',
        problem:
          shown === ''
            ? 'Please type the code shown on your other device: 8 letters and digits, like K7QM-4TZP.'
            : `“${shown.length > 24 ? `${shown.slice(0, 24)}…` : shown}” is not a resume code. A code has 8 letters and digits, like K7QM-4TZP; please check it on your other device.`,
      });
      return;
    }
    this.typedResumeCode = code;
    this.set({ kind: 'connecting', attempt: 0, problem: null, waiting: true });
    await this.issueSession();
  }

  /** After consent (and the issued session): a collection study's items from the server, then the instructions. */
  private async beforeInstructions(): Promise<void> {
    if (await this.assignItems()) this.set({ kind: 'instructions' });
  }

  /**
   * Items from the results server, once per session, stored before they are used: a live review
   * study's stories (`fetching` while it asks; a refusal shows `refused`, an empty queue
   * `no-items`, and nothing is recorded), or a paraphrase study's clauses picked with the stories
   * per clause so far (`favourUncovered`; without an answer they are picked as without it). True
   * when the run may go on.
   */
  private async assignItems(): Promise<boolean> {
    const { deps } = this;
    const def = deps.def;
    if (this.assigned !== undefined) return true;
    // Asked before in this browser (a reload before the first trial): the same items, not new ones.
    const stored = (await deps.storage.get(assignedKey(this.sessionId))) as Assigned | undefined;
    if (stored !== undefined) {
      this.assigned = stored;
      return this.reschedule(this.sessionId, this.storedPointer?.issued) && this.prepareCollection();
    }
    let assigned: Assigned;
    if (isLiveReview(def)) {
      const reviews = await this.fetchReviewItems();
      if (reviews === null) return false;
      if (reviews.length === 0) {
        this.set({ kind: 'no-items' });
        return false;
      }
      const items = reviews.map((r): StudyItem => ({
        puzzleId: r.story_id,
        phase: 'main',
        seed: r.seed,
        k: r.k,
        task: 1,
      }));
      assigned = { items, reviews };
    } else if (def.kind === 'paraphrase' && def.favourUncovered && deps.coverage) {
      const answer = await deps.coverage().catch((): CoverageAnswer => ({ ok: false, message: '' }));
      const clauses = pickClauses(def.seed, this.sessionId, def, answer.ok ? answer.coverage : undefined);
      assigned = {
        items: clauses.map((c): StudyItem => ({ puzzleId: c.id, phase: 'main', seed: c.seed, k: c.k, task: 1 })),
      };
    } else return true;
    await deps.storage.put(assignedKey(this.sessionId), assigned);
    this.assigned = assigned;
    if (!this.reschedule(this.sessionId, this.storedPointer?.issued)) return false;
    return this.prepareCollection();
  }

  /**
   * Asks the live review queue for this session's stories until it answers (backoff as for the
   * session, CONNECT_ATTEMPTS tries, then "Try again"); null after a refusal (shown).
   */
  private async fetchReviewItems(): Promise<readonly ReviewItem[] | null> {
    const { deps } = this;
    const secret = this.storedPointer?.issued?.secret;
    this.set({ kind: 'fetching', attempt: 0, problem: null, waiting: true });
    for (let attempt = 1; ; attempt++) {
      const answer = await deps.reviewItems!(this.sessionId, secret).catch((e: unknown): ReviewItemsAnswer => ({
        ok: false,
        kind: 'unavailable',
        message: e instanceof Error ? e.message : String(e),
      }));
      if (answer.ok) return answer.items;
      if (answer.kind === 'refused') {
        this.set({ kind: 'refused', message: answer.message });
        return null;
      }
      const waiting = attempt < CONNECT_ATTEMPTS;
      this.set({
        kind: 'fetching',
        attempt,
        problem: attempt >= CONNECT_PATIENCE || !waiting ? answer.message : null,
        waiting,
      });
      const delay = retryDelay(attempt, answer.retryAfterS);
      await this.waitForRetry(waiting ? delay : null);
      if (!waiting) attempt = 0;
      this.set({ kind: 'fetching', attempt, problem: null, waiting: true });
    }
  }

  /**
   * After consent, for a study with issued sessions: asks the server until it answers (backoff,
   * CONNECT_ATTEMPTS tries, then "Try again"). Refused: the `refused` screen, the provisional
   * lock let go, nothing written. Granted: the session's lock, the pointer with the grant (only
   * if the stored pointer is still the one this run read), the secret; then the instructions, or
   * the resume point when this browser already has rows of that session.
   */
  private async issueSession(): Promise<void> {
    const { deps } = this;
    const issuer = deps.issuer!;
    const code = this.typedResumeCode;
    this.codeWanted = false;
    const request: SessionRequest = {
      ...sessionRequestOf(issuer.study, deps.identity),
      ...(code === null ? {} : { resume_code: code }),
    };
    let grant: SessionGrant | null = null;
    let receivedAt = 0;
    for (let attempt = 1; grant === null; attempt++) {
      const answer = await issuer.request(request).catch((e: unknown): SessionAnswer => ({
        ok: false,
        kind: 'unavailable',
        message: e instanceof Error ? e.message : String(e),
      }));
      if (answer.ok) {
        receivedAt = deps.now();
        grant = answer.grant;
        break;
      }
      if (answer.kind === 'refused' && answer.reason === 'resume-code') {
        // The session exists: the participant types its code (or goes back); the provisional lock stays.
        this.set({ kind: 'resume', problem: answer.message });
        return;
      }
      if (answer.kind === 'refused') {
        await deps.outbox.release(this.sessionId);
        this.set({ kind: 'refused', message: answer.message });
        return;
      }
      if (code !== null && answer.retryAfterS !== undefined) {
        // Too many wrong codes from here: trying the same code again cannot help before then.
        const wait = Math.ceil(answer.retryAfterS);
        this.set({
          kind: 'resume',
          problem: `${answer.message.replace(/\.$/, '')}. Please wait ${wait >= 120 ? `${Math.ceil(wait / 60)} minutes` : `${wait} seconds`} before you try again.`,
        });
        return;
      }
      const waiting = attempt < CONNECT_ATTEMPTS;
      // A server that limits new sessions from this network says so at once: the participant
      // may have a resume code.
      const limited = answer.retryAfterS !== undefined && answer.retryAfterS * 1000 > CONNECT_MAX_DELAY_MS;
      this.set({
        kind: 'connecting',
        attempt,
        problem: attempt >= CONNECT_PATIENCE || !waiting || limited ? answer.message : null,
        waiting,
      });
      const delay = retryDelay(attempt, answer.retryAfterS);
      if (!this.codeWanted) await this.waitForRetry(waiting ? delay : null);
      if (this.codeWanted) {
        this.codeWanted = false;
        this.set({ kind: 'resume', problem: null });
        return;
      }
      if (!waiting) attempt = 0;
      this.set({ kind: 'connecting', attempt, problem: null, waiting: true });
    }
    this.codeWanted = false;

    const provisional = this.sessionId;
    if (grant.session_id !== provisional && !(await deps.outbox.claim(grant.session_id))) {
      await deps.outbox.release(provisional);
      this.block('This study is already open in another tab or window of this browser. Carry on there.');
      return;
    }
    const serverMs = Date.parse(grant.server_time);
    const issued: IssuedSession = {
      session_id: grant.session_id,
      secret: grant.secret,
      participant: grant.participant,
      condition: grant.condition,
      ...(grant.resume_code === '' ? {} : { resume_code: grant.resume_code }),
      // At receipt this browser's corrected clock reads the server's answer time (never before the issue).
      clock_offset_ms: Number.isFinite(serverMs) ? Math.round(serverMs - receivedAt) : 0,
    };
    const base = this.pendingPointer ?? this.storedPointer ?? freshPointer(deps);
    const pointer: Pointer = { base: base.base, restarts: base.restarts, issued };
    const expected = this.storedPointer;
    const after = await deps.storage.update(this.pointerKey, (old) =>
      samePointer(old, expected) ? pointer : undefined,
    );
    if (!samePointer(after, pointer)) {
      await deps.outbox.release(grant.session_id);
      if (grant.session_id !== provisional) await deps.outbox.release(provisional);
      this.block('This study was started in another tab or window of this browser. Carry on there.');
      return;
    }
    if (grant.session_id !== provisional) await deps.outbox.release(provisional);
    this.storedPointer = pointer;
    this.pendingPointer = null;
    this.needsIssue = false;
    this.typedResumeCode = null;
    this.offsetMs = issued.clock_offset_ms ?? 0;
    await deps.outbox.putSecret(grant.session_id, grant.secret);
    this.sessionId = grant.session_id;
    this.checkRefusals();
    // A collection study's items depend on the session (its seed, or what the server handed it).
    this.assigned = (await deps.storage.get(assignedKey(grant.session_id))) as Assigned | undefined;
    if (!this.reschedule(grant.session_id, issued)) return;
    if (deps.def.kind !== 'solve' && !this.prepareCollection()) return;
    // The server gave back a session this browser already has rows of (the same participant id
    // after a restart): carry on with it.
    const info = await deps.outbox.getSession(grant.session_id);
    if (info) {
      this.session = info;
      this.resumedRun = true;
      for (const row of await deps.outbox.rows(grant.session_id)) this.answered.add(row.trial_index);
      for (const index of grant.answered) this.answered.add(index);
      return this.resumeCollection();
    }
    // Trials answered in another browser (the same participant on another device): the server
    // has their rows, so they are not shown again here (answering them twice would conflict).
    // After the instructions, showStep passes over them.
    for (const index of grant.answered) this.answered.add(index);
    await this.beforeInstructions();
  }

  /** Waits `ms` (null: until "Try again"), or less when the participant presses "Try again". */
  private waitForRetry(ms: number | null): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        if (this.retryNow === done) this.retryNow = null;
        resolve();
      };
      this.retryNow = done;
      if (ms !== null) void (this.deps.sleep ?? realSleep)(ms).then(done);
    });
  }

  /**
   * "I have a resume code" on the connecting screen (the server is slow to answer, or limits new
   * sessions from this network): the resume screen, once the try under way has ended.
   */
  enterResumeCode(): void {
    if (this.state.kind !== 'connecting' || !this.needsIssue) return;
    this.codeWanted = true;
    this.retryNow?.();
  }

  /** "Try again" on the connecting screen: the next session request goes now. */
  retryConnection(): void {
    if (this.state.kind === 'connecting' || this.state.kind === 'fetching') this.retryNow?.();
  }

  /**
   * Consent declined: nothing is recorded (no pointer, session, row or trial mark; nothing is
   * sent), the session's lock is let go, and the decline is remembered outside the study's storage.
   */
  async decline(): Promise<void> {
    if (this.state.kind !== 'consent' || this.busy) return;
    this.deps.declines?.add(this.declineKey);
    this.set({ kind: 'declined' });
    await this.deps.outbox.release(this.sessionId);
  }

  /** The participant changed their mind on the declined page: forget the decline (the page then reloads). */
  forgetDecline(): void {
    this.deps.declines?.delete(this.declineKey);
  }

  /** `continue` on instructions, feedback and breaks. */
  async continue(): Promise<void> {
    const s = this.state.kind;
    // A second press (a click and Enter, a double click) while the first is under way does nothing.
    if (this.continuing) return;
    this.continuing = true;
    try {
      if (s === 'instructions') {
        await this.startSession();
        this.stepIndex = 0;
        await this.showStep();
      } else if (s === 'feedback' || s === 'break') {
        this.stepIndex++;
        await this.showStep();
      }
    } finally {
      this.continuing = false;
    }
  }

  private async startSession(): Promise<void> {
    const { deps } = this;
    const info: SessionInfo = {
      study_id: deps.def.studyId,
      session_id: this.sessionId,
      participant_id: deps.identity.participantId,
      condition: this.schedule!.condition.id,
      user_agent: deps.device.userAgent,
      screen: deps.device.screen,
      started_at: iso(this.now()),
    };
    await deps.outbox.putSession(info);
    this.session = (await deps.outbox.getSession(this.sessionId)) ?? info;
  }

  private async goToResumePoint(): Promise<void> {
    const next = firstUnanswered(this.schedule!.trials, this.answered);
    if (!next) return this.complete(false);
    this.stepIndex = this.schedule!.steps.findIndex(
      (s) => s.kind === 'trial' && s.trial.trialIndex === next.trialIndex,
    );
    await this.showStep();
  }

  private get steps(): readonly Step[] {
    return this.schedule!.steps;
  }

  /**
   * Shows the step at stepIndex, skipping trials already answered (and breaks before them on
   * resume); `timeUp`: the trial before ran out of time, which the next screen says.
   */
  private async showStep(timeUp = false): Promise<void> {
    const flag = timeUp ? { timeUp: true } : {};
    while (this.stepIndex < this.steps.length) {
      const step = this.steps[this.stepIndex]!;
      if (step.kind === 'trial' && !this.answered.has(step.trial.trialIndex)) return this.showTrial(step.trial, timeUp);
      if (step.kind === 'break') {
        const [done, total] = this.progress();
        return this.set({ kind: 'break', done, total, ...flag });
      }
      this.stepIndex++;
    }
    return this.complete(false, timeUp);
  }

  private async showTrial(trial: Trial, timeUp = false): Promise<void> {
    const { deps } = this;
    const now = this.now();
    const earlier = await deps.outbox.startedAt(this.sessionId, trial.trialIndex);
    const firstShown = earlier ? Date.parse(earlier) : now;
    const condition = this.schedule!.condition;
    if (trial.item.phase !== 'practice' && condition.overallLimitS !== null && this.overallStartMs === null) {
      const first = this.schedule!.trials.find((t) => t.item.phase !== 'practice')!;
      const mark = await deps.outbox.startedAt(this.sessionId, first.trialIndex);
      this.overallStartMs = mark ? Date.parse(mark) : now;
    }
    const timing: TrialTiming = {
      trial,
      deadline: condition.perPuzzleLimitS === null ? null : firstShown + condition.perPuzzleLimitS * 1000,
      overallDeadline:
        trial.item.phase === 'practice' || condition.overallLimitS === null
          ? null
          : this.overallStartMs! + condition.overallLimitS * 1000,
      resumed: earlier !== undefined,
      ...(timeUp ? { timeUp: true } : {}),
    };
    // A paraphrase's draft and the time on screen from before a reload (read before the clocks below start).
    const draft =
      deps.def.kind === 'paraphrase' ? await deps.storage.get(draftKey(this.sessionId, trial.trialIndex)) : undefined;
    const spent =
      earlier === undefined ? undefined : await deps.storage.get(spentKey(this.sessionId, trial.trialIndex));
    this.spentBefore = isSpent(spent) ? spent : NO_TIME;
    this.spentSavedAtMs = now;
    this.shownAtMs = now;
    this.hiddenMs = 0;
    this.hiddenSinceMs = null;
    this.changes = 0;
    const screen = this.blankScreen(timing);
    this.set(screen.kind === 'paraphrase' && isDraft(draft) ? this.withText(screen, draft.text) : screen);
    // After the screen is set, so the story shows without waiting for this write; submit waits for it.
    this.started = deps.outbox.markStarted(this.sessionId, trial.trialIndex, iso(firstShown));
    // A deadline already past (a reload after the limit) ends the trial at once.
    await this.tick();
  }

  /** A trial's screen with nothing answered yet, for the study's kind. */
  private blankScreen(timing: TrialTiming): AnyTrialScreen {
    const item = timing.trial.item;
    switch (this.deps.def.kind) {
      case 'solve':
        return {
          kind: 'trial',
          ...timing,
          content: this.contents.get(contentKey(item))!,
          picked: null,
          difficulty: null,
        };
      case 'paraphrase': {
        const clause = this.clauses.get(contentKey(item))!;
        return { kind: 'paraphrase', ...timing, clause, text: '', problems: this.checks(clause, '') };
      }
      case 'review':
        return { kind: 'review', ...timing, task: this.reviews.get(item.puzzleId)!, verdict: null, reasons: [] };
    }
  }

  /** The live checks of a paraphrase, with the study's length range. */
  private checks(clause: Clause, text: string): Problem[] {
    const { minWords, maxWords } = this.deps.def;
    return checkParaphrase(clause, text, { minWords, maxWords });
  }

  private withText(s: ParaphraseScreen, text: string): ParaphraseScreen {
    return { ...s, text, problems: this.checks(s.clause, text) };
  }

  /** The tab was hidden or shown again (visibilitychange): hidden time is recorded per trial. */
  visibility(hidden: boolean): void {
    const now = this.now();
    if (hidden && this.hiddenSinceMs === null) this.hiddenSinceMs = now;
    if (!hidden && this.hiddenSinceMs !== null) {
      this.hiddenMs += now - this.hiddenSinceMs;
      this.hiddenSinceMs = null;
    }
    // A phone may kill a hidden tab without another event: the draft and the time on screen are written now.
    if (hidden) {
      void this.flushDraft();
      void this.saveSpent();
    }
  }

  /** The page is going (pagehide): what is not written yet is written now, as far as the browser lets it. */
  leave(): Promise<void> {
    return Promise.all([this.flushDraft(), this.saveSpent()]).then(() => undefined);
  }

  /**
   * The trial on screen's time so far at `atMs` (this run's clock): the earlier page loads' and
   * this one's since it showed, hidden time included (its part in `hidden_ms`), as `rt_ms` counts it.
   */
  private spentAt(atMs: number): Spent {
    const hiddenNow = this.hiddenSinceMs === null ? 0 : Math.max(0, atMs - this.hiddenSinceMs);
    return {
      ms: this.spentBefore.ms + Math.max(0, atMs - this.shownAtMs),
      hidden_ms: this.spentBefore.hidden_ms + this.hiddenMs + hiddenNow,
    };
  }

  /**
   * Writes the time on screen of the trial shown (spentKey), after any write before it; not while
   * its row is being committed (the row holds the time then).
   */
  private saveSpent(): Promise<void> {
    const s = this.state;
    if (!isTrialScreen(s) || this.busy) return this.spentWrite;
    const now = this.now();
    const key = spentKey(this.sessionId, s.trial.trialIndex);
    const value = this.spentAt(now);
    this.spentSavedAtMs = now;
    this.spentWrite = this.spentWrite
      .then(() => this.deps.storage.put(key, value))
      .catch((e: unknown) => {
        this.storageProblem = e instanceof Error ? e.message : String(e);
      });
    return this.spentWrite;
  }

  pick(word: RelationWord): void {
    const s = this.state;
    if (s.kind !== 'trial' || this.busy) return;
    if (s.picked !== null && s.picked !== word) this.changes++;
    this.set({ ...s, picked: word });
  }

  rate(difficulty: number): void {
    const s = this.state;
    if (s.kind !== 'trial' || this.busy || !Number.isInteger(difficulty) || difficulty < 1 || difficulty > 5) return;
    this.set({ ...s, difficulty });
  }

  /**
   * The paraphrase as typed: the live checks run on it at once; the draft is written to storage
   * DRAFT_DELAY_MS after typing pauses (and when the tab is hidden), so a reload keeps it.
   */
  write(text: string): void {
    const s = this.state;
    if (s.kind !== 'paraphrase' || this.busy) return;
    this.set(this.withText(s, text));
    const key = draftKey(this.sessionId, s.trial.trialIndex);
    const timer = this.deps.timer ?? realTimer;
    if (this.draftTimer !== null) timer.clearTimeout(this.draftTimer);
    this.draftSave = () => this.deps.storage.put(key, { text, saved_at: iso(this.deps.now()) });
    this.draftTimer = timer.setTimeout(() => void this.flushDraft(), DRAFT_DELAY_MS);
  }

  /** Writes the pending draft now (the page calls it when the tab is hidden or left). */
  async flushDraft(): Promise<void> {
    const save = this.draftSave;
    this.cancelDraft();
    if (!save) return;
    try {
      await save();
    } catch (e) {
      this.storageProblem = e instanceof Error ? e.message : String(e);
    }
  }

  private cancelDraft(): void {
    if (this.draftTimer !== null) (this.deps.timer ?? realTimer).clearTimeout(this.draftTimer);
    this.draftTimer = null;
    this.draftSave = null;
  }

  /** A review's verdict; switching from one to the other counts as an answer change. */
  judge(verdict: 'good' | 'bad'): void {
    const s = this.state;
    if (s.kind !== 'review' || this.busy) return;
    if (s.verdict !== null && s.verdict !== verdict) this.changes++;
    this.set({ ...s, verdict });
  }

  /** Ticks or unticks a reason for "bad" (kept in REVIEW_REASONS order). */
  toggleReason(reason: ReviewReason): void {
    const s = this.state;
    if (s.kind !== 'review' || this.busy || !REVIEW_REASONS.includes(reason)) return;
    const on = new Set(s.reasons);
    if (on.has(reason)) on.delete(reason);
    else on.add(reason);
    this.set({ ...s, reasons: REVIEW_REASONS.filter((r) => on.has(r)) });
  }

  /** Whether the trial on screen may be submitted: a word and a rating; a paraphrase that passes every check; a verdict (for bad, a reason). */
  get ready(): boolean {
    const s = this.state;
    if (s.kind === 'trial') return s.picked !== null && s.difficulty !== null;
    if (s.kind === 'paraphrase') return s.problems.length === 0 && s.text.trim() !== '';
    if (s.kind === 'review') return s.verdict === 'good' || (s.verdict === 'bad' && s.reasons.length > 0);
    return false;
  }

  /** Records the answer (once it is ready) and moves on once the row is durable. */
  async submit(): Promise<void> {
    const s = this.state;
    if (!isTrialScreen(s) || !this.ready || this.busy) return;
    this.perf.mark(SUBMIT_MARK);
    await this.finish(s, 'response');
  }

  /**
   * Checks the deadlines and, every SPENT_HEARTBEAT_MS, writes the time on screen (the page calls
   * it every few hundred ms on every trial, and a fake clock in tests).
   */
  async tick(): Promise<void> {
    const s = this.state;
    if (!isTrialScreen(s) || this.busy) return;
    const now = this.now();
    if (s.overallDeadline !== null && now >= s.overallDeadline) return this.endOverall(s);
    if (s.deadline !== null && now >= s.deadline) return this.finish(s, 'timeout');
    if (now - this.spentSavedAtMs >= SPENT_HEARTBEAT_MS) await this.saveSpent();
  }

  private row(s: AnyTrialScreen, endedOn: EndedOn, startedAt: string, answeredMs: number): ResultRow {
    const { deps } = this;
    // Never more than the time since the first showing (a clock set back between two page loads).
    const spent = this.spentAt(answeredMs);
    const rt = Math.max(0, Math.min(Math.round(spent.ms), answeredMs - Date.parse(startedAt)));
    const hidden = Math.min(rt, Math.max(0, Math.round(spent.hidden_ms)));
    const item = s.trial.item;
    return {
      study_id: deps.def.studyId,
      session_id: this.sessionId,
      participant_id: deps.identity.participantId,
      condition: this.schedule!.condition.id,
      trial_index: s.trial.trialIndex,
      phase: item.phase,
      puzzle_id: item.puzzleId,
      seed: item.seed,
      k: item.k,
      task: item.task,
      strict: deps.def.strict,
      ...this.answerColumns(s, endedOn),
      rt_ms: endedOn === 'skipped' ? 0 : rt,
      ended_on: endedOn,
      time_limit_s: this.schedule!.condition.perPuzzleLimitS,
      answer_changes: endedOn === 'skipped' ? 0 : this.changes,
      hidden_ms: endedOn === 'skipped' ? 0 : hidden,
      resumed: endedOn === 'skipped' ? false : s.resumed,
      started_at: startedAt,
      answered_at: iso(answeredMs),
      prolific_study_id: deps.identity.prolificStudyId,
      prolific_session_id: deps.identity.prolificSessionId,
    };
  }

  /**
   * The columns that say what was asked and answered, per kind: a solve trial's question and
   * word; a collection trial's as `collect/rows.ts` maps them (src/study/README.md, "collection
   * rows"). `strict` stays the study's, as for every row (the results server checks it).
   */
  private answerColumns(s: AnyTrialScreen, endedOn: EndedOn) {
    const answered = endedOn === 'response';
    if (s.kind === 'trial') {
      const response = answered ? (s.picked ?? '') : '';
      return {
        query_a: s.content.queryA,
        query_b: s.content.queryB,
        gold: s.content.gold,
        response,
        correct: response === s.content.gold,
        difficulty: answered ? s.difficulty : null,
        story: s.content.story,
      };
    }
    const f =
      s.kind === 'paraphrase'
        ? paraphraseFields(
            s.clause,
            s.text,
            s.text.trim() !== '' && this.checks(s.clause, s.text).length === 0,
            endedOn,
          )
        : reviewFields(
            s.task.item,
            s.verdict === null
              ? null
              : s.verdict === 'good'
                ? { verdict: 'good' }
                : { verdict: 'bad', reasons: s.reasons },
            endedOn,
          );
    const { query_a, query_b, gold, response, correct, difficulty, story } = f;
    return { query_a, query_b, gold, response, correct, difficulty, story };
  }

  /** Commits a row, measured as `study:put`. */
  private async put(row: ResultRow): Promise<void> {
    const t0 = this.perf.now();
    await this.deps.outbox.put(row);
    this.perf.measure('study:put', { start: t0, end: this.perf.now() });
    this.answered.add(row.trial_index);
  }

  private async finish(s: AnyTrialScreen, endedOn: EndedOn): Promise<void> {
    this.busy = true;
    try {
      const answeredMs = this.now();
      if (s.kind === 'paraphrase') this.cancelDraft();
      await this.started;
      const startedAt = (await this.deps.outbox.startedAt(this.sessionId, s.trial.trialIndex)) ?? iso(this.shownAtMs);
      const row = this.row(s, endedOn, startedAt, answeredMs);
      await this.put(row);
      await this.forgetTrial(s);
      if (s.kind === 'trial' && s.trial.item.phase === 'practice') {
        this.set({
          kind: 'feedback',
          content: s.content,
          response: row.response,
          correct: row.correct,
          timedOut: endedOn === 'timeout',
        });
      } else {
        this.stepIndex++;
        // A main or check trial that ran out: the next screen says so (practice has its feedback).
        await this.showStep(endedOn === 'timeout');
      }
    } finally {
      this.busy = false;
    }
  }

  /**
   * The row holds the trial now: its draft and its time on screen go (a failure leaves a record no
   * trial shows again).
   */
  private async forgetTrial(s: AnyTrialScreen): Promise<void> {
    const { storage } = this.deps;
    const index = s.trial.trialIndex;
    await this.spentWrite;
    await storage.delete(spentKey(this.sessionId, index)).catch(() => undefined);
    if (s.kind === 'paraphrase') await storage.delete(draftKey(this.sessionId, index)).catch(() => undefined);
  }

  /** The overall limit ran out: the trial on screen times out, the rest are recorded as skipped. */
  private async endOverall(s: AnyTrialScreen): Promise<void> {
    this.busy = true;
    try {
      const now = this.now();
      this.cancelDraft();
      await this.started;
      const startedAt = (await this.deps.outbox.startedAt(this.sessionId, s.trial.trialIndex)) ?? iso(this.shownAtMs);
      await this.put(this.row(s, 'timeout', startedAt, now));
      await this.forgetTrial(s);
      for (const trial of this.schedule!.trials) {
        if (this.answered.has(trial.trialIndex)) continue;
        const screen = this.blankScreen({ trial, deadline: null, overallDeadline: null, resumed: false });
        await this.put(this.row(screen, 'skipped', iso(now), now));
      }
      await this.complete(true);
    } finally {
      this.busy = false;
    }
  }

  private async complete(timedOut: boolean, timeUp = false): Promise<void> {
    const rows = await this.deps.outbox.rows(this.sessionId);
    const session = this.session ?? (await this.deps.outbox.getSession(this.sessionId))!;
    const downloaded = (await this.deps.storage.get(downloadedKey(this.sessionId))) !== undefined;
    this.set({ kind: 'complete', rows, session, timedOut, downloaded, ...(timeUp ? { timeUp: true } : {}) });
  }

  /**
   * The participant downloaded their answers (a study whose rows go nowhere shows its completion
   * code only after that). Recorded in the study's storage beside the session, so a reload of the
   * completion screen keeps it; never sent.
   */
  async markDownloaded(): Promise<void> {
    const s = this.state;
    if (s.kind !== 'complete' || s.downloaded) return;
    this.set({ ...s, downloaded: true });
    await this.deps.storage.put(downloadedKey(this.sessionId), this.deps.now());
  }

  /** True when no sink sends the rows anywhere: the participant's file is the only copy the researcher gets. */
  get downloadOnly(): boolean {
    return isDownloadOnly(this.deps.def.sinks);
  }

  /** The transport id of the study's primary destination (`primarySinkId`), or null when nothing is sent. */
  get primarySink(): string | null {
    return primarySinkId(this.deps.def.sinks, this.deps.outbox.transportIds());
  }

  /**
   * True when the participant may be sent on (the completion redirect, JATOS's end): the primary
   * destination acknowledged every row (other sinks may still be sending, or have refused);
   * without one, every transport has settled.
   */
  primaryHasAll(): boolean {
    const primary = this.primarySink;
    return primary === null ? this.deps.outbox.allAcknowledged() : this.deps.outbox.hasAll(primary);
  }

  /** Where the sinks stand: `failed` once `sendingSinceMs` has waited more than `patienceMs` without every acknowledgement. */
  sinkState(sendingSinceMs: number, patienceMs = 15_000): SinkState {
    if (this.downloadOnly) return 'none';
    const { outbox } = this.deps;
    if (!outbox.noRefusals()) return 'refused';
    if (outbox.allAcknowledged()) return 'sent';
    if (this.primarySink !== null && this.primaryHasAll()) return 'partly-sent';
    return this.deps.now() - sendingSinceMs > patienceMs ? 'failed' : 'sending';
  }
}
