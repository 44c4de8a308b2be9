import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bankSize, bankToJson } from '../../src/core/text/templates';
import { AGREE_RULES, type AgreeRule, collectTemplates } from '../../src/study/collect/collect';
import { readCollectedRows } from '../../src/study/collect/rows';
import type { ResultRow } from '../../src/study/results/results';
import { mergeResults, type ResultsFile } from '../../src/study/results/resultsFile';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { openDataStore } from '../dataStore';
import { CliError, UsageError } from '../errors';
import { readResultsFile } from '../readText';

/**
 * `templates collect`: a collection's accepted paraphrases as a template file in the original
 * AMT format, with its train and test halves beside it, ready for `generate --templates`.
 */
const SPEC = {
  data: { type: 'string', help: "a results server's data folder (its results.sqlite is read, not changed)" },
  from: { type: 'string', help: 'a results file (CSV or JSON, as exported); give --from once per file' },
  study: { type: 'string', help: 'only rows of these study ids, comma-separated (default: every row)' },
  out: { type: 'string', help: 'the template file to write (FILE.json; FILE.train.json and FILE.test.json beside it)' },
  'min-reviews': {
    type: 'integer',
    help: 'reviews a story needs; 0 accepts stories without reviews (pilots)',
    default: 3,
  },
  agree: { type: 'string', help: 'all: no reviewer said bad; majority: more said good than bad', default: 'all' },
  'test-share': { type: 'number', help: 'share of each list held out in FILE.test.json (0 to below 1)', default: 0.2 },
  seed: { type: 'string', help: 'seeds the train/test split', default: '1' },
  force: { type: 'boolean', help: 'replace the three files if they exist' },
} satisfies Record<string, FlagSpec>;

const USAGE =
  'usage: npm run cli -- templates collect --data DIR | --from FILE [--from FILE…] --out TEMPLATES.json [--min-reviews 3] [--agree all|majority] [--test-share 0.2]';
const SUMMARY = `Turns the stories of paraphrase studies, judged by the review studies' verdicts, into
templates: each accepted story with its people's names replaced by ENT_<i>_<gender>, keyed by the
relations and genders of its clause ({f_comb: {gender_comb: [template…]}}, neice spelled as in
the original). Rows of both kinds are read together (an export of every study, or one file per
study). Stories whose names cannot be placed without guessing, and rows or reviews that cannot be
used, are listed on stderr. The last line is "paraphrases=<n> accepted=<n> templates=<n>".`;

/** Every `--from` value, and the other arguments (so several files can be named). */
function takeFrom(argv: readonly string[]): { files: string[]; rest: string[] } {
  const files: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--from') {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError('--from needs a file');
      files.push(value);
      i++;
    } else if (arg.startsWith('--from=')) files.push(arg.slice('--from='.length));
    else rest.push(arg);
  }
  return { files, rest };
}

function dataRows(dir: string): ResultsFile {
  const store = openDataStore(dir, { mustExist: true });
  try {
    return { name: dir, format: 'json', rows: store.rows(), sessions: [] };
  } finally {
    store.close();
  }
}

function write(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (e) {
    throw new CliError(`cannot write ${file}: ${(e as Error).message}`);
  }
}

const err = (line: string) => process.stderr.write(`${line}\n`);

