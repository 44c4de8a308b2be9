/**
 * The results as a psych-DS dataset (https://github.com/psych-ds/psych-DS, schema 1.1.0):
 *
 * ```
 * <out>/dataset_description.json            schema.org Dataset: name, description, variableMeasured, …
 * <out>/data/study-<key>_data.csv           one per study: the bytes of the CSV export of that study
 * <out>/materials/study-<key>_definition.json   the study definition that was run
 * ```
 *
 * psych-DS keyword values are letters and digits only, while a study id may hold `-` and `_`:
 * the file key is the id without them (a number appended when two ids would meet); the
 * `study_id` column and the definition keep the real id.
 *
 * The folder appears whole or not at all: it is written as a temporary folder beside `out` and
 * renamed into place (with `force`, an existing `out` is moved aside first and removed after).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { definitionJson, descriptionJson, studyKeys } from '../src/study/results/psychDs';
import { ExportReader } from './export';
import { OutputExistsError, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './files';
import type { ResultStore } from './store';

export interface PsychDsResult {
  readonly sessions: number;
  readonly rows: number;
  /** Paths inside the folder, in the order written. */
  readonly files: readonly string[];
}

/**
 * Writes the psych-DS folder `out` (all or nothing). Without `force` an existing `out` is
 * refused with OutputExistsError.
 */
export function writePsychDs(
  store: ResultStore,
  out: string,
  options: { force: boolean; studyId?: string; now?: Date },
): PsychDsResult {
  const target = path.resolve(out);
  if (!options.force && existsSync(target)) throw new OutputExistsError(`${out} exists; give --force to replace it`);
  const parent = path.dirname(target);
  const temp = path.join(parent, `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.partial`);
  const reader = ExportReader.open(store);
  const cleanUp = () => rmSync(temp, { recursive: true, force: true });
  const onSignal = (signal: NodeJS.Signals) => {
    cleanUp();
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
  };
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  for (const s of signals) process.on(s, onSignal);
  try {
    mkdirSync(temp, { mode: PRIVATE_DIR_MODE });
    mkdirSync(path.join(temp, 'data'), { mode: PRIVATE_DIR_MODE });
    mkdirSync(path.join(temp, 'materials'), { mode: PRIVATE_DIR_MODE });
    const definitions = store.registry.asRegistered(options.studyId);
    const files: string[] = [];
    const counted = { rows: 0 };
    const keys = studyKeys(definitions);
    for (const [i, def] of definitions.entries()) {
      const key = keys[i]!;
      const dataFile = path.join('data', `study-${key}_data.csv`);
      writeChunks(path.join(temp, dataFile), reader.chunks('csv', def.studyId, counted));
      files.push(dataFile);
      const defFile = path.join('materials', `study-${key}_definition.json`);
      writeChunks(path.join(temp, defFile), [definitionJson(def)]);
      files.push(defFile);
    }
    writeChunks(path.join(temp, 'dataset_description.json'), [descriptionJson(definitions, options.now)]);
    files.push('dataset_description.json');
    const sessions = reader.sessionCount(options.studyId);
    if (existsSync(target)) {
      if (!options.force) throw new OutputExistsError(`${out} appeared while writing; give --force to replace it`);
      const aside = `${temp}.old`;
      renameSync(target, aside);
      renameSync(temp, target);
      rmSync(aside, { recursive: true, force: true });
    } else renameSync(temp, target);
    return { sessions, rows: counted.rows, files };
  } catch (e) {
    cleanUp();
    throw e;
  } finally {
    for (const s of signals) process.off(s, onSignal);
    reader.close();
  }
}

function writeChunks(file: string, chunks: Iterable<string>): void {
  const fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  try {
    for (const chunk of chunks) {
      const buffer = Buffer.from(chunk, 'utf8');
      for (let at = 0; at < buffer.length;) at += writeSync(fd, buffer, at, buffer.length - at);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
