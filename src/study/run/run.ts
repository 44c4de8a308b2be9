/**
 * A participant's run as a small state machine without React: which screen shows,
 * what each answer records, and when. The participant page renders `run.state` and calls the
 * methods below; the tests drive the same class with MemoryStorage and a fake clock.
 *
 * Order of a run: `open` (session identity, single-writer lock, resume policy, schedule) →
 * `prepare` (every trial's puzzle generated up front, so an answer is followed at once by the next
 * story) → consent → an issued session (session.ts) → a collection study's items from the server
 * → instructions → trials (trials.ts; practice with feedback; breaks every `breakEvery` main
 * trials) → completion. Consent can be declined: nothing is written before consent (the session
 * pointer of this browser is written when consent is given), so a participant who declines
 * leaves no session, row or trial mark behind; only a decline memo (the page's sessionStorage)
 * remembers it, so a reload shows the declined page again. A reopened session skips consent and
 * instructions and carries on at its first unanswered trial; a trial that was shown but not
 * answered is shown again and its row says `resumed: true`.
 *
 * Issued sessions: when `deps.issuer` is given (the study sends to the results server, not a
 * preview), the session id, the participant number and the secret come from the server. Until
 * consent the run works under a provisional id (its lock, the puzzles: every participant has the
 * same items, so the contents are kept by puzzle id and survive the reschedule). Ids the server
 * would refuse are caught in `open`, before consent.
 *
 * Across devices: the grant's resume code is kept in the pointer and shown after consent; typed on
 * another device (with consent, or on the `resume` screen when the server asks for it) it is sent
 * with the session request, and the grant's `answered` trials are not shown again. An adaptive
 * session's grant also carries the facts of its stored main rows (`earlier`): kept beside the
 * session (`resumedKey`), they decide the next items with this browser's own rows. A row a sink
 * refuses for good is told at once (`refusal`, from the outbox's subscription).
 */
import type { CoverageAnswer, ReviewItem, ReviewItemsAnswer } from '../delivery/serverApi';
import { normalResumeCode, readEarlierFacts, sessionRequestOf, sessionRequestProblem } from '../delivery/serverApi';
import type { EarlierRow, StoredItems } from '../kinds';
import { queueItems } from '../kinds/review';
import type { ResultRow } from '../results/results';
import { resumeDecision, scheduleParticipant, StudyScheduleError } from '../schedule/schedule';
import { clockOffset } from './clock';
import { askWithRetries, RetryWait } from './retry';
import {
  askForSession,
  assignedKey,
  declineKey,
  freshPointer,
  idOfPointer,
  participantNumberOf,
  type IssuedSession,
  type Pointer,
  pointerKey,
  resumedKey,
  samePointer,
} from './session';
import { TrialRun, withServerFacts } from './trials';

/** What `resumedKey` holds, read back defensively (anything malformed is left out). */
function readResumed(value: unknown): { answered: number[]; earlier: EarlierRow[] } {
  const v = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const answered = Array.isArray(v.answered)
    ? v.answered.filter((i): i is number => Number.isInteger(i) && (i as number) >= 0)
    : [];
  return { answered, earlier: readEarlierFacts(v.earlier) ?? [] };
}

export { SPENT_HEARTBEAT_MS, spentKey } from './clock';
export type { DeclineMemo, RunDeps, RunIdentity, SessionIssuer } from './deps';
export { DRAFT_DELAY_MS, draftKey } from './drafts';
export { CONNECT_ATTEMPTS, CONNECT_MAX_DELAY_MS, CONNECT_PATIENCE } from './retry';
export {
  type AnyTrialScreen,
  type FeedbackScreen,
  type ParaphraseScreen,
  type ReviewScreen,
  type RunScreen,
  type SinkRefusal,
  type SinkState,
  SUBMIT_MARK,
  type TrialScreen,
  type TrialTiming,
} from './screens';
export { participantNumberOf, sessionIdFor } from './session';

export class StudyRun extends TrialRun {
  /** Ends the wait between two requests to the results server ("Try again"). */
  private readonly retry = new RetryWait(this.deps.sleep);
  /** Items from outside the definition (stored per session; see assignedKey). */
  private assigned: StoredItems | undefined = undefined;
  private resumedRun = false;
  /** The session pointer as found in storage when the run opened (undefined: none yet). */
  private storedPointer: Pointer | undefined = undefined;
  /** The pointer to write when consent is given (null: the stored one already names this session). */
  private pendingPointer: Pointer | null = null;
  /** Consent must be followed by a session request (issued sessions, none stored yet). */
  private needsIssue = false;
  /** The resume code the participant typed (normalised), sent with the session request; null: none. */
  private typedResumeCode: string | null = null;
  /** "I have a resume code" was pressed while connecting: the resume screen after the current try. */
  private codeWanted = false;

