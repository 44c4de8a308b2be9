/**
 * The dashboard's psych-DS download: the same dataset as `npm run cli -- results
 * export --format psych-ds`, as a ZIP of one folder. The results server gives the registered
 * studies (`GET api/studies`: each study's link token, hence its definition) and each study's
 * CSV export (`GET api/results.csv?study=<id>`), with the researcher token; the dataset is built
 * on the page by `src/study/results/psychDs.ts`, loaded only when asked for (the ZIP writer stays out of
 * the app's main bundle).
 */
import { decodeStudyLink } from '../../study/definition/link';

export interface PsychDsOutcome {
  readonly ok: boolean;
  readonly message: string;
  /** The ZIP and its file name, when ok. */
  readonly zip?: Blob;
  readonly fileName?: string;
}

async function refusal(res: Response, url: string): Promise<string> {
  let reason = '';
  try {
    const body = (await res.json()) as { error?: unknown };
    if (typeof body.error === 'string') reason = `: ${body.error}`;
  } catch {
    // Not JSON: the status says enough.
  }
  const hint = res.status === 401 ? ' (check the token)' : '';
  return `${url} answered ${res.status}${reason}${hint}`;
}

/** Fetches the studies and their rows and builds the dataset's ZIP; never throws. */
export async function buildPsychDsDownload(
  server: string,
  token: string,
  study: string,
  now = new Date(),
): Promise<PsychDsOutcome> {
  let base: URL;
  try {
    base = new URL(server.endsWith('/') ? server : `${server}/`);
  } catch {
    return { ok: false, message: `"${server}" is not a server address (e.g. http://127.0.0.1:8080)` };
  }
  if (token.trim() === '') return { ok: false, message: 'Paste the researcher token first' };
  const headers = { Authorization: `Bearer ${token.trim()}` };
  const get = async (url: URL): Promise<Response | string> => {
    try {
      const res = await fetch(url, { headers, cache: 'no-store' });
      return res.ok ? res : await refusal(res, url.href);
    } catch {
      return `Could not reach ${url.href} (is the server running, and on this address?)`;
    }
  };
  const listing = await get(new URL('api/studies', base));
  if (typeof listing === 'string') return { ok: false, message: listing };
  const { studies } = (await listing.json()) as { studies: { study_id: string; token: string }[] };
  const wanted = study.trim() === '' ? studies : studies.filter((s) => s.study_id === study.trim());
  if (wanted.length === 0) {
    return {
      ok: false,
      message: study.trim() === '' ? 'The server has no study registered' : `The server has no study "${study.trim()}"`,
    };
  }
  const parts = [];
  for (const s of wanted) {
    const decoded = decodeStudyLink(s.token);
    if (!decoded.ok) return { ok: false, message: `Study ${s.study_id}: ${decoded.error.message}` };
    const url = new URL('api/results.csv', base);
    url.searchParams.set('study', s.study_id);
    const res = await get(url);
    if (typeof res === 'string') return { ok: false, message: res };
    parts.push({ definition: decoded.definition, csv: await res.text() });
  }
  const { psychDsFiles, psychDsZip } = await import('../../study/results/psychDs');
  const folder = `clutrr-psychds-${study.trim() === '' ? 'all' : study.trim()}`;
  const zip = psychDsZip(folder, psychDsFiles(parts, now));
  return {
    ok: true,
    message: `Built ${folder}.zip: ${wanted.length} ${wanted.length === 1 ? 'study' : 'studies'}`,
    zip: new Blob([zip as BlobPart], { type: 'application/zip' }),
    fileName: `${folder}.zip`,
  };
}

/** Saves a Blob under a file name (an object URL on a temporary link). */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
