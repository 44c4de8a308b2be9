import { CsvFormatError } from '../src/core/formats/clutrrRow';
import { GenerationError } from '../src/core/puzzle/generationError';
import { CliError } from './errors';
import { startRowThreadsEarly } from './rowThreads';

/**
 * Each command's module is imported when it runs, not before: a command starts without parsing the
 * others (the server's, the study's, tfjs for `eval`), which is most of the command line's code.
 */
const COMMANDS: Record<string, { run: (argv: string[]) => Promise<number>; summary: string }> = {
  generate: {
    run: async (argv) => (await import('./commands/generate')).generateCommand(argv),
    summary: 'write a CLUTRR dataset folder (train and test CSV files, config.json)',
  },
  check: {
    run: async (argv) => (await import('./commands/check')).checkCommand(argv),
    summary: 'solve every row of CLUTRR CSV files and count entailed / ambiguous / unsupported',
  },
  stats: {
    run: async (argv) => (await import('./commands/stats')).statsCommand(argv),
    summary: 'shortcut and character report of CLUTRR CSV files (order tau, words per fact, baselines)',
  },
  study: {
    run: async (argv) => (await import('./commands/study')).studyCommand(argv),
    summary:
      'study link: the participant link of a human study (?study=<token> as the last line); study register: register it with a results server',
  },
  results: {
    run: async (argv) => (await import('./commands/results')).resultsCommand(argv),
    summary:
      'results export: the rows of a results server (npm run serve) as CSV or JSON, offline; results irt: Rasch / 2PL item response theory over result files',
  },
  eval: {
    // Like every command, loaded on demand: this one loads tfjs, which takes about a second.
    run: async (argv) => (await import('./commands/eval')).evalCommand(argv),
    summary: 'answer CLUTRR CSV files with a trained model (gat, gat-improved, lstm) and count correct answers',
  },
  bench: {
    run: async (argv) => (await import('./commands/bench')).benchCommand(argv),
    summary: 'puzzles per second for k = 2..10 and each task, and peak memory',
  },
  templates: {
    run: async (argv) => (await import('./commands/templates')).templatesCommand(argv),
    summary: 'statistics of a paraphrase bank (ours, or a file in the original format)',
  },
};

const USAGE = `usage: npm run cli -- <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`)
  .join('\n')}

Run a command with --help for its options.
`;

/** Runs one command line; returns the exit status. Errors become one paragraph, no stack trace. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`clutrr: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  // generate's row-maker threads start now, while this thread loads the command and the engine.
  // Only from the bundle (dist-cli/clutrr.mjs, beside row-maker.mjs): threads run bundled modules.
  if (name === 'generate' && !rest.includes('--help') && import.meta.url.endsWith('.mjs')) {
    startRowThreadsEarly(new URL('./row-maker.mjs', import.meta.url), rest);
  }
  try {
    return await command.run(rest);
  } catch (err) {
    if (err instanceof CliError) {
      process.stderr.write(`clutrr ${name}: ${err.message}\n`);
      return err.exitCode;
    }
    if (err instanceof CsvFormatError || err instanceof GenerationError) {
      process.stderr.write(`clutrr ${name}: ${err.message}\n`);
      return 1;
    }
    const e = err as NodeJS.ErrnoException;
    if (e && typeof e.code === 'string' && 'path' in e) {
      process.stderr.write(
        `clutrr ${name}: cannot use ${e.path}: ${e.code === 'ENOENT' ? 'no such file or folder' : e.message}\n`,
      );
      return 1;
    }
    process.stderr.write(`clutrr ${name}: internal error: ${e?.message ?? String(err)} (please report this)\n`);
    return 70;
  }
}
