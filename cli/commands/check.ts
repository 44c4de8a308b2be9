import { readText } from '../readText';
import {
  addCounts,
  auditCsv,
  type AuditedRow,
  countsLine,
  NO_ROWS,
  type VerdictCounts,
} from '../../src/core/formats/audit';
import { basisLine } from '../../src/core/reasoning/assumptions';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { UsageError } from '../errors';

const FLAGS: Record<string, FlagSpec> = {
  list: {
    type: 'boolean',
    help: 'name every row that is not entailed, or is entailed only through an assumption rule (with the rule, in words)',
  },
};

const HELP = helpText(
  'usage: npm run cli -- check [--list] FILE.csv...',
  [
    'Solves every row from its symbolic columns (story_edges, edge_types, genders, query_edge; edges',
    'without a type are left out) and counts rows whose label the rule base derives exactly',
    '(entailed), among other answers (ambiguous), or not at all (unsupported). Entailed rows are',
    'split further: assumed counts those that only a rule holding under an assumption decides',
    '("my child\'s uncle or aunt is my sibling", "my child\'s grandparent is my parent"), and',
    'impossible those of them whose label is true in no family (each child with one mother and one',
    'father married to each other, spouses from outside the family, no one married twice). The last',
    'line is',
    '  rows=<n> entailed=<n> ambiguous=<n> unsupported=<n> assumed=<n> impossible=<n>',
  ].join('\n'),
  FLAGS,
);

/** A --list line for a row worth naming, or undefined for an entailed row the sound rules decide. */
export function listLine(r: AuditedRow): string | undefined {
  const id = r.row.id || `row ${r.n}`;
  if (r.verdict !== 'entailed') return `${id} ${r.verdict}`;
  if (r.basis?.kind === 'assumed') return `${id} entailed, ${basisLine(r.basis)}`;
  return undefined;
}

export async function checkCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { flags, positional } = parseArgs('check', argv, FLAGS);
  if (positional.length === 0) throw new UsageError('name at least one CSV file (see check --help)');
  let total: VerdictCounts = NO_ROWS;
  for (const file of positional) {
    const named: string[] = [];
    const counts = await auditCsv(readText(file), {
      file,
      onRows: (rows) => {
        if (!flags.list) return;
        for (const r of rows) {
          const line = listLine(r);
          if (line !== undefined) named.push(line);
        }
      },
    });
    process.stdout.write(`${file}: ${countsLine(counts)}\n`);
    for (const line of named) process.stdout.write(`  ${line}\n`);
    total = addCounts(total, counts);
  }
  process.stdout.write(`${countsLine(total)}\n`);
  return 0;
}
