/**
 * The single-writer lock: only one tab records a session. `leaseLock` keeps a lease in the
 * outbox's storage; `webLocksLock` uses the Web Locks API where the browser has it. `Timer` is
 * the injectable clock both the lease and the outbox's retries use.
 */
import type { OutboxStorage } from './storage';

/** A held lock on one session. */
export interface LockHandle {
  readonly sessionId: string;
  /** Still held (a lease also gets renewed by asking). */
  isHeld(): Promise<boolean>;
  release(): Promise<void>;
}

/** Grants at most one holder per session at a time, across tabs. */
export interface SessionLock {
  /** The lock, or null when another tab holds it. Never waits for it. */
  acquire(sessionId: string): Promise<LockHandle | null>;
}

/** The clock and timers the outbox and the lease use (injectable for tests). */
export interface Timer {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimer: Timer = {
  now: () => Date.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface Lease {
  owner: string;
  expiresAt: number;
}

const isLease = (v: unknown): v is Lease =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Lease).owner === 'string' &&
  typeof (v as Lease).expiresAt === 'number';

/**
 * A lock made of a lease record in shared storage: `{ owner, expiresAt }`, taken and renewed by
 * atomic updates. A tab that closes without releasing blocks the session for at most `ttlMs`;
 * the holder renews the lease every `ttlMs / 3` and whenever it checks `isHeld`. A tab that was
 * frozen past its lease loses it, and its next `isHeld` says so.
 */
export function leaseLock(
  storage: OutboxStorage,
  owner: string,
  timer: Timer = realTimer,
  ttlMs = 15_000,
): SessionLock {
  const take = async (sessionId: string): Promise<boolean> => {
    const now = timer.now();
    const after = await storage.update(`lock/${sessionId}`, (old) =>
      !isLease(old) || old.owner === owner || old.expiresAt <= now ? { owner, expiresAt: now + ttlMs } : undefined,
    );
    return isLease(after) && after.owner === owner;
  };
  return {
    async acquire(sessionId) {
      if (!(await take(sessionId))) return null;
      let held = true;
      let handle: unknown;
      const renew = () => {
        handle = timer.setTimeout(() => {
          void take(sessionId).then((ok) => {
            held = held && ok;
            if (held) renew();
          });
        }, ttlMs / 3);
      };
      renew();
      return {
        sessionId,
        async isHeld() {
          held = held && (await take(sessionId));
          return held;
        },
        async release() {
          held = false;
          timer.clearTimeout(handle);
          await storage.update(`lock/${sessionId}`, (old) =>
            isLease(old) && old.owner === owner ? { owner: '', expiresAt: 0 } : undefined,
          );
        },
      };
    },
  };
}

/** The part of the Web Locks API (`navigator.locks`) the lock uses. */
export interface WebLocks {
  request(
    name: string,
    options: { ifAvailable: boolean },
    callback: (lock: unknown) => Promise<void> | void,
  ): Promise<unknown>;
}

/**
 * A lock on the Web Locks API (`navigator.locks`, where present): the browser releases it when
 * the tab closes or crashes, so a reopened tab never waits for a lease to expire.
 */
export function webLocksLock(locks: WebLocks): SessionLock {
  return {
    acquire(sessionId) {
      return new Promise((resolve, reject) => {
        locks
          .request(`clutrr-lab-study:${sessionId}`, { ifAvailable: true }, (lock) => {
            if (!lock) {
              resolve(null);
              return;
            }
            // The lock is held until the promise returned here settles, i.e. until release().
            return new Promise<void>((release) => {
              let held = true;
              resolve({
                sessionId,
                isHeld: async () => held,
                release: async () => {
                  held = false;
                  release();
                },
              });
            });
          })
          .catch(reject);
      });
    },
  };
}
