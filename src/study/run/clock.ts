/**
 * The run's clocks: the server clock's offset (an issued session's times are written on the
 * server's clock, so a device whose clock is wrong still writes times the server accepts), a
 * trial's deadlines, and its time on screen with the hidden part, kept across reloads.
 *
 * A trial's `rt_ms` sums its spells on screen across page loads (`spentKey`, written every
 * SPENT_HEARTBEAT_MS and when the tab is hidden or left), never more than answered_at − started_at.
 */
import type { StudyCondition } from '../definition/types';
import type { OutboxStorage } from '../delivery/storage';
import type { TrialTiming } from '../kinds';
import type { Trial } from '../schedule/items';

export const iso = (ms: number) => new Date(ms).toISOString();

/** The server's clock minus this browser's, from the grant's `server_time` read at `receivedAt` (0 when unreadable). */
export function clockOffset(serverTime: string, receivedAt: number): number {
  const serverMs = Date.parse(serverTime);
  return Number.isFinite(serverMs) ? Math.round(serverMs - receivedAt) : 0;
}

/**
 * A trial's deadlines: the per-puzzle limit from its first showing (a reload does not restart
 * it), the overall limit from the first main trial's first showing (practice has none).
 */
export function trialTiming(
  trial: Trial,
  condition: Pick<StudyCondition, 'perPuzzleLimitS' | 'overallLimitS'>,
  firstShownMs: number,
  overallStartMs: number | null,
  resumed: boolean,
  timeUp: boolean,
): TrialTiming {
  return {
    trial,
    deadline: condition.perPuzzleLimitS === null ? null : firstShownMs + condition.perPuzzleLimitS * 1000,
    overallDeadline:
      trial.item.phase === 'practice' || condition.overallLimitS === null
        ? null
        : overallStartMs! + condition.overallLimitS * 1000,
    resumed,
    ...(timeUp ? { timeUp: true } : {}),
  };
}

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

export interface Spent {
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

/** The trial on screen's time: this page load's spell, hidden time, and what earlier loads stored. */
export class ScreenTime {
  /** When the trial showed in this page load (the run's clock). */
  shownAtMs = 0;
  private hiddenSinceMs: number | null = null;
  private hiddenMs = 0;
  /** The trial's time from earlier page loads (spentKey). */
  private before: Spent = NO_TIME;
  /** When the time on screen was last written. */
  private savedAtMs = 0;
  /** The writes of the time on screen, one after another (a row's commit waits for them). */
  private writes: Promise<void> = Promise.resolve();

  /** A trial shows at `now`; `stored` is what an earlier page load wrote under its spentKey. */
  start(now: number, stored: unknown): void {
    this.before = isSpent(stored) ? stored : NO_TIME;
    this.savedAtMs = now;
    this.shownAtMs = now;
    this.hiddenMs = 0;
    this.hiddenSinceMs = null;
  }

  /** The tab was hidden or shown again at `now`. */
  visibility(hidden: boolean, now: number): void {
    if (hidden && this.hiddenSinceMs === null) this.hiddenSinceMs = now;
    if (!hidden && this.hiddenSinceMs !== null) {
      this.hiddenMs += now - this.hiddenSinceMs;
      this.hiddenSinceMs = null;
    }
  }

  /**
   * The trial's time so far at `atMs`: the earlier page loads' and this one's since it showed,
   * hidden time included (its part in `hidden_ms`), as `rt_ms` counts it.
   */
  at(atMs: number): Spent {
    const hiddenNow = this.hiddenSinceMs === null ? 0 : Math.max(0, atMs - this.hiddenSinceMs);
    return {
      ms: this.before.ms + Math.max(0, atMs - this.shownAtMs),
      hidden_ms: this.before.hidden_ms + this.hiddenMs + hiddenNow,
    };
  }

  /** The heartbeat is due: the time was last written SPENT_HEARTBEAT_MS or more ago. */
  due(now: number): boolean {
    return now - this.savedAtMs >= SPENT_HEARTBEAT_MS;
  }

  /** Writes the time at `now` under `key`, after any write before it; a failure goes to `onError`. */
  save(storage: OutboxStorage, key: string, now: number, onError: (e: unknown) => void): Promise<void> {
    const value = this.at(now);
    this.savedAtMs = now;
    this.writes = this.writes.then(() => storage.put(key, value)).catch(onError);
    return this.writes;
  }

  /** The writes under way (or the last one's end). */
  settled(): Promise<void> {
    return this.writes;
  }
}
