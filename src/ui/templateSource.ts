import type { TemplateSource } from '../core/text/datasetText';
import {
  bankSize,
  describeProblem,
  mergeBanks,
  readTemplateJson,
  type TemplateBank,
  TemplateFormatError,
} from '../core/text/templates';

/**
 * Reading template files picked in the app (the original CLUTRR JSON shape), as the CLI's
 * `--templates` does: a `x.train.json` picked together with its `x.test.json` gives the split's
 * halves, used as given. Reading is lenient: the valid part of a file is used, and every part
 * that was skipped is listed, naming its file, key, gender comb and template index.
 */

/** A picked file and its text. */
export interface PickedFile {
  readonly name: string;
  readonly text: string;
}

export interface TemplateReading {
  /** What the renderer uses; null when no file gave a single valid template. */
  readonly source: TemplateSource | null;
  readonly name: string;
  /** f_comb keys and templates of the (merged) bank. */
  readonly keys: number;
  readonly paraphrases: number;
  /** Whether the files are a train/test pair, used as the template split. */
  readonly halves: boolean;
  /** One line per problem: `x.json: key "sonn": "sonn" is not a relation word`. */
  readonly problems: readonly string[];
}

const HALF = /\.(train|test)\.json$/i;

/**
 * The positions of a `x.train.json` / `x.test.json` pair among exactly two file names, or null.
 * The two must share their stem.
 */
export function pairHalves(names: readonly string[]): { train: number; test: number } | null {
  if (names.length !== 2) return null;
  const [a, b] = names.map((n) => HALF.exec(n));
  if (!a || !b) return null;
  const stem = (n: string) => n.replace(HALF, '').toLowerCase();
  if (stem(names[0]!) !== stem(names[1]!)) return null;
  const kinds = [a[1]!.toLowerCase(), b[1]!.toLowerCase()];
  if (kinds[0] === kinds[1]) return null;
  return kinds[0] === 'train' ? { train: 0, test: 1 } : { train: 1, test: 0 };
}

/** Reads each file with readTemplateJson, pairs halves, and summarises the result. */
export function readTemplateFiles(files: readonly PickedFile[]): TemplateReading {
  const problems: string[] = [];
  const banks: TemplateBank[] = files.map((f) => {
    try {
      const read = readTemplateJson(f.text, f.name);
      for (const p of read.problems) problems.push(describeProblem(f.name, p));
      return read.bank;
    } catch (e) {
      if (!(e instanceof TemplateFormatError)) throw e;
      problems.push(e.message);
      return {};
    }
  });
  const pair = pairHalves(files.map((f) => f.name));
  const name = files.map((f) => f.name).join(' + ');
  const bank = banks.length === 1 ? banks[0]! : mergeBanks(...banks);
  const paraphrases = bankSize(bank);
  const halves = pair ? { train: banks[pair.train]!, test: banks[pair.test]! } : undefined;
  return {
    source: paraphrases > 0 ? { name, bank, ...(halves ? { halves } : {}) } : null,
    name,
    keys: Object.keys(bank).length,
    paraphrases,
    halves: Boolean(halves),
    problems,
  };
}

/** The first `limit` problems and how many more there are. */
export function firstProblems(problems: readonly string[], limit = 10): { shown: readonly string[]; more: number } {
  return { shown: problems.slice(0, limit), more: Math.max(0, problems.length - limit) };
}

/** `3 keys, 12 paraphrases` */
export function summaryLine(r: Pick<TemplateReading, 'keys' | 'paraphrases' | 'halves'>): string {
  const n = (x: number, w: string) => `${x.toLocaleString('en')} ${w}${x === 1 ? '' : 's'}`;
  return `${n(r.keys, 'key')}, ${n(r.paraphrases, 'paraphrase')}${r.halves ? ' (train and test halves)' : ''}`;
}
