/**
 * `study simulate <definition or link>`: runs a puzzle study (solve or adaptive) with simulated
 * respondents and writes their rows in the export format (CSV, or JSON for a .json --out), as
 * src/study/simulate does it; a `model=<name>` respondent is a shipped model answering the very
 * puzzles (read as `eval` reads them: public/models/<model>/<version>/). Last line:
 * `participants=<n> rows=<n> mean_threshold=<x|none>`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { RelationWord } from '../../src/core/kinship/relations';
import { generatePuzzle } from '../../src/core/puzzle/puzzle';
import { createRng } from '../../src/core/random/rng';
import { datasetRenderer } from '../../src/core/text/datasetText';
import { CLASSES, questionFromPuzzle } from '../../src/ml/encoding';
import { bestClass, type ClutrrModel } from '../../src/ml/model';
import { modelKind, MODEL_KINDS } from '../../src/ml/modelKinds';
import { checkStudyDefinition, type StudyDefinition, withDefaults } from '../../src/study/definition/definition';
import { decodeStudyLink } from '../../src/study/definition/link';
import { rowsToCsv, rowsToJson } from '../../src/study/results/results';
import { storyRequest } from '../../src/study/schedule/trialContent';
import { readRespondent, thresholdRespondent } from '../../src/study/simulate/respondent';
import { estimatesCsv, type RespondentFactory, simulateStudy } from '../../src/study/simulate/simulate';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { CliError, UsageError } from '../errors';
import { readModelFolder, shippedModelsDir, startBackend } from '../modelFolders';

const FLAGS: Record<string, FlagSpec> = {
  respondent: {
    type: 'string',
    help: 'threshold=K,slope=S,lapse=P (a person: right up to k = K, the decline as steep as S, slips P; slope 2 and lapse 0.05 unless given) or model=<shipped model> (it answers the very puzzles)',
  },
  participants: { type: 'integer', default: 40, help: 'simulated participants (1..10000)', hint: 'n' },
  seed: { type: 'integer', default: 1, help: "the respondents' seed (the puzzles are the study's own)", hint: 'n' },
  out: {
    type: 'string',
    help: 'write the rows here (.json: the JSON export; otherwise CSV); without it, CSV on stdout',
  },
  estimates: {
    type: 'string',
    help: "also write each participant's threshold estimate (session_id, threshold, low, high, trials) as CSV here",
  },
  version: { type: 'string', default: '1', help: 'with model=<name>: the shipped version' },
};

const HELP = helpText(
  'study simulate',
  `study simulate <definition.json | link | token> --respondent threshold=K,slope=S,lapse=P | --respondent model=<name>
  [--participants N] [--seed S] [--out FILE] [--estimates FILE]

Runs a puzzle study (solve or adaptive) with simulated participants: the same schedule, adaptive
procedure and puzzles as a real run. Last line: participants=<n> rows=<n> mean_threshold=<x|none>.`,
  FLAGS,
);

/** The study a definition file, a participant link or a bare token holds. */
export function readStudySource(source: string): StudyDefinition {
  let def: unknown;
  if (existsSync(source) && !/^s\d+\./.test(source)) {
    try {
      def = JSON.parse(readFileSync(source, 'utf8'));
    } catch {
      throw new UsageError(`${source}: not a JSON study definition`);
    }
    if (typeof def !== 'object' || def === null || Array.isArray(def)) {
      throw new UsageError(`${source}: does not hold a study definition (a JSON object)`);
    }
    def = withDefaults(def as Partial<StudyDefinition>);
  } else {
    const m = /[?&#]study=([^&#\s]+)/.exec(source);
    const decoded = decodeStudyLink(m ? decodeURIComponent(m[1]!) : source);
    if (!decoded.ok) {
      throw new UsageError(
        `${source.length > 60 ? `${source.slice(0, 60)}…` : source}: neither a definition file nor a study link (${decoded.error.message})`,
      );
    }
    def = decoded.definition;
  }
  const problems = checkStudyDefinition(def);
  if (problems.length > 0) throw new UsageError(`${source}: ${problems[0]!.field}: ${problems[0]!.message}`);
  return def as StudyDefinition;
}

async function shippedModel(name: string, version: string): Promise<ClutrrModel> {
  if (!modelKind(name)) {
    throw new UsageError(`--respondent: model=${name} is not a shipped model (${Object.keys(MODEL_KINDS).join(', ')})`);
  }
  if (!/^[\w.-]+$/.test(version)) throw new UsageError(`--version: not a version (got ${version})`);
  const dir = path.join(shippedModelsDir(), name, version);
  if (!existsSync(dir)) throw new CliError(`no shipped model ${name}/${version} (looked in ${dir})`);
  await startBackend('wasm');
  return readModelFolder(dir, `${name}/${version}`);
}

/** A shipped model as a respondent: it reads each trial's very puzzle (its graph and bracketed story) and picks its best class. */
function modelRespondent(def: StudyDefinition, model: ClutrrModel): RespondentFactory {
  const render = new Map<string, ReturnType<typeof datasetRenderer>['render']>();
  return () => async (item) => {
    const body = storyRequest(def, item);
    const key = JSON.stringify(body.text);
    let r = render.get(key);
    if (!r) render.set(key, (r = datasetRenderer(body.text, '1').render));
    const puzzle = generatePuzzle({ seed: body.seed, k: body.k, task: body.task, strict: body.strict });
    const story = r(puzzle, body.text.half, createRng(puzzle.seed, 'text'));
    const [answer] = await model.answer([questionFromPuzzle(puzzle, story.story)]);
    return CLASSES[bestClass(answer!.probs)] as RelationWord;
  };
}

export async function studySimulate(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { flags, positional } = parseArgs('study simulate', argv, FLAGS);
  if (positional.length !== 1) {
    throw new UsageError(
      'name one study: a definition file (.json), a participant link or its token (see study simulate --help)',
    );
  }
  const def = readStudySource(positional[0]!);
  if (flags.respondent === undefined)
    throw new UsageError('--respondent: say who answers: threshold=K[,slope=S,lapse=P] or model=<name>');
  const spec = readRespondent(String(flags.respondent));
  if (typeof spec === 'string') throw new UsageError(spec);
  const participants = Number(flags.participants);
  if (!Number.isInteger(participants) || participants < 1 || participants > 10_000) {
    throw new UsageError(`--participants must be a whole number from 1 to 10000 (got ${flags.participants})`);
  }
  const seed = Number(flags.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new UsageError(`--seed must be a whole number from 0 to 4294967295`);
  if (def.kind !== 'solve' && def.kind !== 'adaptive') {
    throw new UsageError(
      `a ${def.kind} study cannot be simulated: its participants write or judge stories; simulate a solve or adaptive study`,
    );
  }
  let model: ClutrrModel | null = null;
  try {
    let respondent: RespondentFactory;
    if (spec.kind === 'threshold') respondent = thresholdRespondent(spec.params);
    else {
      model = await shippedModel(spec.model, String(flags.version));
      respondent = modelRespondent(def, model);
    }
    const result = await simulateStudy(def, respondent, { participants, seed });
    const out = flags.out === undefined ? undefined : String(flags.out);
    const text = out?.endsWith('.json') ? rowsToJson(result.rows) : rowsToCsv(result.rows);
    if (out === undefined) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    else writeFileSync(out, text);
    if (flags.estimates !== undefined) writeFileSync(String(flags.estimates), estimatesCsv(result.participants));
    const mean = result.meanThreshold === null ? 'none' : result.meanThreshold.toFixed(3);
    process.stdout.write(
      `participants=${result.participants.length} rows=${result.rows.length} mean_threshold=${mean}\n`,
    );
    return 0;
  } finally {
    model?.dispose();
  }
}
