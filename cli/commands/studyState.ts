import path from 'node:path';
import type { StudyDefinition } from '../../src/study/definition/definition';
import { linkLengthProblem, MAX_LINK_LENGTH, shortParticipantPath } from '../../src/study/delivery/route';
import { StudyAccess, type AccessState, type SessionMode } from '../../server/sessions';
import { DATABASE_FILE, StoreError } from '../../server/store';
import { openDataStore } from '../dataStore';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { CliError, UsageError } from '../errors';

/**
 * `study close|open --data DIR --study-id ID`: whether a registered study takes new sessions, its
 * quota and its session mode, written straight to the results server's database (the server
 * running or not: it reads them on every request). Closed: new sessions are refused with a
 * message for the participant; sessions under way finish.
 */
const FLAGS: Record<string, FlagSpec> = {
  data: { type: 'string', help: "the results server's data folder" },
  'study-id': { type: 'string', help: 'the registered study' },
  'max-sessions': { type: 'string', help: 'the quota: most sessions the study takes (none: no quota)', hint: 'n' },
  'issued-only': {
    type: 'boolean',
    help: 'rows only of sessions this server issued (refuse browser-made session ids)',
  },
  'browser-sessions': {
    type: 'boolean',
    help: 'also rows of session ids the browser made (how studies registered before issued sessions existed behave)',
  },
};

export const STUDY_STATE_HELP = helpText(
  'usage: npm run cli -- study close --data DIR --study-id ID [options]\n       npm run cli -- study open --data DIR --study-id ID [options]',
  `study close: the study takes no new participants (POST api/sessions answers 403 with a message
for the participant; a browser-made session not seen before is refused too); sessions under way
finish. study open: it takes them again. Both may set the quota and the session mode. The last
line says the study's state.`,
  FLAGS,
);

export async function studyStateCommand(sub: 'close' | 'open', argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(STUDY_STATE_HELP);
    return 0;
  }
  const { flags, positional } = parseArgs(`study ${sub}`, argv, FLAGS);
  if (positional.length > 0) throw new UsageError(`unexpected argument "${positional[0]}"`);
  if (typeof flags.data !== 'string')
    throw new UsageError("--data <folder> is needed: the results server's data folder");
  if (typeof flags['study-id'] !== 'string') throw new UsageError('--study-id <id> is needed: the registered study');
  if (flags['issued-only'] && flags['browser-sessions']) {
    throw new UsageError('give --issued-only or --browser-sessions, not both');
  }
  let maxSessions: number | null | undefined;
  if (flags['max-sessions'] !== undefined) {
    const text = String(flags['max-sessions']);
    if (text === 'none') maxSessions = null;
    else if (/^\d{1,9}$/.test(text)) maxSessions = Number(text);
    else throw new UsageError(`--max-sessions must be a whole number or "none" (got "${text}")`);
  }
  const sessions: SessionMode | undefined = flags['issued-only']
    ? 'issued'
    : flags['browser-sessions']
      ? 'browser'
      : undefined;
  const file = path.resolve(flags.data, DATABASE_FILE);
  const store = openDataStore(flags.data, { mustExist: true });
  try {
    const state = new StudyAccess(store).update(flags['study-id'], {
      closed: sub === 'close',
      ...(maxSessions === undefined ? {} : { maxSessions }),
      ...(sessions === undefined ? {} : { sessions }),
    });
    process.stdout.write(`${describeState(state)}\n`);
    return 0;
  } catch (e) {
    if (e instanceof StoreError) throw new CliError(`study-id: ${e.message} (in ${file})`);
    throw e;
  } finally {
    store.close();
  }
}

/** One line: `study ID: open; 3 sessions issued; quota 100; sessions: issued only`. */
export function describeState(s: AccessState): string {
  const quota = s.max_sessions === null ? 'no quota' : `quota ${s.max_sessions}`;
  const mode = s.sessions === 'issued' ? 'issued only' : 'issued or made by the browser';
  return `study ${s.study_id}: ${s.closed ? 'closed' : 'open'}; ${s.issued} session${s.issued === 1 ? '' : 's'} issued; ${quota}; sessions: ${mode}`;
}

/**
 * The last lines of `study link`, the participant path last. A study registered with a results
 * server (`--data`) gets the short link `?s=<study id>` (the served app asks the server for the
 * study), with the full link before it while that is short enough to be used. Without a server,
 * a full link longer than MAX_LINK_LENGTH is refused: proxies would refuse it with 431/414.
 */
export function linkLines(study: StudyDefinition, fullPath: string, registered: boolean): string[] {
  const problem = linkLengthProblem(fullPath);
  if (!registered) {
    if (problem) throw new UsageError(`link: ${problem}`);
    return [fullPath];
  }
  const short = shortParticipantPath(study.studyId);
  return fullPath.length <= MAX_LINK_LENGTH ? [`full link: ${fullPath}`, short] : [short];
}
