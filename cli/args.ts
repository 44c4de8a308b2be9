import { UsageError } from './errors';

export interface FlagSpec {
  /** 'boolean' flags take no value; the others take the next argument or `--flag=value`. */
  readonly type: 'boolean' | 'string' | 'number' | 'integer';
  readonly help: string;
  readonly default?: string | number | boolean;
  /** How --help shows the value: `<n>` for numbers, `<value>` otherwise. */
  readonly hint?: 'n' | 'value';
}

export interface ParsedArgs {
  readonly flags: Record<string, string | number | boolean | undefined>;
  readonly positional: string[];
}

/**
 * Parses `--name value`, `--name=value` and boolean `--name`. Unknown flags and bad values
 * throw UsageError naming the flag.
 */
export function parseArgs(command: string, argv: readonly string[], spec: Record<string, FlagSpec>): ParsedArgs {
  const flags: Record<string, string | number | boolean | undefined> = {};
  for (const [name, s] of Object.entries(spec)) flags[name] = s.default;
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--') || arg === '--') {
      if (arg !== '--') positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const s = spec[name];
    if (!s) throw new UsageError(`unknown flag --${name} (see ${command} --help)`);
    if (s.type === 'boolean') {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq >= 0) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      i++;
    }
    if (value === undefined || (eq < 0 && value.startsWith('--'))) {
      throw new UsageError(`--${name} needs a value`);
    }
    if (s.type === 'string') flags[name] = value;
    else {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n) || (s.type === 'integer' && !Number.isInteger(n))) {
        throw new UsageError(
          `--${name} must be ${s.type === 'integer' ? 'a whole number' : 'a number'} (got "${value}")`,
        );
      }
      flags[name] = n;
    }
  }
  return { flags, positional };
}

/** The --help text of a subcommand. */
export function helpText(usage: string, summary: string, spec: Record<string, FlagSpec>): string {
  const rows = Object.entries(spec).map(([name, s]) => {
    const left = `  --${name}${s.type === 'boolean' ? '' : ` <${s.hint ?? (s.type === 'string' ? 'value' : 'n')}>`}`;
    const def = s.default !== undefined && s.default !== false ? ` (default ${s.default})` : '';
    return `${left.padEnd(28)} ${s.help}${def}`;
  });
  return `${usage}\n\n${summary}\n\nOptions:\n${rows.join('\n')}\n  --help                     this text\n`;
}
