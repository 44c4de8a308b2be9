import { buildJzip, type BuildFile } from '../../study/delivery/jzip';
import type { StudyDefinition } from '../../study/definition/definition';

/**
 * The app's own build files, fetched from where the page is served, for the JATOS archive. The
 * production build lists them in `study-files.json` (written by the `studyFilesList` plugin in
 * vite.config.ts); `vite dev` has no such list and no build files to pack.
 */
export const FILE_LIST = 'study-files.json';

export class ArchiveError extends Error {
  override name = 'ArchiveError';
}

export const DEV_SERVER_MESSAGE =
  'The JATOS archive packs the production build: run `npm run build` and open the built app (e.g. `npm run preview`). The development server has no build files.';

/** Same-origin URL of a build file, relative to the app's root (the page's folder). */
const fileUrl = (path: string) => new URL(path, new URL('.', window.location.href)).href;

async function fetchFileList(): Promise<string[]> {
  let list: unknown;
  try {
    const response = await fetch(fileUrl(FILE_LIST), { cache: 'no-cache' });
    if (!response.ok) throw new Error(String(response.status));
    list = await response.json();
  } catch {
    throw new ArchiveError(`The list of build files (${FILE_LIST}) could not be read. ${DEV_SERVER_MESSAGE}`);
  }
  if (!Array.isArray(list) || !list.every((p) => typeof p === 'string')) {
    throw new ArchiveError(`${FILE_LIST} is not a list of file paths; rebuild the app.`);
  }
  return list as string[];
}

/** The .jzip bytes of a study: every build file fetched, then packed with its .jas. */
export async function makeJzip(def: StudyDefinition, token: string): Promise<Uint8Array> {
  const paths = await fetchFileList();
  const files: BuildFile[] = await Promise.all(
    paths.map(async (path) => {
      const response = await fetch(fileUrl(path), { cache: 'no-cache' });
      if (!response.ok) throw new ArchiveError(`The build file ${path} could not be fetched (${response.status}).`);
      return { path, bytes: new Uint8Array(await response.arrayBuffer()) };
    }),
  );
  return buildJzip(def, token, files);
}
