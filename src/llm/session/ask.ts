/**
 * The page's side of asking a language model: the browser's `fetch`, timers and clock bound
 * to src/llm's pure client, and a refused request explained. A browser reports an endpoint that
 * refuses the page's origin (CORS), a server that is not running and a Content-Security-Policy
 * that blocks the address all as the same TypeError; the message names the setting that fixes
 * each.
 */
import { endpointOrigin, LlmError, type LlmTransport } from '../client';

export function pageTransport(signal?: AbortSignal): LlmTransport {
  return {
    fetch: (url, init) => fetch(url, init),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: () => performance.now(),
    signal,
  };
}

/** The one-line server settings that let a page at `pageOrigin` call the endpoint. */
export function corsSettings(pageOrigin: string): readonly { server: string; setting: string }[] {
  return [
    { server: 'llama.cpp', setting: `llama-server -m MODEL.gguf --cors-origins ${pageOrigin}` },
    { server: 'Ollama', setting: `OLLAMA_ORIGINS=${pageOrigin} ollama serve` },
    { server: 'vLLM', setting: `vllm serve MODEL --allowed-origins '["${pageOrigin}"]'` },
    { server: 'LM Studio', setting: 'lms server start --cors' },
  ];
}

/** A failed request in words; for a network failure, what to check and the settings that allow this page. */
export function explainFailure(e: unknown, endpointUrl: string, pageOrigin: string): string {
  if (!(e instanceof LlmError) || e.kind !== 'network') return e instanceof Error ? e.message : String(e);
  let origin = endpointUrl;
  try {
    origin = endpointOrigin(endpointUrl);
  } catch {
    /* the URL was checked before the request */
  }
  return (
    `The browser could not read an answer from ${origin}. Either nothing runs there, or the server ` +
    `refuses this page's origin (${pageOrigin}: CORS), or this page's Content-Security-Policy blocks ` +
    `the address (the results server: npm run serve -- --llm-origin ${origin}). To allow this page, ` +
    `start the server with: ` +
    corsSettings(pageOrigin)
      .map((s) => `${s.server}: ${s.setting}`)
      .join(' · ')
  );
}

/** The page's origin, for the messages (`null` origins, e.g. a file: page, say so). */
export const pageOrigin = () => (typeof location === 'undefined' ? 'this page' : location.origin);
