import { readFileSync } from 'node:fs';
import {
  checkStudyDefinition,
  DEFAULT_CONDITION,
  DEFAULT_STUDY,
  mainItemCount,
  type StudyCondition,
  type StudyDefinition,
  type StudySink,
  withDefaults,
} from '../../src/study/definition';
import { decodeStudyLink, encodeStudyLink } from '../../src/study/link';
import { participantPath } from '../../src/study/route';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { UsageError } from '../errors';
import { registerStudyIn, studyRegister } from './studyRegister';

/**
 * `study link`: the participant URL path of a study, made from flags over DEFAULT_STUDY. Every
 * value is handed to checkStudyDefinition as given (a number that does not parse becomes NaN),
 * so the CLI and the designer refuse the same studies with the same words.
 */
const FLAGS: Record<string, FlagSpec> = {
  from: {
    type: 'string',
    help: 'start from a study definition JSON file (as the designer downloads it) instead of the defaults; flags given as well win',
  },
  'study-id': {
    type: 'string',
    help: 'the study id (letters, digits, - and _; the study_id column)',
    default: DEFAULT_STUDY.studyId,
  },
  seed: {
    type: 'string',
    help: 'the study seed: fixes the puzzles every participant gets (0..4294967295)',
    hint: 'n',
    default: DEFAULT_STUDY.seed,
  },
  k: {
    type: 'string',
    help: 'story lengths, comma-separated (each 1..10)',
    hint: 'value',
    default: DEFAULT_STUDY.k.join(','),
  },
  tasks: {
    type: 'string',
    help: 'task numbers, comma-separated (1..7)',
    hint: 'value',
    default: DEFAULT_STUDY.tasks.join(','),
  },
  'per-k': { type: 'string', help: 'main items for every (k, task) pair', hint: 'n', default: DEFAULT_STUDY.itemsPerK },
  strict: {
    type: 'boolean',
    help: 'strictly solvable puzzles only (sound rules); on by default for studies, so this flag only states it',
  },
  'no-strict': { type: 'boolean', help: 'allow puzzles that need the full rule set (not only the sound rules)' },
  'template-split': { type: 'string', help: 'paraphrases: all, train or test', default: DEFAULT_STUDY.templateSplit },
  practice: {
    type: 'string',
    help: 'practice items with feedback, before the main items',
    hint: 'n',
    default: DEFAULT_STUDY.practice,
  },
  'attention-checks': {
    type: 'string',
    help: 'attention checks spread among the main items',
    hint: 'n',
    default: DEFAULT_STUDY.attentionChecks,
  },
  order: {
    type: 'string',
    help: 'main item order: session (each participant their own) or counterbalanced:N (N rotated lists)',
    default: 'session',
  },
  condition: {
    type: 'string',
    help: 'a condition, repeatable: ID[,limit=S][,overall=S][,display=text|text+drawing][,scratchpad] (replaces the single condition the next four flags describe)',
  },
  'time-limit': { type: 'string', help: 'one timed condition ("timed") with this many seconds per puzzle', hint: 'n' },
  'overall-limit': { type: 'string', help: 'seconds for all main trials together (the single condition)', hint: 'n' },
  display: {
    type: 'string',
    help: 'what the single condition shows: text or text+drawing',
    default: DEFAULT_CONDITION.display,
  },
  scratchpad: { type: 'boolean', help: 'give the single condition a scratchpad' },
  assignment: {
    type: 'string',
    help: 'how participants get a condition: balanced (a seeded counter) or url (condition=<id> in the link)',
    default: DEFAULT_STUDY.assignment,
  },
  consent: { type: 'string', help: 'the consent text (markdown; default: a short generic text)' },
  instructions: { type: 'string', help: 'the instructions (markdown; default: a short generic text)' },
  completion: { type: 'string', help: 'the completion text (markdown)' },
  'break-every': {
    type: 'string',
    help: 'a break after every N main trials (0: none)',
    hint: 'n',
    default: DEFAULT_STUDY.breakEvery,
  },
  'completion-code': { type: 'string', help: "the code shown at the end (e.g. Prolific's)" },
  redirect: { type: 'string', help: 'where participants go once every row is acknowledged (http(s) address)' },
  resume: {
    type: 'string',
    help: 'a reopened session: resume (at the first unanswered trial), restart or refuse',
    default: DEFAULT_STUDY.resumePolicy,
  },
  'max-age': {
    type: 'string',
    help: 'minutes after its start that a session may still be resumed',
    hint: 'n',
    default: DEFAULT_STUDY.maxAgeMinutes,
  },
  'http-sink': { type: 'string', help: 'also POST every row to this address (repeatable)' },
  jatos: { type: 'boolean', help: 'send rows to JATOS (when the study runs inside JATOS)' },
  sink: {
    type: 'string',
    help: 'server: send rows to the results server that serves the app (npm run serve; same origin); the study must be registered there: add --data, or run study register',
  },
  data: {
    type: 'string',
    help: "with --sink server: register the study in this results server's data folder (the server running or not)",
  },
  json: { type: 'boolean', help: 'also print the study definition as JSON (before the last line)' },
};

