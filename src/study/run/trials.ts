/**
 * The trials of a run and their rows: which step shows, what each answer records and when, the
 * time limits, and the completion screen with where the sinks stand. `StudyRun` (run.ts) adds
 * the way in (session, consent, the items) on top of this.
 *
 * Rows: a trial's row is committed (`await outbox.put`) before the next screen is set. Time
 * limits: a per-puzzle deadline counts from when the trial was first shown (a reload does not
 * restart the clock); the overall limit counts from the first main trial's first showing and
 * covers main and check trials. When it runs out, the trial on screen is recorded as `timeout`
 * and every trial not yet answered as `skipped` (response "", difficulty null, rt 0, started_at =
 * answered_at = the moment of the skip), so a session's file always has one row per trial; then
 * completion. What a trial shows and what its row holds is its study kind's (src/study/kinds).
 */
import type { RelationWord } from '../../core/kinship/relations';
import type { StudyCondition } from '../definition/types';
import type { ReviewReason } from '../definition/vocabulary';
import { isDownloadOnly, primarySinkId } from '../definition/sinks';
import {
  type AnyTrialScreen,
  type EarlierRow,
  isTrialScreen,
  kindSpec,
  type KindSpec,
  MissingRowsError,
  STUDY_KINDS,
  type TrialTiming,
} from '../kinds';
import { write } from '../kinds/paraphrase';
import { judge, toggleReason } from '../kinds/review';
import { pick, rate } from '../kinds/solve';
import { NO_ESTIMATE } from '../results/resultFields';
import type { EndedOn, ResultRow, SessionInfo } from '../results/results';
import type { Step, Trial } from '../schedule/items';
import { firstUnanswered, type ParticipantSchedule } from '../schedule/schedule';
import { iso, ScreenTime, spentKey, trialTiming } from './clock';
import type { RunDeps } from './deps';
import { DraftSaver, draftKey, isDraft } from './drafts';
import { downloadedKey } from './session';
import { type RunScreen, type SinkRefusal, type SinkState, SUBMIT_MARK } from './screens';

const problemOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * The rows an item that follows the answers is decided from: the results server's facts of the
 * session (rows given on another device) and this browser's own rows; for a trial index both
 * have, the server's fact (it is what the server replays when it checks the next row).
 */
export function withServerFacts(local: readonly EarlierRow[], server: readonly EarlierRow[]): EarlierRow[] {
  if (server.length === 0) return [...local];
  const stored = new Set(server.map((r) => r.trial_index));
  return [...server, ...local.filter((r) => !stored.has(r.trial_index))];
}

export abstract class TrialRun {
  state: RunScreen = { kind: 'loading' };
  sessionId = '';
  schedule: ParticipantSchedule | null = null;
  /** Why the last put failed, if one did (the page shows it and offers the download). */
  storageProblem: string | null = null;
  /** This session's rows refused for good by a sink (the page tells the participant at once). */
  refusal: SinkRefusal | null = null;

  private readonly listeners = new Set<() => void>();
  /** The study's kind: what its trials show and what their rows hold. */
  protected readonly kind: KindSpec;
  /** Each trial's material (a generated puzzle, a clause, a story to review), by the kind's materialKey. */
  protected materials = new Map<string, unknown>();
  protected answered = new Set<number>();
  /** The results server's facts of this session's rows given on another device (an adaptive session resumed here). */
  protected serverFacts: readonly EarlierRow[] = [];
  protected session: SessionInfo | null = null;
  protected stepIndex = 0;
  /** The server's clock minus this browser's (issued sessions), added to every time the run writes. */
  protected offsetMs = 0;
  /** An answer is being committed, or the run is asking something: actions wait. */
  protected busy = false;
  private overallStartMs: number | null = null;
  /** The trial on screen's time, with what earlier page loads spent on it. */
  private readonly time = new ScreenTime();
  /** The text typed in the trial on screen, saved as a draft. */
  private readonly drafts: DraftSaver;
  private changes = 0;
  private started: Promise<void> = Promise.resolve();
  private continuing = false;

