/**
 * The outbox: what makes "nothing lost" true on the participant's side.
 *
 * - A trial's row is committed to durable storage (IndexedDB in the browser) before the next
 *   trial renders: `put` resolves only after the write. Rows are keyed by (session_id,
 *   trial_index); putting the same row again changes nothing, and the first row recorded for a
 *   key stands (a trial's answer is final).
 * - Each row goes to every sink (transport) until that sink acknowledges it; acknowledgements are
 *   stored per sink, so a reload re-sends only what a sink has not confirmed. A failing sink is
 *   retried with exponential backoff, without holding up the others. Sinks must be idempotent by
 *   (session_id, trial_index): a row whose acknowledgement was lost is sent again.
 * - On `pagehide`, `flushWithBeacon` hands every unacknowledged row to `navigator.sendBeacon`
 *   synchronously (an async IndexedDB read would come too late), from an in-memory copy of the
 *   pending rows. A beacon is not an acknowledgement: the rows stay pending and are sent again.
 * - Only one tab records a session: `claim` takes a per-session lock (a lease in storage, or
 *   the Web Locks API), and `put` refuses rows of a session this outbox does not hold.
 * - A sink that refuses rows for good (`SinkRefusedError`: a 4xx no retry can fix) gets them no
 *   more: the refusal is stored with each row (`refused[sinkId]`, with the sink's sentence), so a
 *   reload does not send them again either. A multi-row batch refused is sent again one row at a
 *   time, so that only the rows the sink objects to are marked. Other sinks are not affected.
 * - Secrets of sessions the results server issued (`putSecret`) are kept beside the rows
 *   (`secret/<session>`) and handed to every send and beacon; a transport decides whether its
 *   body carries them (only the results server's does).
 */
import { realTimer, type LockHandle, type SessionLock, type Timer } from './lock';
import type { ResultRow, SessionInfo } from '../results/results';
import type { OutboxStorage } from './storage';
import { SinkRefusedError, sinkBody, type SecretOf, type Transport } from './transports';

interface StoredRow {
  row: ResultRow;
  /** Ids of the transports that acknowledged the row. */
  acked: string[];
  /** Transports that refused the row for good, with what they said: never sent there again. */
  refused?: Record<string, string>;
}

const isStoredRow = (v: unknown): v is StoredRow =>
  typeof v === 'object' && v !== null && 'row' in v && Array.isArray((v as StoredRow).acked);

/** The storage key of a row: sorts by session, then trial index. */
export const rowKey = (sessionId: string, trialIndex: number) =>
  `row/${encodeURIComponent(sessionId)}/${String(trialIndex).padStart(6, '0')}`;
const startedKey = (sessionId: string, trialIndex: number) =>
  `started/${encodeURIComponent(sessionId)}/${String(trialIndex).padStart(6, '0')}`;
const sessionKey = (sessionId: string) => `session/${encodeURIComponent(sessionId)}`;
const secretKey = (sessionId: string) => `secret/${encodeURIComponent(sessionId)}`;

const refusedBy = (stored: StoredRow, transportId: string) =>
  stored.refused !== undefined && Object.prototype.hasOwnProperty.call(stored.refused, transportId);

/** Where one transport stands with the stored rows (the completion screen's `sink-status`). */
export interface SinkReport {
  readonly id: string;
  /** Rows still to be acknowledged (sending, or waiting for a retry). */
  readonly waiting: number;
  /** Rows it refused for good. */
  readonly refused: number;
  /** What it said when it last refused a row, or null. */
  readonly refusal: string | null;
}

/** `put` for a session this outbox has not claimed (another tab records it, or claim was not called). */
export class SessionNotClaimedError extends Error {
  override name = 'SessionNotClaimedError';
}

export type PutOutcome = 'added' | 'unchanged' | 'conflict';

export interface OutboxOptions {
  readonly storage: OutboxStorage;
  readonly transports: readonly Transport[];
  readonly lock: SessionLock;
  readonly timer?: Timer;
  /** First retry delay; doubles per failure up to maxDelayMs. */
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  /** Called after any change of what is pending (a put, an acknowledgement). */
  readonly onChange?: () => void;
}

const encoder = new TextEncoder();
const byteLength = (text: string) => encoder.encode(text).length;

/** Beacons are limited to about 64 KiB in flight; stay under it per beacon. */
const BEACON_BYTES = 60_000;

