/**
 * `npm run serve -- [--port 8080] [--host 127.0.0.1] [--data ./data]`: the results server.
 * Started by scripts/serve.mjs (which bundles this file with esbuild, as the CLI is).
 */
import { serve, type ServerType } from '@hono/node-server';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApp, DEFAULT_MAX_BODY_BYTES } from './app';
import { defaultBudgetMb, MAX_DEFAULT_BUDGET_MB, parseBudgetMb, StorageBudget } from './budget';
import { ACCESS_FLAGS, ACCESS_USAGE, accessOptionsFrom, AccessLimiter, bareTrustProxy } from './limits';
import { makePrivateDir } from './files';
import { connectOrigin, contentSecurityPolicy, dataInsideDist, withPolicy } from './static';
import { DATABASE_FILE, ResultStore, StoreError } from './store';
import { ensureToken } from './token';

const USAGE = `usage: npm run serve -- [options]

Serves the app's production build (dist/) and the results API on one port; rows are stored in
<data>/results.sqlite. The researcher token is in <data>/token (made on the first start).

Options:
  --port <n>            port to listen on (default 8080; 0 picks a free one)
  --host <address>      address to listen on (default 127.0.0.1; put a TLS proxy in front for the internet)
  --data <folder>       where the database and the token live (default ./data)
  --dist <folder>       the app's production build (default: dist/ of this project)
  --origin <url>        another origin whose pages may call the API (repeatable; default: same origin only)
  --llm-origin <url>    narrow the page's CSP connect-src to its own origin and this one (repeatable): the
                        language-model endpoint the app may ask; name a study's HTTP sink too if it is
                        elsewhere (default: connect-src allows any http(s) address)
  --max-body <bytes>    largest request body accepted (default ${DEFAULT_MAX_BODY_BYTES})
  --session-rate <n>    requests per second per participant session, sustained (default 5)
  --session-burst <n>   requests per participant session at once (default 20)
  --max-db-mb <n>       storage budget: past it (database + WAL) new sessions and rows get 507 (default:
                        what the database uses plus 90% of the free space at start, at most ${MAX_DEFAULT_BUDGET_MB})
${ACCESS_USAGE}
  --help                this text
`;

const number = (name: string, text: string | undefined, fallback: number, min: number): number => {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || n < min)
    throw new UsageError(`--${name} must be a number of at least ${min} (got "${text}")`);
  return n;
};

class UsageError extends Error {}

/** The limit buckets are saved this often (and at SIGTERM / SIGINT), so a restart keeps them. */
const SAVE_BUCKETS_EVERY_MS = 5000;

