import type { TemplateSource } from './datasetText';
import {
  bankSize,
  type BankHalves,
  describeProblem,
  mergeBanks,
  refuseProblems,
  type TemplateBank,
  TemplateFormatError,
  type TemplateProblem,
  validateTemplateData,
} from './templates';

/**
 * Template files in the original CLUTRR JSON format, for the CLI (`--templates`) and the app's
 * picker alike: one file, or the `x.train.json` / `x.test.json` halves of a split read together.
 *
 * Reading is lenient first: the valid part of every file is kept and every skipped part is a
 * problem naming its file, key, gender comb and template index. The strict reading (the CLI's)
 * is the lenient one refused when it has any problem or holds no usable template.
 */

/** A file's name (or path) and its text. */
export interface TemplateFileText {
  readonly name: string;
  readonly text: string;
}

/** A problem of a template file; `file` is always set. */
export type TemplateFileProblem = TemplateProblem & { readonly file: string };

/** The lenient reading of one or more template files. */
export interface TemplateFileReading {
  /** The file names joined by ` + `. */
  readonly name: string;
  /** The valid templates of all files, merged. */
  readonly bank: TemplateBank;
  /** The files' own banks when they are the train and test halves of a split. */
  readonly halves?: BankHalves;
  readonly problems: readonly TemplateFileProblem[];
}

/** Progress of a reading: the share done, from 0 to 1. */
export type ReadProgress = (fraction: number) => void;

/** The words both the CLI and the app use for a file with no valid template at all. */
export const NO_USABLE_TEMPLATE = 'holds no usable template';

/** `x.json holds no usable template`: why a file is refused (CLI) or not used (app). */
export const noUsableTemplate = (name: string): string => `${name} ${NO_USABLE_TEMPLATE}`;

const HALF = /\.(train|test)\.json$/i;

/**
 * The positions of a `x.train.json` / `x.test.json` pair among exactly two file names (or
 * paths), or null. The two must share their stem; case does not matter.
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

/**
 * The other half's name for `x.train.json` or `x.test.json` (keeping the case of the part it
 * swaps), or null for any other name. The CLI reads it too when it exists.
 */
export function otherHalf(name: string): string | null {
  const m = HALF.exec(name);
  if (!m) return null;
  const kind = m[1]!;
  const swapped = kind.toLowerCase() === 'train' ? 'test' : 'train';
  const cased = kind === kind.toUpperCase() ? swapped.toUpperCase() : swapped;
  return name.slice(0, m.index) + m[0].replace(kind, cased);
}

/**
 * Reads one template file leniently: its valid templates and its problems, each naming the
 * file. Text that is not JSON is one problem and an empty bank, never an exception.
 */
export function readTemplateText(
  file: TemplateFileText,
  onProgress?: ReadProgress,
): { bank: TemplateBank; problems: TemplateFileProblem[] } {
  let data: unknown;
  try {
    data = JSON.parse(file.text);
  } catch (e) {
    return { bank: {}, problems: [{ file: file.name, message: `not valid JSON (${(e as Error).message})` }] };
  }
  const { bank, problems } = validateTemplateData(
    data,
    onProgress ? { onProgress: (done, total) => onProgress(total > 0 ? done / total : 1) } : {},
  );
  return { bank, problems: problems.map((p) => ({ ...p, file: file.name })) };
}

/**
 * Reads template files leniently (as the app does): a `x.train.json` and `x.test.json` of the
 * same stem give `halves`, used as given; any other files are merged. `onProgress` gets the
 * share of files read.
 */
export function readTemplateFiles(files: readonly TemplateFileText[], onProgress?: ReadProgress): TemplateFileReading {
  const problems: TemplateFileProblem[] = [];
  const banks = files.map((f, i) => {
    const share = onProgress && ((fraction: number) => onProgress((i + fraction) / files.length));
    const read = readTemplateText(f, share);
    for (const p of read.problems) problems.push(p);
    return read.bank;
  });
  const pair = pairHalves(files.map((f) => f.name));
  const name = files.map((f) => f.name).join(' + ');
  const bank = banks.length === 1 ? banks[0]! : mergeBanks(...banks);
  const halves = pair ? { train: banks[pair.train]!, test: banks[pair.test]! } : undefined;
  return { name, bank, ...(halves ? { halves } : {}), problems };
}

/** What a lenient reading gives the renderer: the files' templates, or null when there are none. */
export function usableSource(reading: TemplateFileReading): TemplateSource | null {
  if (bankSize(reading.bank) === 0) return null;
  const { name, bank, halves } = reading;
  return { name, bank, ...(halves ? { halves } : {}) };
}

/**
 * The strict reading (the CLI's): the lenient reading's source, or a TemplateFormatError when
 * it has any problem (the first described, the rest counted) or holds no usable template.
 */
export function strictSource(reading: TemplateFileReading): TemplateSource {
  refuseProblems(reading.problems);
  const source = usableSource(reading);
  if (!source) {
    const problem = { file: reading.name, message: NO_USABLE_TEMPLATE };
    throw new TemplateFormatError(noUsableTemplate(reading.name), [problem]);
  }
  return source;
}

/**
 * Parses one template file strictly: its bank, or a TemplateFormatError naming the file, key,
 * gender comb and template index of the first problem (and how many more there are). An empty
 * bank is allowed here: `strictSource` is the check for a usable file.
 */
export function parseTemplateJson(text: string, fileName?: string): TemplateBank {
  // An empty name leaves the lines without a file prefix.
  const { bank, problems } = readTemplateText({ name: fileName ?? '', text });
  refuseProblems(problems);
  return bank;
}

/** One line per problem, each starting with its file: `x.json: key "sonn": …`. */
export const describeFileProblems = (problems: readonly TemplateFileProblem[]): string[] =>
  problems.map((p) => describeProblem(undefined, p));