export class Outbox {
  /** Rows some transport has not acknowledged, by key (mirrors storage, for the beacon). */
  private readonly pending = new Map<string, StoredRow>();
  private readonly sessions = new Map<string, SessionInfo>();
  /** Rows some transport refused for good, by key (for the reports; they may be pending elsewhere too). */
  private readonly refusedRows = new Map<string, StoredRow>();
  private readonly secrets = new Map<string, string>();
  private readonly claims = new Map<string, LockHandle>();
  private readonly state = new Map<string, { busy: boolean; failures: number; retry: unknown; isolate: boolean }>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly listeners = new Set<() => void>();
  private readonly timer: Timer;
  private stopped = false;

  private constructor(private readonly options: OutboxOptions) {
    this.timer = options.timer ?? realTimer;
    for (const t of options.transports)
      this.state.set(t.id, { busy: false, failures: 0, retry: undefined, isolate: false });
  }

  /** Opens the outbox on its storage: loads what is still pending (rows of earlier sessions too) and starts sending it. */
  static async open(options: OutboxOptions): Promise<Outbox> {
    const outbox = new Outbox(options);
    for (const [key, value] of await options.storage.list('row/')) {
      if (!isStoredRow(value)) continue;
      if (outbox.unackedBy(value).length > 0) outbox.pending.set(key, value);
      if (value.refused !== undefined && Object.keys(value.refused).length > 0) outbox.refusedRows.set(key, value);
    }
    for (const [, value] of await options.storage.list('secret/')) {
      const s = value as { session_id?: unknown; secret?: unknown };
      if (typeof s.session_id === 'string' && typeof s.secret === 'string') outbox.secrets.set(s.session_id, s.secret);
    }
    for (const [, value] of await options.storage.list('session/')) {
      const info = value as SessionInfo;
      outbox.sessions.set(info.session_id, info);
    }
    outbox.kick();
    return outbox;
  }

  /**
   * Calls `listener` after any change of what is pending, acknowledged or refused (as `onChange`),
   * so that a run can tell the participant about a refusal while the study goes on.
   */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private changed(): void {
    this.options.onChange?.();
    for (const l of this.listeners) l();
  }

  /** Takes the session's single-writer lock; false when another tab records it. */
  async claim(sessionId: string): Promise<boolean> {
    const held = this.claims.get(sessionId);
    if (held && (await held.isHeld())) return true;
    const handle = await this.options.lock.acquire(sessionId);
    if (!handle) return false;
    this.claims.set(sessionId, handle);
    return true;
  }

  /** Gives the session's lock back (at the end of the run). */
  async release(sessionId: string): Promise<void> {
    await this.claims.get(sessionId)?.release();
    this.claims.delete(sessionId);
  }

  private async assertClaimed(sessionId: string): Promise<void> {
    const handle = this.claims.get(sessionId);
    if (!handle || !(await handle.isHeld())) {
      throw new SessionNotClaimedError(`session "${sessionId}" is being recorded in another tab (or was not claimed)`);
    }
  }

  /** Records the session's facts (user agent, screen…) once; they go with the session's rows. */
  async putSession(info: SessionInfo): Promise<void> {
    await this.assertClaimed(info.session_id);
    await this.options.storage.update(sessionKey(info.session_id), (old) => (old === undefined ? info : undefined));
    if (!this.sessions.has(info.session_id)) this.sessions.set(info.session_id, info);
  }

  /**
   * Records the secret the results server issued with a session; it goes with every row of the
   * session to that server (and by beacon), across reloads. The first secret stored stands.
   */
  async putSecret(sessionId: string, secret: string): Promise<void> {
    await this.assertClaimed(sessionId);
    const after = (await this.options.storage.update(secretKey(sessionId), (old) =>
      old === undefined ? { session_id: sessionId, secret } : undefined,
    )) as { secret: string };
    this.secrets.set(sessionId, after.secret);
  }

  /** The issued session's secret, if one was stored. */
  readonly secretOf: SecretOf = (sessionId) => this.secrets.get(sessionId);

  /** The session's stored facts, if any (to resume: its start time). */
  async getSession(sessionId: string): Promise<SessionInfo | undefined> {
    return (await this.options.storage.get(sessionKey(sessionId))) as SessionInfo | undefined;
  }

