/**
 * The researcher's files are private, whoever makes them (the server, `study register`,
 * `results export`): the data folder 700, the database with its `-wal` and `-shm`, the token and
 * the exports 600. Modes are set explicitly, not left to the umask of whoever started the
 * process. And an export file appears whole or not at all: it is written to a temporary file in
 * the same folder and renamed into place.
 */
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Makes `dir` (and any missing parent) with mode 700; an existing folder is left as it is. */
export function makePrivateDir(dir: string): void {
  const made = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  // mkdir's mode passes through the umask; the folder this call made is set exactly.
  if (made !== undefined) chmodSync(path.resolve(dir), PRIVATE_DIR_MODE);
}

/**
 * Before SQLite opens `file` read-write: its folder exists (700 when made here) and, if the file
 * is new, it exists empty with mode 600 (SQLite takes an empty file as a new database, and gives
 * the `-wal` and `-shm` it makes beside it the database file's mode).
 */
export function prepareDatabaseFile(file: string): void {
  makePrivateDir(path.dirname(file));
  try {
    writeFileSync(file, '', { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    chmodSync(file, PRIVATE_FILE_MODE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

/** Sets the database and its `-wal` / `-shm` to 600 where others could read them; returns the files changed. */
export function tightenDatabaseFiles(file: string): string[] {
  const changed: string[] = [];
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    let mode: number;
    try {
      mode = statSync(f).mode;
    } catch {
      continue;
    }
    if ((mode & 0o077) !== 0) {
      chmodSync(f, PRIVATE_FILE_MODE);
      changed.push(f);
    }
  }
  return changed;
}

/** `--out` exists and `--force` was not given. */
export class OutputExistsError extends Error {
  override name = 'OutputExistsError';
}

/** The signals that end a command-line export early; its temporary file goes with it. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Writes `chunks` to `out` with mode 600, all or nothing: into a temporary file beside it
 * (`.<name>.<pid>.<random>.partial`), synced, then moved into place. Without `force` an
 * existing `out` is refused (also one that appears while writing: the move is a hard link,
 * which never replaces a file). The event loop turns after each megabyte, so SIGINT, SIGTERM or
 * SIGHUP during the write remove the temporary file and end the process (exit 128 + signal); a
 * SIGKILL leaves at most the temporary file, never a truncated `out`. Resolves with the bytes
 * written.
 */
export async function writeFileAtomically(
  out: string,
  chunks: Iterable<string>,
  options: { force: boolean },
): Promise<number> {
  const target = path.resolve(out);
  if (!options.force && existsSync(target)) {
    throw new OutputExistsError(`${out} exists; give --force to replace it`);
  }
  const dir = path.dirname(target);
  const temp = path.join(dir, `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.partial`);
  const fd = openSync(temp, 'wx', PRIVATE_FILE_MODE);
  const onSignal = (signal: NodeJS.Signals) => {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    if (existsSync(temp)) unlinkSync(temp);
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  let bytes = 0;
  try {
    try {
      chmodSync(temp, PRIVATE_FILE_MODE);
      let sinceTurn = 0;
      for (const chunk of chunks) {
        const buffer = Buffer.from(chunk, 'utf8');
        for (let at = 0; at < buffer.length;) at += writeSync(fd, buffer, at, buffer.length - at);
        bytes += buffer.length;
        sinceTurn += buffer.length;
        if (sinceTurn >= 1024 * 1024) {
          sinceTurn = 0;
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      fsyncSync(fd);
      closeSync(fd);
    } catch (e) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
      unlinkSync(temp);
      throw e;
    }
    moveIntoPlace(temp, target, out, options.force);
  } finally {
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
  }
  syncDir(dir);
  return bytes;
}

/** Moves the finished temporary file to `target`: rename with `force`, else a hard link that never replaces a file. */
function moveIntoPlace(temp: string, target: string, out: string, force: boolean): void {
  try {
    if (force) {
      renameSync(temp, target);
      return;
    }
    try {
      linkSync(temp, target);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new OutputExistsError(`${out} appeared while writing; give --force to replace it`);
      }
      // A file system without hard links: check again and rename (a narrow race, no truncation).
      if (existsSync(target)) throw new OutputExistsError(`${out} exists; give --force to replace it`);
      renameSync(temp, target);
      return;
    }
    unlinkSync(temp);
  } catch (e) {
    if (existsSync(temp)) unlinkSync(temp);
    throw e;
  }
}

/** Makes a rename durable (best effort: some systems cannot open a folder for sync). */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // not supported here
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
