/**
 * The client side of the results server's API, in one place: the paths (`API_PATHS`, beside the
 * page that the server served), the request and answer shapes `server/sessions.ts` and
 * `server/reviewQueue.ts` share, and every call the participant's page makes, each through
 * `callJson`. Nothing here touches the DOM; `fetch` is passed in.
 *
 * A run whose study has the `server` sink:
 *   1. (short link) `readShortStudyRef(location.search, location.hash)` gives the study id of a
 *      `?s=<study id>` link; `resolveShortLink(fetch, document.baseURI, id)` asks the server for
 *      the study's token (`GET api/studies/<id>/link`), which then decodes as a `?study=` token.
 *   2. Before the first trial, `requestSession(fetch, document.baseURI, request)` asks for a
 *      session (`POST api/sessions`): the answer's `session_id` replaces the browser-made id, its
 *      `participant` replaces the hash of the session id as the balanced counter's value, and
 *      its `secret` goes with every row of the session (`rowsBody`, posted to `api/rows` by the
 *      `server` sink's transport).
 *   3. A refusal (`kind: 'refused'`: the study is closed, full, unknown, or the ids are too long)
 *      ends the run with its `message`; `kind: 'unavailable'` (network, 5xx, 429) may be retried.
 *   4. A live review study's stories: `fetchReviewItems` (`GET api/studies/<review study>/
 *      review-items?session=<id>`, the session's secret in the `X-Session-Secret` header, since a
 *      URL would leave it in proxies' logs); a paraphrase study that favours uncovered clauses:
 *      `fetchCoverage` (`GET api/studies/<paraphrase study>/coverage`).
 */
import { clauseFromId } from '../collect/clause';
import type { ResultRow } from '../results/results';
import { STUDY_ID } from './route';

/** Longest id the server accepts (participant ids, Prolific ids, session ids): as the row schema. */
export const MAX_ID_LENGTH = 200;

// ---- the paths and the one call ----

const enc = encodeURIComponent;

/** The API's paths, relative to the page the results server served (so a proxy's sub-folder works too). */
export const API_PATHS = {
  sessions: 'api/sessions',
  rows: 'api/rows',
  studyLink: (studyId: string) => `api/studies/${enc(studyId)}/link`,
  reviewItems: (studyId: string, sessionId: string) =>
    `api/studies/${enc(studyId)}/review-items?session=${enc(sessionId)}`,
  coverage: (studyId: string) => `api/studies/${enc(studyId)}/coverage`,
} as const;

/** An API path's address beside the page. */
export const apiUrl = (pageUrl: string, path: string): string => new URL(path, pageUrl).href;

/** The header that carries an issued session's secret on a GET (a URL would leave it in proxies' logs). */
export const SESSION_SECRET_HEADER = 'x-session-secret';

/** `fetch` as these helpers use it (the browser's, or a test's). */
export type JsonFetch = (
  url: string,
  init: { method: 'GET' | 'POST'; headers?: Record<string, string>; body?: string },
) => Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>;

/** What a call needs of a response: fakes and plain HTTP sinks may lack `json` or `headers`. */
export interface ApiResponse {
  readonly ok: boolean;
  readonly status: number;
  json?(): Promise<unknown>;
  readonly headers?: { get(name: string): string | null };
}

/** A response read: its status, its JSON body (null when it has none, e.g. a proxy's HTML page) and `Retry-After`. */
export interface JsonAnswer {
  readonly ok: boolean;
  readonly status: number;
  readonly body: unknown;
  readonly retryAfter: string | null;
}

/**
 * Makes one call and reads its answer. A network failure throws, as `fetch` does: each caller
 * says what that means (retry later, or a sentence for the participant).
 */
