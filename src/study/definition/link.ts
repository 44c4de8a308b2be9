/**
 * The participant link: a study definition packed into one URL-safe token.
 *
 *   s1.<payload>.<checksum>
 *
 * - `s1`: the definition's format version (STUDY_FORMAT_VERSION).
 * - payload: base64url (no padding) of raw DEFLATE of the JSON of the settings that differ from
 *   the defaults of the study's kind (`defaultsFor`; keys sorted, so the same study always gives
 *   the same token, in the CLI and in the browser). Leaving defaults out and deflating the
 *   markdown texts keep links short. The kind itself is left out when it is `solve`, so a
 *   puzzle-solving study's token is what it was before kinds existed.
 * - checksum: CRC-32 of the text `s1.<payload>`, as 8 lowercase hex digits. It comes last so
 *   that a cut link loses it and is recognised as truncated; CRC-32 detects every change of one
 *   character (a burst of at most 8 bits) for certain.
 *
 * The checksum guards against damage (a mail client cutting the URL, a mistyped character), not
 * against forgery: anyone can build a valid link for a study of their own making anyway.
 */
import { deflateSync, inflateSync, strFromU8, strToU8 } from 'fflate';
import {
  checkStudyDefinition,
  DEFAULT_STUDY,
  defaultsFor,
  STUDY_FORMAT_VERSION,
  type StudyDefinition,
  type StudyProblem,
} from './definition';
import { kindOf } from './vocabulary';

/** Why a link was refused; each kind gets its own words on the error page. */
export type StudyLinkErrorKind = 'not-a-study-link' | 'truncated' | 'tampered' | 'unknown-version' | 'invalid-study';

export interface StudyLinkError {
  readonly kind: StudyLinkErrorKind;
  /** One sentence for the participant or the researcher. */
  readonly message: string;
  /** For `invalid-study`: what checkStudyDefinition found. */
  readonly problems?: readonly StudyProblem[];
}

export type StudyLinkResult =
  { readonly ok: true; readonly definition: StudyDefinition } | { readonly ok: false; readonly error: StudyLinkError };

/** Longest payload accepted; also bounds what inflating a forged link can cost. */
const MAX_TOKEN_LENGTH = 64_000;
const MAX_JSON_LENGTH = 256_000;

// ---- CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), table-driven ----

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let i = 0; i < 8; i++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 of the low bytes of a string's code units (the token is ASCII). */
export function crc32(text: string): number {
  let c = 0xffffffff;
  for (let i = 0; i < text.length; i++) c = CRC_TABLE[(c ^ text.charCodeAt(i)) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const checksum = (text: string) => crc32(text).toString(16).padStart(8, '0');

// ---- base64url without padding ----

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

function toBase64Url(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    for (let j = 0; j < chars; j++) out += ALPHABET[(n >>> (18 - 6 * j)) & 63];
  }
  return out;
}

/** Bytes of a base64url text, or undefined for a character outside the alphabet or an impossible length. */
function fromBase64Url(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 6) / 8));
  let bits = 0;
  let value = 0;
  let o = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const d = code < 128 ? DECODE[code]! : -1;
    if (d < 0) return undefined;
    value = ((value << 6) | d) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (value >>> bits) & 0xff;
    }
  }
  return out;
}

// ---- encoding ----

/** JSON with every object's keys sorted, so equal definitions give equal text. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

/**
 * The settings of `def` that differ from its kind's defaults (the version is in the prefix), and
 * its kind unless that is `solve`.
 */
function changedSettings(def: StudyDefinition): Record<string, unknown> {
  const defaults = defaultsFor(def.kind);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(DEFAULT_STUDY) as (keyof StudyDefinition)[]) {
    if (key === 'version') continue;
    const base = key === 'kind' ? DEFAULT_STUDY : defaults;
    if (stableJson(def[key]) !== stableJson(base[key])) out[key] = def[key];
  }
  return out;
}

/**
 * The participant link's token for a definition. Throws if the definition has problems: a link
 * is only ever made for a study that can run.
 */
export function encodeStudyLink(def: StudyDefinition): string {
  const problems = checkStudyDefinition(def);
  if (problems.length > 0) {
    throw new Error(`the study cannot be linked: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
  }
  const json = stableJson(changedSettings(def));
  const body = `s${STUDY_FORMAT_VERSION}.${toBase64Url(deflateSync(strToU8(json), { level: 9 }))}`;
  return `${body}.${checksum(body)}`;
}

// ---- decoding ----

const fail = (kind: StudyLinkErrorKind, message: string, problems?: StudyProblem[]): StudyLinkResult => ({
  ok: false,
  error: problems ? { kind, message, problems } : { kind, message },
});

const TRUNCATED =
  'The study link is incomplete: it was probably cut off when it was copied. Please open the whole link.';
const TAMPERED =
  'The study link has been changed or damaged (its checksum does not match). Please open the original link.';

/**
 * The definition a token carries, or the reason it cannot be used. Whitespace around the token
 * is ignored (links pasted from mail). Never returns a definition that fails checkStudyDefinition.
 */
export function decodeStudyLink(text: string): StudyLinkResult {
  const token = text.trim();
  if (token === '') return fail('not-a-study-link', 'This is not a study link: it is empty.');
  // A cut inside the `s1.` prefix.
  if (/^s\d*$/.test(token)) return fail('truncated', TRUNCATED);
  const head = /^s(\d+)\./.exec(token);
  if (!head) return fail('not-a-study-link', 'This is not a study link: it does not start with a study format tag.');
  if (token.length > MAX_TOKEN_LENGTH) return fail('not-a-study-link', 'This is not a study link: it is far too long.');
  if (!/^[A-Za-z0-9_.-]*$/.test(token)) {
    return fail('tampered', 'The study link contains characters a study link never has; it was changed or damaged.');
  }
  const rest = token.slice(head[0].length);
  const dot = rest.lastIndexOf('.');
  if (dot < 0) return fail('truncated', TRUNCATED);
  const payload = rest.slice(0, dot);
  const sum = rest.slice(dot + 1);
  if (!/^[0-9a-f]*$/.test(sum) || sum.length > 8) return fail('tampered', TAMPERED);
  if (sum.length < 8) return fail('truncated', TRUNCATED);
  if (checksum(head[0] + payload) !== sum) return fail('tampered', TAMPERED);
  if (Number(head[1]) !== STUDY_FORMAT_VERSION) {
    return fail(
      'unknown-version',
      `This study link uses format version ${head[1]}, which this version of the app does not know (it reads version ${STUDY_FORMAT_VERSION}).`,
    );
  }

  let settings: unknown;
  try {
    const bytes = fromBase64Url(payload);
    if (!bytes) throw new Error('not base64url');
    const json = strFromU8(inflateSync(bytes));
    if (json.length > MAX_JSON_LENGTH) throw new Error('too long');
    settings = JSON.parse(json);
  } catch {
    return fail('not-a-study-link', 'This link has a valid checksum but its contents cannot be read as a study.');
  }
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings) || 'version' in settings) {
    return fail('not-a-study-link', 'This link has a valid checksum but its contents are not a study definition.');
  }
  const defaults = defaultsFor(kindOf(settings as Record<string, unknown>));
  const definition: unknown = { ...defaults, ...settings, version: STUDY_FORMAT_VERSION };
  const problems = checkStudyDefinition(definition);
  if (problems.length > 0) {
    return fail('invalid-study', `The study in this link cannot run: ${problems[0]!.message}.`, problems);
  }
  return { ok: true, definition: definition as StudyDefinition };
}