/** Flags that may be given more than once; parseArgs keeps only the last value, so these are taken out first. */
const REPEATABLE = ['condition', 'http-sink'] as const;

const HELP = helpText(
  'usage: npm run cli -- study link [options]\n       npm run cli -- study register --data DIR [options | --link TOKEN | --definition FILE]',
  `study link makes the participant link of a human study (issue 9). The study starts from the
defaults (or --from FILE) and the flags change it; the same flags always give the same link. The
last line is the participant URL path, relative to where the app is served:

  ?study=<token>

Open it as <app address>/?study=<token>; add &preview=1 for a run that records nothing, and
&condition=<id> / &participant=<n> / Prolific's PROLIFIC_PID, STUDY_ID and SESSION_ID as needed.
Studies are strict by default (only puzzles solvable with the sound rules); --no-strict turns
that off. A study that cannot run is refused with exit status 2 and "<setting>: <problem>".

With --sink server, participants' rows go to the results server that serves the app
(npm run serve), which accepts rows of registered studies only: --data DIR registers the study
in that server's data folder at once (the server running or not); without --data, register it
later with study register, or from the designer.

study register --data DIR registers a study in a results server's data folder: the study the
same options describe, or --link <token or participant URL>, or --definition FILE.json. Its last
line is the participant URL path too.`,
  FLAGS,
);

export async function studyCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const [sub, ...rest] = argv;
  if (sub === 'register') return studyRegister(rest, studyFromArgv);
  if (sub !== 'link') {
    throw new UsageError(
      sub === undefined
        ? 'name a subcommand: study link [options] or study register --data DIR [options] (see study --help)'
        : `unknown subcommand "${sub}" (see study --help)`,
    );
  }
  const { study, flags } = readStudyArgv(rest);
  const dataDir = flags.data === undefined ? undefined : String(flags.data);
  if (dataDir !== undefined && !study.sinks.some((s) => s.kind === 'server')) {
    throw new UsageError('data: --data registers the study with a results server; give --sink server as well');
  }
  const token = encodeStudyLink(study);
  // The token must read back as this very study: the run trusts nothing else.
  const back = decodeStudyLink(token);
  if (!back.ok) throw new Error(`the link does not decode: ${back.error.message}`);
  const path = participantPath(token);
  process.stdout.write(summary(study, path));
  if (flags.json) process.stdout.write(`${JSON.stringify(study, null, 2)}\n`);
  if (dataDir !== undefined) {
    const r = registerStudyIn(dataDir, { token });
    const said = {
      added: 'registered',
      unchanged: 'already registered (unchanged)',
      replaced: 'replaced (no results yet)',
    };
    process.stdout.write(`results server: ${said[r.outcome]} in ${dataDir}\n`);
  }
  process.stdout.write(`${path}\n`);
  return 0;
}

/**
 * The checked study that `study link` options describe (also what `study register` registers);
 * throws UsageError with "<setting>: <problem>" for a study that cannot run.
 */
export function studyFromArgv(argv: string[]): StudyDefinition {
  return readStudyArgv(argv).study;
}

