/**
 * Asking the results server again until it answers: the session request and a live review
 * study's stories both wait 1 s, 2 s, 4 s… (or the server's Retry-After) between tries, say what
 * is wrong from CONNECT_PATIENCE failed tries on, and after CONNECT_ATTEMPTS wait for the
 * participant's "Try again".
 */

/** Automatic tries of the session request before the run waits for the participant's "Try again". */
export const CONNECT_ATTEMPTS = 6;
/** From this many failed tries on, the connecting screen says what is wrong and offers "Try again". */
export const CONNECT_PATIENCE = 3;
/** Backoff between tries: 1 s, 2 s, 4 s… at most this (or the server's Retry-After, bounded too). */
export const CONNECT_MAX_DELAY_MS = 15_000;

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The wait before try `attempt + 1` of a request to the results server: backoff from 1 s, or its Retry-After, at most CONNECT_MAX_DELAY_MS. */
export const retryDelay = (attempt: number, retryAfterS: number | undefined) =>
  Math.min(CONNECT_MAX_DELAY_MS, retryAfterS === undefined ? 1000 * 2 ** (attempt - 1) : retryAfterS * 1000);

/** The wait between two tries, which "Try again" ends early. */
export class RetryWait {
  private retryNow: (() => void) | null = null;

  constructor(private readonly sleep: (ms: number) => Promise<void> = realSleep) {}

  /** Waits `ms` (null: until "Try again"), or less when the participant presses "Try again". */
  wait(ms: number | null): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        if (this.retryNow === done) this.retryNow = null;
        resolve();
      };
      this.retryNow = done;
      if (ms !== null) void this.sleep(ms).then(done);
    });
  }

  /** "Try again": the wait under way ends now. */
  now(): void {
    this.retryNow?.();
  }
}

/** A try that failed and may be tried again. */
export interface Failure {
  readonly message: string;
  readonly retryAfterS?: number | undefined;
}

/** Where the tries stand, for the waiting screen (`connecting`, `fetching`). */
export interface TryState {
  readonly attempt: number;
  readonly problem: string | null;
  readonly waiting: boolean;
}

/**
 * Tries `ask` until it settles (`{ done }`), showing each failure and waiting between tries.
 * `urgent`: a failure whose problem is said at once. `interrupted`: the participant asked for
 * something else while a try was under way or during the wait; `onInterrupt` then settles.
 */
export async function askWithRetries<T>(o: {
  ask(): Promise<{ readonly done: T } | Failure>;
  show(state: TryState): void;
  wait: RetryWait;
  urgent?(failure: Failure): boolean;
  interrupted?(): boolean;
  onInterrupt?(): T;
}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const answer = await o.ask();
    if ('done' in answer) return answer.done;
    const waiting = attempt < CONNECT_ATTEMPTS;
    const sayNow = attempt >= CONNECT_PATIENCE || !waiting || (o.urgent?.(answer) ?? false);
    o.show({ attempt, problem: sayNow ? answer.message : null, waiting });
    const delay = retryDelay(attempt, answer.retryAfterS);
    if (!o.interrupted?.()) await o.wait.wait(waiting ? delay : null);
    if (o.interrupted?.()) return o.onInterrupt!();
    if (!waiting) attempt = 0;
    o.show({ attempt, problem: null, waiting: true });
  }
}
