/**
 * What the server sends besides the API: the app's production build, and the security headers
 * that go on every response.
 *
 * Static files (nginx practice): only regular files whose real path (symlinks resolved) lies
 * inside the real `--dist` folder; never a dotfile or a path with a dot-segment anywhere
 * (`/.env`, `/.git/config`); a folder answers its `index.html`. Anything else is 404, so the
 * answer does not tell what exists outside the build. `--data` inside `--dist` is refused at
 * start (`dataInsideDist`): the token and the database must never be reachable by URL.
 */
import { createReadStream, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Context, MiddlewareHandler } from 'hono';
import { getMimeType } from 'hono/utils/mime';

/**
 * The Content-Security-Policy of every response. What the app's production build needs:
 * its own scripts, module workers and the tfjs wasm backend (`'wasm-unsafe-eval'` allows compiling
 * WebAssembly, not `eval`); the inline `<style>` of index.html and style attributes set by the
 * charts (`'unsafe-inline'` for styles only: styles cannot run code); `data:` and `blob:` images
 * (the empty favicon, downloads); fetches to its own origin and to a study's HTTP sink, which
 * the researcher may put on any address (`https:` / `http:`). Nothing may frame the pages but the
 * app itself (`frame-ancestors 'self'`: the designer's token field cannot be framed).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' https: http:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join('; ');

/**
 * The policy with `connect-src` narrowed to the page's own origin and exactly `origins`
 * (`npm run serve -- --llm-origin URL`, repeatable; issue 35): the page can then reach a
 * language-model endpoint, and nothing else but its own server. Without origins, the default
 * policy (any http(s) address: a study's sink may be anywhere).
 */
export function contentSecurityPolicy(origins: readonly string[] = []): string {
  if (origins.length === 0) return CONTENT_SECURITY_POLICY;
  return CONTENT_SECURITY_POLICY.replace("connect-src 'self' https: http:", `connect-src 'self' ${origins.join(' ')}`);
}

/** The origin of an endpoint URL for `--llm-origin` (`http://127.0.0.1:8080/v1` → `http://127.0.0.1:8080`), or a message. */
export function connectOrigin(text: string): { origin: string } | { error: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { error: `--llm-origin must be a URL like http://127.0.0.1:8080 (got "${text}")` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { error: `--llm-origin must be an http: or https: URL (got "${text}")` };
  }
  return { origin: url.origin };
}

/**
 * Wraps a fetch handler so that every response carries `policy` as its CSP (main.ts, for
 * `--llm-origin`; the app's own middleware sets the default one first).
 */
export function withPolicy<A extends unknown[]>(
  handler: (request: Request, ...rest: A) => Response | Promise<Response>,
  policy: string,
): (request: Request, ...rest: A) => Promise<Response> {
  return async (request, ...rest) => {
    const res = await handler(request, ...rest);
    const headers = new Headers(res.headers);
    headers.set('Content-Security-Policy', policy);
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  };
}

/** The headers every response carries, API and files alike. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Frame-Options': 'SAMEORIGIN',
  'X-Content-Type-Options': 'nosniff',
  // Participant links carry the study in the query: no page of ours tells another site its URL.
  'Referrer-Policy': 'no-referrer',
};

export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
};

/** Is `inner` the folder `outer` or inside it (both real, absolute paths)? */
const within = (inner: string, outer: string) => inner === outer || inner.startsWith(outer + path.sep);

/** The real path of `p`, resolving symlinks, or undefined when it does not exist. */
function realpathOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/**
 * A message when the data folder is the dist folder or inside it (the real paths, so a symlink
 * does not hide it; a data folder not made yet is judged by its nearest existing parent), else
 * undefined.
 */
export function dataInsideDist(dataDir: string, distDir: string): string | undefined {
  const dist = realpathOrUndefined(distDir);
  if (dist === undefined) return undefined;
  let probe = path.resolve(dataDir);
  const rest: string[] = [];
  let real = realpathOrUndefined(probe);
  while (real === undefined) {
    const parent = path.dirname(probe);
    if (parent === probe) return undefined;
    rest.unshift(path.basename(probe));
    probe = parent;
    real = realpathOrUndefined(probe);
  }
  const data = path.join(real, ...rest);
  if (!within(data, dist)) return undefined;
  return `the data folder ${dataDir} is inside the served folder ${distDir}: the token and the database would be downloadable; choose a --data folder outside --dist`;
}

/** The file a request path names inside `root` (real path), or undefined: 404. */
export function resolveStaticPath(root: string, requestPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(requestPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/').filter((s) => s !== '');
  // Dotfiles, dot-folders and `..` alike: nothing the build serves starts with a dot.
  if (segments.some((s) => s.startsWith('.'))) return undefined;
  let real = realpathOrUndefined(path.join(root, ...segments));
  if (real === undefined || !within(real, root)) return undefined;
  let stat = statSync(real);
  if (stat.isDirectory()) {
    real = realpathOrUndefined(path.join(real, 'index.html'));
    if (real === undefined || !within(real, root)) return undefined;
    stat = statSync(real);
  }
  return stat.isFile() ? real : undefined;
}

/**
 * Serves the build in `distDir` for GET and HEAD; other requests, and paths that are not a file
 * of the build, go on to the next handler (404). Hashed names under `assets/` are cached for good,
 * everything else revalidated.
 */
export function serveDist(distDir: string, log: (event: Record<string, unknown>) => void): MiddlewareHandler {
  const root = realpathSync(distDir);
  return async (c: Context, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    const file = resolveStaticPath(root, c.req.path);
    if (file === undefined) {
      if (/(^|\/)\.|%2e|%2f|%5c/i.test(c.req.path)) log({ event: 'refused-path', path: c.req.path });
      return next();
    }
    const size = statSync(file).size;
    c.header('Content-Type', getMimeType(file) ?? 'application/octet-stream');
    c.header('Content-Length', String(size));
    c.header('Cache-Control', c.req.path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (c.req.method === 'HEAD') return c.body(null, 200);
    return c.body(Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>, 200);
  };
}