/** Runs the server until SIGTERM or SIGINT; resolves with the exit status. */
export async function main(argv: string[], projectRoot: string): Promise<number> {
  const bare = bareTrustProxy(argv);
  if (bare) {
    process.stderr.write(`serve: ${bare}\n`);
    return 2;
  }
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        dist: { type: 'string' },
        origin: { type: 'string', multiple: true },
        'llm-origin': { type: 'string', multiple: true },
        'max-body': { type: 'string' },
        'session-rate': { type: 'string' },
        'session-burst': { type: 'string' },
        'max-db-mb': { type: 'string' },
        ...ACCESS_FLAGS,
        help: { type: 'boolean' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    process.stderr.write(`serve: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  let access: ReturnType<typeof accessOptionsFrom>;
  let port: number, maxBody: number, perSecond: number, burst: number;
  let budgetMb: number | undefined;
  const connectOrigins: string[] = [];
  try {
    port = number('port', values.port, 8080, 0);
    if (!Number.isInteger(port) || port > 65535) throw new UsageError(`--port must be a whole number from 0 to 65535`);
    maxBody = number('max-body', values['max-body'], DEFAULT_MAX_BODY_BYTES, 1024);
    perSecond = number('session-rate', values['session-rate'], 5, 0.01);
    burst = number('session-burst', values['session-burst'], 20, 1);
    access = accessOptionsFrom(values, maxBody);
    budgetMb = values['max-db-mb'] === undefined ? undefined : parseBudgetMb(values['max-db-mb']);
    for (const o of values.origin ?? []) {
      if (!/^https?:\/\/[^/]+$/.test(o)) throw new UsageError(`--origin must be like https://example.org (got "${o}")`);
    }
    for (const o of values['llm-origin'] ?? []) {
      const got = connectOrigin(o);
      if ('error' in got) throw new UsageError(got.error);
      connectOrigins.push(got.origin);
    }
  } catch (e) {
    process.stderr.write(`serve: ${(e as Error).message}\n`);
    return 2;
  }
  const host = values.host ?? '127.0.0.1';
  const dataDir = path.resolve(values.data ?? 'data');
  const distDir = path.resolve(values.dist ?? path.join(projectRoot, 'dist'));
  const log = (event: Record<string, unknown>) =>
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), ...event })}\n`);

  const inside = dataInsideDist(dataDir, distDir);
  if (inside) {
    process.stderr.write(`serve: ${inside}\n`);
    return 2;
  }
  let store: ResultStore;
  let tokenFile: string;
  let token: string;
  let budget: StorageBudget;
  try {
    // The token and the database are for the researcher's eyes only.
    process.umask(0o077);
    makePrivateDir(dataDir);
    const t = ensureToken(dataDir);
    ({ token } = t);
    tokenFile = t.file;
    if (t.warning) log({ event: 'warning', message: t.warning });
    process.stdout.write(
      t.created ? `researcher token created in ${tokenFile} (mode 600)\n` : `researcher token: ${tokenFile}\n`,
    );
    store = ResultStore.open(path.join(dataDir, DATABASE_FILE));
    const used = store.bytes();
    let said = `--max-db-mb`;
    if (budgetMb === undefined) {
      const d = defaultBudgetMb(dataDir, used);
      budgetMb = d.mb;
      said = `the database's ${(used / 2 ** 20).toFixed(1)} MB + 90% of ${d.freeMb} MB free, at most ${MAX_DEFAULT_BUDGET_MB}`;
    }
    const measured = store;
    budget = new StorageBudget(budgetMb * 2 ** 20, () => measured.bytes());
    process.stdout.write(`storage budget: ${budget.limitMb} MB (${said})\n`);
  } catch (e) {
    process.stderr.write(
      `serve: ${e instanceof StoreError ? e.message : `cannot use ${dataDir}: ${(e as Error).message}`}\n`,
    );
    return 1;
  }
  process.stdout.write(`database: ${path.join(dataDir, DATABASE_FILE)}\n`);
  if (access.trustProxy.entries.length > 0) {
    process.stdout.write(`X-Forwarded-For read from: ${access.trustProxy.entries.join(', ')}\n`);
  }
  // The buckets of the last run, refilled for the time since it saved them.
  const limiter = new AccessLimiter(access.limits);
  const saveBuckets = () => {
    try {
      return limiter.save(store.limitBuckets());
    } catch (e) {
      log({ event: 'error', message: `saving the limit buckets: ${(e as Error).message}` });
      return 0;
    }
  };
  try {
    if (limiter.load(store.limitBuckets()) === undefined) {
      log({ event: 'warning', message: 'the database has no limit_buckets table: limits start full at every start' });
    }
  } catch (e) {
    log({ event: 'warning', message: `the saved limit buckets could not be read: ${(e as Error).message}` });
  }
  const saver = setInterval(saveBuckets, SAVE_BUCKETS_EVERY_MS);
  saver.unref();
  const app = createApp({
    store,
    token,
    distDir,
    allowedOrigins: values.origin ?? [],
    maxBodyBytes: maxBody,
    rate: { perSecond, burst },
    ...access,
    accessLimiter: limiter,
    budget,
    log,
  });

  return await new Promise<number>((resolve) => {
    // --llm-origin: every response's CSP lets the page reach exactly those origins besides its own.
    const fetch = connectOrigins.length ? withPolicy(app.fetch, contentSecurityPolicy(connectOrigins)) : app.fetch;
    const server: ServerType = serve({ fetch, port, hostname: host }, (info) => {
      if (!existsSync(path.join(distDir, 'index.html')))
        log({ event: 'warning', message: `no app build in ${distDir}: serving the API only` });
      const shown = host.includes(':') ? `[${host}]` : host;
      process.stdout.write(`listening on http://${shown}:${info.port}\n`);
    });
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      process.stdout.write(`${signal}: closing\n`);
      // Requests under way finish (their transactions are synchronous, so none is half-written);
      // idle keep-alive connections are closed so that close() does not wait for them.
      const force = setTimeout(() => (server as { closeAllConnections?: () => void }).closeAllConnections?.(), 5000);
      server.close(() => {
        clearTimeout(force);
        clearInterval(saver);
        saveBuckets();
        store.close();
        process.stdout.write('database closed\n');
        resolve(0);
      });
      (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
    };
    server.on('error', (e: NodeJS.ErrnoException) => {
      process.stderr.write(
        `serve: cannot listen on ${host}:${port}: ${e.code === 'EADDRINUSE' ? 'the port is in use' : e.message}\n`,
      );
      clearInterval(saver);
      store.close();
      resolve(1);
    });
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
}
