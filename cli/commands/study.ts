import { readFileSync } from 'node:fs';
import {
  checkStudyDefinition,
  DEFAULT_CONDITION,
  defaultsFor,
  mainItemCount,
  type StudyDefinition,
  withDefaults,
} from '../../src/study/definition/definition';
import { participantsNeeded, readStoriesFile } from '../../src/study/collect/reviewStories';
import { decodeStudyLink, encodeStudyLink } from '../../src/study/definition/link';
import { participantPath } from '../../src/study/delivery/route';
import { SINK_KINDS, SINK_WORDS, SINKS, sinksFromCli, sinkSummary } from '../../src/study/definition/sinks';
import { CONDITION_FLAGS, readConditionArg, singleCondition } from '../../src/study/definition/commandLine';
import { KIND_NAMES, kindOf, type StudyKind } from '../../src/study/definition/vocabulary';
import { STUDY_OPTION_FIELDS, STUDY_OPTIONS, type StudyOptionField } from '../../src/study/definition/studyOptions';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { UsageError } from '../errors';
import { registerStudyIn, studyRegister } from './studyRegister';
import { linkLines, studyStateCommand } from './studyState';

/**
 * `study link`: the participant URL path of a study, made from flags over DEFAULT_STUDY. The
 * flags of the settings come from the study options table (src/study/definition/studyOptions.ts), those of
 * the sinks from the sink table (src/study/definition/sinks.ts). Every value is handed to
 * checkStudyDefinition as read (a number that does not parse becomes NaN), so the CLI and the
 * designer refuse the same studies with the same words.
 */
const optionFlags = (field: StudyOptionField): [string, FlagSpec][] => {
  const o = STUDY_OPTIONS[field];
  if (o.input === 'switch') {
    return [
      [o.flag, { type: 'boolean', help: o.help }],
      [`no-${o.flag}`, { type: 'boolean', help: `the opposite of --${o.flag}` }],
    ];
  }
  // A file's contents are read from it, not typed.
  if (o.input === 'stories') return [[o.flag, { type: 'string', help: `${o.help} (FILE)`, hint: 'value' }]];
  const shown = o.write(o.default as never);
  // Texts have long defaults, and an empty default says nothing: neither is shown.
  const def = o.input === 'markdown' || shown === '' ? {} : { default: shown };
  return [[o.flag, { type: 'string', help: o.help, hint: o.input === 'number' ? 'n' : 'value', ...def }]];
};

const SINK_FLAG_HELP = SINK_KINDS.flatMap((k) =>
  SINKS[k].sinkWord === null ? [] : [`${SINKS[k].sinkWord}: ${SINKS[k].help}`],
).join('; ');

const FLAGS: Record<string, FlagSpec> = {
  from: {
    type: 'string',
    help: 'start from a study definition JSON file (as the designer downloads it) instead of the defaults; flags given as well win',
  },
  ...Object.fromEntries(STUDY_OPTION_FIELDS.flatMap(optionFlags)),
  condition: { type: 'string', help: CONDITION_FLAGS.condition },
  'time-limit': { type: 'string', help: CONDITION_FLAGS['time-limit'], hint: 'n' },
  'overall-limit': { type: 'string', help: CONDITION_FLAGS['overall-limit'], hint: 'n' },
  display: { type: 'string', help: CONDITION_FLAGS.display, default: DEFAULT_CONDITION.display },
  scratchpad: { type: 'boolean', help: CONDITION_FLAGS.scratchpad },
  sink: {
    type: 'string',
    help: `${SINK_FLAG_HELP} (repeatable; with server, --data registers the study, or run study register)`,
  },
  'send-instructions': {
    type: 'string',
    help: 'with --sink download: how participants send you their file (e.g. an e-mail address), shown at the end',
  },
  'http-sink': { type: 'string', help: `also ${SINKS.http.help} (repeatable)` },
  jatos: { type: 'boolean', help: SINKS.jatos.help },
  data: {
    type: 'string',
    help: "with --sink server: register the study in this results server's data folder (the server running or not)",
  },
  json: { type: 'boolean', help: 'also print the study definition as JSON (before the last line)' },
};

