/**
 * The JATOS study archive (.jzip) of a study: a ZIP holding one study description (`<name>.jas`,
 * JSON) beside one folder, the study's assets. JATOS imports it as a study with one component
 * that serves our app's `index.html`; the component's input carries the participant link token,
 * which the run reads as `jatos.componentJsonInput.clutrrStudy`.
 *
 * The .jas layout was learned from JATOS's own export and import (JATOS/JATOS on GitHub:
 * `JsonUtils.studyAsJsonForIO`, `StudyDeserializer`, `ImportExportService`, the `Study`,
 * `Component` and `Batch` models and their `*Properties.validate`):
 *
 *   { "version": "3", "data": { uuid, title, description, active, groupStudy, linearStudy, dirName,
 *     comments, jsonData, endRedirectUrl, componentList: [{ uuid, title, htmlFilePath, reloadable,
 *     active, comments, jsonData }], batchList: [{ uuid, title, active, maxActiveMembers,
 *     maxTotalMembers, maxTotalWorkers, allowedWorkerTypes, comments, jsonData }] } }
 *
 * - `version` is the study serial version as a string; "3" is read by JATOS 3.6 up to today's
 *   3.10 (newer versions refuse a higher number).
 * - Every `jsonData` ("input" in JATOS's GUI) is JSON *as a string*, or null. JATOS 3.10 writes
 *   `studyInput` / `componentInput` / `batchInput` but still reads `jsonData` (an alias), and
 *   older 3.x releases know only `jsonData`, so `jsonData` is written.
 * - The import takes the one `.jas` file and the one folder of the ZIP (more of either is an
 *   error) and renames that folder to `dirName`; `dirName` may not be one of JATOS's own names
 *   (jatos, publix, assets, study_assets, …), so ours always starts with `clutrr_`.
 * - A component's UUID must not belong to another study on the server: both UUIDs are derived
 *   from the study id and the token, so a changed study is a new JATOS study and re-importing
 *   the same one offers JATOS's "overwrite" instead of a duplicate.
 * - Titles, descriptions and comments must not contain HTML (JATOS checks with an empty
 *   allow-list); ours are plain text built from the study id, which has no `<`.
 *
 * Pure: the same arguments always give the same bytes (fixed file times, no randomness).
 */
import { strToU8, zipSync, type Zippable } from 'fflate';
import { hashSeed } from '../../core/random/rng';
import { mainItemCount, type StudyDefinition } from '../definition/definition';

/** JATOS's study serial version (Study.SERIAL_VERSION) of the layout written here. */
export const JAS_VERSION = '3';

/** The component's HTML file, relative to the assets folder; the app's entry page. */
export const JATOS_HTML_FILE = 'index.html';

/** One file of the app's build, relative to the build folder (`assets/index-abc.js`). */
export interface BuildFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** A problem with the files handed to the builder (a bad path, a duplicate, no index.html). */
export class JzipError extends Error {
  override name = 'JzipError';
}

/** The assets folder's name inside the archive and on the JATOS server. */
export function jatosDirName(def: Pick<StudyDefinition, 'studyId'>): string {
  return `clutrr_${def.studyId}`;
}

/**
 * A UUID made from names (RFC 9562 version 8, "custom"): 128 bits of four 32-bit hashes. JATOS
 * only needs it unique and stable; deriving it keeps the builder free of randomness.
 */
export function derivedUuid(...names: readonly string[]): string {
  const hex = [0, 1, 2, 3]
    .map((i) =>
      hashSeed('jatos-uuid', i, ...names)
        .toString(16)
        .padStart(8, '0'),
    )
    .join('');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The JATOS study description (.jas) of a study, as a value (JSON.stringify it for the file). */
export function jasDocument(def: StudyDefinition, token: string) {
  const main = mainItemCount(def);
  const trials = def.practice + main + def.attentionChecks;
  const description =
    `CLUTRR kinship puzzles: ${main} main items (k ${def.k.join(', ')}; task ${def.tasks.join(', ')}), ` +
    `${def.practice} practice, ${def.attentionChecks} attention checks; ${trials} trials; ` +
    `conditions ${def.conditions.map((c) => c.id).join(', ')}.`;
  return {
    version: JAS_VERSION,
    data: {
      uuid: derivedUuid('study', def.studyId, token),
      title: `CLUTRR study ${def.studyId}`,
      description,
      active: true,
      groupStudy: false,
      linearStudy: false,
      dirName: jatosDirName(def),
      comments: 'Made by the CLUTRR Lab study designer. The study settings are in the component input (clutrrStudy).',
      jsonData: null,
      // The app redirects itself (jatos.endStudyAndRedirect) once every row is acknowledged.
      endRedirectUrl: null,
      componentList: [
        {
          uuid: derivedUuid('component', def.studyId, token),
          title: 'CLUTRR puzzles',
          htmlFilePath: JATOS_HTML_FILE,
          // A reload must come back to the run, which resumes at the first unanswered trial.
          reloadable: true,
          active: true,
          comments: '',
          jsonData: JSON.stringify({ clutrrStudy: token }),
        },
      ],
      batchList: [
        {
          uuid: derivedUuid('batch', def.studyId, token),
          title: 'Default',
          active: true,
          maxActiveMembers: null,
          maxTotalMembers: null,
          maxTotalWorkers: null,
          // JATOS's own default batch; Prolific runs need a General Single link, enabled in JATOS.
          allowedWorkerTypes: ['Jatos', 'PersonalSingle', 'PersonalMultiple'],
          comments: null,
          jsonData: null,
        },
      ],
    },
  };
}

/** Files that are compressed already gain nothing from deflate. */
const STORED = /\.(png|jpe?g|gif|webp|avif|woff2?|gz|br|zip|jzip|wasm)$/i;

/** A relative path without `.`/`..` segments, backslashes or empty segments. */
function checkPath(path: string): void {
  const segments = path.split('/');
  if (path === '' || path.includes('\\') || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new JzipError(`the build file "${path}" has a path that cannot go into the archive`);
  }
}

/**
 * The .jzip of a study: `<dirName>.jas` and every build file under `<dirName>/`. Throws JzipError
 * for a bad or repeated path, or a build without index.html.
 */
export function buildJzip(def: StudyDefinition, token: string, files: readonly BuildFile[]): Uint8Array {
  const dir = jatosDirName(def);
  const assets: Zippable = {};
  const seen = new Set<string>();
  for (const file of files) {
    checkPath(file.path);
    if (seen.has(file.path)) throw new JzipError(`the build file "${file.path}" is listed twice`);
    seen.add(file.path);
    assets[file.path] = STORED.test(file.path) ? [file.bytes, { level: 0 }] : file.bytes;
  }
  if (!seen.has(JATOS_HTML_FILE)) throw new JzipError(`the build has no ${JATOS_HTML_FILE}`);
  // Paths given whole: fflate nests on "/" only for nested objects, and a flat key keeps its slashes.
  const entries: Zippable = { [`${dir}.jas`]: strToU8(JSON.stringify(jasDocument(def, token), null, 2)) };
  for (const [path, data] of Object.entries(assets)) entries[`${dir}/${path}`] = data;
  // A local-time date: ZIP stores local date fields, so this gives the same bytes in every time zone.
  return zipSync(entries, { level: 6, mtime: new Date(2000, 0, 1) });
}
