import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeCsv } from '../../src/core/formats/csv';
import { IRT_METHOD, IRT_MODELS, IrtError, type IrtModel } from '../../src/study/results/irt';
import { irtReport, type IrtReport } from '../../src/study/results/irtRows';
import { spreadsheetSafe } from '../../src/study/results/results';
import { mergeResults, type ResultsFile } from '../../src/study/results/resultsFile';
import { readResultsFile } from '../readText';
import { ExportReader } from '../../server/export';
import { OutputExistsError, writeFileAtomically } from '../../server/files';
import { writePsychDs } from '../../server/psychDs';
import { DATABASE_FILE } from '../../server/store';
import { openDataStore } from '../dataStore';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { CliError, UsageError } from '../errors';

/**
 * `results export`: the results server's rows, read straight from its database (the server may
 * be running or not), written as CSV or JSON exactly as the server's export endpoints write them.
 */
const FLAGS: Record<string, FlagSpec> = {
  data: { type: 'string', help: "the results server's data folder", default: './data' },
  out: {
    type: 'string',
    help: 'the file to write: .csv or .json (the extension picks the format); a folder with --format psych-ds',
  },
  format: { type: 'string', help: 'psych-ds: write a psych-DS dataset folder (default: from --out)' },
  study: { type: 'string', help: 'only this study id (default: every study)' },
  force: { type: 'boolean', help: 'replace --out if it exists (otherwise an existing file is refused)' },
};

const HELP = helpText(
  'usage: npm run cli -- results export --data ./data --out FILE.csv [--study ID] [--force]',
  `Exports the rows a results server stored (npm run serve), offline, from <data>/results.sqlite.
CSV cells that a spreadsheet would run as formulas are escaped; JSON keeps values as recorded.
The rows stream from the database, so memory stays small whatever its size. The file (mode 600)
is written beside --out under a temporary name and renamed when complete: an interrupted export
never leaves a truncated file (Ctrl-C removes the temporary one). A folder of --out that does not
exist is made (mode 700), and the output says so. The last line is "sessions=<n> rows=<n>".
--format psych-ds --out FOLDER writes a psych-DS dataset (dataset_description.json, one
data/study-<id>_data.csv per study, its definition under materials/), whole or not at all.`,
  FLAGS,
);

export async function resultsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'irt') return irtCommand(rest);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${HELP}\n${IRT_HELP}`);
    return 0;
  }
  if (sub !== 'export') {
    throw new UsageError(
      sub === undefined
        ? 'name a subcommand: results export or results irt (see results --help)'
        : `unknown subcommand "${sub}" (results export or results irt)`,
    );
  }
  const { flags, positional } = parseArgs('results export', rest, FLAGS);
  if (positional.length > 0) throw new UsageError(`unexpected argument "${positional[0]}"`);
  if (typeof flags.out !== 'string') throw new UsageError('--out FILE.csv (or FILE.json) is needed');
  if (flags.format !== undefined && flags.format !== 'psych-ds') {
    throw new UsageError(
      `--format must be psych-ds (got "${String(flags.format)}"); CSV and JSON follow --out's extension`,
    );
  }
  if (flags.format === 'psych-ds') return psychDsExport(flags.out, flags);
  const format = path.extname(flags.out).toLowerCase();
  if (format !== '.csv' && format !== '.json') {
    throw new UsageError(`--out must end in .csv or .json (got "${flags.out}")`);
  }
  const file = path.resolve(String(flags.data), DATABASE_FILE);
  const store = openDataStore(String(flags.data), { mustExist: true });
  // Whatever we write is for the researcher's eyes only (files.ts sets modes explicitly too).
  process.umask(0o077);
  let reader: ExportReader | undefined;
  try {
    const study = typeof flags.study === 'string' ? flags.study : undefined;
    if (study !== undefined && !store.hasStudy(study)) throw new CliError(`study: no study "${study}" in ${file}`);
    reader = ExportReader.open(store);
    const count = reader.sessionCount(study);
    const counted = { rows: 0 };
    ensureFolder(path.dirname(path.resolve(flags.out)), 'out');
    try {
      await writeFileAtomically(flags.out, reader.chunks(format === '.csv' ? 'csv' : 'json', study, counted), {
        force: flags.force === true,
      });
    } catch (e) {
      if (e instanceof OutputExistsError) throw new CliError(`out: ${e.message}`);
      throw e;
    }
    process.stdout.write(`wrote ${flags.out}\nsessions=${count} rows=${counted.rows}\n`);
    return 0;
  } finally {
    reader?.close();
    store.close();
  }
}