export async function callJson<I>(
  fetchFn: (url: string, init: I) => Promise<ApiResponse>,
  url: string,
  init: NoInfer<I>,
): Promise<JsonAnswer> {
  const response = await fetchFn(url, init);
  let body: unknown = null;
  try {
    body = await response.json?.();
  } catch {
    // A proxy's HTML error page: the status says enough.
  }
  return { ok: response.ok, status: response.status, body, retryAfter: response.headers?.get('retry-after') ?? null };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The server's `error` sentence, or what its status says. */
const errorOf = (status: number, body: unknown, prefix = 'the results server answered'): string =>
  isRecord(body) && typeof body.error === 'string' ? body.error : `${prefix} ${status}`;

/** Worth retrying: network failure (status 0), 429 and 5xx; with the server's `Retry-After` when given. */
type Unavailable = {
  readonly ok: false;
  readonly kind: 'unavailable';
  readonly message: string;
  readonly retryAfterS?: number;
};

function unavailable(status: number, message: string, retryAfter: string | null | undefined): Unavailable | null {
  if (!(status === 429 || status >= 500 || status === 0)) return null;
  const s = Number(retryAfter);
  return Number.isFinite(s) && s > 0
    ? { ok: false, kind: 'unavailable', message, retryAfterS: s }
    : { ok: false, kind: 'unavailable', message };
}

const UNREACHABLE = 'the results server cannot be reached';

// ---- issued sessions ----

/** `POST api/sessions`: names the study by id or by its link token (one of the two). */
export interface SessionRequest {
  readonly study_id?: string;
  readonly token?: string;
  /** PROLIFIC_PID or the JATOS worker id; empty or absent for an anonymous browser. Same id, same session. */
  readonly participant_id?: string;
  readonly prolific_study_id?: string;
  readonly prolific_session_id?: string;
  /** `participant=<n>` from the link: used instead of the server's counter (no counter slot taken). */
  readonly participant?: number;
  /** `condition=<id>` from the link. */
  readonly condition?: string;
  /**
   * The resume code the participant typed (shown to them on another device after consent), to
   * continue that session here. Case, spaces and hyphens do not matter (`normalResumeCode`).
   */
  readonly resume_code?: string;
}

/** The server's answer: 201 for a new session, 200 for the same participant's session again. */
export interface SessionGrant {
  readonly study_id: string;
  readonly session_id: string;
  /** Goes with every row of the session (`rowsBody`); the server refuses the rows without it. */
  readonly secret: string;
  /** The balanced counter's value for `scheduleParticipant` (`participantNumber`). */
  readonly participant: number;
  /** The condition the link forced, or null (then the counter assigns it). */
  readonly condition: string | null;
  /** True when this participant id already had a session: resume it. */
  readonly resumed: boolean;
  /**
   * Of a resumed session, the trial indexes the server already stores (answered in another
   * browser, perhaps on another device): the run counts them as done and does not show them.
   */
  readonly answered: readonly number[];
  /**
   * The code that continues this session on another device (`XXXX-XXXX`, RESUME_CODE_ALPHABET):
   * the page shows it after consent; typed on another device it is the request's `resume_code`.
   */
  readonly resume_code: string;
  /** The server's clock when it answered (ISO): the page corrects its own clock by it for the rows' times. */
  readonly server_time: string;
  /**
   * Of a resumed session of an adaptive study (absent for any other), the session's main rows the
   * server stores, as far as the next item depends on them (`KindSpec.follows.item`): a device that
   * continues the session decides its next puzzle from these and its own rows.
   */
  readonly earlier?: readonly EarlierFact[];
}

/** A stored row's place, k and outcome: what an adaptive study's next item follows (the kinds' `EarlierRow`). */
export type EarlierFact = Pick<ResultRow, 'trial_index' | 'phase' | 'k' | 'correct' | 'ended_on'>;

/** At most this many earlier facts are read from an answer (a study has at most this many trials). */
const MAX_EARLIER_FACTS = 100_000;
const PHASES: readonly string[] = ['practice', 'main', 'check'];
const ENDINGS: readonly string[] = ['response', 'timeout', 'skipped'];

/**
 * The `earlier` field of a session answer, read defensively: an entry that is not a well-formed
 * fact is left out (never an error); a later entry for the same trial index is left out too.
 * Undefined when the field is absent or not a list.
 */
export function readEarlierFacts(value: unknown): EarlierFact[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const facts: EarlierFact[] = [];
  const seen = new Set<number>();
  for (const v of value.slice(0, MAX_EARLIER_FACTS)) {
    if (!isRecord(v)) continue;
    const { trial_index, phase, k, correct, ended_on } = v;
    if (typeof trial_index !== 'number' || !Number.isInteger(trial_index) || trial_index < 0) continue;
    if (typeof k !== 'number' || !Number.isInteger(k) || k < 1) continue;
    if (typeof phase !== 'string' || !PHASES.includes(phase)) continue;
    if (typeof ended_on !== 'string' || !ENDINGS.includes(ended_on)) continue;
    if (typeof correct !== 'boolean' || seen.has(trial_index)) continue;
    seen.add(trial_index);
    facts.push({
      trial_index,
      phase: phase as EarlierFact['phase'],
      k,
      correct,
      ended_on: ended_on as EarlierFact['ended_on'],
    });
  }
  return facts;
}

/**
 * Why the server refuses to start a session; `message` is written for the participant.
 * `resume-code`: this participant already has a session, and continuing it here needs its resume
 * code (none was sent, or the one sent is wrong): the page asks for it. `resume-refused`: the ids
 * cannot continue that session (the same PROLIFIC_PID with another Prolific SESSION_ID).
 */
export type SessionRefusalReason = 'closed' | 'full' | 'unknown-study' | 'invalid' | 'resume-code' | 'resume-refused';

/** The letters of resume codes: Crockford's base 32 (no I, L, O, U), so a code read aloud or typed is unambiguous. */
export const RESUME_CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** Letters in a resume code (40 bits; the server limits wrong guesses per address). */
export const RESUME_CODE_LENGTH = 8;

/**
 * A typed resume code in its stored form (`XXXX-XXXX`): upper case, spaces and hyphens dropped,
 * O read as 0, I and L as 1; null when it cannot be a code.
 */
export function normalResumeCode(typed: string): string | null {
  const plain = typed
    .toUpperCase()
    .replace(/[\s-]+/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
  if (plain.length !== RESUME_CODE_LENGTH || [...plain].some((ch) => !RESUME_CODE_ALPHABET.includes(ch))) return null;
  return `${plain.slice(0, 4)}-${plain.slice(4)}`;
}

export type SessionAnswer =
  | { readonly ok: true; readonly grant: SessionGrant }
  /** Retrying cannot help: show `message` and end the run. */
  | { readonly ok: false; readonly kind: 'refused'; readonly reason: SessionRefusalReason; readonly message: string }
  /** Network failure, 429 or 5xx: try again later (`retryAfterS` from 429's `Retry-After`, when given). */
  | { readonly ok: false; readonly kind: 'unavailable'; readonly message: string; readonly retryAfterS?: number };

/** Who starts the run, as the participant URL (route.ts) or JATOS gives it; the shape of run.ts's RunIdentity. */
export interface SessionIdentity {
  readonly participantId: string;
  readonly prolificStudyId: string;
  readonly prolificSessionId: string;
  readonly participantNumber: number | null;
  readonly forcedCondition: string | null;
}

/**
 * The request for a run: the study by id (a short link) or by token (a full link), and the
 * participant's ids as the rows will carry them (the server checks that they agree). Empty ids
 * and absent numbers are left out.
 */
export function sessionRequestOf(study: { studyId: string } | { token: string }, who: SessionIdentity): SessionRequest {
  return {
    ...('studyId' in study ? { study_id: study.studyId } : { token: study.token }),
    ...(who.participantId === '' ? {} : { participant_id: who.participantId }),
    ...(who.prolificStudyId === '' ? {} : { prolific_study_id: who.prolificStudyId }),
    ...(who.prolificSessionId === '' ? {} : { prolific_session_id: who.prolificSessionId }),
    ...(who.participantNumber === null ? {} : { participant: who.participantNumber }),
    ...(who.forcedCondition === null || who.forcedCondition === '' ? {} : { condition: who.forcedCondition }),
  };
}

/** The ids a request carries, over the server's limits: one sentence naming the first, or null. */
export function sessionRequestProblem(request: SessionRequest): string | null {
  if ((request.study_id === undefined) === (request.token === undefined)) {
    return 'name the study by its id or by its link token (one of the two)';
  }
  if (request.study_id !== undefined && !STUDY_ID.test(request.study_id)) return 'the study id is not a study id';
  const ids = {
    participant_id: 'the participant id (PROLIFIC_PID)',
    prolific_study_id: 'the Prolific STUDY_ID',
    prolific_session_id: 'the Prolific SESSION_ID',
    condition: 'the condition',
  } as const;
  for (const [key, what] of Object.entries(ids) as [keyof typeof ids, string][]) {
    const v = request[key];
    if (v !== undefined && v.length > MAX_ID_LENGTH) {
      return `${what} in the link is ${v.length} characters long; at most ${MAX_ID_LENGTH} are accepted. Please check the link you were given.`;
    }
  }
  const n = request.participant;
  if (n !== undefined && !(Number.isInteger(n) && n >= 0 && n <= 999_999_999)) {
    return 'the participant number must be a whole number from 0 to 999999999';
  }
  return null;
}

/** Reads an answer of `POST api/sessions` (any status) into a SessionAnswer. */
export function readSessionAnswer(status: number, body: unknown, retryAfter?: string | null): SessionAnswer {
  if (status === 200 || status === 201) {
    const b = isRecord(body) ? body : {};
    const grant: SessionGrant = {
      study_id: String(b.study_id ?? ''),
      session_id: String(b.session_id ?? ''),
      secret: String(b.secret ?? ''),
      participant: Number(b.participant),
      condition: typeof b.condition === 'string' ? b.condition : null,
      resumed: b.resumed === true,
      answered: Array.isArray(b.answered) ? b.answered.filter((i): i is number => Number.isInteger(i) && i >= 0) : [],
      resume_code: typeof b.resume_code === 'string' ? b.resume_code : '',
      server_time: typeof b.server_time === 'string' ? b.server_time : '',
      ...(b.earlier === undefined ? {} : { earlier: readEarlierFacts(b.earlier) ?? [] }),
    };
    if (grant.session_id === '' || grant.secret === '' || !Number.isInteger(grant.participant)) {
      return { ok: false, kind: 'unavailable', message: 'the results server gave an answer this page cannot read' };
    }
    return { ok: true, grant };
  }
  const message = errorOf(status, body);
  const reason = isRecord(body) && typeof body.reason === 'string' ? body.reason : '';
  const retry = unavailable(status, message, retryAfter);
  if (retry) return retry;
  const known: readonly SessionRefusalReason[] = [
    'closed',
    'full',
    'unknown-study',
    'invalid',
    'resume-code',
    'resume-refused',
  ];
  return {
    ok: false,
    kind: 'refused',
    reason: known.includes(reason as SessionRefusalReason) ? (reason as SessionRefusalReason) : 'invalid',
    message,
  };
}

/**
 * Asks the results server that served `pageUrl` for a session (`POST api/sessions` beside the
 * page). Ids over the limits are refused here, before any request.
 */
export async function requestSession(
  fetchFn: JsonFetch,
  pageUrl: string,
  request: SessionRequest,
): Promise<SessionAnswer> {
  const problem = sessionRequestProblem(request);
  if (problem) return { ok: false, kind: 'refused', reason: 'invalid', message: problem };
  let answer: JsonAnswer;
  try {
    answer = await callJson(fetchFn, apiUrl(pageUrl, API_PATHS.sessions), {
      method: 'POST',
      // text/plain: a simple request, as the rows are (no CORS preflight).
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify(request),
    });
  } catch {
    return { ok: false, kind: 'unavailable', message: UNREACHABLE };
  }
  return readSessionAnswer(answer.status, answer.body, answer.retryAfter);
}

// ---- short links ----

/** What `GET api/studies/<id>/link` answers for a registered study. */
export interface StudyLinkAnswer {
  readonly study_id: string;
  readonly token: string;
}

/** The address of a short link's study token, beside the page. */
export const shortLinkUrl = (pageUrl: string, studyId: string) => apiUrl(pageUrl, API_PATHS.studyLink(studyId));

/**
 * The link token of a short link's study, from the results server that served the page; or a
 * sentence for the participant (an unknown study, a server that cannot be reached).
 */
export async function resolveShortLink(
  fetchFn: JsonFetch,
  pageUrl: string,
  studyId: string,
): Promise<{ ok: true; token: string } | { ok: false; message: string }> {
  let answer: JsonAnswer;
  try {
    answer = await callJson(fetchFn, shortLinkUrl(pageUrl, studyId), { method: 'GET' });
  } catch {
    return {
      ok: false,
      message: 'The study server cannot be reached. Please check your connection and reload the page.',
    };
  }
  const { body } = answer;
  if (answer.ok && isRecord(body) && typeof body.token === 'string' && body.study_id === studyId) {
    return { ok: true, token: body.token };
  }
  if (answer.status === 404) {
    return { ok: false, message: `There is no study "${studyId}" here. Please check the link you were given.` };
  }
  return { ok: false, message: 'The study could not be loaded from the server. Please reload the page in a minute.' };
}

// ---- rows of an issued session ----

/** The secret of one issued session, as the rows' body carries it. */
export interface SessionSecret {
  readonly session_id: string;
  readonly secret: string;
}

/**
 * The body posted to the results server (and by beacon) for rows of issued sessions:
 * `{ sessions, rows, secrets }`, where `secrets` holds one `{ session_id, secret }` for each session
 * of the rows whose secret is known. Rows of other sessions (browser-made ids, a server that
 * accepts them) go without one, as before.
 */
export function rowsBody<R extends { readonly session_id: string }, S>(
  rows: readonly R[],
  sessions: readonly S[],
  secretOf: (sessionId: string) => string | undefined,
): string {
  const secrets: SessionSecret[] = [];
  for (const id of new Set(rows.map((r) => r.session_id))) {
    const secret = secretOf(id);
    if (secret !== undefined) secrets.push({ session_id: id, secret });
  }
  return JSON.stringify(secrets.length > 0 ? { sessions, rows, secrets } : { sessions, rows });
}

// ---- live review and coverage ----

/** A story to review, as the results server's queue hands it out (an embedded story becomes one too). */
export interface ReviewItem {
  /** `<session_id>/<trial_index>` of the story's paraphrase row: the review row's `puzzle_id`. */
  readonly story_id: string;
  /** The clause seed (names), copied into the review row. */
  readonly seed: number;
  readonly k: number;
  /** The paraphrase row's `puzzle_id`. */
  readonly clause_id: string;
  readonly query_a: string;
  readonly query_b: string;
  readonly gold: string;
  /** The text as its writer wrote it. */
  readonly story: string;
}

export type ReviewItemsAnswer =
  | { readonly ok: true; readonly items: readonly ReviewItem[] }
  /** Retrying cannot help (not an issued session of this study, a wrong secret, no source study here). */
  | { readonly ok: false; readonly kind: 'refused'; readonly message: string }
  /** Network, 429 or 5xx: try again (after `retryAfterS` when the server said). */
  | { readonly ok: false; readonly kind: 'unavailable'; readonly message: string; readonly retryAfterS?: number };

/** The address of a review study's items for a session, beside the page. */
export const reviewItemsUrl = (pageUrl: string, studyId: string, sessionId: string) =>
  apiUrl(pageUrl, API_PATHS.reviewItems(studyId, sessionId));

/** One item of the queue's answer, or undefined when it is not one. */
function readItem(v: unknown): ReviewItem | undefined {
  if (!isRecord(v)) return undefined;
  const text = (k: string) => (typeof v[k] === 'string' ? (v[k] as string) : undefined);
  const item = {
    story_id: text('story_id'),
    seed: v.seed,
    k: v.k,
    clause_id: text('clause_id'),
    query_a: text('query_a'),
    query_b: text('query_b'),
    gold: text('gold'),
    story: text('story'),
  };
  if (Object.values(item).some((x) => x === undefined)) return undefined;
  if (!Number.isInteger(item.seed) || !Number.isInteger(item.k)) return undefined;
  const read = item as ReviewItem;
  // An item whose clause cannot be regenerated could not be shown: the answer is not one.
  return 'error' in clauseFromId(read.clause_id, read.seed) ? undefined : read;
}

/** Reads an answer of `GET …/review-items` (any status). */
export function readReviewItemsAnswer(status: number, body: unknown, retryAfter?: string | null): ReviewItemsAnswer {
  if (status === 200) {
    const raw = isRecord(body) && Array.isArray(body.items) ? body.items : null;
    const items = raw?.map(readItem);
    if (!items || items.some((i) => i === undefined)) {
      return { ok: false, kind: 'unavailable', message: 'the results server gave review items this page cannot read' };
    }
    return { ok: true, items: items as ReviewItem[] };
  }
  const message = errorOf(status, body);
  return unavailable(status, message, retryAfter) ?? { ok: false, kind: 'refused', message };
}

/**
 * Asks the results server that served `pageUrl` for the stories an issued session of a live
 * review study reviews (at most `n`, the study's reviews per participant).
 */
export async function fetchReviewItems(
  fetchFn: JsonFetch,
  pageUrl: string,
  studyId: string,
  sessionId: string,
  secret: string | undefined,
  n: number,
): Promise<ReviewItemsAnswer> {
  let reply: JsonAnswer;
  try {
    reply = await callJson(fetchFn, reviewItemsUrl(pageUrl, studyId, sessionId), {
      method: 'GET',
      headers: secret === undefined ? {} : { [SESSION_SECRET_HEADER]: secret },
    });
  } catch {
    return { ok: false, kind: 'unavailable', message: UNREACHABLE };
  }
  const answer = readReviewItemsAnswer(reply.status, reply.body, reply.retryAfter);
  return answer.ok ? { ok: true, items: answer.items.slice(0, n) } : answer;
}

/** Stories per clause id of a paraphrase study, for `favourUncovered`. */
export type CoverageAnswer =
  | { readonly ok: true; readonly coverage: Readonly<Record<string, number>> }
  | { readonly ok: false; readonly message: string };

/** `GET api/studies/<paraphrase study>/coverage` beside the page: stories collected per clause id. */
export async function fetchCoverage(fetchFn: JsonFetch, pageUrl: string, studyId: string): Promise<CoverageAnswer> {
  let answer: JsonAnswer;
  try {
    answer = await callJson(fetchFn, apiUrl(pageUrl, API_PATHS.coverage(studyId)), { method: 'GET' });
  } catch {
    return { ok: false, message: UNREACHABLE };
  }
  const { body } = answer;
  if (answer.status === 200 && isRecord(body) && isRecord(body.coverage)) {
    const coverage: Record<string, number> = {};
    for (const [id, n] of Object.entries(body.coverage)) {
      if (typeof n === 'number' && Number.isInteger(n) && n >= 0) coverage[id] = n;
    }
    return { ok: true, coverage };
  }
  return { ok: false, message: `the results server gave no coverage: ${errorOf(answer.status, body, 'it answered')}` };
}
