/**
 * The researcher's token: a random secret in `<data>/token` (mode 600), made on the first start.
 * Whoever can read that file may read every result; participants never see it.
 */
import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const TOKEN_FILE = 'token';

export interface TokenInfo {
  readonly token: string;
  readonly file: string;
  /** True when this start made the file. */
  readonly created: boolean;
  /** Set when the file can be read by others than its owner (and was tightened to 600). */
  readonly warning?: string;
}

/** Reads `<dataDir>/token`, or creates it (32 random bytes, base64url) with mode 600. */
export function ensureToken(dataDir: string): TokenInfo {
  const file = path.resolve(dataDir, TOKEN_FILE);
  try {
    // 'wx': never overwrite a token made by a concurrent start.
    const token = randomBytes(32).toString('base64url');
    writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
    return { token, file, created: true };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  const token = readFileSync(file, 'utf8').trim();
  if (token.length < 16)
    throw new Error(`${file} holds no usable token (at least 16 characters); delete it to make a new one`);
  // A header carries printable ASCII without spaces (bearerMatches reads one \S+ word): another
  // token could never match, and every researcher request would get 401.
  const bad = /[^\x21-\x7e]/.exec(token);
  if (bad)
    throw new Error(
      `${file} holds a token with ${bad[0] === ' ' ? 'a space' : `the character U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`}, which no Authorization header can match; use printable ASCII without spaces, or delete the file to make a new one`,
    );
  let warning: string | undefined;
  if ((statSync(file).mode & 0o077) !== 0) {
    chmodSync(file, 0o600);
    warning = `${file} could be read by other users; its mode is now 600`;
  }
  return warning ? { token, file, created: false, warning } : { token, file, created: false };
}

/** Compares a request's `Authorization` header with the token in constant time. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!m) return false;
  // Hashing first gives equal lengths, which timingSafeEqual needs, without leaking the length.
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(m[1]!), digest(token));
}