/** `results export --format psych-ds --out FOLDER`. */
function psychDsExport(out: string, flags: Record<string, string | number | boolean | undefined>): number {
  const file = path.resolve(String(flags.data), DATABASE_FILE);
  const store = openDataStore(String(flags.data), { mustExist: true });
  process.umask(0o077);
  try {
    const study = typeof flags.study === 'string' ? flags.study : undefined;
    if (study !== undefined && !store.hasStudy(study)) throw new CliError(`study: no study "${study}" in ${file}`);
    let result;
    ensureFolder(path.dirname(path.resolve(out)), 'out');
    try {
      result = writePsychDs(store, out, { force: flags.force === true, studyId: study });
    } catch (e) {
      if (e instanceof OutputExistsError) throw new CliError(`out: ${e.message}`);
      throw e;
    }
    process.stdout.write(
      `wrote ${out}/ (${result.files.join(', ')})\nsessions=${result.sessions} rows=${result.rows}\n`,
    );
    return 0;
  } finally {
    store.close();
  }
}

/**
 * Makes `folder` (and its parents) when it does not exist, and says so on stdout; a file in its
 * place, or a folder that cannot be made, is a CliError naming it (`what` is the flag).
 */
function ensureFolder(folder: string, what: string): void {
  if (existsSync(folder)) {
    if (!statSync(folder).isDirectory()) throw new CliError(`${what}: ${folder} is a file, not a folder`);
    return;
  }
  try {
    mkdirSync(folder, { recursive: true });
  } catch (e) {
    throw new CliError(`${what}: cannot create the folder ${folder}: ${(e as Error).message}`);
  }
  process.stdout.write(`created the folder ${folder}\n`);
}

// ---------------------------------------------------------------------------------------------
// results irt

const IRT_FLAGS: Record<string, FlagSpec> = {
  model: { type: 'string', help: 'rasch or 2pl', default: 'rasch' },
  out: { type: 'string', help: 'write items.csv and participants.csv into this folder (made if missing)' },
  force: { type: 'boolean', help: 'replace items.csv and participants.csv in --out if they exist' },
};

const IRT_HELP = helpText(
  'usage: npm run cli -- results irt FILE... [--model rasch|2pl] [--out DIR] [--force]',
  `Item response theory over result files (CSV or JSON exports of the study app, merged as the
dashboard merges them): participants (participant_id) by items (the puzzles of the solve rows:
main trials of puzzle-solving studies; practice, attention checks and paraphrase or review
trials left out; a timeout is wrong), each answer right (1) or wrong (0), unasked cells missing.

  estimation   ${IRT_METHOD.estimation}
               rasch: P = logistic(ability - difficulty), ability ~ N(0, sd^2), sd estimated
               2pl:   P = logistic(discrimination (ability - difficulty)), ability ~ N(0, 1),
                      N(0, 1) prior on log discrimination
  ability      ${IRT_METHOD.ability}
  se           of the difficulty: ${IRT_METHOD.se}
  infit/outfit ${IRT_METHOD.fit} (near 1: fits; above 1.3: noisier than the model)
  reliability  ${IRT_METHOD.reliability}: var(EAP) / (var(EAP) + mean posterior variance)

Items everyone got right (or wrong) have no finite difficulty: they are listed as flagged and
their cells in items.csv are empty. --out DIR writes
  items.csv         puzzle_id,k,task,difficulty,discrimination,se,infit,outfit
  participants.csv  participant_id,ability,se
The last line is "participants=<n> items=<n> reliability=<x.xxx>" (items: all items, flagged
ones included).`,
  IRT_FLAGS,
);

const cell = (v: number | null, digits: number) => (v === null || !Number.isFinite(v) ? '' : v.toFixed(digits));

/** items.csv: one line per item, flagged ones with empty estimates. */
export function irtItemsCsv(report: IrtReport): string {
  return writeCsv(
    [
      ['puzzle_id', 'k', 'task', 'difficulty', 'discrimination', 'se', 'infit', 'outfit'],
      ...report.items.map((i) => [
        spreadsheetSafe(i.puzzle_id),
        String(i.k),
        String(i.task),
        cell(i.difficulty, 4),
        cell(i.discrimination, 4),
        cell(i.se, 4),
        cell(i.infit, 3),
        cell(i.outfit, 3),
      ]),
    ],
    { lineEnding: '\r\n' },
  );
}

