/**
 * What the participant's page shows: every screen of a run, as `StudyRun.state` holds it. The
 * trial screens are each study kind's (src/study/kinds).
 */
import type { AnyTrialScreen, FeedbackScreen } from '../kinds';
import type { ResultRow, SessionInfo } from '../results/results';

export type {
  AnyTrialScreen,
  FeedbackScreen,
  ParaphraseScreen,
  ReviewScreen,
  TrialScreen,
  TrialTiming,
} from '../kinds';

/**
 * Where the sinks stand on the completion screen: `sent` every row everywhere; `partly-sent` the
 * primary destination has every row and a copy is still on its way elsewhere; `refused` a sink
 * refused rows for good; `failed` rows still unsent after the patience; `sending`; `none` nothing
 * is sent (download-only).
 */
export type SinkState = 'none' | 'sending' | 'sent' | 'partly-sent' | 'failed' | 'refused';

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
  | AnyTrialScreen
  | FeedbackScreen
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

/** A sink's refusal of rows of the running session, as the page tells the participant while the study goes on. */
export interface SinkRefusal {
  /** The transport id (`server`, `jatos`, `http:<url>`). */
  readonly sink: string;
  /** Rows of this session it refused for good. */
  readonly count: number;
  /** What it said last, or null. */
  readonly said: string | null;
}
