/**
 * The records of the results server's sessions, shared by issuing (sessions.ts) and the checks of
 * rows (ingestChecks.ts): a study's session mode and switches, refusals as the HTTP layer sends
 * them, what participants read when a study takes no one new, and an issued session's row.
 */
import { timingSafeEqual } from 'node:crypto';
import type { SessionGrant, SessionRefusalReason } from '../src/study/delivery/serverApi';

/** What a study id looks like (checked before the database is asked). */
export const STUDY_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** The session id must look like one this server issues (or a browser makes) before the database is asked. */
export const SESSION_ID = /^[A-Za-z0-9_-]{1,200}$/;

export type SessionMode = 'issued' | 'browser';
export const SESSION_MODES: readonly SessionMode[] = ['issued', 'browser'];

/**
 * The mode of a study registered without one: `issued`, since the participant's page asks for a
 * session after consent (src/study/run/run.ts, `issueSession`). Studies registered before keep their
 * mode (`browser` for those of schema step 2); `--new-study-sessions browser` or `study open
 * --browser-sessions` opts out.
 */
export const NEW_STUDY_SESSIONS: SessionMode = 'issued';

export interface AccessState {
  readonly study_id: string;
  readonly sessions: SessionMode;
  readonly closed: boolean;
  /** Most sessions the study takes (issued, or browser-made in `browser` mode); null for no quota. */
  readonly max_sessions: number | null;
  /** Sessions issued so far. */
  readonly issued: number;
  /** Of them, those holding a place (not released for want of an answer): what the quota counts. */
  readonly holding: number;
  /** The counter's next value. */
  readonly next_participant: number;
}

/** A refusal as the HTTP layer sends it. */
export interface Refusal {
  readonly status: 400 | 403 | 404 | 409 | 429;
  readonly reason: SessionRefusalReason | 'not-issued' | 'secret' | 'rate';
  readonly message: string;
  /** For 429: seconds until a retry may succeed. */
  readonly retryAfterS?: number;
}

export type IssueOutcome =
  { readonly ok: true; readonly status: 200 | 201; readonly grant: SessionGrant } | ({ readonly ok: false } & Refusal);

/** What the participant reads when a study takes no one new. */
export const CLOSED_MESSAGE =
  'This study is closed and does not take new participants. Thank you for your interest; please return it (on Prolific: "return submission").';
export const FULL_MESSAGE =
  'This study already has all the participants it needs. Thank you for your interest; please return it (on Prolific: "return submission").';
/** A participant id that already has a session, asked for without what continuing it needs. */
export const NEEDS_CODE_MESSAGE =
  'You already started this study. To continue here, enter the resume code you were shown when you started (it is also on the other device).';
export const WRONG_CODE_MESSAGE =
  'That resume code does not belong to a session of this study. Please check it (it looks like K7QM-4TZP) and try again.';
export const OTHER_SUBMISSION_MESSAGE =
  'Your Prolific ID already took part in this study in another Prolific session, which cannot be continued from this one. Please return this submission on Prolific, or contact the researcher.';

/** A session this server issued, as `issued_sessions` stores it. */
export interface IssuedRow {
  session_id: string;
  study_id: string;
  secret: string;
  participant: number;
  condition: string | null;
  participant_id: string;
  prolific_study_id: string;
  prolific_session_id: string;
  issued_at: string;
  /** Continues the session on another device (null for sessions issued before resume codes). */
  resume_code: string | null;
  /** The keyed hash of the client address that asked (`addressKey`), for the per-address limit. */
  address: string;
  /** 1 when the participant number came from the counter (and may be handed out again once released). */
  from_counter: number;
  /** When the session gave its place back (no answer within the study's claimMinutes), or null. */
  released_at: string | null;
}

/** Equal secrets, compared in constant time (a wrong secret's prefix does not answer faster). */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
