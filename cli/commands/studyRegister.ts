import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { StudyDefinition } from '../../src/study/definition/definition';
import { decodeStudyLink } from '../../src/study/definition/link';
import { participantPath } from '../../src/study/delivery/route';
import { StudyAccess } from '../../server/sessions';
import { DATABASE_FILE, StoreError, type RegisterOutcome } from '../../server/store';
import { openDataStore } from '../dataStore';
import { UsageError, CliError } from '../errors';

/**
 * `study register --data ./data [study link flags | --link <token or URL>]`: registers a study
 * in a results server's data folder (the server running or not: SQLite takes care of the
 * concurrent writer), so that the server accepts its participants' rows. Prints what happened
 * and, as the last line, the participant URL path, as `study link` does.
 *
 * `definitionFromFlags` turns the remaining `study link` flags into a checked definition (it
 * lives with `study link`); without it only `--link` and `--definition FILE` are understood.
 */
export async function studyRegister(
  argv: readonly string[],
  definitionFromFlags?: (argv: string[]) => StudyDefinition,
): Promise<number> {
  const { data, link, definitionFile, others } = takeOwnFlags(argv);
  if (data === undefined) throw new UsageError("--data <folder> is needed: the results server's data folder");
  let input: { token: string } | { definition: unknown };
  if (link !== undefined || definitionFile !== undefined) {
    if (others.length > 0) throw new UsageError(`--link and --definition take no study flags (got "${others[0]}")`);
    if (link !== undefined && definitionFile !== undefined)
      throw new UsageError('give --link or --definition, not both');
    input = link !== undefined ? { token: link } : { definition: readJson(definitionFile!) };
  } else if (definitionFromFlags) {
    input = { definition: definitionFromFlags(others) };
  } else {
    throw new UsageError('name the study: --link <token or participant URL> or --definition FILE.json');
  }
  const r = registerStudyIn(data, input);
  const file = path.resolve(data, DATABASE_FILE);
  const said = {
    added: 'registered',
    unchanged: 'already registered (unchanged)',
    replaced: 'replaced (it had no results yet)',
  };
  // Registering is only half of it: participants send to this server only if the link says so.
  const decoded = decodeStudyLink(r.token);
  if (decoded.ok && !decoded.definition.sinks.some((s) => s.kind === 'server')) {
    process.stderr.write(
      `clutrr study: note: study ${r.studyId} has no results-server sink, so its participants' rows will not be sent here (add --sink server to the study's flags)\n`,
    );
  }
  process.stdout.write(`study ${r.studyId}: ${said[r.outcome]} in ${file}\n${participantPath(r.token)}\n`);
  return 0;
}

/** Registers a study in `<dataDir>/results.sqlite` (created if need be); for `study link --sink server --data`. */
export function registerStudyIn(dataDir: string, input: { token: string } | { definition: unknown }): RegisterOutcome {
  const store = openDataStore(dataDir);
  try {
    // Through StudyAccess: the study's session mode is recorded with it (server/sessions.ts).
    return new StudyAccess(store).register(input);
  } catch (e) {
    if (e instanceof StoreError) throw new CliError(e.message);
    throw e;
  } finally {
    store.close();
  }
}

/** Takes --data, --link and --definition out of argv (the rest are `study link` flags). */
function takeOwnFlags(argv: readonly string[]) {
  const own: Record<string, string | undefined> = { data: undefined, link: undefined, definition: undefined };
  const others: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = Object.keys(own).find((n) => arg === `--${n}` || arg.startsWith(`--${n}=`));
    if (!name) {
      others.push(arg);
      continue;
    }
    const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
    if (value === undefined || value === '' || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
    own[name] = value;
  }
  return { data: own.data, link: own.link, definitionFile: own.definition, others };
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not a JSON file';
    throw new UsageError(`definition: cannot read ${file}: ${why}`);
  }
}