  /**
   * Commits a trial's row; resolves once it is durable, then sends it. Idempotent: the same row
   * again is `unchanged`; a different row for a recorded (session_id, trial_index) is a
   * `conflict` and the first one stands. Throws SessionNotClaimedError unless this outbox holds
   * the session's lock.
   */
  async put(row: ResultRow): Promise<PutOutcome> {
    await this.assertClaimed(row.session_id);
    const key = rowKey(row.session_id, row.trial_index);
    let outcome: PutOutcome = 'added';
    await this.options.storage.update(key, (old) => {
      if (!isStoredRow(old)) return { row, acked: [] } satisfies StoredRow;
      outcome = JSON.stringify(old.row) === JSON.stringify(row) ? 'unchanged' : 'conflict';
      return undefined;
    });
    if (outcome === 'added') {
      if (this.options.transports.length > 0) this.pending.set(key, { row, acked: [] });
      this.changed();
      this.kick();
    }
    return outcome;
  }

  /**
   * Notes that a trial was shown (before its answer), so that a reload can tell an interrupted
   * trial from a fresh one and record it with `resumed: true`. Requires the session's lock.
   */
  async markStarted(sessionId: string, trialIndex: number, startedAt: string): Promise<void> {
    await this.assertClaimed(sessionId);
    await this.options.storage.update(startedKey(sessionId, trialIndex), (old) =>
      old === undefined ? startedAt : undefined,
    );
  }

  /** When the trial was first shown (ISO 8601), if markStarted was called for it. */
  async startedAt(sessionId: string, trialIndex: number): Promise<string | undefined> {
    const value = await this.options.storage.get(startedKey(sessionId, trialIndex));
    return typeof value === 'string' ? value : undefined;
  }

  /** Every stored row of a session, by trial index (for resuming and for the download fallback). */
  async rows(sessionId: string): Promise<ResultRow[]> {
    const entries = await this.options.storage.list(`row/${encodeURIComponent(sessionId)}/`);
    return entries.flatMap(([, v]) => (isStoredRow(v) ? [v.row] : []));
  }

  /** Rows some transport has not acknowledged yet. */
  pendingCount(): number {
    return this.pending.size;
  }

  /** Every stored row has been acknowledged by every transport, or refused for good by it (nothing left to send). */
  allAcknowledged(): boolean {
    return this.pending.size === 0;
  }

  /** True when no transport refused any stored row. */
  noRefusals(): boolean {
    return this.refusedRows.size === 0;
  }

  /** The ids of the transports, in the order they were given. */
  transportIds(): string[] {
    return this.options.transports.map((t) => t.id);
  }

  /**
   * True when the transport `id` acknowledged every stored row (none waiting, none refused): the
   * completion redirect waits for this of the study's primary destination only.
   */
  hasAll(id: string): boolean {
    for (const v of this.pending.values()) if (!v.acked.includes(id)) return false;
    for (const v of this.refusedRows.values()) if (refusedBy(v, id)) return false;
    return true;
  }

  /** Per transport: rows waiting, rows refused and what it said; only the rows of `sessionId` when given. */
  sinkReports(sessionId?: string): SinkReport[] {
    const ofSession = (v: StoredRow) => sessionId === undefined || v.row.session_id === sessionId;
    return this.options.transports.map((t) => {
      let waiting = 0;
      let refused = 0;
      let refusal: string | null = null;
      for (const v of this.pending.values()) {
        if (ofSession(v) && !v.acked.includes(t.id) && !refusedBy(v, t.id)) waiting++;
      }
      for (const v of this.refusedRows.values()) {
        if (ofSession(v) && refusedBy(v, t.id)) {
          refused++;
          refusal = v.refused![t.id]!;
        }
      }
      return { id: t.id, waiting, refused, refusal };
    });
  }

  private unackedBy(stored: StoredRow): string[] {
    return this.options.transports
      .filter((t) => !stored.acked.includes(t.id) && !refusedBy(stored, t.id))
      .map((t) => t.id);
  }

  /** Starts a send to every transport that is neither busy nor waiting for a retry. */
  private kick(): void {
    if (this.stopped) return;
    for (const t of this.options.transports) {
      const s = this.state.get(t.id)!;
      if (s.busy || s.retry !== undefined) continue;
      const run = this.drain(t).finally(() => this.inFlight.delete(run));
      this.inFlight.add(run);
    }
  }

