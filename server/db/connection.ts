/**
 * Opening the results database: the server's read-write connection (WAL, full sync, the schema
 * brought up to date), a read-only one for the CLI, and a second read-only connection for an
 * export's snapshot. Nothing outside server/db/ holds a connection.
 */
import Database from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import { prepareDatabaseFile, tightenDatabaseFiles } from '../files';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations';

/** A problem the caller can tell the user about (no stack trace needed). */
export class StoreError extends Error {
  override name = 'StoreError';
}

/** A connection to the results database (better-sqlite3's). */
export type Connection = Database.Database;

/**
 * Opens (creating if need be) the database at `file`, in WAL mode with full sync, and brings
 * its schema up to date. `readonly` opens an existing file without changing it.
 */
export function openConnection(file: string, options: { readonly?: boolean; mustExist?: boolean } = {}): Connection {
  const mustExist = (options.readonly ?? false) || (options.mustExist ?? false);
  if (mustExist && !existsSync(file)) {
    throw new StoreError(`there is no results database at ${file} (start the server with this --data folder first)`);
  }
  // Private whoever opens it first (the server or the CLI): folder 700, files 600 (files.ts).
  if (!mustExist) prepareDatabaseFile(file);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: options.readonly ?? false, fileMustExist: mustExist });
  } catch (e) {
    throw new StoreError(`cannot open the results database ${file}: ${(e as Error).message}`);
  }
  try {
    // Another process (the CLI, while the server runs) may hold the write lock for a moment.
    db.pragma('busy_timeout = 5000');
    if (!options.readonly) {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      tightenDatabaseFiles(file);
    }
    db.pragma('foreign_keys = ON');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new StoreError(
        `${file} has schema version ${version}, made by a newer version of this app (this one knows up to ${SCHEMA_VERSION})`,
      );
    }
    if (version < SCHEMA_VERSION) {
      if (options.readonly) {
        throw new StoreError(`${file} has schema version ${version}; start the server once to update it`);
      }
      db.transaction(() => {
        for (let v = version; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
        db.pragma(`user_version = ${SCHEMA_VERSION}`);
      }).immediate();
    }
    return db;
  } catch (e) {
    db.close();
    if (e instanceof StoreError) throw e;
    throw new StoreError(`cannot use the results database ${file}: ${(e as Error).message}`);
  }
}

/** The file behind a connection, or null for an in-memory database. */
export function fileOf(db: Connection): string | null {
  return db.memory || db.name === '' || db.name === ':memory:' ? null : db.name;
}

/** A second, read-only connection to the file of `db` (an export's snapshot), or null for an in-memory database. */
export function openReadOnly(db: Connection): Connection | null {
  const file = fileOf(db);
  if (file === null) return null;
  const other = new Database(file, { readonly: true, fileMustExist: true });
  other.pragma('busy_timeout = 5000');
  return other;
}

/** The database's size as SQLite sees it (including pages still in the WAL) plus the WAL file's own size. */
export function databaseBytes(db: Connection): number {
  const pages = db.pragma('page_count', { simple: true }) as number;
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  let wal = 0;
  if (!db.memory) {
    try {
      wal = statSync(`${db.name}-wal`).size;
    } catch {
      // no WAL file (yet)
    }
  }
  return pages * pageSize + wal;
}