/** participants.csv: one line per participant. */
export function irtParticipantsCsv(report: IrtReport): string {
  return writeCsv(
    [
      ['participant_id', 'ability', 'se'],
      ...report.persons.map((p) => [spreadsheetSafe(p.id), cell(p.ability, 4), cell(p.se, 4)]),
    ],
    { lineEnding: '\r\n' },
  );
}

async function irtCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(IRT_HELP);
    return 0;
  }
  const { flags, positional } = parseArgs('results irt', argv, IRT_FLAGS);
  const model = String(flags.model ?? 'rasch').toLowerCase();
  if (!(IRT_MODELS as readonly string[]).includes(model)) {
    throw new UsageError(`--model must be rasch or 2pl (got "${String(flags.model)}")`);
  }
  if (positional.length === 0)
    throw new UsageError('name at least one result file (CSV or JSON; see results irt --help)');
  const out = typeof flags.out === 'string' ? path.resolve(flags.out) : null;
  const outputs = out ? [path.join(out, 'items.csv'), path.join(out, 'participants.csv')] : [];
  const existing = outputs.filter((f) => existsSync(f));
  if (existing.length > 0 && flags.force !== true) {
    throw new CliError(`out: ${existing.join(', ')} already exist${existing.length > 1 ? '' : 's'} (--force replaces)`);
  }
  const files: ResultsFile[] = [];
  for (const f of positional) files.push(await readResultsFile(f));
  const merged = mergeResults(files);
  let report: IrtReport;
  try {
    report = irtReport(merged.rows, model as IrtModel);
  } catch (e) {
    if (e instanceof IrtError) throw new CliError(`${positional.join(', ')}: ${e.message}`);
    throw e;
  }
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say(`model: ${model === 'rasch' ? 'Rasch' : '2PL'}; ${report.method.estimation}`);
  say(
    `  ${report.iterations} EM iterations, ${report.converged ? 'converged' : 'NOT converged (estimates may be off)'}; log-likelihood ${report.logLikelihood.toFixed(2)}; ability sd ${report.abilitySd.toFixed(3)}${model === 'rasch' ? ' (estimated)' : ' (fixed)'}`,
  );
  say(`abilities: ${report.method.ability}; reliability: ${report.method.reliability}`);
  say(`rows: ${report.rows} solve rows of ${merged.rows.length}`);
  say('');
  say('puzzle_id                  k  task  difficulty  discr.     se   infit  outfit');
  for (const i of report.items) {
    const f = (v: number | null, d: number, w: number) => (v === null ? '' : v.toFixed(d)).padStart(w);
    say(
      `${i.puzzle_id.slice(0, 25).padEnd(25)} ${String(i.k).padStart(2)}  ${String(i.task).padStart(4)}  ${f(i.difficulty, 3, 10)}  ${f(i.discrimination, 3, 6)}  ${f(i.se, 3, 5)}  ${f(i.infit, 2, 6)}  ${f(i.outfit, 2, 6)}${i.flag ? `  (${i.flag}: ${i.correct}/${i.n} right, not fitted)` : ''}`,
    );
  }
  const flagged = report.items.filter((i) => i.flag !== null);
  if (flagged.length > 0) say(`flagged: ${flagged.length} item(s) without a finite difficulty (left out of the fit)`);
  if (report.ratingCorrelation) {
    say(
      `difficulty ratings (1-5) against IRT difficulty: r = ${report.ratingCorrelation.r.toFixed(3)} over ${report.ratingCorrelation.items} rated items`,
    );
  }
  if (out) {
    ensureFolder(out, 'out');
    try {
      await writeFileAtomically(outputs[0]!, [irtItemsCsv(report)], { force: true });
      await writeFileAtomically(outputs[1]!, [irtParticipantsCsv(report)], { force: true });
    } catch (e) {
      throw new CliError(`out: cannot write into ${out}: ${(e as Error).message}`);
    }
    say(`wrote ${outputs.join(', ')}`);
  }
  say(
    `participants=${report.persons.length} items=${report.items.length} reliability=${report.reliability.toFixed(3)}`,
  );
  return 0;
}