function readStudyArgv(argv: readonly string[]): { study: StudyDefinition; flags: Flags } {
  const { repeated, others } = takeRepeated(argv, REPEATABLE);
  const { flags, positional } = parseArgs('study', others, FLAGS);
  if (positional.length > 0) throw new UsageError(`unexpected argument "${positional[0]}"`);
  const given = new Set(others.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')[0]!));
  const def = studyFromFlags(flags, given, repeated);
  const problems = checkStudyDefinition(def);
  if (problems.length > 0) {
    const p = problems[0]!;
    const more =
      problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
    throw new UsageError(`${p.field}: ${p.message}${more}`);
  }
  return { study: def as StudyDefinition, flags };
}

type Flags = Record<string, string | number | boolean | undefined>;

/** Pulls every `--name value` / `--name=value` of the repeatable flags out of argv. */
function takeRepeated(argv: readonly string[], names: readonly string[]) {
  const repeated: Record<string, string[]> = Object.fromEntries(names.map((n) => [n, []]));
  const others: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = names.find((n) => arg === `--${n}` || arg.startsWith(`--${n}=`));
    if (!name) {
      others.push(arg);
      continue;
    }
    if (arg.includes('=')) repeated[name]!.push(arg.slice(arg.indexOf('=') + 1));
    else {
      const value = argv[++i];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      repeated[name]!.push(value);
    }
  }
  return { repeated, others };
}

/**
 * A number as typed, or NaN: checkStudyDefinition then names the setting. `Number()` alone would
 * read "" as 0 and "0x10" as 16.
 */
const num = (text: string): number => (/^\s*-?\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN);
const list = (text: string): number[] => text.split(',').map(num);

/** The definition the flags describe (unchecked: it may be anything, even from --from). */
function studyFromFlags(flags: Flags, given: ReadonlySet<string>, repeated: Record<string, string[]>): unknown {
  const base: Record<string, unknown> = given.has('from')
    ? readDefinitionFile(String(flags.from))
    : { ...DEFAULT_STUDY };
  const has = (flag: string) => given.has(flag) || !given.has('from');
  const str = (flag: string) => String(flags[flag]);
  const set = (flag: string, field: keyof StudyDefinition, value: () => unknown) => {
    if (has(flag) && flags[flag] !== undefined) base[field] = value();
  };
  set('study-id', 'studyId', () => str('study-id'));
  set('seed', 'seed', () => num(str('seed')));
  set('k', 'k', () => list(str('k')));
  set('tasks', 'tasks', () => list(str('tasks')));
  set('per-k', 'itemsPerK', () => num(str('per-k')));
  if (flags.strict && flags['no-strict']) throw new UsageError('strict: give --strict or --no-strict, not both');
  if (flags['no-strict']) base.strict = false;
  else if (flags.strict) base.strict = true;
  set('template-split', 'templateSplit', () => str('template-split'));
  set('practice', 'practice', () => num(str('practice')));
  set('attention-checks', 'attentionChecks', () => num(str('attention-checks')));
  set('order', 'order', () => parseOrder(str('order')));
  set('assignment', 'assignment', () => str('assignment'));
  set('consent', 'consentText', () => str('consent'));
  set('instructions', 'instructionsText', () => str('instructions'));
  set('completion', 'completionText', () => str('completion'));
  set('break-every', 'breakEvery', () => num(str('break-every')));
  set('completion-code', 'completionCode', () => str('completion-code'));
  set('redirect', 'redirectUrl', () => str('redirect'));
  set('resume', 'resumePolicy', () => str('resume'));
  set('max-age', 'maxAgeMinutes', () => num(str('max-age')));

  const single = ['time-limit', 'overall-limit', 'display', 'scratchpad'].filter((f) => given.has(f));
  if (repeated.condition!.length > 0) {
    if (single.length > 0) {
      throw new UsageError(
        `conditions: --${single[0]} describes the single condition; with --condition, say it inside each --condition`,
      );
    }
    base.conditions = repeated.condition!.map(parseCondition);
  } else if (single.length > 0) {
    const perPuzzleLimitS = given.has('time-limit') ? num(str('time-limit')) : null;
    const overallLimitS = given.has('overall-limit') ? num(str('overall-limit')) : null;
    base.conditions = [
      {
        id: perPuzzleLimitS === null && overallLimitS === null ? DEFAULT_CONDITION.id : 'timed',
        perPuzzleLimitS,
        overallLimitS,
        display: str('display'),
        scratchpad: Boolean(flags.scratchpad),
      },
    ];
  }

  // Flags replace the file's sinks only when they name some. One order for the CLI and the
  // designer: JATOS first, then the results server, then the HTTP sinks as given.
  if (given.has('sink') && flags.sink !== 'server') {
    throw new UsageError(
      `sinks: --sink takes "server" (the results server that serves the app), not "${String(flags.sink)}"; --jatos and --http-sink name the others`,
    );
  }
  if (!given.has('from') || given.has('jatos') || given.has('sink') || repeated['http-sink']!.length > 0) {
    const sinks: StudySink[] = flags.jatos ? [{ kind: 'jatos' }] : [];
    if (flags.sink === 'server') sinks.push({ kind: 'server' });
    for (const url of repeated['http-sink']!) sinks.push({ kind: 'http', url });
    base.sinks = sinks;
  }
  return withDefaults(base as Partial<StudyDefinition>);
}