/** Flags that may be given more than once; parseArgs keeps only the last value, so these are taken out first. */
const REPEATABLE = ['condition', 'http-sink', 'sink'] as const;

/** Said on stderr when a study names no destination: its rows stay in the participants' browsers. */
export const NO_SINK_WARNING =
  'warning: this study sends results nowhere: participants can only download their own file at the end, and nothing reaches you unless they send it. ' +
  `Say where results go: ${SINK_KINDS.map((k) => SINKS[k].cliUsage).join(', ')}.`;

const HELP = helpText(
  'usage: npm run cli -- study link [options]\n       npm run cli -- study register --data DIR [options | --link TOKEN | --definition FILE]\n       npm run cli -- study close|open --data DIR --study-id ID [options]',
  `study link makes the participant link of a human study. The study starts from the
defaults (or --from FILE) and the flags change it; the same flags always give the same link. The
last line is the participant URL path, relative to where the app is served:

  ?study=<token>

Open it as <app address>/?study=<token>; add &preview=1 for a run that records nothing, and
&condition=<id> / &participant=<n> / Prolific's PROLIFIC_PID, STUDY_ID and SESSION_ID as needed.
Studies are strict by default (only puzzles solvable with the sound rules); --no-strict turns
that off. A study that cannot run is refused with exit status 2 and "<setting>: <problem>".

Kinds of study (--kind): solve (the default: participants solve puzzles); paraphrase (each
participant writes a story for --clauses-per-participant clauses of --clause-k facts, shown as
sentences with the implied fact not to be stated; live checks before submit); review (each
participant rates --reviews-per-participant stories by others as good or bad, with reasons).
A review study's stories come live from the results server (--source-study <paraphrase study id>
with --sink server) or are embedded in the link (--stories FILE: a results export, CSV or JSON,
or a stories file the designer saved; participants numbered 0, 1, … share them out evenly). A
setting of another kind is refused.

Where results go (one or more):
${SINK_KINDS.map((k) => `  ${SINKS[k].cliUsage.padEnd(42)} ${SINKS[k].label}`).join('\n')}
Without any of them the link still works, but results stay in the participants' browsers (each
can download their own file at the end) and a warning says so on stderr.

With --sink server, participants' rows go to the results server that serves the app
(npm run serve), which accepts rows of registered studies only: --data DIR registers the study
in that server's data folder at once (the server running or not) and the last line is the short
link ?s=<study id>; without --data, register it later with study register, or from the designer.

study register --data DIR registers a study in a results server's data folder: the study the
same options describe, or --link <token or participant URL>, or --definition FILE.json. Its last
line is the participant URL path too.

study close|open --data DIR --study-id ID stops or resumes new sessions of a registered study
(running sessions finish); --max-sessions N sets its quota. See study close --help.

study simulate <definition or link> --respondent threshold=K,slope=S,lapse=P | model=<name> runs the
study with simulated participants (see study simulate --help).

study estimates <definition or link> FILE... gives each session's threshold estimate from a study's
exported rows (see study estimates --help).`,
  FLAGS,
);

