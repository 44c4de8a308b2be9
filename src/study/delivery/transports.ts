/**
 * Transports: how rows reach a sink. The outbox (outbox.ts) sends through this interface only;
 * which transport a study's sink gets, and under which id, is the sink table's business
 * (sinks.ts), so this file knows no sink kinds.
 */
import type { ResultRow, SessionInfo } from '../results/results';
import { callJson, rowsBody } from './serverApi';

/** The secret of a session the results server issued (undefined: a browser-made session, or none known). */
export type SecretOf = (sessionId: string) => string | undefined;

const noSecrets: SecretOf = () => undefined;

/**
 * Where rows go. `send` resolves once the sink has acknowledged every row, and throws otherwise:
 * a `SinkRefusedError` when the sink refused the rows in a way no retry can change (the outbox
 * then stops sending those rows to it), any other error for a failure worth retrying.
 */
export interface Transport {
  /** Stable across reloads: acknowledgements are stored under it (the sink table's `id`). */
  readonly id: string;
  send(rows: readonly ResultRow[], sessions: readonly SessionInfo[], secretOf?: SecretOf): Promise<void>;
  /** Rows per request (1 where a sink cannot deduplicate, such as JATOS). */
  readonly batchSize?: number;
  /** The URL a beacon may post to, for sinks that accept the same body by beacon. */
  readonly beaconUrl?: string;
  /** The body of a beacon to `beaconUrl` (the same as a `send` posts). */
  beaconBody?(rows: readonly ResultRow[], sessions: readonly SessionInfo[], secretOf: SecretOf): string;
}

export type FetchLike = (
  url: string,
  init: { method: 'POST'; headers: Record<string, string>; body: string },
) => Promise<{
  ok: boolean;
  status: number;
  /** The answer's JSON (the results server says why it refused in `error`); optional for fakes. */
  json?(): Promise<unknown>;
}>;

/**
 * A sink refused rows and retrying cannot change its mind (a 4xx other than 408, 425 and 429:
 * a bad row, a session the server did not issue or a wrong secret, a conflict, too large). The
 * outbox remembers the refusal per row and sink, durably, and sends those rows there no more.
 */
export class SinkRefusedError extends Error {
  override name = 'SinkRefusedError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A status retrying cannot fix: 4xx but 408 (timeout), 425 (too early) and 429 (too many). */
export const isPermanentRefusal = (status: number) =>
  status >= 400 && status < 500 && status !== 408 && status !== 425 && status !== 429;

/** The body posted to an HTTP sink (and by beacon): the sessions of the rows, then the rows. */
export const sinkBody = (rows: readonly ResultRow[], sessions: readonly SessionInfo[]) =>
  JSON.stringify({ sessions, rows });

export interface HttpTransportOptions {
  /**
   * Send each issued session's secret with its rows (`rowsBody`: `{ sessions, rows, secrets }`).
   * Only for the results server that issued them: a secret must never reach another address.
   */
  readonly withSecrets?: boolean;
}

/**
 * POSTs `{ sessions, rows }` (with `secrets` for the results server) as text/plain JSON to
 * `url`; a 2xx status acknowledges; a permanent 4xx throws SinkRefusedError with the server's
 * `error` sentence when it gives one. `id` is the sink's stable name.
 */
export function httpTransport(
  id: string,
  url: string,
  fetchFn: FetchLike,
  options: HttpTransportOptions = {},
): Transport {
  const body = (rows: readonly ResultRow[], sessions: readonly SessionInfo[], secretOf: SecretOf = noSecrets) =>
    options.withSecrets ? rowsBody(rows, sessions, secretOf) : sinkBody(rows, sessions);
  return {
    id,
    beaconUrl: url,
    beaconBody: body,
    async send(rows, sessions, secretOf) {
      const answer = await callJson(fetchFn, url, {
        method: 'POST',
        // text/plain keeps it a "simple" request (no CORS preflight), as the beacon must be.
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
        body: body(rows, sessions, secretOf),
      });
      if (answer.ok) return;
      if (isPermanentRefusal(answer.status)) {
        // The results server says why in `error`; another sink's answer (or a proxy's page) may not.
        const said = (answer.body as { error?: unknown } | null | undefined)?.error;
        throw new SinkRefusedError(
          answer.status,
          (typeof said === 'string' && said) || `refused with status ${answer.status}`,
        );
      }
      throw new Error(`the results server answered ${answer.status}`);
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
