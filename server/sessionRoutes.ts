/**
 * The HTTP side of issued sessions, short links and the per-client limits, kept out of
 * app.ts, which calls `installSessionRoutes` and `rowsGuard`:
 *
 *   POST /api/sessions            participants: start (or resume) a session; see sessions.ts
 *   GET  /api/studies/<id>/link   anyone: a registered study's link token, for `?s=<study id>` links
 *   GET  /api/studies/<id>/review-items?session=<id>   an issued session of a live review study
 *                                 (its secret in X-Session-Secret): the stories it reviews (reviewQueue.ts)
 *   GET  /api/studies/<id>/coverage   anyone: stories per clause of a paraphrase study
 *
 * and, before `POST /api/rows` stores anything: the limits on bytes per address and per study,
 * then the issued-session checks (`StudyAccess.admitRows`).
 */
import type { Context, Hono } from 'hono';
import { SESSION_SECRET_HEADER } from '../src/study/delivery/serverApi';
import { readLimited } from './body';
import { parseClientJson } from './json';
import { AccessLimiter, clientAddress, type LimitHit, type TrustedProxies } from './limits';
import type { IngestBody } from './schema';
import type { IssueContext, IssueOutcome, Refusal, StudyAccess } from './sessions';
import { bearerMatches } from './token';

export interface SessionRouteDeps {
  readonly access: StudyAccess;
  readonly limiter: AccessLimiter;
  /** The proxies whose X-Forwarded-For is read (behind a proxy); see clientAddress. */
  readonly trustProxy: TrustedProxies;
  readonly log: (event: Record<string, unknown>) => void;
  /** The researcher's token: a session request carrying it may choose its condition and participant number (previews, tests). */
  readonly token?: string;
}

/** Largest `POST api/sessions` body: a study link token may be long (64,000 characters at most). */
const MAX_SESSION_BODY = 128 * 1024;

const LIMIT_WORDS: Record<LimitHit['limit'], string> = {
  addressSessions: 'too many new sessions from your network',
  studySessions: 'too many new sessions for this study',
  addressBytes: 'too much data from your network',
  studyBytes: 'too much data for this study',
  addressQueue: 'too many requests for review items from your network',
  addressResumeCodes: 'too many wrong resume codes from your network',
};

const limitMessage = (hit: LimitHit) =>
  `${LIMIT_WORDS[hit.limit]} at the moment; please try again in ${hit.retryAfterS} s`;

/** A limit's refusal as the session issuing returns it (sent as 429 with Retry-After). */
const rateRefusal = (hit: LimitHit, message = limitMessage(hit)): Refusal => ({
  status: 429,
  reason: 'rate',
  message,
  retryAfterS: hit.retryAfterS,
});

const tooMany = (c: Context, hit: LimitHit) => {
  c.header('Retry-After', String(hit.retryAfterS));
  return c.json({ error: limitMessage(hit), reason: 'rate' }, 429);
};

