/**
 * The HTTP side of the results server (Hono): the app's production build, the participants'
 * append-only endpoint and the researchers' endpoints. Every reply of the API is JSON (or the
 * export file); errors are one short sentence in `{ "error": … }`, never a stack trace.
 *
 *   POST /api/rows              participants: `{ sessions, rows }` (text/plain, as fetch and sendBeacon send it)
 *   GET  /api/health            anyone: `{ ok, schema }`
 *   GET  /api/studies           token: the registered studies
 *   POST /api/studies           token: register `{ token }` (a study link token or URL) or `{ definition }`
 *   GET  /api/sessions[?study]  token: the sessions and how far each got
 *   GET  /api/results.csv[?study], /api/results.json[?study]   token: the export
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readLimited } from './body';
import { budgetRefusal, type StorageBudget } from './budget';
import { exportStream } from './export';
import { GroupCommit } from './groupCommit';
import { FULL_RETRY_AFTER_S, isDiskFull, WriteHealth } from './health';
import { parseClientJson } from './json';
import { RateLimiter, type RateLimitOptions } from './rateLimit';
import { AccessLimiter, TrustedProxies, type AccessLimits } from './limits';
import { parseIngestBody } from './schema';
import { installSessionRoutes, rowsGuard } from './sessionRoutes';
import { StudyAccess, type SessionMode } from './sessions';
import { sessionModeOf } from './studySwitches';
import { securityHeaders, serveDist } from './static';
import { SCHEMA_VERSION, StoreError, type ResultStore } from './store';
import { bearerMatches } from './token';

export interface AppOptions {
  readonly store: ResultStore;
  readonly token: string;
  /** The production build to serve (index.html and assets/), or null for the API alone. */
  readonly distDir: string | null;
  /**
   * Origins besides the server's own that may call the API from a browser (the app served from
   * elsewhere). Same-origin requests are always allowed.
   */
  readonly allowedOrigins: readonly string[];
  readonly maxBodyBytes: number;
  readonly rate: RateLimitOptions;
  /** One structured event (a conflict, a refusal, an error), written as a log line. */
  readonly log: (event: Record<string, unknown>) => void;
  /** Issued sessions and per-client limits (sessionRoutes.ts); defaults: DEFAULT_ACCESS_LIMITS, no proxy. */
  readonly limits?: AccessLimits;
  /**
   * The limiter itself, when the caller saves and loads its buckets (main.ts); else a new one of
   * `limits`.
   */
  readonly accessLimiter?: AccessLimiter;
  /** The proxies whose X-Forwarded-For is read (limits.ts); true is `TrustedProxies.anyPeer`, for in-process tests. */
  readonly trustProxy?: TrustedProxies | boolean;
  /** Past it, new sessions and rows get 507 and health 503 (budget.ts); none by default. */
  readonly budget?: StorageBudget;
  readonly newStudySessions?: SessionMode;
  /** The sessions' clock (tests move it: idle sessions giving their places back). */
  readonly now?: () => Date;
}

export const DEFAULT_MAX_BODY_BYTES = 512 * 1024;

const error = (c: Context, status: 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 503, message: string, extra = {}) =>
  c.json({ error: message, ...extra }, status);

/** A 507 while the storage budget is used up (logged once each time it runs out); undefined while there is room. */
function budgetGate(budget: StorageBudget | undefined, log: AppOptions['log']) {
  let logged = false;
  return (c: Context): Response | undefined => {
    const why = budget?.over();
    if (budget === undefined || why === undefined) {
      logged = false;
      return undefined;
    }
    if (!logged) log({ event: 'storage-budget', message: why });
    logged = true;
    return c.json(budgetRefusal(budget.limitMb), 507);
  };
}

