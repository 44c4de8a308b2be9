/**
 * What a run needs from its surroundings: the browser's storage, clock, ids and the results
 * server's requests on the page, fakes in the tests.
 */
import type { CoverageAnswer, ReviewItemsAnswer } from '../delivery/serverApi';
import type { StudyDefinition } from '../definition/types';
import type { Timer } from '../delivery/lock';
import type { Outbox } from '../delivery/outbox';
import type { SessionAnswer, SessionRequest } from '../delivery/serverApi';
import type { OutboxStorage } from '../delivery/storage';
import type { Trial } from '../schedule/items';
import type { TrialContent } from '../schedule/trialContent';

/** Who is taking part, from the URL (or JATOS). */
export interface RunIdentity {
  /** PROLIFIC_PID or the JATOS worker id; empty for an anonymous browser. */
  readonly participantId: string;
  readonly prolificStudyId: string;
  readonly prolificSessionId: string;
  /** `participant=<n>`; null: drawn from the session id (see participantNumberOf). */
  readonly participantNumber: number | null;
  /** `condition=<id>`, or null. */
  readonly forcedCondition: string | null;
}

/** What the run needs from its surroundings (the browser, or the tests' fakes). */
export interface RunDeps {
  readonly def: StudyDefinition;
  /** The link token: sessions are per (token, participant). */
  readonly token: string;
  readonly identity: RunIdentity;
  readonly outbox: Outbox;
  /** The same storage the outbox uses (for the session pointer of this browser). */
  readonly storage: OutboxStorage;
  /** Wall-clock milliseconds (Date.now). */
  readonly now: () => number;
  /** A fresh random id for an anonymous browser's session (crypto.randomUUID). */
  readonly newId: () => string;
  /** `user_agent` and `screen` for SessionInfo. */
  readonly device: { readonly userAgent: string; readonly screen: string };
  /** The trial for an item (generates its puzzle). */
  readonly makeTrial: (trial: Trial) => Promise<TrialContent>;
  /** Performance marks and measures (`performance` in the browser and in Node). */
  readonly perf?: Pick<Performance, 'mark' | 'measure' | 'now'>;
  /**
   * Asks the results server for a session; absent for studies without the `server`
   * sink, previews, and tests of browser-made sessions.
   */
  readonly issuer?: SessionIssuer;
  /** Waits before a retry of the session request (setTimeout in the browser, a fake clock in tests). */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * Remembers, outside the study's storage, that consent was declined (the page's
   * sessionStorage), so a reload shows the declined page again without recording anything.
   */
  readonly declines?: DeclineMemo;
  /**
   * A live review study's items for an issued session (`fetchReviewItems` bound to fetch and the
   * page); absent where there is no results server to ask (a preview, a page inside JATOS).
   */
  readonly reviewItems?: (sessionId: string, secret: string | undefined) => Promise<ReviewItemsAnswer>;
  /** Stories per clause so far (`fetchCoverage`), for a paraphrase study that favours the least covered. */
  readonly coverage?: () => Promise<CoverageAnswer>;
  /** The clock of the paraphrase draft's delayed save (the tests' fake timer). */
  readonly timer?: Timer;
}

/** The results server's session requests, as the run needs them (`requestSession` bound to fetch and the page). */
export interface SessionIssuer {
  /** How the request names the study: by id (a short link) or by its token (a full link). */
  readonly study: { readonly studyId: string } | { readonly token: string };
  request(request: SessionRequest): Promise<SessionAnswer>;
}

/** Where a decline is remembered: never the outbox storage, never a sink. */
export interface DeclineMemo {
  has(key: string): boolean;
  add(key: string): void;
  delete(key: string): void;
}