  constructor(readonly deps: RunDeps) {
    this.kind = kindSpec(deps.def.kind);
    this.drafts = new DraftSaver(deps.storage, deps.timer, (e) => {
      this.storageProblem = problemOf(e);
    });
    deps.outbox.subscribe(() => this.checkRefusals());
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected set(state: RunScreen): void {
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

  /** Updates `refusal` from the outbox; the listeners hear of a change (not of every acknowledgement). */
  protected checkRefusals(): void {
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

  protected async goToResumePoint(): Promise<void> {
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
  protected async showStep(timeUp = false): Promise<void> {
    const flag = timeUp ? { timeUp: true } : {};
    while (this.stepIndex < this.steps.length) {
      const step = this.steps[this.stepIndex]!;
      if (step.kind === 'trial' && !this.answered.has(step.trial.trialIndex)) {
        let trial: Trial | null;
        try {
          trial = await this.decided(step.trial);
        } catch (e) {
          if (!(e instanceof MissingRowsError)) throw e;
          // Earlier answers given on another device have not reached the results server (a session
          // resumed here): the next item cannot be known.
          return this.set({
            kind: 'error',
            message:
              'This study picks each puzzle from your earlier answers, and some of them, given on another device, have not reached the results server yet. Please carry on where you began, or open the study there once it is online and then come back.',
          });
        }
        // The procedure stopped: the trials left are not asked (and have no rows).
        if (trial === null) return this.complete(false, timeUp);
        return this.showTrial(trial, timeUp);
      }
      if (step.kind === 'break') {
        const [done, total] = this.progress();
        return this.set({ kind: 'break', done, total, ...flag });
      }
      this.stepIndex++;
    }
    return this.complete(false, timeUp);
  }

  /**
   * The trial as it will show: a placeholder of a kind whose items follow the answers gets the
   * item the earlier rows decide (its puzzle made now, by the worker), or null when the procedure
   * has stopped; any other trial as scheduled.
   */
  protected async decided(trial: Trial): Promise<Trial | null> {
    const follows = this.kind.follows;
    if (!follows?.placeholder(trial.item)) return trial;
    const rows = withServerFacts(await this.deps.outbox.rows(this.sessionId), this.serverFacts);
    const item = follows.item(this.deps.def, trial, rows);
    if (item === null) return null;
    const decided: Trial = { trialIndex: trial.trialIndex, item };
    const key = this.kind.materialKey(item);
    if (!this.materials.has(key)) this.materials.set(key, await this.deps.makeTrial(decided));
    return decided;
  }

  private async showTrial(trial: Trial, timeUp = false): Promise<void> {
    const { deps, kind } = this;
    const now = this.now();
    const earlier = await deps.outbox.startedAt(this.sessionId, trial.trialIndex);
    const firstShown = earlier ? Date.parse(earlier) : now;
    const condition = this.schedule!.condition;
    if (trial.item.phase !== 'practice' && condition.overallLimitS !== null && this.overallStartMs === null) {
      const first = this.schedule!.trials.find((t) => t.item.phase !== 'practice')!;
      const mark = await deps.outbox.startedAt(this.sessionId, first.trialIndex);
      this.overallStartMs = mark ? Date.parse(mark) : now;
    }
    const timing = trialTiming(trial, condition, firstShown, this.overallStartMs, earlier !== undefined, timeUp);
    // A draft and the time on screen from before a reload (read before the clocks below start).
    const draft = kind.draft ? await deps.storage.get(draftKey(this.sessionId, trial.trialIndex)) : undefined;
    const spent =
      earlier === undefined ? undefined : await deps.storage.get(spentKey(this.sessionId, trial.trialIndex));
    this.time.start(now, spent);
    this.changes = 0;
    const screen = this.blankScreen(timing);
    this.set(kind.draft && isDraft(draft) ? kind.draft.restore(screen, draft.text, deps.def) : screen);
    // After the screen is set, so the story shows without waiting for this write; submit waits for it.
    this.started = deps.outbox.markStarted(this.sessionId, trial.trialIndex, iso(firstShown));
    // A deadline already past (a reload after the limit) ends the trial at once.
    await this.tick();
  }

  /** A trial's screen with nothing answered yet, for the study's kind. */
  private blankScreen(timing: TrialTiming): AnyTrialScreen {
    const material = this.materials.get(this.kind.materialKey(timing.trial.item));
    return this.kind.blank(timing, material, this.deps.def);
  }

  /** The tab was hidden or shown again (visibilitychange): hidden time is recorded per trial. */
  visibility(hidden: boolean): void {
    this.time.visibility(hidden, this.now());
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
   * Writes the time on screen of the trial shown (spentKey), after any write before it; not while
   * its row is being committed (the row holds the time then).
   */
  private saveSpent(): Promise<void> {
    const s = this.state;
    if (!isTrialScreen(s) || this.busy) return this.time.settled();
    return this.time.save(this.deps.storage, spentKey(this.sessionId, s.trial.trialIndex), this.now(), (e) => {
      this.storageProblem = problemOf(e);
    });
  }

  /** The trial on screen, when it is `spec`'s and no answer is being committed; null otherwise. */
  private onScreen<S extends AnyTrialScreen>(spec: KindSpec<S>): S | null {
    const s = this.state;
    return isTrialScreen(s) && s.kind === spec.screen && !this.busy ? (s as S) : null;
  }

  pick(word: RelationWord): void {
    const s = this.onScreen(STUDY_KINDS.solve);
    if (!s) return;
    const { screen, changed } = pick(s, word);
    if (changed) this.changes++;
    this.set(screen);
  }

  rate(difficulty: number): void {
    const s = this.onScreen(STUDY_KINDS.solve);
    const next = s && rate(s, difficulty);
    if (next) this.set(next);
  }

  /**
   * The paraphrase as typed: the live checks run on it at once; the draft is written to storage
   * DRAFT_DELAY_MS after typing pauses (and when the tab is hidden), so a reload keeps it.
   */
  write(text: string): void {
    const s = this.onScreen(STUDY_KINDS.paraphrase);
    if (!s) return;
    this.set(write(s, text, this.deps.def));
    this.drafts.typed(draftKey(this.sessionId, s.trial.trialIndex), text, () => iso(this.deps.now()));
  }

  /** Writes the pending draft now (the page calls it when the tab is hidden or left). */
  flushDraft(): Promise<void> {
    return this.drafts.flush();
  }

  /** A review's verdict; switching from one to the other counts as an answer change. */
  judge(verdict: 'good' | 'bad'): void {
    const s = this.onScreen(STUDY_KINDS.review);
    if (!s) return;
    const { screen, changed } = judge(s, verdict);
    if (changed) this.changes++;
    this.set(screen);
  }

  /** Ticks or unticks a reason for "bad" (kept in REVIEW_REASONS order). */
  toggleReason(reason: ReviewReason): void {
    const s = this.onScreen(STUDY_KINDS.review);
    const next = s && toggleReason(s, reason);
    if (next) this.set(next);
  }

  /** Whether the trial on screen may be submitted: a word and a rating; a paraphrase that passes every check; a verdict (for bad, a reason). */
  get ready(): boolean {
    const s = this.state;
    return isTrialScreen(s) && this.kind.ready(s);
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
    if (this.time.due(now)) await this.saveSpent();
  }

  private row(s: AnyTrialScreen, endedOn: EndedOn, startedAt: string, answeredMs: number): ResultRow {
    const { deps } = this;
    // Never more than the time since the first showing (a clock set back between two page loads).
    const spent = this.time.at(answeredMs);
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
      // What was asked and answered, as the kind maps it (`strict` stays the study's, as for every row).
      ...this.kind.answer(s, endedOn, deps.def),
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
      ...NO_ESTIMATE,
    };
  }

  /**
   * The row with its estimate columns: an adaptive study's main row carries the participant's
   * estimate after its answer, over this session's rows (and the server's facts of rows given on
   * another device), as the results server recomputes it.
   */
  private async estimated(row: ResultRow): Promise<ResultRow> {
    const follows = this.kind.follows;
    if (!follows || row.phase !== 'main') return row;
    const rows = withServerFacts(await this.deps.outbox.rows(this.sessionId), this.serverFacts);
    return { ...row, ...follows.estimate(this.deps.def, row, rows) };
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
      this.drafts.cancel();
      await this.started;
      const startedAt =
        (await this.deps.outbox.startedAt(this.sessionId, s.trial.trialIndex)) ?? iso(this.time.shownAtMs);
      const row = await this.estimated(this.row(s, endedOn, startedAt, answeredMs));
      await this.put(row);
      await this.forgetTrial(s);
      const feedback = this.kind.feedback(s, row);
      if (feedback) this.set(feedback);
      else {
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
    await this.time.settled();
    await storage.delete(spentKey(this.sessionId, index)).catch(() => undefined);
    if (this.kind.draft) await storage.delete(draftKey(this.sessionId, index)).catch(() => undefined);
  }

  /** The overall limit ran out: the trial on screen times out, the rest are recorded as skipped. */
  private async endOverall(s: AnyTrialScreen): Promise<void> {
    this.busy = true;
    try {
      const now = this.now();
      this.drafts.cancel();
      await this.started;
      const startedAt =
        (await this.deps.outbox.startedAt(this.sessionId, s.trial.trialIndex)) ?? iso(this.time.shownAtMs);
      await this.put(await this.estimated(this.row(s, 'timeout', startedAt, now)));
      await this.forgetTrial(s);
      for (const trial of this.schedule!.trials) {
        if (this.answered.has(trial.trialIndex)) continue;
        // Items the answers would have decided were never chosen: no row stands for them.
        if (this.kind.follows?.placeholder(trial.item)) continue;
        const screen = this.blankScreen({ trial, deadline: null, overallDeadline: null, resumed: false });
        await this.put(this.row(screen, 'skipped', iso(now), now));
      }
      await this.complete(true);
    } finally {
      this.busy = false;
    }
  }

  protected async complete(timedOut: boolean, timeUp = false): Promise<void> {
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
