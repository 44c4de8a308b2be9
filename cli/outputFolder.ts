import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { CliError, UsageError } from './errors';

/**
 * A dataset folder written whole or not at all: files go into a hidden temporary folder beside
 * the target, which is renamed into place only when every file is complete. A folder that
 * already holds a dataset is replaced whole (no file of the old run survives beside the new
 * config.json); any other non-empty folder is refused rather than overwritten.
 */
export interface PendingFolder {
  /** Where to write the files now. */
  readonly dir: string;
  /** The folder the files will end up in. */
  readonly target: string;
  /** Moves the finished files into place (the old dataset, if any, is removed). */
  commit(): void;
  /** Removes what was written; the target is left as it was. */
  abort(): void;
}

/** Files a dataset folder of ours holds. */
const isDatasetFile = (name: string) => name === 'config.json' || /\.(csv|jsonl)$/i.test(name);

/**
 * Checks `--out` before any work and creates the temporary folder beside it. Throws a CliError
 * naming the problem: a file where the folder should be, a folder with other things in it, or a
 * parent that cannot be written.
 */
export function prepareOutputFolder(out: string): PendingFolder {
  const target = path.resolve(out);
  if (existsSync(target)) {
    const stat = statSync(target);
    if (!stat.isDirectory()) throw new UsageError(`--out ${out} is a file, not a folder`);
    const entries = readdirSync(target);
    const foreign = entries.filter((e) => !isDatasetFile(e) || statSync(path.join(target, e)).isDirectory());
    if (foreign.length > 0) {
      throw new UsageError(
        `--out ${out} already holds other things (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}); give a new or empty folder, or a dataset folder to replace`,
      );
    }
    if (entries.length > 0 && !isOurConfig(path.join(target, 'config.json'))) {
      throw new UsageError(
        `--out ${out} holds dataset files but no clutrr-lab config.json, so it is not a dataset folder of ours to replace; give a new or empty folder`,
      );
    }
  }
  const parent = path.dirname(target);
  let dir: string;
  try {
    mkdirSync(parent, { recursive: true });
    dir = mkdtempSync(path.join(parent, `.${path.basename(target)}.partial-`));
  } catch (e) {
    throw new CliError(`cannot write the dataset folder ${out}: ${(e as Error).message}`);
  }
  let done = false;
  return {
    dir,
    target,
    commit() {
      if (done) return;
      if (existsSync(target)) {
        const old = mkdtempSync(path.join(parent, `.${path.basename(target)}.old-`));
        rmSync(old, { recursive: true, force: true });
        renameSync(target, old);
        renameSync(dir, target);
        rmSync(old, { recursive: true, force: true });
      } else renameSync(dir, target);
      done = true;
    },
    abort() {
      if (done) return;
      rmSync(dir, { recursive: true, force: true });
      done = true;
    },
  };
}

function isOurConfig(file: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { generator?: unknown }).generator === 'clutrr-lab';
  } catch {
    return false;
  }
}
