/**
 * The session a run records under: the session pointer this browser keeps per (link,
 * participant), the ids derived from it, and the request that has the results server issue one.
 *
 * Issued sessions: until consent the run works under a provisional id; after consent,
 * `requestSession` is asked (`connecting` while it tries, with backoff; a retry button after a
 * while); a refusal shows `refused` and records nothing; a grant is stored in the session pointer
 * (with the secret beside the rows), so a reload resumes the same session without asking again.
 * The grant's resume code is kept in the pointer too: typed on another device it continues the
 * same session there.
 */
import { hashSeed } from '../../core/random/rng';
import type { SessionAnswer, SessionGrant, SessionRequest } from '../delivery/serverApi';
import type { RunDeps, RunIdentity, SessionIssuer } from './deps';
import { askWithRetries, CONNECT_MAX_DELAY_MS, type RetryWait } from './retry';
import type { RunScreen } from './screens';

/** A session the results server issued, as the pointer keeps it. */
export interface IssuedSession {
  readonly session_id: string;
  readonly secret: string;
  readonly participant: number;
  readonly condition: string | null;
  /** The code that continues the session on another device (absent in pointers written before codes). */
  readonly resume_code?: string;
  /** The server's clock minus this browser's when the session was granted: added to every time the run writes. */
  readonly clock_offset_ms?: number;
}

export interface Pointer {
  readonly base: string;
  readonly restarts: number;
  /** The issued session; absent for browser-made sessions. */
  readonly issued?: IssuedSession;
}

function hashHex(text: string): string {
  // Two independent 32-bit hashes: 64 bits, so two links or participants practically never collide.
  return [hashSeed(text, 'a'), hashSeed(text, 'b')].map((h) => h.toString(16).padStart(8, '0')).join('');
}

const whoOf = (identity: RunIdentity) => (identity.participantId === '' ? 'browser' : `pid:${identity.participantId}`);

/** Keys of the run's own records in the outbox storage (the outbox uses row/, session/, started/, lock/). */
export const pointerKey = (token: string, identity: RunIdentity) =>
  `pointer/${hashHex(token)}/${encodeURIComponent(whoOf(identity))}`;

/** The decline memo's key for a link and participant. */
export const declineKey = (token: string, identity: RunIdentity) =>
  `clutrr-lab-declined/${hashHex(token)}/${encodeURIComponent(whoOf(identity))}`;

/** Set once the participant downloaded the session's answers from its completion screen. */
export const downloadedKey = (sessionId: string) => `downloaded/${sessionId}`;

/**
 * A collection study's items that came from outside the definition (the live review queue's
 * stories, clauses picked with the server's coverage), stored when they arrive so that a reload
 * shows the same trials without asking again.
 */
export const assignedKey = (sessionId: string) => `assigned/${encodeURIComponent(sessionId)}`;

/**
 * What the results server said of a session this browser continued from another device: the trial
 * indexes it stored then and, when the study's items follow the answers (adaptive), those rows'
 * facts (`SessionGrant.earlier`); kept so that a reload skips those trials and decides the next
 * item as before.
 */
export const resumedKey = (sessionId: string) => `resumed/${encodeURIComponent(sessionId)}`;

export const idOfPointer = (p: Pointer) =>
  p.issued?.session_id ?? (p.restarts === 0 ? p.base : `${p.base}-r${p.restarts}`);

export const samePointer = (a: unknown, b: Pointer | undefined) =>
  a === b ||
  (a !== undefined &&
    b !== undefined &&
    (a as Pointer).base === b.base &&
    (a as Pointer).restarts === b.restarts &&
    (a as Pointer).issued?.session_id === b.issued?.session_id);

/** A new session pointer for (token, participant): derived from the participant's id, or random. */
export function freshPointer(deps: Pick<RunDeps, 'token' | 'identity' | 'newId'>): Pointer {
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
  const key = pointerKey(deps.token, deps.identity);
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

/** The grant, with when this browser received it (its clock), or null when the run stopped (the screen says why). */
export type GrantOutcome = { readonly grant: SessionGrant; readonly receivedAt: number } | null;

/** What the session request needs of the run while it asks. */
export interface AskHost {
  readonly issuer: SessionIssuer;
  readonly request: SessionRequest;
  /** The resume code sent with the request, or null. */
  readonly code: string | null;
  readonly now: () => number;
  show(screen: RunScreen): void;
  readonly wait: RetryWait;
  /** "I have a resume code" was pressed while connecting: the resume screen after the current try. */
  codeWanted(): boolean;
  /** The session is refused: the provisional lock is let go. */
  release(): Promise<void>;
}

/**
 * Asks the server until it answers (backoff, CONNECT_ATTEMPTS tries, then "Try again"). A
 * refusal shows `refused` (or `resume`, when the session exists and needs its code) and gives null.
 */
export function askForSession(host: AskHost): Promise<GrantOutcome> {
  const { code } = host;
  const connecting = (s: { attempt: number; problem: string | null; waiting: boolean }) =>
    host.show({ kind: 'connecting', ...s });
  return askWithRetries<GrantOutcome>({
    async ask() {
      const answer = await host.issuer.request(host.request).catch((e: unknown): SessionAnswer => ({
        ok: false,
        kind: 'unavailable',
        message: e instanceof Error ? e.message : String(e),
      }));
      if (answer.ok) return { done: { grant: answer.grant, receivedAt: host.now() } };
      if (answer.kind === 'refused' && answer.reason === 'resume-code') {
        // The session exists: the participant types its code (or goes back); the provisional lock stays.
        host.show({ kind: 'resume', problem: answer.message });
        return { done: null };
      }
      if (answer.kind === 'refused') {
        await host.release();
        host.show({ kind: 'refused', message: answer.message });
        return { done: null };
      }
      if (code !== null && answer.retryAfterS !== undefined) {
        // Too many wrong codes from here: trying the same code again cannot help before then.
        const wait = Math.ceil(answer.retryAfterS);
        host.show({
          kind: 'resume',
          problem: `${answer.message.replace(/\.$/, '')}. Please wait ${wait >= 120 ? `${Math.ceil(wait / 60)} minutes` : `${wait} seconds`} before you try again.`,
        });
        return { done: null };
      }
      return answer;
    },
    show: connecting,
    wait: host.wait,
    // A server that limits new sessions from this network says so at once: the participant may have a resume code.
    urgent: (f) => f.retryAfterS !== undefined && f.retryAfterS * 1000 > CONNECT_MAX_DELAY_MS,
    interrupted: () => host.codeWanted(),
    onInterrupt() {
      host.show({ kind: 'resume', problem: null });
      return null;
    },
  });
}
