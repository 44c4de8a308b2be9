import { readFileSync } from 'node:fs';
import { parseClutrrCsv } from '../../src/core/formats/clutrrCsv';
import { CsvFormatError } from '../../src/core/formats/clutrrRow';
import { checkRow } from '../../src/core/reasoning/checkRow';
import type { Verdict } from '../../src/core/reasoning/solver';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { CliError, UsageError } from '../errors';

const FLAGS: Record<string, FlagSpec> = {
  list: { type: 'boolean', help: 'print the ids of rows that are not entailed' },
};

const HELP = helpText(
  'usage: npm run cli -- check [--list] FILE.csv...',
  'Solves every row from its symbolic columns (story_edges, edge_types, genders, query_edge; edges\nwithout a type are left out) and counts rows whose label the rule base derives exactly\n(entailed), among other answers (ambiguous), or not at all (unsupported). The last line is\n  rows=<n> entailed=<n> ambiguous=<n> unsupported=<n>',
  FLAGS,
);

export async function checkCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { flags, positional } = parseArgs('check', argv, FLAGS);
  if (positional.length === 0) throw new UsageError('name at least one CSV file (see check --help)');
  const total: Record<Verdict, number> & { rows: number } = { rows: 0, entailed: 0, ambiguous: 0, unsupported: 0 };
  for (const file of positional) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new CliError(
        `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (e as Error).message}`,
      );
    }
    const rows = parseClutrrCsv(text, file);
    const counts: Record<Verdict, number> = { entailed: 0, ambiguous: 0, unsupported: 0 };
    const notEntailed: string[] = [];
    rows.forEach((row, i) => {
      let verdict: Verdict;
      try {
        verdict = checkRow(row).verdict;
      } catch (e) {
        if (e instanceof CsvFormatError)
          throw new CsvFormatError(e.detail, { file, row: i + 1, column: e.where.column });
        throw e;
      }
      counts[verdict]++;
      if (verdict !== 'entailed') notEntailed.push(`${row.id || `row ${i + 1}`} ${verdict}`);
    });
    process.stdout.write(
      `${file}: rows=${rows.length} entailed=${counts.entailed} ambiguous=${counts.ambiguous} unsupported=${counts.unsupported}\n`,
    );
    if (flags.list) for (const line of notEntailed) process.stdout.write(`  ${line}\n`);
    total.rows += rows.length;
    total.entailed += counts.entailed;
    total.ambiguous += counts.ambiguous;
    total.unsupported += counts.unsupported;
  }
  process.stdout.write(
    `rows=${total.rows} entailed=${total.entailed} ambiguous=${total.ambiguous} unsupported=${total.unsupported}\n`,
  );
  return 0;
}