export async function collectCommand(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(helpText(USAGE, SUMMARY, SPEC));
    return 0;
  }
  const { files, rest } = takeFrom(argv);
  const { flags, positional } = parseArgs('templates collect', rest, SPEC);
  if (positional.length > 0) {
    throw new UsageError(`templates collect: unexpected argument "${positional[0]}" (see templates collect --help)`);
  }
  const data = flags.data as string | undefined;
  if (data === undefined && files.length === 0) {
    throw new UsageError('templates collect: name the rows: --data DIR (a results server) or --from FILE');
  }
  const out = flags.out as string | undefined;
  if (out === undefined) throw new UsageError('templates collect: --out TEMPLATES.json is needed');
  if (!/\.json$/i.test(out) || /\.(train|test)\.json$/i.test(out)) {
    throw new UsageError(
      `--out must be a .json file not ending in .train.json or .test.json (got "${out}"): its halves are written beside it`,
    );
  }
  const agree = flags.agree as string;
  if (!(AGREE_RULES as readonly string[]).includes(agree)) {
    throw new UsageError(`--agree must be ${AGREE_RULES.join(' or ')} (got "${agree}")`);
  }
  const minReviews = flags['min-reviews'] as number;
  if (minReviews < 0) throw new UsageError(`--min-reviews must be 0 or more (got ${minReviews})`);
  const testShare = flags['test-share'] as number;
  if (!(testShare >= 0 && testShare < 1)) {
    throw new UsageError(`--test-share must be at least 0 and below 1 (got ${testShare})`);
  }
  const seedText = flags.seed as string;
  const seed = /^\d+$/.test(seedText) ? Number(seedText) : seedText;

  const base = out.replace(/\.json$/i, '');
  const outputs = [out, `${base}.train.json`, `${base}.test.json`];
  const folder = path.dirname(path.resolve(out));
  if (!existsSync(folder)) throw new CliError(`out: the folder ${folder} does not exist`);
  const existing = outputs.filter((f) => existsSync(f));
  if (existing.length > 0 && flags.force !== true) {
    throw new CliError(`out: ${existing.join(', ')} already exist${existing.length > 1 ? '' : 's'} (--force replaces)`);
  }

  const sources: ResultsFile[] = [];
  if (data !== undefined) sources.push(dataRows(data));
  for (const f of files) sources.push(await readResultsFile(f));
  const merged = mergeResults(sources);
  for (const c of merged.conflicts) {
    err(
      `note: session ${c.session_id} trial ${c.trial_index} differs between ${c.kept} and ${c.dropped} (${c.column}): the row of ${c.kept} is used`,
    );
  }
  let rows: readonly ResultRow[] = merged.rows;
  const studies = typeof flags.study === 'string' ? flags.study.split(',').filter((s) => s !== '') : [];
  if (studies.length > 0) {
    const have = new Set(rows.map((r) => r.study_id));
    const missing = studies.filter((s) => !have.has(s));
    if (missing.length > 0) {
      throw new CliError(
        `study: no rows of ${missing.map((s) => `"${s}"`).join(', ')} in ${sources.map((s) => s.name).join(', ')}`,
      );
    }
    const wanted = new Set(studies);
    rows = rows.filter((r) => wanted.has(r.study_id));
  }

  const result = collectTemplates(rows, { minReviews, agree: agree as AgreeRule, testShare, seed });
  const read = readCollectedRows(rows);
  for (const p of result.problems) err(`story ${p.story_id}: ${p.problem}`);
  if (result.templates === 0) {
    err('warning: no story was accepted with placeable names, so the files hold no template (generate refuses them)');
  }
  const json = (bank: Parameters<typeof bankToJson>[0]) => bankToJson(bank, { originalSpelling: true });
  write(outputs[0]!, json(result.bank));
  write(outputs[1]!, json(result.train));
  write(outputs[2]!, json(result.test));

  const count = (status: string) => result.perStory.filter((s) => s.status === status).length;
  process.stdout.write(
    [
      `read ${rows.length} rows: ${read.stories.length} stories, ${read.reviews.length} reviews, ${read.unanswered} unanswered trials, ${read.other} other rows`,
      `stories: ${count('accepted')} accepted, ${count('rejected')} rejected, ${count('pending')} with fewer than ${minReviews} reviews, ${count('failed-checks')} failed the checks${result.problems.length > 0 ? `; ${result.problems.length} problem${result.problems.length > 1 ? 's' : ''} on stderr` : ''}`,
      `wrote ${outputs[0]} (${result.templates} templates), ${outputs[1]} (${bankSize(result.train)}), ${outputs[2]} (${bankSize(result.test)})`,
      `paraphrases=${result.paraphrases} accepted=${result.accepted} templates=${result.templates}`,
      '',
    ].join('\n'),
  );
  return 0;
}
