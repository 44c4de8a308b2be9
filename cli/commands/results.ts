import { existsSync } from 'node:fs';
import path from 'node:path';
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
never leaves a truncated file (Ctrl-C removes the temporary one). The last line is "sessions=<n> rows=<n>".
--format psych-ds --out FOLDER writes a psych-DS dataset (dataset_description.json, one
data/study-<id>_data.csv per study, its definition under materials/), whole or not at all.`,
  FLAGS,
);

export async function resultsCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  const [sub, ...rest] = argv;
  if (sub !== 'export') {
    throw new UsageError(
      sub === undefined ? 'name a subcommand: results export (see results --help)' : `unknown subcommand "${sub}"`,
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
  const folder = path.dirname(path.resolve(flags.out));
  if (!existsSync(folder)) throw new CliError(`out: the folder ${folder} does not exist`);
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
  const folder = path.dirname(path.resolve(out));
  if (!existsSync(folder)) throw new CliError(`out: the folder ${folder} does not exist`);
  const file = path.resolve(String(flags.data), DATABASE_FILE);
  const store = openDataStore(String(flags.data), { mustExist: true });
  process.umask(0o077);
  try {
    const study = typeof flags.study === 'string' ? flags.study : undefined;
    if (study !== undefined && !store.hasStudy(study)) throw new CliError(`study: no study "${study}" in ${file}`);
    let result;
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
