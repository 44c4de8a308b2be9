/**
 * Running inside JATOS. JATOS serves a study's pages under `/publix/…` and provides its
 * client library as `jatos.js` beside the component's HTML. The page loads it then and only then
 * (a script tag added at run time, so nothing is fetched outside JATOS), waits for `jatos.onLoad`,
 * takes the study token from the component's JSON input (`{"clutrrStudy": "<token>"}`, what the
 * designer's .jzip writes), the participant from `jatos.workerId` and Prolific's ids from the
 * query parameters that started the study. Rows go out one `appendResultData` each
 * (outbox.jatosTransport); the run ends with exactly one `endStudyAndRedirect(url, true)` (when
 * the study has a redirect) or `endStudy(true)`, once every row is acknowledged.
 */
import type { JatosLike } from './transports';

/** The part of jatos.js the run uses; names and argument orders as in JATOS's own jatos.js. */
export interface JatosApi extends JatosLike {
  /** Calls back once jatos.js has its init data (at once if it already has). */
  onLoad(callback: () => void): void;
  /** The component's JSON input (parsed). */
  readonly componentJsonInput: unknown;
  /** JATOS's id of the worker (participant) running the study. */
  readonly workerId: string | number | null | undefined;
  /** The query parameters of the URL that started the study (strings). */
  readonly urlQueryParameters: Readonly<Record<string, string | undefined>> | undefined;
  /** Ends the study (`successful`), then sends the browser to `url`. */
  endStudyAndRedirect(url: string, successful?: boolean): void;
  /** Ends the study (`successful`) and shows JATOS's end page. */
  endStudy(successful?: boolean): unknown;
  /**
   * Aborts the study run: JATOS deletes the run's result data, logs `message` and shows its end
   * page. A participant who declines consent leaves this way (nothing of theirs is kept).
   */
  abortStudy(message?: string): unknown;
}

/** The key of the component JSON input that holds the study token. */
export const JATOS_TOKEN_KEY = 'clutrrStudy';

/** What the run takes from JATOS. */
export interface JatosInputs {
  readonly token: string;
  readonly participantId: string;
  readonly prolificPid: string;
  readonly prolificStudyId: string;
  readonly prolificSessionId: string;
  readonly condition: string | null;
  readonly participantNumber: number | null;
  readonly preview: boolean;
}

/** A missing jatos.js, or a component without the study token. */
export class JatosError extends Error {
  override name = 'JatosError';
}

/**
 * Reads the token and ids from a loaded jatos.js. The participant id is JATOS's worker id (the
 * contract; JATOS's own results are keyed by it); Prolific's ids come from the start URL's query
 * (PROLIFIC_PID is kept in `prolificPid`, STUDY_ID and SESSION_ID go into their columns).
 */
export function jatosInputs(
  jatos: Pick<JatosApi, 'componentJsonInput' | 'workerId' | 'urlQueryParameters'>,
): JatosInputs {
  const input = jatos.componentJsonInput;
  const token =
    typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[JATOS_TOKEN_KEY] : undefined;
  if (typeof token !== 'string' || token.trim() === '') {
    throw new JatosError(
      `this JATOS component has no study link: its JSON input needs {"${JATOS_TOKEN_KEY}": "<token>"} (the designer's .jzip sets it)`,
    );
  }
  const q = jatos.urlQueryParameters ?? {};
  const text = (key: string) => (typeof q[key] === 'string' ? q[key]!.trim() : '');
  const worker = jatos.workerId === null || jatos.workerId === undefined ? '' : String(jatos.workerId);
  const n = text('participant');
  return {
    token: token.trim(),
    participantId: worker,
    prolificPid: text('PROLIFIC_PID'),
    prolificStudyId: text('STUDY_ID'),
    prolificSessionId: text('SESSION_ID'),
    condition: text('condition') || null,
    participantNumber: /^\d{1,9}$/.test(n) ? Number(n) : null,
    preview: false,
  };
}

/** Where the script tag goes and where `jatos` appears. */
export interface JatosHost {
  readonly document: Pick<Document, 'createElement' | 'head'>;
  readonly window: { jatos?: unknown };
}

/**
 * Loads `jatos.js` (relative to the page, as JATOS serves it beside the component) by a script
 * tag, then resolves with the API once `jatos.onLoad` fires.
 */
export function loadJatos(host: JatosHost, src = 'jatos.js'): Promise<JatosApi> {
  return new Promise((resolve, reject) => {
    const script = host.document.createElement('script');
    script.src = src;
    script.async = true;
    script.onload = () => {
      const jatos = host.window.jatos as JatosApi | undefined;
      if (!jatos || typeof jatos.onLoad !== 'function') {
        reject(new JatosError('jatos.js loaded but did not define jatos.onLoad'));
        return;
      }
      jatos.onLoad(() => resolve(jatos));
    };
    script.onerror = () =>
      reject(new JatosError('jatos.js could not be loaded: this page must be started from JATOS (a /publix/ link)'));
    host.document.head.appendChild(script);
  });
}

/**
 * Ends the JATOS study exactly once, however often it is called: `endStudyAndRedirect(url,
 * true)` when there is a redirect, else `endStudy(true)`.
 */
export function jatosEnder(
  jatos: Pick<JatosApi, 'endStudy' | 'endStudyAndRedirect'>,
): (redirectUrl: string) => boolean {
  let ended = false;
  return (redirectUrl) => {
    if (ended) return false;
    ended = true;
    if (redirectUrl !== '') jatos.endStudyAndRedirect(redirectUrl, true);
    else jatos.endStudy(true);
    return true;
  };
}

/** What `abortStudy` logs in JATOS when a participant declines consent. */
export const JATOS_DECLINE_MESSAGE = 'participant declined consent';

/** Aborts the JATOS study run exactly once, however often it is called (a decline). */
export function jatosAborter(jatos: Pick<JatosApi, 'abortStudy'>): () => boolean {
  let aborted = false;
  return () => {
    if (aborted) return false;
    aborted = true;
    jatos.abortStudy(JATOS_DECLINE_MESSAGE);
    return true;
  };
}