export function createApp(o: AppOptions): Hono {
  const app = new Hono();
  const limiter = new RateLimiter(o.rate);
  const committer = new GroupCommit(o.store);
  const allowed = new Set(o.allowedOrigins.map((s) => s.replace(/\/+$/, '')));

  app.onError((err, c) => {
    o.log({ event: 'error', method: c.req.method, path: c.req.path, message: err.message });
    return error(c, 500, 'internal error (logged on the server)');
  });

  // CSP with frame-ancestors, X-Frame-Options, nosniff, Referrer-Policy (static.ts).
  app.use('*', securityHeaders);

  // ---- the API: origin check, CORS for the configured origins only ----
  app.use('/api/*', async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined) {
      const own = ownOrigin(origin, c.req.header('host'));
      if (!own && !allowed.has(origin)) {
        o.log({ event: 'refused-origin', origin, path: c.req.path });
        return error(c, 403, `requests from ${origin} are not accepted here`);
      }
      if (!own) {
        c.header('Access-Control-Allow-Origin', origin);
        c.header('Vary', 'Origin');
        if (c.req.method === 'OPTIONS') {
          c.header('Access-Control-Allow-Methods', 'GET, POST');
          c.header('Access-Control-Allow-Headers', 'authorization, content-type, x-session-secret');
          c.header('Access-Control-Max-Age', '600');
          return c.body(null, 204);
        }
      }
    }
    await next();
    c.header('Cache-Control', 'no-store');
  });

  // Ok only while writes work: the last commit and a probe file in the data folder (health.ts).
  const file = o.store.file;
  const health = new WriteHealth(file === null ? null : path.dirname(file), undefined, undefined, o.budget);
  const overBudget = budgetGate(o.budget, o.log);
  app.get('/api/health', (c) => {
    const r = health.report();
    return c.json({ ok: r.ok, schema: SCHEMA_VERSION, ...(r.error ? { error: r.error } : {}) }, r.ok ? 200 : 503);
  });

  // ---- participants: sessions the server issues, short links (before the researcher's /api/sessions) ----
  const access = new StudyAccess(o.store, {
    ...(o.newStudySessions ? { newStudySessions: o.newStudySessions } : {}),
    ...(o.now ? { now: o.now } : {}),
  });
  const trustProxy =
    o.trustProxy === true
      ? TrustedProxies.anyPeer
      : o.trustProxy instanceof TrustedProxies
        ? o.trustProxy
        : TrustedProxies.none;
  const sessionDeps = {
    access,
    limiter: o.accessLimiter ?? new AccessLimiter(o.limits),
    trustProxy,
    log: o.log,
    token: o.token,
  };
  // Registered before the session routes, so it runs first: no new session past the storage budget.
  app.use('/api/sessions', async (c, next) => {
    if (c.req.method === 'POST') {
      const refused = overBudget(c);
      if (refused) return refused;
    }
    await next();
  });
  installSessionRoutes(app, sessionDeps);
  const guard = rowsGuard(sessionDeps);

  // ---- participants: append only ----
  app.post('/api/rows', async (c) => {
    const full = overBudget(c);
    if (full) return full;
    const body = await readLimited(c.req.raw, o.maxBodyBytes);
    if (body === undefined) {
      return error(c, 413, `the body is larger than ${o.maxBodyBytes} bytes; send fewer rows at a time`);
    }
    // From the whole body received to the commit: the server's share of the ingest latency.
    const received = performance.now();
    const parsed = parseIngestBody(body);
    if (!parsed.ok) return error(c, 400, parsed.message);
    const refused = guard(c, parsed.value, Buffer.byteLength(body));
    if (refused) return refused;
    for (const session of new Set(parsed.value.rows.map((r) => r.session_id))) {
      const wait = limiter.take(session);
      if (wait > 0) {
        c.header('Retry-After', String(wait));
        return error(c, 429, `too many requests for session ${session}; retry in ${wait} s`);
      }
    }
    let outcome;
    try {
      outcome = await committer.ingest(parsed.value);
      health.succeeded();
      o.budget?.changed();
    } catch (e) {
      health.failed(e);
      if (!isDiskFull(e)) throw e;
      // Nothing of this request was stored; the outbox keeps the rows and sends them again.
      o.log({ event: 'disk-full', message: (e as Error).message });
      c.header('Retry-After', String(FULL_RETRY_AFTER_S));
      return error(
        c,
        503,
        `the server cannot store answers right now (its disk is full); retry in ${FULL_RETRY_AFTER_S} s`,
      );
    }
    switch (outcome.status) {
      case 'stored':
        c.header('Server-Timing', `ingest;dur=${(performance.now() - received).toFixed(1)}`);
        return c.json({ stored: outcome.added, unchanged: outcome.unchanged });
      case 'unknown-study':
        o.log({ event: 'unknown-study', study_id: outcome.studyId });
        return error(c, 403, `the study "${outcome.studyId}" is not registered on this server`);
      case 'invalid':
        return error(c, 400, outcome.message);
      case 'conflict':
        for (const conflict of outcome.conflicts) o.log({ event: 'conflict', ...conflict });
        return error(c, 409, `${outcome.conflicts.length} conflicting record(s); nothing was stored`, {
          conflicts: outcome.conflicts,
        });
    }
  });

  // ---- researchers: the token ----
  const researcher = async (c: Context, next: () => Promise<void>) => {
    if (!bearerMatches(c.req.header('authorization'), o.token)) {
      o.log({ event: 'refused-token', method: c.req.method, path: c.req.path });
      c.header('WWW-Authenticate', 'Bearer realm="clutrr-results"');
      return error(c, 401, 'a valid researcher token is needed (Authorization: Bearer <token>)');
    }
    await next();
  };
  for (const p of ['/api/studies', '/api/sessions', '/api/results.csv', '/api/results.json']) app.use(p, researcher);

  app.get('/api/studies', (c) => c.json({ studies: o.store.studies() }));

  app.post(
    '/api/studies',
    bodyLimit({ maxSize: 1024 * 1024, onError: (c) => error(c, 413, 'the study is larger than 1 MiB') }),
    async (c) => {
      // Built-in key names (`__proto__`, `toString`, …) anywhere in the body are refused (json.ts).
      const parsed = parseClientJson(await c.req.text());
      if (!parsed.ok) return error(c, 400, parsed.message);
      const body = parsed.value;
      const input =
        body && typeof body === 'object' && typeof (body as { token?: unknown }).token === 'string'
          ? { token: (body as { token: string }).token }
          : body && typeof body === 'object' && 'definition' in body
            ? { definition: (body as { definition: unknown }).definition }
            : undefined;
      if (!input) return error(c, 400, 'send { "token": "<study link token>" } or { "definition": { … } }');
      try {
        const r = access.register(input, sessionModeOf(body));
        return c.json({ study_id: r.studyId, token: r.token, outcome: r.outcome }, r.outcome === 'added' ? 201 : 200);
      } catch (e) {
        if (!(e instanceof StoreError)) throw e;
        return error(c, /already has results/.test(e.message) ? 409 : 400, e.message);
      }
    },
  );

  const studyParam = (c: Context): { ok: true; study?: string } | { ok: false; response: Response } => {
    const study = c.req.query('study');
    if (study === undefined || study === '') return { ok: true };
    if (!o.store.hasStudy(study)) return { ok: false, response: error(c, 404, `no study "${study}" here`) };
    return { ok: true, study };
  };

  app.get('/api/sessions', (c) => {
    const s = studyParam(c);
    return s.ok ? c.json({ sessions: o.store.sessions(s.study) }) : s.response;
  });

  for (const format of ['csv', 'json'] as const) {
    app.get(`/api/results.${format}`, (c) => {
      const s = studyParam(c);
      if (!s.ok) return s.response;
      // Streamed from a cursor: bounded memory, and ingest keeps running between chunks.
      const body = exportStream(o.store, format, s.study);
      c.header('Content-Disposition', `attachment; filename="results-${s.study ?? 'all'}.${format}"`);
      c.header('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8');
      return c.body(body);
    });
  }

  app.all('/api/*', (c) => error(c, 404, `no such endpoint: ${c.req.method} ${c.req.path}`));

  // ---- the app itself ----
  if (o.distDir && existsSync(path.join(o.distDir, 'index.html'))) {
    // Files of the build only: no dotfiles, nothing outside it, symlinks included (static.ts).
    app.use('*', serveDist(o.distDir, o.log));
  } else {
    app.get('/', (c) =>
      c.text('The results API runs here; the app is not built (run `npm run build`, then restart the server).\n'),
    );
  }
  return app;
}

/** Is `origin` the origin of this very server? Compared by host and port: a TLS proxy in front changes the scheme. */
function ownOrigin(origin: string, host: string | undefined): boolean {
  if (!host) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}
