/**
 * Transports: how rows reach a sink. The outbox (outbox.ts) sends through this interface only;
 * which transport a study's sink gets, and under which id, is the sink table's business
 * (sinks.ts), so this file knows no sink kinds.
 */
import type { ResultRow, SessionInfo } from './results';

/** Where rows go. `send` resolves once the sink has acknowledged every row, and throws otherwise. */
export interface Transport {
  /** Stable across reloads: acknowledgements are stored under it (the sink table's `id`). */
  readonly id: string;
  send(rows: readonly ResultRow[], sessions: readonly SessionInfo[]): Promise<void>;
  /** Rows per request (1 where a sink cannot deduplicate, such as JATOS). */
  readonly batchSize?: number;
  /** The URL a beacon may post to, for sinks that accept the same body by beacon. */
  readonly beaconUrl?: string;
}

export type FetchLike = (
  url: string,
  init: { method: 'POST'; headers: Record<string, string>; body: string },
) => Promise<{
  ok: boolean;
  status: number;
}>;

/** The body posted to an HTTP sink (and by beacon): the sessions of the rows, then the rows. */
export const sinkBody = (rows: readonly ResultRow[], sessions: readonly SessionInfo[]) =>
  JSON.stringify({ sessions, rows });

/**
 * POSTs `{ sessions, rows }` as JSON to `url`; a 2xx status acknowledges. `id` is the sink's
 * stable name (the results server and an HTTP address post the same way under different ids).
 */
export function httpTransport(id: string, url: string, fetchFn: FetchLike): Transport {
  return {
    id,
    beaconUrl: url,
    async send(rows, sessions) {
      const response = await fetchFn(url, {
        method: 'POST',
        // text/plain keeps it a "simple" request (no CORS preflight), as the beacon must be.
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
        body: sinkBody(rows, sessions),
      });
      if (!response.ok) throw new Error(`the results server answered ${response.status}`);
    },
  };
}

/** The part of jatos.js the JATOS sink uses (same name and signature as the real API). */
export interface JatosLike {
  appendResultData(
    resultData: string | object,
    onSuccess?: () => void,
    onError?: (err: unknown) => void,
  ): Promise<unknown>;
}

/** One `appendResultData` per row, a JSON line each (JATOS cannot deduplicate, hence batches of 1). */
export function jatosTransport(id: string, jatos: JatosLike): Transport {
  return {
    id,
    batchSize: 1,
    async send(rows) {
      for (const row of rows) await jatos.appendResultData(`${JSON.stringify(row)}\n`);
    },
  };
}
