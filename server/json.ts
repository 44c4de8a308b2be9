/**
 * JSON the server reads from a client (`POST api/rows`, `POST api/studies`), made safe before
 * anything looks inside it:
 *
 * - keys that name what every object inherits (`__proto__`, `constructor`, `toString`, …) are
 *   refused, with where they are: code that looks such a key up in a plain object finds the
 *   inherited function instead of the data, and `__proto__` can change an object's prototype;
 * - lone surrogates (`"\ud800"`, which only a JSON escape can carry) become U+FFFD, as SQLite
 *   would store them anyway: an identical retry then equals the stored row instead of being a
 *   conflict;
 * - nesting is bounded.
 */

/** Every name an object literal inherits from Object.prototype. */
const INHERITED_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype));

const MAX_DEPTH = 64;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with every lone surrogate replaced by U+FFFD (String.prototype.toWellFormed). */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

export type JsonResult = { ok: true; value: unknown } | { ok: false; message: string };

class Refused extends Error {}

/** Parses `text`; `{ ok: false, message }` names the first problem and where it is (`definition.conditions.0.toString`). */
export function parseClientJson(text: string): JsonResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, message: 'the body is not JSON' };
  }
  try {
    return { ok: true, value: clean(raw, [], 0) };
  } catch (e) {
    if (e instanceof Refused) return { ok: false, message: e.message };
    throw e;
  }
}

function clean(value: unknown, where: readonly (string | number)[], depth: number): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) throw new Refused(`${place(where)}: nested more than ${MAX_DEPTH} levels deep`);
  if (Array.isArray(value)) return value.map((v, i) => clean(v, [...where, i], depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const path = [...where, key];
    if (INHERITED_KEYS.has(key)) throw new Refused(`${place(path)}: the key "${key}" is not allowed (a built-in name)`);
    if (wellFormed(key) !== key) throw new Refused(`${place(path)}: a key holds a lone surrogate (broken UTF-16)`);
    out[key] = clean((value as Record<string, unknown>)[key], path, depth + 1);
  }
  return out;
}

const place = (path: readonly (string | number)[]) => (path.length === 0 ? 'the body' : path.join('.'));
