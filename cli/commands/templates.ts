import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { OUR_BANK } from '../../src/core/text/bank';
import { formatTemplateStats, templateStats } from '../../src/core/text/stats';
import { otherHalf, readTemplateFiles, strictSource } from '../../src/core/text/templateFile';
import {
  type BankHalves,
  bankToJson,
  splitBank,
  type TemplateBank,
  TemplateFormatError,
} from '../../src/core/text/templates';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { CliError, UsageError } from '../errors';

const SPEC = {
  stats: {
    type: 'boolean',
    help: 'print keys, paraphrases, distinct words and within-key Jaccard overlap by key size',
  },
  templates: { type: 'string', help: 'a template file in the original CLUTRR JSON format (default: our bank)' },
  export: { type: 'string', help: 'write the bank to this file in the original format (neice spelling)' },
  'split-seed': { type: 'string', help: 'with --export, also write the 80/20 template split as .train/.test files' },
} satisfies Record<string, FlagSpec>;

const USAGE = `usage: npm run cli -- templates --stats [--templates FILE] [--export FILE [--split-seed SEED]]
       npm run cli -- templates collect … (collected paraphrases to a template file; see templates collect --help)`;
const SUMMARY =
  'Inspect a paraphrase template bank: ours, or a file in the original format ({f_comb: {gender_comb: [template, ...]}}).';

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`cannot read template file ${file}: ${(e as Error).message}`);
  }
}

/** Core's strict reading of the files; its refusal becomes a CliError. */
function readStrict(files: readonly string[]): { bank: TemplateBank; halves?: BankHalves } {
  const reading = readTemplateFiles(files.map((name) => ({ name, text: readText(name) })));
  try {
    const { bank, halves } = strictSource(reading);
    return halves ? { bank, halves } : { bank };
  } catch (e) {
    if (e instanceof TemplateFormatError) throw new CliError(`bad template file: ${e.message}`);
    throw e;
  }
}

/** Reads one template file strictly: any problem, or no usable template, is a CliError naming the file. */
export function readTemplateFile(file: string): TemplateBank {
  return readStrict([file]).bank;
}

/**
 * A template file for `generate --templates`. Given one half of a split (`x.train.json` or
 * `x.test.json`) whose other half sits beside it, both are read: `halves` holds them for the
 * template split and `bank` is their union. Any other file gives just `bank`.
 */
export function readTemplateSource(file: string): { bank: TemplateBank; halves?: BankHalves } {
  const other = otherHalf(file);
  return readStrict(other !== null && existsSync(other) ? [file, other] : [file]);
}

function write(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch (e) {
    throw new CliError(`cannot write ${file}: ${(e as Error).message}`);
  }
}

/** `templates`: statistics of a template bank, and export in the original format. */
export async function templatesCommand(argv: string[]): Promise<number> {
  if (argv[0] === 'collect') return (await import('./templatesCollect')).collectCommand(argv.slice(1));
  if (argv.includes('--help')) {
    process.stdout.write(helpText(USAGE, SUMMARY, SPEC));
    return 0;
  }
  const { flags, positional } = parseArgs('templates', argv, SPEC);
  if (positional.length > 0)
    throw new UsageError(`templates: unexpected argument "${positional[0]}" (see templates --help)`);
  const file = flags.templates as string | undefined;
  const exportFile = flags.export as string | undefined;
  const splitSeed = flags['split-seed'] as string | undefined;
  if (!flags.stats && exportFile === undefined) {
    throw new UsageError('templates: nothing to do; pass --stats or --export FILE (see templates --help)');
  }
  if (splitSeed !== undefined && exportFile === undefined) {
    throw new UsageError('templates: --split-seed needs --export FILE');
  }
  const bank = file === undefined ? OUR_BANK : readTemplateFile(file);
  if (exportFile !== undefined) {
    write(exportFile, bankToJson(bank, { originalSpelling: true }));
    if (splitSeed !== undefined) {
      const halves = splitBank(bank, splitSeed);
      const base = exportFile.replace(/\.json$/, '');
      write(`${base}.train.json`, bankToJson(halves.train, { originalSpelling: true }));
      write(`${base}.test.json`, bankToJson(halves.test, { originalSpelling: true }));
    }
  }
  if (flags.stats) {
    process.stdout.write(`${file ?? 'our paraphrase bank'}\n${formatTemplateStats(templateStats(bank))}\n`);
  }
  return 0;
}
