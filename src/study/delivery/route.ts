/**
 * The participant's URL: one contract for the designer, the CLI (`study link`) and the run.
 *
 *   ?study=<token>[&condition=<id>][&participant=<n>][&preview=1][&PROLIFIC_PID=…&STUDY_ID=…&SESSION_ID=…]
 *   ?s=<study id>[&…the same…]   a short link: the results server that serves the page holds the
 *                                token (`resolveShortLink` in serverApi.ts)
 *
 * The token sits in the query, not in the hash: Prolific and other recruiters append their
 * parameters to the end of the URL, which would land inside a hash. Parameters are read from the
 * query and, for links a recruiter mangled, from a `?…` after the hash as well. The path is
 * relative to the app's root (the folder its index.html is served from).
 */

/** The query parameter that carries the study token; its presence makes the page a participant run. */
export const STUDY_PARAM = 'study';

/** The participant URL path (relative to the app's root) for a study token. */
export function participantPath(token: string, extra: Readonly<Record<string, string>> = {}): string {
  const params = new URLSearchParams({ [STUDY_PARAM]: token, ...extra });
  return `?${params.toString()}`;
}

/** What a participant URL says; strings are empty (or null) when absent. */
export interface ParticipantParams {
  /** The study token, or null when the URL carries none. */
  readonly token: string | null;
  /** A short link's study id (`?s=<id>`), or null; the token wins when a URL has both. */
  readonly shortStudyId: string | null;
  /** `condition=<id>`: forces a condition (also for studies assigned by URL). */
  readonly condition: string | null;
  /** `participant=<n>`: the balanced counter's value when the recruiter numbers participants. */
  readonly participantNumber: number | null;
  /** `preview=1`: the researcher's preview run (nothing is sent to sinks, storage is separate). */
  readonly preview: boolean;
  readonly prolificPid: string;
  readonly prolificStudyId: string;
  readonly prolificSessionId: string;
}

/** Reads the participant parameters from a location's search and hash. */
export function readParticipantParams(search: string, hash = ''): ParticipantParams {
  const params = new URLSearchParams(search);
  const q = hash.indexOf('?');
  if (q >= 0) {
    for (const [key, value] of new URLSearchParams(hash.slice(q + 1))) if (!params.has(key)) params.set(key, value);
  }
  const text = (key: string) => params.get(key)?.trim() ?? '';
  const n = text('participant');
  return {
    token: params.has(STUDY_PARAM) ? text(STUDY_PARAM) : null,
    shortStudyId: params.has(STUDY_PARAM) ? null : readShortStudyRef(search, hash),
    condition: params.has('condition') ? text('condition') : null,
    participantNumber: /^\d{1,9}$/.test(n) ? Number(n) : null,
    preview: text('preview') === '1',
    prolificPid: text('PROLIFIC_PID'),
    prolificStudyId: text('STUDY_ID'),
    prolificSessionId: text('SESSION_ID'),
  };
}

/**
 * True when the page runs inside JATOS: its study pages are served under `/publix/…`. There the
 * token comes from the component's JSON input (jatos.js), not from the URL.
 */
export function isJatosPath(pathname: string): boolean {
  return pathname.includes('/publix/');
}

/**
 * True when the page was opened as a participant run (the entry loads the run, not the
 * explorer): a `?study=` link, a short link `?s=<study id>`, or any page inside JATOS. A `?s=`
 * whose value is not a study id is a participant URL too, so the participant sees why it fails
 * rather than the explorer.
 */
export function isParticipantUrl(search: string, hash = '', pathname = ''): boolean {
  return readParticipantParams(search, hash).token !== null || hasShortParam(search, hash) || isJatosPath(pathname);
}

/** The URL has `s=` (a short link, its value valid or not), in the query or after the hash. */
export function hasShortParam(search: string, hash = ''): boolean {
  const q = hash.indexOf('?');
  return (
    new URLSearchParams(search).has(SHORT_STUDY_PARAM) ||
    (q >= 0 && new URLSearchParams(hash.slice(q + 1)).has(SHORT_STUDY_PARAM))
  );
}

/** The query parameter of a short link: `?s=<study id>`. */
export const SHORT_STUDY_PARAM = 's';

/** Study ids (as `checkStudyDefinition` allows them). */
export const STUDY_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A short link's path for a study registered on the results server that serves the app. */
export function shortParticipantPath(studyId: string): string {
  return `?${new URLSearchParams({ [SHORT_STUDY_PARAM]: studyId }).toString()}`;
}

/**
 * The study id of a short link (`?s=<study id>`, also after the hash as recruiters sometimes put
 * it), or null when the URL is not a short link or the id is not a study id.
 */
export function readShortStudyRef(search: string, hash = ''): string | null {
  const params = new URLSearchParams(search);
  const q = hash.indexOf('?');
  const value =
    params.get(SHORT_STUDY_PARAM) ?? (q >= 0 ? new URLSearchParams(hash.slice(q + 1)).get(SHORT_STUDY_PARAM) : null);
  if (value === null) return null;
  const id = value.trim();
  return STUDY_ID.test(id) ? id : null;
}

/**
 * Longest participant link (path and query, as the CLI and the designer print it) that is made at
 * all: nginx's default request line buffer is 8 KB (`large_client_header_buffers 4 8k`) and Node's
 * header limit 16 KB; recruiters append their own parameters (Prolific about 120 characters), so
 * 6,000 leaves a wide margin. A longer study is linked through a results server (`?s=<study id>`).
 */
export const MAX_LINK_LENGTH = 6000;

/**
 * Null when a participant link (`?study=…`, or a whole URL) is short enough; otherwise one sentence
 * for the researcher saying how long it is and what to do instead.
 */
export function linkLengthProblem(link: string): string | null {
  if (link.length <= MAX_LINK_LENGTH) return null;
  return (
    `the participant link is ${link.length} characters long, more than the ${MAX_LINK_LENGTH} that pass ` +
    'through common web servers and proxies (nginx refuses request lines over 8 KB); shorten the study texts, ' +
    'or send the rows to a results server (study link --sink server --data DIR), whose link is ?s=<study id>'
  );
}
