/**
 * An OpenAI-compatible chat-completions client (llama.cpp's server, Ollama, vLLM, hosted ones).
 * Pure: the caller passes `fetch` (the page's, Node's, or a stub), a clock and a sleep, so the
 * same code runs in the CLI, on the page and in tests. The API key goes only into the
 * Authorization header: it is never part of a result, an error message or a log line.
 */

/** What this client needs of `fetch` (the standard one fits). */
export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string; signal?: AbortSignal },
) => Promise<{
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}>;

export interface LlmEndpoint {
  /** The server's base URL (`http://127.0.0.1:8080`, `…/v1`) or its full `…/chat/completions` URL. */
  readonly url: string;
  readonly model: string;
  /** Sent as `Authorization: Bearer <key>` only; empty or absent: no header. */
  readonly apiKey?: string;
}

/** Sampling settings passed through as given (absent ones are left to the server). */
export interface LlmSampling {
  readonly temperature?: number;
  readonly maxTokens?: number;
  readonly seed?: number;
}

export interface RetryPolicy {
  /** Tries after the first, on 429, 408 and 5xx. */
  readonly retries: number;
  /** The first wait; each later one doubles, up to `maxDelayMs` (no jitter: runs repeat exactly). */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, baseDelayMs: 500, maxDelayMs: 30_000 };

export interface LlmTransport {
  readonly fetch: FetchLike;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  readonly retry?: RetryPolicy;
  readonly signal?: AbortSignal;
}

export interface ChatRequestBody {
  readonly model: string;
  readonly messages: readonly { readonly role: 'user'; readonly content: string }[];
  readonly temperature?: number;
  readonly max_tokens?: number;
  readonly seed?: number;
}

export interface TokenCounts {
  readonly prompt: number | null;
  readonly completion: number | null;
  readonly total: number | null;
}

export interface ChatReply {
  readonly text: string;
  readonly tokens: TokenCounts;
  /** From the first request to the reply, waits included. */
  readonly ms: number;
  /** Requests made (1 when the first one answered). */
  readonly attempts: number;
  /** The model the server says answered (may differ from the one asked, e.g. an alias). */
  readonly model: string | null;
}

/** Why a request failed, for people: `network` is where a browser's CORS refusal lands. */
export class LlmError extends Error {
  constructor(
    message: string,
    readonly kind: 'network' | 'http' | 'reply' | 'cancelled',
    readonly status?: number,
  ) {
    super(message);
    this.name = 'LlmError';
  }
}

/** The chat-completions URL of what the user typed (see `LlmEndpoint.url`). */
export function completionsUrl(base: string): string {
  let url: URL;
  try {
    url = new URL(base.trim());
  } catch {
    throw new LlmError(`not a URL: "${base}" (e.g. http://127.0.0.1:8080/v1)`, 'reply');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LlmError(`the endpoint must be http: or https: (got ${url.protocol})`, 'reply');
  }
  if (url.username || url.password)
    throw new LlmError('put no name or password in the URL: give a key instead', 'reply');
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/chat/completions')) url.pathname = path;
  else if (path === '') url.pathname = '/v1/chat/completions';
  else url.pathname = `${path}/chat/completions`;
  url.search = '';
  url.hash = '';
  return url.toString();
}

/** The origin (scheme, host, port) of an endpoint URL: what CORS and the CSP are about. */
export const endpointOrigin = (base: string) => new URL(completionsUrl(base)).origin;

export function requestBody(endpoint: LlmEndpoint, prompt: string, sampling: LlmSampling): ChatRequestBody {
  return {
    model: endpoint.model,
    messages: [{ role: 'user', content: prompt }],
    ...(sampling.temperature !== undefined && { temperature: sampling.temperature }),
    ...(sampling.maxTokens !== undefined && { max_tokens: sampling.maxTokens }),
    ...(sampling.seed !== undefined && { seed: sampling.seed }),
  };
}

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (!header) return null;
  const t = header.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const date = Date.parse(t);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

const retryable = (status: number) => status === 429 || status === 408 || status >= 500;
/** A server's error text, short, with the key removed should it echo it. */
function excerpt(text: string, key: string | undefined): string {
  let t = text.replace(/\s+/g, ' ').trim();
  if (key) t = t.split(key).join('[key]');
  return t.length > 200 ? `${t.slice(0, 200)}…` : t;
}

function tokensOf(usage: unknown): TokenCounts {
  const u = (usage ?? {}) as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return { prompt: n(u.prompt_tokens), completion: n(u.completion_tokens), total: n(u.total_tokens) };
}

/** The reply's text: the first choice's message content (a reasoning model's separate reasoning is left out). */
function replyText(json: unknown): { text: string; tokens: TokenCounts; model: string | null } {
  const j = json as {
    choices?: { message?: { content?: unknown }; text?: unknown }[];
    usage?: unknown;
    model?: unknown;
  };
  const choice = Array.isArray(j?.choices) ? j.choices[0] : undefined;
  const content = choice?.message?.content ?? choice?.text;
  if (typeof content !== 'string') {
    throw new LlmError('the reply is not a chat completion (no choices[0].message.content)', 'reply');
  }
  return { text: content, tokens: tokensOf(j.usage), model: typeof j.model === 'string' ? j.model : null };
}

/**
 * Sends one prompt and returns the reply, retrying on 429, 408 and 5xx (waiting what Retry-After
 * asks, else doubling from `baseDelayMs`). Other statuses, unreadable replies and network
 * failures are thrown as `LlmError` at once.
 */
export async function chatCompletion(
  endpoint: LlmEndpoint,
  prompt: string,
  sampling: LlmSampling,
  transport: LlmTransport,
): Promise<ChatReply> {
  const url = completionsUrl(endpoint.url);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (endpoint.apiKey) headers.Authorization = `Bearer ${endpoint.apiKey}`;
  const body = JSON.stringify(requestBody(endpoint, prompt, sampling));
  const policy = transport.retry ?? DEFAULT_RETRY;
  const started = transport.now();
  for (let attempt = 0; ; attempt++) {
    if (transport.signal?.aborted) throw new LlmError('cancelled', 'cancelled');
    let response: Awaited<ReturnType<FetchLike>>;
    try {
      response = await transport.fetch(url, { method: 'POST', headers, body, signal: transport.signal });
    } catch (e) {
      if (transport.signal?.aborted) throw new LlmError('cancelled', 'cancelled');
      throw new LlmError(
        `${url}: no answer (${excerpt((e as Error).message ?? String(e), endpoint.apiKey)})`,
        'network',
      );
    }
    const text = await response.text();
    if (response.ok) {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new LlmError(`${url}: the reply is not JSON (${excerpt(text, endpoint.apiKey)})`, 'reply');
      }
      return { ...replyText(json), ms: transport.now() - started, attempts: attempt + 1 };
    }
    if (!retryable(response.status) || attempt >= policy.retries) {
      const tried = attempt > 0 ? ` after ${attempt + 1} tries` : '';
      throw new LlmError(
        `${url}: HTTP ${response.status}${tried}${text ? ` (${excerpt(text, endpoint.apiKey)})` : ''}`,
        'http',
        response.status,
      );
    }
    const asked = retryAfterMs(response.headers.get('retry-after'), transport.now());
    const wait = asked ?? Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
    await transport.sleep(Math.min(wait, policy.maxDelayMs * 4));
  }
}