function parseOrder(text: string): unknown {
  if (text === 'session') return { mode: 'session' };
  const m = /^counterbalanced:(.*)$/.exec(text);
  if (m) return { mode: 'counterbalanced', lists: num(m[1]!) };
  throw new UsageError(`order: the order must be "session" or "counterbalanced:N" (got "${text}")`);
}

/** `ID[,limit=S][,overall=S][,display=…][,scratchpad]` → a condition (checked later with the rest). */
function parseCondition(text: string, i: number): StudyCondition {
  const [id = '', ...parts] = text.split(',');
  const c: Record<string, unknown> = { ...DEFAULT_CONDITION, id: id.trim() };
  for (const part of parts) {
    const [key = '', value] = part.split('=', 2).map((s) => s.trim());
    if (key === 'limit' && value !== undefined) c.perPuzzleLimitS = value === 'none' ? null : num(value);
    else if (key === 'overall' && value !== undefined) c.overallLimitS = value === 'none' ? null : num(value);
    else if (key === 'display' && value !== undefined) c.display = value;
    else if (key === 'scratchpad' && value === undefined) c.scratchpad = true;
    else {
      throw new UsageError(
        `conditions.${i}: "${part}" is not a condition setting (limit=S, overall=S, display=text|text+drawing, scratchpad)`,
      );
    }
  }
  return c as unknown as StudyCondition;
}

function readDefinitionFile(file: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not a JSON file';
    throw new UsageError(`from: cannot read ${file}: ${why}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`from: ${file} does not hold a study definition (a JSON object)`);
  }
  return value as Record<string, unknown>;
}

/** The paper's time-limited workers took 1 min 23 s per puzzle on average (Table 3). */
const MINUTES_PER_PUZZLE = 1.4;

const limit = (s: number | null) => (s === null ? 'none' : `${s} s`);

function summary(def: StudyDefinition, path: string): string {
  const main = mainItemCount(def);
  const trials = def.practice + main + def.attentionChecks;
  const conditions = def.conditions.map(
    (c) =>
      `  ${c.id}: per puzzle ${limit(c.perPuzzleLimitS)}, overall ${limit(c.overallLimitS)}, ${c.display}${c.scratchpad ? ', scratchpad' : ''}`,
  );
  const sinks = def.sinks.map((s) =>
    s.kind === 'http' ? s.url : s.kind === 'server' ? 'the results server (api/rows beside the page)' : 'jatos',
  );
  return [
    `study id ${def.studyId}: seed ${def.seed}, ${def.strict ? 'strict' : 'not strict'}, templates ${def.templateSplit}`,
    `items: ${main} main (k ${def.k.join(',')} × task ${def.tasks.join(',')} × ${def.itemsPerK}), ${def.practice} practice, ${def.attentionChecks} attention check${def.attentionChecks === 1 ? '' : 's'}; ${trials} trials, about ${Math.round(trials * MINUTES_PER_PUZZLE)} minutes`,
    `conditions (${def.assignment}):`,
    ...conditions,
    `sinks: ${sinks.length > 0 ? sinks.join(', ') : 'none (participants download their results)'}`,
    `link: ${path.length} characters`,
    '',
  ].join('\n');
}
