import { readText } from '../readText';
import { auditCsv } from '../../src/core/formats/audit';
import {
  addAuditedRows,
  createStoryStats,
  fixed,
  mergeStoryStats,
  type StoryFigures,
  type StoryStatsResult,
  storyStatsLine,
  storyStatsResult,
  type StoryStatsTallies,
} from '../../src/core/formats/storyStats';
import { type FlagSpec, helpText, parseArgs } from '../args';
import { UsageError } from '../errors';

const FLAGS: Record<string, FlagSpec> = {};

const HELP = helpText(
  'usage: npm run cli -- stats FILE.csv...',
  `The shortcut and character report of CLUTRR CSV files (ours or the released ones): per story
length k (f_comb words, else task_name's k), then over all files. Rows are read and checked as
by \`check\` (same messages for a malformed file), streaming.

  rows, patterns   rows; distinct f_comb patterns
  targets          rows per target word
  tau              Kendall tau-a between path order and first-naming order: the k+1 people
                   met walking the path facts (the first k story_edges) from query_edge[0] to
                   query_edge[1], each placed at the first [Name] in story; over the named path
                   people, (concordant - discordant) / pairs. Mean over rows; rows with fewer
                   than 2 named path people, or whose path facts do not walk, are "skipped".
  first=q0         share of rows whose first [Name] in story is query[0]
  words/fact       story's whitespace-separated tokens / story_edges: mean of per-row ratios
  facts/sent       story_edges / sentences (story split after . ! or ? followed by white space
                   or the end): mean of per-row ratios
  noise            edge_types of the typed facts after the path, per kind told from their shape
                   (supporting, irrelevant, disconnected, memory); edges without a type
                   (released noisy files) are only counted
  majority         share of rows whose target is their k's most frequent target
  assumed          share of the entailed rows (as check counts them) decided only through an
                   assumption rule ("my child's uncle or aunt is my sibling", "my child's
                   grandparent is my parent"); their f_comb → target patterns are listed per k
  impossible       share of the entailed rows whose label is true in no family (part of assumed)
  last-word        share of rows answered by the last kinship term in story: the last of the 20
                   relation words or their synonyms (mom, grandpa, sis...; whole words, any case,
                   names in brackets left out), given as the word of its relation for the
                   gender of query_edge[1] in genders (mom -> father when that person is male),
                   compared with target; a story without such a term is a miss

The last line is
  rows=<n> tau=<x.xxx> words_per_fact=<x.xx> first_is_q0=<x.xxx> last_word_acc=<x.xxx>
with the overall figures ("nan" where no row could be measured).`,
  FLAGS,
);

export async function statsCommand(argv: string[]): Promise<number> {
  if (argv.includes('--help')) {
    process.stdout.write(HELP);
    return 0;
  }
  const { positional } = parseArgs('stats', argv, FLAGS);
  if (positional.length === 0) throw new UsageError('name at least one CSV file (see stats --help)');
  const files: StoryStatsTallies[] = [];
  for (const file of positional) {
    const stats = createStoryStats();
    await auditCsv(readText(file), {
      file,
      onRows: (rows) => addAuditedRows(stats, rows),
    });
    process.stdout.write(`${file}: ${storyStatsLine(stats.result())}\n`);
    files.push(stats.tallies());
  }
  const result = storyStatsResult(mergeStoryStats(...files));
  process.stdout.write(formatReport(result));
  process.stdout.write(`${storyStatsLine(result)}\n`);
  return 0;
}

const COLUMNS = [
  'k',
  'rows',
  'patterns',
  'tau',
  'skipped',
  'first=q0',
  'words/fact',
  'facts/sent',
  'majority',
  'last-word',
  'assumed',
  'impossible',
] as const;

const cells = (label: string, f: StoryFigures): string[] => [
  label,
  String(f.rows),
  String(f.patterns),
  fixed(f.tau, 3),
  String(f.tauSkipped),
  fixed(f.firstIsQ0, 3),
  fixed(f.wordsPerFact, 2),
  fixed(f.factsPerSentence, 2),
  fixed(f.majorityAcc, 3),
  fixed(f.lastWordAcc, 3),
  fixed(f.assumedShare, 3),
  fixed(f.impossibleShare, 3),
];

/** Patterns listed per k before "… and n more". */
const PATTERNS_SHOWN = 12;

const counts = (list: readonly (readonly [string, number])[]) => list.map(([w, n]) => `${w} ${n}`).join(', ');

/** The per-k table, the target distributions and noise vocabularies, then the overall figures. */
export function formatReport(r: StoryStatsResult): string {
  const table = [[...COLUMNS], ...r.byK.map((f) => cells(String(f.k), f)), cells('all', r.overall)];
  const widths = COLUMNS.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  const line = (row: string[]) => row.map((cell, c) => cell.padStart(widths[c]!)).join('  ');
  const out: string[] = ['', 'per story length k:', ...table.map((row) => `  ${line(row)}`), '', 'targets:'];
  for (const f of r.byK) out.push(`  k=${f.k}: ${counts(f.targets)}`);
  const noisy = r.byK.filter((f) => f.noise.length > 0 || f.untypedNoise > 0);
  out.push('', noisy.length === 0 ? 'noise vocabulary: no noise facts' : 'noise vocabulary:');
  for (const f of noisy) {
    for (const n of f.noise) out.push(`  k=${f.k} ${n.kind}: ${counts(n.words)}`);
    if (f.untypedNoise > 0) out.push(`  k=${f.k} edges without a type: ${f.untypedNoise}`);
  }
  const assumed = r.byK.filter((f) => f.assumedPatterns.length > 0);
  out.push('', assumed.length === 0 ? 'assumed patterns: none' : 'assumed patterns (f_comb → target: rows):');
  for (const f of assumed) {
    const more = f.assumedPatterns.length - PATTERNS_SHOWN;
    const shown = counts(f.assumedPatterns.slice(0, PATTERNS_SHOWN).map(([p, n]) => [`${p}:`, n] as const));
    out.push(`  k=${f.k} (${f.assumedPatterns.length}): ${shown}${more > 0 ? `, … and ${more} more` : ''}`);
  }
  const o = r.overall;
  out.push(
    '',
    'overall:',
    `  rows ${o.rows}, patterns ${o.patterns}, targets ${o.targets.length}`,
    `  tau ${fixed(o.tau, 3)} over ${o.tauRows} rows (${o.tauSkipped} skipped)`,
    `  first named = query[0] ${fixed(o.firstIsQ0, 3)}`,
    `  words per fact ${fixed(o.wordsPerFact, 2)}, facts per sentence ${fixed(o.factsPerSentence, 2)}`,
    `  majority target per k ${fixed(o.majorityAcc, 3)}`,
    `  last kinship word ${fixed(o.lastWordAcc, 3)} (${o.lastWordNone} stories without one)`,
    `  entailed ${o.entailed}: through an assumption rule ${fixed(o.assumedShare, 3)}, true in no family ${fixed(o.impossibleShare, 3)}`,
  );
  for (const n of o.noise) out.push(`  noise ${n.kind}: ${counts(n.words)}`);
  if (o.untypedNoise > 0) out.push(`  noise edges without a type: ${o.untypedNoise}`);
  return `${out.join('\n')}\n`;
}
