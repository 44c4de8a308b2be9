import { readText } from '../readText';
import { addCounts, auditCsv, NO_ROWS, type VerdictCounts } from '../../src/core/formats/audit';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { UsageError } from '../errors';

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
  let total: VerdictCounts = NO_ROWS;
  for (const file of positional) {
    const notEntailed: string[] = [];
    const counts = await auditCsv(readText(file), {
      file,
      onRows: (rows) => {
        if (!flags.list) return;
        for (const r of rows)
          if (r.verdict !== 'entailed') notEntailed.push(`${r.row.id || `row ${r.n}`} ${r.verdict}`);
      },
    });
    process.stdout.write(`${file}: ${countsLine(counts)}\n`);
    for (const line of notEntailed) process.stdout.write(`  ${line}\n`);
    total = addCounts(total, counts);
  }
  process.stdout.write(`${countsLine(total)}\n`);
  return 0;
}

const countsLine = (c: VerdictCounts) =>
  `rows=${c.rows} entailed=${c.entailed} ambiguous=${c.ambiguous} unsupported=${c.unsupported}`;
