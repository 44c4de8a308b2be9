/**
 * The draft of the text typed in a trial (a paraphrase), beside the rows: written a moment after
 * typing pauses and when the tab is hidden or left, kept across a reload, deleted once the
 * trial's row is committed. Never sent.
 */
import { realTimer, type Timer } from '../delivery/lock';
import type { OutboxStorage } from '../delivery/storage';

export const draftKey = (sessionId: string, trialIndex: number) =>
  `draft/${encodeURIComponent(sessionId)}/${String(trialIndex).padStart(6, '0')}`;

/** How long typing pauses before the draft is written. */
export const DRAFT_DELAY_MS = 400;

/** A stored draft: the text of the box as last typed. */
export const isDraft = (v: unknown): v is { text: string } =>
  typeof v === 'object' && v !== null && typeof (v as { text?: unknown }).text === 'string';

/** The pending save of the draft on screen, and its timer. */
export class DraftSaver {
  private save: (() => Promise<void>) | null = null;
  private timerId: unknown = null;

  constructor(
    private readonly storage: OutboxStorage,
    private readonly timer: Timer = realTimer,
    /** Where a failed write is told (the run's storage problem). */
    private readonly onError: (e: unknown) => void = () => undefined,
  ) {}

  /**
   * The text as typed: written DRAFT_DELAY_MS after the last call, unless flushed or cancelled
   * before; `savedAt` is read when it is written.
   */
  typed(key: string, text: string, savedAt: () => string): void {
    if (this.timerId !== null) this.timer.clearTimeout(this.timerId);
    this.save = () => this.storage.put(key, { text, saved_at: savedAt() });
    this.timerId = this.timer.setTimeout(() => void this.flush(), DRAFT_DELAY_MS);
  }

  /** Writes the pending draft now (when the tab is hidden or left). */
  async flush(): Promise<void> {
    const save = this.save;
    this.cancel();
    if (!save) return;
    try {
      await save();
    } catch (e) {
      this.onError(e);
    }
  }

  /** Forgets the pending draft (its trial's row holds the text now). */
  cancel(): void {
    if (this.timerId !== null) this.timer.clearTimeout(this.timerId);
    this.timerId = null;
    this.save = null;
  }
}
