import { type FileHandle, open } from 'node:fs/promises';
import { type ResultsFile, ResultsFileError, ResultsFileReader } from '../src/study/results/resultsFile';
import { CliError } from './errors';

/**
 * A file's text in chunks of about 1 MB, so that `check` and `stats` read a file of any size in
 * bounded memory. A missing file or a folder is a CliError in the user's words.
 */
export async function* readText(file: string): AsyncGenerator<string> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (e) {
    throw cannotRead(file, e);
  }
  try {
    for await (const chunk of handle.createReadStream({ encoding: 'utf8', highWaterMark: 1 << 20 })) {
      yield chunk as string;
    }
  } catch (e) {
    // A folder opens on Linux and fails on the first read.
    throw (e as NodeJS.ErrnoException).code ? cannotRead(file, e) : e;
  } finally {
    await handle.close().catch(() => {});
  }
}

function cannotRead(file: string, e: unknown): CliError {
  const code = (e as NodeJS.ErrnoException).code;
  return new CliError(
    `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (e as Error).message}`,
  );
}

/** A study's results file (CSV or JSON, as the app and the server export them), read in chunks; a bad file is a CliError. */
export async function readResultsFile(file: string): Promise<ResultsFile> {
  const reader = new ResultsFileReader(file);
  try {
    for await (const chunk of readText(file)) reader.push(chunk);
    return reader.end();
  } catch (e) {
    if (e instanceof ResultsFileError) throw new CliError(`bad results file: ${e.message}`);
    throw e;
  }
}