export async function studyCommand(argv: string[]): Promise<number> {
  // close and open have their own flags and help.
  if (argv[0] === 'close' || argv[0] === 'open') return studyStateCommand(argv[0], argv.slice(1));
  // simulate has its own flags and help.
  if (argv[0] === 'simulate') return (await import('./studySimulate')).studySimulate(argv.slice(1));
  // estimates: each session's threshold from exported rows.
  if (argv[0] === 'estimates') return (await import('./studyEstimates')).studyEstimates(argv.slice(1));
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const [sub, ...rest] = argv;
  if (sub === 'register') return studyRegister(rest, studyFromArgv);
  if (sub !== 'link') {
    throw new UsageError(
      sub === undefined
        ? 'name a subcommand: study link [options], study register --data DIR [options] or study close|open --data DIR --study-id ID (see study --help)'
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
  // With --data, the short link ?s=<study id> last (studyState.ts); without, a too-long link is
  // refused, before anything is printed or registered.
  const lines = linkLines(study, path, dataDir !== undefined);
  if (study.sinks.length === 0) process.stderr.write(`clutrr study: ${NO_SINK_WARNING}\n`);
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
  process.stdout.write(`${lines.join('\n')}\n`);
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

/** The definition the flags describe (unchecked: it may be anything, even from --from). */
function studyFromFlags(flags: Flags, given: ReadonlySet<string>, repeated: Record<string, string[]>): unknown {
  // Over the defaults of the kind the flags name (a collection kind has its own texts).
  const base: Record<string, unknown> = given.has('from')
    ? readDefinitionFile(String(flags.from))
    : { ...defaultsFor(kindOf({ kind: flags.kind })) };
  // Only the flags given: the base holds the kind's own defaults (an adaptive study's k is 2..10,
  // not the flag's default of a solve study).
  const has = (flag: string) => given.has(flag);
  for (const field of STUDY_OPTION_FIELDS) {
    const o = STUDY_OPTIONS[field];
    if (o.input === 'switch') {
      if (flags[o.flag] && flags[`no-${o.flag}`]) {
        throw new UsageError(`${field}: give --${o.flag} or --no-${o.flag}, not both`);
      }
      if (flags[`no-${o.flag}`]) base[field] = false;
      else if (flags[o.flag]) base[field] = true;
    } else if (o.input === 'stories') {
      if (flags[o.flag] !== undefined) base[field] = readStories(field, String(flags[o.flag]));
    } else if (has(o.flag) && flags[o.flag] !== undefined) base[field] = o.read(String(flags[o.flag]));
  }

  const single = ['time-limit', 'overall-limit', 'display', 'scratchpad'].filter((f) => given.has(f));
  if (repeated.condition!.length > 0) {
    if (single.length > 0) {
      throw new UsageError(
        `conditions: --${single[0]} describes the single condition; with --condition, say it inside each --condition`,
      );
    }
    base.conditions = repeated.condition!.map((arg, i) => {
      const c = readConditionArg(arg, DEFAULT_CONDITION);
      if ('problem' in c) throw new UsageError(`conditions.${i}: ${c.problem}`);
      return c;
    });
  } else if (single.length > 0) {
    const value = (flag: string) => (given.has(flag) ? String(flags[flag]) : undefined);
    base.conditions = [
      singleCondition(
        {
          timeLimit: value('time-limit'),
          overallLimit: value('overall-limit'),
          display: String(flags.display),
          scratchpad: Boolean(flags.scratchpad),
        },
        DEFAULT_CONDITION,
      ),
    ];
  }

  // Flags replace the file's sinks only when they name some. One order for the CLI and the
  // designer: the sink table's (JATOS, the results server, the HTTP sinks as given, download).
  const words = repeated.sink!;
  const unknown = words.find((w) => !SINK_WORDS.includes(w));
  if (unknown !== undefined) {
    throw new UsageError(
      `sinks: --sink takes ${SINK_WORDS.map((w) => `"${w}"`).join(' or ')}, not "${unknown}"; --jatos and --http-sink name the others`,
    );
  }
  const sinkFlags = ['jatos', 'send-instructions'].some((f) => given.has(f));
  if (!given.has('from') || sinkFlags || words.length > 0 || repeated['http-sink']!.length > 0) {
    base.sinks = sinksFromCli({
      sink: words,
      jatos: Boolean(flags.jatos),
      httpSinks: repeated['http-sink']!,
      sendInstructions: flags['send-instructions'] === undefined ? undefined : String(flags['send-instructions']),
    });
  }
  return withDefaults(base as Partial<StudyDefinition>);
}

/** `--stories FILE`: the stories a review study embeds, from a results export or a stories file. */
function readStories(field: string, file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'cannot be read';
    throw new UsageError(`${field}: ${file}: ${why}`);
  }
  try {
    return readStoriesFile(file, text);
  } catch (e) {
    throw new UsageError(`${field}: ${(e as Error).message}`);
  }
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

/** A collection study's first summary line. */
const collectionHead = (def: StudyDefinition) =>
  `study id ${def.studyId}: ${KIND_NAMES[def.kind]} study, seed ${def.seed}`;

/** The summary's first lines, per kind: the study's items, or what each participant does. */
const ITEM_LINES: { readonly [K in StudyKind]: (def: StudyDefinition) => string[] } = {
  solve(def) {
    const main = mainItemCount(def);
    const trials = def.practice + main + def.attentionChecks;
    return [
      `study id ${def.studyId}: seed ${def.seed}, ${def.strict ? 'strict' : 'not strict'}, templates ${def.templateSplit}`,
      `items: ${main} main (k ${def.k.join(',')} × task ${def.tasks.join(',')} × ${def.itemsPerK}), ${def.practice} practice, ${def.attentionChecks} attention check${def.attentionChecks === 1 ? '' : 's'}; ${trials} trials, about ${Math.round(trials * MINUTES_PER_PUZZLE)} minutes`,
    ];
  },
  adaptive(def) {
    const most = def.practice + def.adaptiveTrials;
    const stop = def.ciWidth > 0 ? ` or once the threshold's 95% interval is at most ${def.ciWidth} hops wide` : '';
    return [
      `study id ${def.studyId}: adaptive study (${def.adaptive === 'quest' ? 'QUEST+' : '2-down-1-up staircase'}), seed ${def.seed}, ${def.strict ? 'strict' : 'not strict'}, templates ${def.templateSplit}`,
      `items: k ${def.k.join(',')} as the answers lead, task ${def.tasks.join(',')}; stops after ${def.adaptiveTrials} trials${stop}; ${def.practice} practice; at most ${most} trials, about ${Math.round(most * MINUTES_PER_PUZZLE)} minutes`,
    ];
  },
  paraphrase(def) {
    const favour = def.favourUncovered ? ', favouring the clauses with fewest stories' : '';
    return [
      collectionHead(def),
      `clauses: ${def.clausesPerParticipant} per participant, ${def.clauseKs.join(',')} facts each, genders ${def.clauseGenders}${favour}; stories of ${def.minWords} to ${def.maxWords} words`,
    ];
  },
  review(def) {
    const each = `${def.reviewsPerParticipant} per participant, ${def.reviewsPerStory} reviews per story`;
    if (def.sourceStudy !== '') {
      return [collectionHead(def), `stories: served by the results server from study ${def.sourceStudy}; ${each}`];
    }
    const needed = participantsNeeded(def);
    return [
      collectionHead(def),
      `stories: ${def.reviewStories.length} embedded; ${each}: participants 0 to ${needed - 1} (${needed}) review each story ${def.reviewsPerStory} times`,
    ];
  },
};

const limit = (s: number | null) => (s === null ? 'none' : `${s} s`);

function summary(def: StudyDefinition, path: string): string {
  const conditions = def.conditions.map(
    (c) =>
      `  ${c.id}: per puzzle ${limit(c.perPuzzleLimitS)}, overall ${limit(c.overallLimitS)}, ${c.display}${c.scratchpad ? ', scratchpad' : ''}`,
  );
  const sinks = def.sinks.map(sinkSummary);
  const what = ITEM_LINES[def.kind](def);
  return [
    ...what,
    `conditions (${def.assignment}):`,
    ...conditions,
    `sinks: ${sinks.length > 0 ? sinks.join(', ') : "none (results stay in the participants' browsers)"}`,
    `link: ${path.length} characters`,
    '',
  ].join('\n');
}