  /** The code that continues this issued session on another device; null for any other session. */
  get resumeCode(): string | null {
    const code = this.storedPointer?.issued?.resume_code;
    return code === undefined || code === '' ? null : code;
  }

  /** The consent screen may take a resume code: the session is still to be asked of the results server. */
  get takesResumeCode(): boolean {
    return this.needsIssue;
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
    if (this.kind.liveItems(deps.def) && !deps.reviewItems) {
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
    // Trials of the session answered on another device, as the server said when it was continued here.
    let elsewhere: readonly number[] = [];
    if (info) {
      this.assigned = (await deps.storage.get(assignedKey(sessionId))) as StoredItems | undefined;
      rows = await deps.outbox.rows(sessionId);
      const resumed = readResumed(await deps.storage.get(resumedKey(sessionId)));
      this.serverFacts = resumed.earlier;
      elsewhere = resumed.answered;
      const done = new Set([...rows.map((r) => r.trial_index), ...elsewhere]);
      const complete = this.trialCount(sessionId) === done.size || this.stoppedEarly(sessionId, rows, done);
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
        elsewhere = [];
        this.serverFacts = [];
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
      for (const index of elsewhere) this.answered.add(index);
    }
    this.checkRefusals();
    return true;
  }

  private get pointerKey(): string {
    return pointerKey(this.deps.token, this.deps.identity);
  }

  /** The decline memo's key for this link and participant. */
  get declineKey(): string {
    return declineKey(this.deps.token, this.deps.identity);
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

  /** An adaptive session whose procedure has stopped (fewer rows than placeholders, but done). */
  private stoppedEarly(sessionId: string, rows: readonly ResultRow[], done: ReadonlySet<number>): boolean {
    const follows = this.kind.follows;
    if (!follows) return false;
    try {
      const { trials } = scheduleParticipant(
        this.deps.def,
        this.participantInput(sessionId, this.storedPointer?.issued),
      );
      const next = trials.find((t) => !done.has(t.trialIndex));
      return (
        next !== undefined &&
        follows.placeholder(next.item) &&
        follows.item(this.deps.def, next, withServerFacts(rows, this.serverFacts)) === null
      );
    } catch {
      return false;
    }
  }

  private block(reason: string): false {
    this.set({ kind: 'blocked', reason });
    return false;
  }

  /** Generates every trial's puzzle (progress on screen), then shows consent, or carries on a resumed run. */
  async prepare(): Promise<void> {
    const trials = this.schedule!.trials;
    if (this.kind.generated) {
      this.materials = new Map();
      // Items that follow the answers are made when their trial comes (trials.ts, `decided`).
      const follows = this.kind.follows;
      const fixed = follows ? trials.filter((t) => !follows.placeholder(t.item)) : trials;
      for (const trial of fixed) {
        this.set({ kind: 'preparing', done: this.materials.size, total: fixed.length });
        this.materials.set(this.kind.materialKey(trial.item), await this.deps.makeTrial(trial));
      }
    } else if (!this.makeMaterials()) return;
    if (this.resumedRun) await this.resumeCollection();
    else this.set({ kind: 'consent' });
  }

  /**
   * A collection study's trial materials, made on the page (no puzzle to generate): each
   * paraphrase item's clause, each review item's story and clause (embedded, or as the queue
   * handed it out). A live review study has none before its items arrive. False after showing
   * what cannot be shown.
   */
  private makeMaterials(): boolean {
    const made = this.kind.pageMaterials(this.deps.def, this.schedule!.trials, this.assigned);
    if (typeof made === 'string') {
      this.set({ kind: 'error', message: made });
      return false;
    }
    for (const [key, material] of made) this.materials.set(key, material);
    return true;
  }

  /** A reopened collection session: its items are fetched first if they never arrived (a live review). */
  private async resumeCollection(): Promise<void> {
    if (this.assigned === undefined && this.kind.liveItems(this.deps.def)) {
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
    const stored = (await deps.storage.get(assignedKey(this.sessionId))) as StoredItems | undefined;
    if (stored !== undefined) {
      this.assigned = stored;
      return this.reschedule(this.sessionId, this.storedPointer?.issued) && this.makeMaterials();
    }
    const { kind } = this;
    let assigned: StoredItems;
    if (kind.liveItems(def)) {
      const reviews = await this.fetchReviewItems();
      if (reviews === null) return false;
      if (reviews.length === 0) {
        this.set({ kind: 'no-items' });
        return false;
      }
      assigned = { items: queueItems(reviews), reviews };
    } else if (kind.coverage?.wanted(def) && deps.coverage) {
      const answer = await deps.coverage().catch((): CoverageAnswer => ({ ok: false, message: '' }));
      assigned = { items: kind.coverage.items(def, this.sessionId, answer.ok ? answer.coverage : undefined) };
    } else return true;
    await deps.storage.put(assignedKey(this.sessionId), assigned);
    this.assigned = assigned;
    if (!this.reschedule(this.sessionId, this.storedPointer?.issued)) return false;
    return this.makeMaterials();
  }

  /**
   * Asks the live review queue for this session's stories until it answers (backoff as for the
   * session, CONNECT_ATTEMPTS tries, then "Try again"); null after a refusal (shown).
   */
  private fetchReviewItems(): Promise<readonly ReviewItem[] | null> {
    const { deps } = this;
    const secret = this.storedPointer?.issued?.secret;
    this.set({ kind: 'fetching', attempt: 0, problem: null, waiting: true });
    return askWithRetries<readonly ReviewItem[] | null>({
      ask: async () => {
        const answer = await deps.reviewItems!(this.sessionId, secret).catch((e: unknown): ReviewItemsAnswer => ({
          ok: false,
          kind: 'unavailable',
          message: e instanceof Error ? e.message : String(e),
        }));
        if (answer.ok) return { done: answer.items };
        if (answer.kind === 'refused') {
          this.set({ kind: 'refused', message: answer.message });
          return { done: null };
        }
        return answer;
      },
      show: (s) => this.set({ kind: 'fetching', ...s }),
      wait: this.retry,
    });
  }

  /**
   * After consent, for a study with issued sessions: asks the server until it answers
   * (session.ts). Refused: the `refused` screen, the provisional lock let go, nothing written.
   * Granted: the session's lock, the pointer with the grant (only if the stored pointer is still
   * the one this run read), the secret; then the instructions, or the resume point when this
   * browser already has rows of that session.
   */
  private async issueSession(): Promise<void> {
    const { deps } = this;
    const issuer = deps.issuer!;
    const code = this.typedResumeCode;
    this.codeWanted = false;
    const outcome = await askForSession({
      issuer,
      code,
      request: { ...sessionRequestOf(issuer.study, deps.identity), ...(code === null ? {} : { resume_code: code }) },
      now: () => deps.now(),
      show: (s) => this.set(s),
      wait: this.retry,
      codeWanted: () => this.codeWanted,
      release: () => deps.outbox.release(this.sessionId),
    });
    this.codeWanted = false;
    if (outcome === null) return;
    const { grant, receivedAt } = outcome;

    const provisional = this.sessionId;
    if (grant.session_id !== provisional && !(await deps.outbox.claim(grant.session_id))) {
      await deps.outbox.release(provisional);
      this.block('This study is already open in another tab or window of this browser. Carry on there.');
      return;
    }
    const issued: IssuedSession = {
      session_id: grant.session_id,
      secret: grant.secret,
      participant: grant.participant,
      condition: grant.condition,
      ...(grant.resume_code === '' ? {} : { resume_code: grant.resume_code }),
      // At receipt this browser's corrected clock reads the server's answer time (never before the issue).
      clock_offset_ms: clockOffset(grant.server_time, receivedAt),
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
    this.assigned = (await deps.storage.get(assignedKey(grant.session_id))) as StoredItems | undefined;
    if (!this.reschedule(grant.session_id, issued)) return;
    if (!this.kind.generated && !this.makeMaterials()) return;
    // A session continued here from another device: the trials the server stores are not shown
    // again, and (adaptive) the facts of those rows decide the next items. Kept, so that a reload of
    // this page, which does not ask the server again, skips and decides alike.
    if (grant.answered.length > 0 || grant.earlier !== undefined) {
      this.serverFacts = grant.earlier ?? [];
      await deps.storage.put(resumedKey(grant.session_id), { answered: grant.answered, earlier: grant.earlier ?? [] });
    }
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

  /**
   * "I have a resume code" on the connecting screen (the server is slow to answer, or limits new
   * sessions from this network): the resume screen, once the try under way has ended.
   */
  enterResumeCode(): void {
    if (this.state.kind !== 'connecting' || !this.needsIssue) return;
    this.codeWanted = true;
    this.retry.now();
  }

  /** "Try again" on the connecting screen: the next session request goes now. */
  retryConnection(): void {
    if (this.state.kind === 'connecting' || this.state.kind === 'fetching') this.retry.now();
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
}