  /** Sends to one transport until nothing is pending for it, or until it fails (then schedules a retry). */
  private async drain(t: Transport): Promise<void> {
    const s = this.state.get(t.id)!;
    s.busy = true;
    try {
      for (;;) {
        if (this.stopped) return;
        const batch = [...this.pending.entries()]
          .filter(([, v]) => !v.acked.includes(t.id) && !refusedBy(v, t.id))
          .slice(0, s.isolate ? 1 : (t.batchSize ?? 50));
        if (batch.length === 0) {
          s.isolate = false;
          return;
        }
        const rows = batch.map(([, v]) => v.row);
        try {
          await t.send(rows, this.sessionsOf(rows), this.secretOf);
        } catch (e) {
          if (e instanceof SinkRefusedError) {
            // One request is all or nothing: find the rows it objects to, one at a time.
            if (batch.length > 1) s.isolate = true;
            else await this.refuse(batch[0]![0], t.id, e.message);
            this.changed();
            continue;
          }
          s.failures++;
          const delay = Math.min(
            this.options.maxDelayMs ?? 60_000,
            (this.options.baseDelayMs ?? 1_000) * 2 ** (s.failures - 1),
          );
          s.retry = this.timer.setTimeout(() => {
            s.retry = undefined;
            this.kick();
          }, delay);
          return;
        }
        s.failures = 0;
        for (const [key] of batch) await this.acknowledge(key, t.id);
        this.changed();
      }
    } finally {
      s.busy = false;
    }
  }

  private async refuse(key: string, transportId: string, message: string): Promise<void> {
    const after = await this.options.storage.update(key, (old) =>
      isStoredRow(old) && !old.acked.includes(transportId) && !refusedBy(old, transportId)
        ? { ...old, refused: { ...old.refused, [transportId]: message } }
        : undefined,
    );
    if (!isStoredRow(after)) return;
    if (refusedBy(after, transportId)) this.refusedRows.set(key, after);
    if (this.unackedBy(after).length > 0) this.pending.set(key, after);
    else this.pending.delete(key);
  }

  private async acknowledge(key: string, transportId: string): Promise<void> {
    const after = await this.options.storage.update(key, (old) =>
      isStoredRow(old) && !old.acked.includes(transportId) ? { ...old, acked: [...old.acked, transportId] } : undefined,
    );
    if (isStoredRow(after) && this.unackedBy(after).length > 0) this.pending.set(key, after);
    else this.pending.delete(key);
    if (isStoredRow(after) && this.refusedRows.has(key)) this.refusedRows.set(key, after);
  }

  private sessionsOf(rows: readonly ResultRow[]): SessionInfo[] {
    const ids = new Set(rows.map((r) => r.session_id));
    return [...ids].flatMap((id) => {
      const info = this.sessions.get(id);
      return info ? [info] : [];
    });
  }

  /** Sends now to every transport not already sending, retries included; resolves when this round ends. */
  async flush(): Promise<void> {
    for (const s of this.state.values()) {
      if (s.retry !== undefined) this.timer.clearTimeout(s.retry);
      s.retry = undefined;
    }
    this.kick();
    await this.idle();
  }

  /** Resolves when no send is under way (retries may still be scheduled). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /**
   * For `pagehide`: synchronously hands every row a beacon-capable transport has not
   * acknowledged to `sendBeacon`, in bodies under 60 kB. Returns how many rows were queued.
   * Rows stay pending (a beacon has no answer) and go again on the next visit.
   */
  flushWithBeacon(sendBeacon: (url: string, data: string) => boolean): number {
    let queued = 0;
    for (const t of this.options.transports) {
      if (!t.beaconUrl) continue;
      // The transport's own body (the results server's carries secrets), else `{ sessions, rows }`.
      const body = t.beaconBody?.bind(t) ?? sinkBody;
      const rows = [...this.pending.values()]
        .filter((v) => !v.acked.includes(t.id) && !refusedBy(v, t.id))
        .map((v) => v.row);
      let batch: ResultRow[] = [];
      let bytes = 0;
      const send = () => {
        if (batch.length > 0 && sendBeacon(t.beaconUrl!, body(batch, this.sessionsOf(batch), this.secretOf)))
          queued += batch.length;
        batch = [];
        bytes = 0;
      };
      for (const row of rows) {
        // Each row's own size plus its session's, an upper bound of what it adds to the body.
        const info = this.sessions.get(row.session_id);
        // (and its session's secret, at most once per session, counted per row to stay an upper bound)
        const secret = this.secrets.get(row.session_id);
        const size =
          byteLength(JSON.stringify(row)) +
          (info ? byteLength(JSON.stringify(info)) : 0) +
          (secret === undefined ? 0 : byteLength(row.session_id) + byteLength(secret) + 40) +
          2;
        if (batch.length > 0 && bytes + size > BEACON_BYTES) send();
        batch.push(row);
        bytes += size;
      }
      send();
    }
    return queued;
  }

  /** Stops sending and cancels retries (the stored rows stay). */
  stop(): void {
    this.stopped = true;
    for (const s of this.state.values()) if (s.retry !== undefined) this.timer.clearTimeout(s.retry);
  }
}