export function installSessionRoutes(app: Hono, d: SessionRouteDeps): void {
  const batch = new IssueBatch(d.access);
  app.post('/api/sessions', async (c) => {
    const text = await readLimited(c.req.raw, MAX_SESSION_BODY);
    if (text === undefined) {
      return c.json({ error: `the request is larger than ${MAX_SESSION_BODY} bytes`, reason: 'invalid' }, 413);
    }
    // Built-in key names refused, lone surrogates made U+FFFD, as for rows (json.ts).
    const parsed = parseClientJson(text);
    if (!parsed.ok) return c.json({ error: parsed.message, reason: 'invalid' }, 400);
    const body = parsed.value;
    const address = clientAddress(c, d.trustProxy);
    const researcher = d.token !== undefined && bearerMatches(c.req.header('authorization'), d.token);
    const outcome = await batch.issue(body, {
      researcher,
      address,
      gate: (studyId, room): Refusal | undefined => {
        const hit = room ? d.limiter.newRoomSession(studyId) : d.limiter.newSession(address, studyId);
        return hit && rateRefusal(hit);
      },
      wrongCode: (): Refusal | undefined => {
        const hit = d.limiter.wrongResumeCode(address);
        return hit && rateRefusal(hit, `${LIMIT_WORDS[hit.limit]}; please try again in ${hit.retryAfterS} s`);
      },
    });
    if (outcome.ok) return c.json(outcome.grant, outcome.status);
    if (outcome.reason === 'resume-code' || outcome.reason === 'resume-refused') {
      d.log({ event: 'refused-resume', reason: outcome.reason, address });
    }
    if (outcome.status === 429) {
      d.log({ event: 'limited', what: 'new-session', address, message: outcome.message });
      c.header('Retry-After', String(outcome.retryAfterS ?? 1));
    }
    return c.json({ error: outcome.message, reason: outcome.reason }, outcome.status);
  });

  app.get('/api/studies/:id/link', (c) => {
    const id = c.req.param('id');
    const link = d.access.link(id);
    if (!link) return c.json({ error: `There is no study "${id}" here. Please check the link you were given.` }, 404);
    return c.json(link);
  });

  // The live review queue: rate-limited per address before anything is looked up.
  app.get('/api/studies/:id/review-items', (c) => {
    const hit = d.limiter.queue(clientAddress(c, d.trustProxy));
    if (hit) return tooMany(c, hit);
    const outcome = d.access.reviewItems(
      c.req.param('id'),
      c.req.query('session'),
      c.req.header(SESSION_SECRET_HEADER),
    );
    if (!outcome.ok) {
      if (outcome.status === 403)
        d.log({ event: 'refused-review-items', reason: outcome.reason, message: outcome.message });
      return c.json({ error: outcome.message, reason: outcome.reason }, outcome.status);
    }
    return c.json({ items: outcome.items });
  });

  app.get('/api/studies/:id/coverage', (c) => {
    const hit = d.limiter.queue(clientAddress(c, d.trustProxy));
    if (hit) return tooMany(c, hit);
    const outcome = d.access.reviews.coverage(c.req.param('id'));
    if (!outcome.ok) return c.json({ error: outcome.message, reason: outcome.reason }, outcome.status);
    return c.json({ study_id: c.req.param('id'), stories: outcome.stories, coverage: outcome.coverage });
  });
}

/**
 * The checks `POST api/rows` makes after parsing and before storing: bytes per address and per
 * study (429 with Retry-After), then the issued sessions (403/400, logged). Undefined: go on.
 */
export function rowsGuard(d: SessionRouteDeps) {
  return (c: Context, body: IngestBody, bytes: number): Response | undefined => {
    const address = clientAddress(c, d.trustProxy);
    // Issued-session checks first: a refused request is not charged to the study's byte budget.
    const { refusal, shared } = d.access.admitRows(body);
    if (refusal) {
      d.log({ event: 'refused-rows', reason: refusal.reason, address, message: refusal.message });
      return c.json({ error: refusal.message, reason: refusal.reason }, refusal.status);
    }
    for (const session of shared) {
      d.log({ event: 'reclaimed-shares-cell', session_id: session, address });
    }
    const studies = [...new Set(body.rows.map((r) => r.study_id))].filter((s) => d.access.link(s) !== undefined);
    const hit = d.limiter.bytes(address, studies, bytes);
    if (hit) {
      d.log({ event: 'limited', what: 'bytes', limit: hit.limit, address, bytes });
      return tooMany(c, hit);
    }
    return undefined;
  };
}

/**
 * The session requests of one turn of the event loop share one transaction (one WAL sync), as
 * the rows do (groupCommit.ts): a study launch brings hundreds at once, and one sync each, on the
 * main thread, made the 200th wait seconds. Each request is still its own savepoint, and every
 * answer waits for the shared commit.
 */
class IssueBatch {
  private queue: {
    body: unknown;
    context: IssueContext;
    resolve: (o: IssueOutcome) => void;
    reject: (e: unknown) => void;
  }[] = [];

  constructor(private readonly access: StudyAccess) {}

  issue(body: unknown, context: IssueContext): Promise<IssueOutcome> {
    return new Promise((resolve, reject) => {
      if (this.queue.push({ body, context, resolve, reject }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.queue.splice(0);
    let outcomes: IssueOutcome[];
    try {
      outcomes = this.access.store.transaction(() => batch.map((w) => this.access.issue(w.body, w.context)));
    } catch (e) {
      for (const w of batch) w.reject(e);
      return;
    }
    batch.forEach((w, i) => w.resolve(outcomes[i]!));
  }
}
