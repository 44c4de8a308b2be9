import path from 'node:path';
import { DATABASE_FILE, ResultStore, StoreError } from '../server/store';
import { CliError } from './errors';

/**
 * The results database of a server's data folder, for the CLI's `results` and `study` commands.
 * `mustExist`: a folder without a database is an error (export, close/open) rather than a new one
 * (register). The store's own refusals become CLI errors (exit 1, one line).
 */
export function openDataStore(dataDir: string, options: { mustExist?: boolean } = {}): ResultStore {
  try {
    return ResultStore.open(path.resolve(dataDir, DATABASE_FILE), options);
  } catch (e) {
    if (e instanceof StoreError) throw new CliError(e.message);
    throw e;
  }
}
