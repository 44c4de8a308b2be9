/**
 * Registering the study with the results server that serves the designer (`npm run serve`):
 * `POST api/studies` beside the page, with the researcher's token as `Authorization: Bearer`.
 * Pure apart from the `fetch` it is given; every answer becomes one sentence for the researcher.
 */

/** The part of `fetch` used here (a test passes its own). */
export type RegisterFetch = (
  url: string,
  init: { method: 'POST'; headers: Record<string, string>; body: string; signal?: AbortSignal },
) => Promise<{ status: number; text(): Promise<string> }>;

export interface RegisterReply {
  readonly kind: 'ok' | 'error';
  readonly message: string;
}

const NOT_A_SERVER =
  "this page is not served by a results server: open the designer at the server's own address (npm run serve), or register with npm run cli -- study register";

function parse(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * Registers the study of `studyToken` with the server at `api/studies` relative to `pageUrl`
 * (`document.baseURI`), authorised by `researcherToken`; resolves to what to tell the researcher
 * (never rejects).
 */
export async function registerWithServer(
  studyToken: string,
  researcherToken: string,
  pageUrl: string,
  fetchFn: RegisterFetch,
  timeoutMs = 15_000,
): Promise<RegisterReply> {
  const fail = (message: string): RegisterReply => ({ kind: 'error', message: `Not registered: ${message}.` });
  if (researcherToken === '') return fail("enter the researcher token (the file token in the server's data folder)");
  let status: number;
  let body: Record<string, unknown> | null;
  try {
    const response = await fetchFn(new URL('api/studies', pageUrl).href, {
      method: 'POST',
      headers: { authorization: `Bearer ${researcherToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ token: studyToken }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = response.status;
    body = parse(await response.text());
  } catch (e) {
    const why = e instanceof Error && e.name === 'TimeoutError' ? 'no answer in time' : 'no connection';
    return fail(`the results server could not be reached (${why}): check that it runs and that it served this page`);
  }
  const said = typeof body?.error === 'string' ? body.error : '';
  if ((status === 200 || status === 201) && typeof body?.study_id === 'string') {
    const id = body.study_id;
    const text =
      body.outcome === 'unchanged'
        ? `Study "${id}" was already registered here; the server accepts its rows.`
        : body.outcome === 'replaced'
          ? `Study "${id}" registered, replacing its earlier settings (it had no results yet); the server accepts its rows.`
          : `Study "${id}" registered; the server now accepts its rows.`;
    return { kind: 'ok', message: text };
  }
  if (status === 401) return fail('the server refused the researcher token (401); copy it again from the token file');
  if (status === 409) {
    return fail(`the study id is taken here by another study that already has results (409)${said ? `: ${said}` : ''}`);
  }
  if (status === 400) return fail(`the server refused the study (400)${said ? `: ${said}` : ''}`);
  // A static host (vite preview, a plain web server) has no api/studies, or answers with a page.
  if (status === 404 || status === 405 || body === null || (status < 300 && said === '')) return fail(NOT_A_SERVER);
  return fail(`the server answered ${status}${said ? `: ${said}` : ''}`);
}
