import { DEFAULT_FAMILY, type FamilyParams } from '../family/family';
import { parseWord, PRED_CODE, RELATION_WORDS, wordFor } from '../kinship/relations';
import { cykPath, maskToPredicates } from '../reasoning/solver';
import { createRng, hashSeed, type Seed } from '../random/rng';
import type { Split } from '../text/render';
import { generatePuzzleRecord, GenerationError, type PuzzleRecord } from './puzzle';
import { taskName, type TaskSpec } from './tasks';

/** Everything that decides a dataset; with the same spec, the same rows. */
export interface DatasetSpec {
  readonly seed: Seed;
  readonly trainTasks: readonly TaskSpec[];
  readonly testTasks: readonly TaskSpec[];
  /** Rows per train task, exactly. */
  readonly trainRows: number;
  /** Rows per test task, exactly. */
  readonly testRows: number;
  /**
   * Share of relation patterns (f_comb) held out of training for k > 2 (0 = none; the paper
   * holds out 10%). Test rows at a k that training also uses are drawn from held-out patterns
   * only, so they test unseen combinations; never applied at k ≤ 2.
   */
  readonly holdout: number;
  /** Balance the count of every f_comb pattern within each task. */
  readonly equal: boolean;
  readonly family: FamilyParams;
  /** Only these f_comb patterns (`*` matches any one relation word), when given. */
  readonly patterns?: readonly string[];
  /** Strict mode (generatePuzzle's `strict`): sound rules only. Absent means false. */
  readonly strict?: boolean;
  /** generatePuzzle's `labels`: 'clutrr' for CLUTRR's labels. Absent means 'family'. */
  readonly labels?: 'clutrr';
  /** generatePuzzle's `keepAmbiguous` (with labels 'clutrr' only). Absent means false. */
  readonly keepAmbiguous?: boolean;
}

export const DEFAULT_DATASET: DatasetSpec = {
  seed: 1,
  trainTasks: [
    { task: 1, k: 2 },
    { task: 1, k: 3 },
  ],
  testTasks: [
    { task: 1, k: 2 },
    { task: 1, k: 3 },
  ],
  trainRows: 100,
  testRows: 100,
  holdout: 0,
  equal: false,
  family: DEFAULT_FAMILY,
};

export interface DatasetRow {
  /** The row's puzzle; regenerate it from `puzzle.seed` to get its family back. */
  readonly puzzle: PuzzleRecord;
  readonly split: Split;
  /** `1.3` */
  readonly taskName: string;
  /** A uuid, derived from the row's seed. */
  readonly id: string;
}

/** Whether a pattern of k > 2 facts is held out of training, for this seed and share. */
export function isHeldOut(pattern: string, seed: Seed, share: number): boolean {
  if (share <= 0) return false;
  if (pattern.split('-').length <= 2) return false;
  return hashSeed(seed, 'holdout', pattern) / 4294967296 < share;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Any one relation word, longest first so that `son-in-law` is not read as `son`. */
const ANY_WORD = `(?:${[...RELATION_WORDS]
  .sort((a, b) => b.length - a.length)
  .map(escapeRe)
  .join('|')})`;

/** A pattern filter from `son-*-aunt` style globs (`*` stands for exactly one relation word). */
export function patternMatcher(globs: readonly string[]): (pattern: string) => boolean {
  const res = globs.map((g) => new RegExp(`^${escapeRe(g).replace(/\\\*/g, ANY_WORD)}$`));
  return (pattern) => res.some((re) => re.test(pattern));
}

/**
 * Why a list of pattern globs can never match a uniquely entailed story of one of the given
 * lengths, or undefined: unknown words, no glob of the right length, or an exact pattern the
 * rule base cannot decide (with `strict`, the sound rules only).
 */
export function checkPatterns(globs: readonly string[], ks: readonly number[], strict = false): string | undefined {
  const wordRe = new RegExp(`^${ANY_WORD}$`);
  for (const g of globs) {
    const words = matchWords(g);
    if (!words) return `pattern "${g}" is not relation words joined by - (e.g. son-*-aunt; * is any one word)`;
    const bad = words.find((w) => w !== '*' && !wordRe.test(w));
    if (bad) return `pattern "${g}": "${bad}" is not a relation word`;
    if (!words.includes('*')) {
      const mask = cykPath(
        words.map((w) => PRED_CODE[parseWord(w)!.predicate]),
        strict,
      );
      const lastGender = parseWord(words.at(-1)!)!.gender;
      const answers = maskToPredicates(mask).map((p) => wordFor(p, lastGender));
      const base = strict ? 'the sound rules (strict mode)' : 'the rule base';
      if (answers.length !== 1) {
        return answers.length === 0
          ? `pattern "${g}" derives no answer under ${base}, so no puzzle can have it`
          : `pattern "${g}" is ambiguous under ${base} (${answers.join(' or ')}), so no puzzle has it`;
      }
    }
  }
  for (const k of ks) {
    if (!globs.some((g) => matchWords(g)?.length === k)) return `no pattern has ${k} relation words, as k = ${k} needs`;
  }
  return undefined;
}

/** Splits a pattern glob into relation words (multi-word ones like son-in-law kept whole). */
function matchWords(glob: string): string[] | undefined {
  const re = new RegExp(`${ANY_WORD}|\\*|[a-z]+`, 'g');
  const words = glob.match(re) ?? [];
  return words.join('-') === glob ? words : undefined;
}

/** Why a spec cannot be generated, or undefined. */
export function checkDatasetSpec(spec: DatasetSpec): string | undefined {
  return datasetSpecProblem(spec)?.message;
}

/** The part of a DatasetSpec a problem is about. */
export type DatasetSpecPart = 'patterns' | 'trainRows' | 'testRows' | 'holdout' | 'tasks';

/** Why a spec cannot be generated and which part is at fault, or undefined. */
export function datasetSpecProblem(spec: DatasetSpec): { part: DatasetSpecPart; message: string } | undefined {
  if (spec.patterns && spec.patterns.length > 0) {
    const bad = checkPatterns(
      spec.patterns,
      [...spec.trainTasks, ...spec.testTasks].map((t) => t.k),
      spec.strict === true,
    );
    if (bad) return { part: 'patterns', message: bad };
  }
  const rows = (n: number, what: string) =>
    Number.isInteger(n) && n >= 0 ? undefined : `${what} must be a whole number ≥ 0 (got ${n})`;
  const train = rows(spec.trainRows, 'train-rows');
  if (train) return { part: 'trainRows', message: train };
  const test = rows(spec.testRows, 'test-rows');
  if (test) return { part: 'testRows', message: test };
  if (!(spec.holdout >= 0 && spec.holdout < 1))
    return { part: 'holdout', message: `holdout must be in [0, 1) (got ${spec.holdout})` };
  if (spec.trainTasks.length + spec.testTasks.length === 0)
    return { part: 'tasks', message: 'no train or test task given' };
  for (const [list, split] of [
    [spec.trainTasks, 'train'],
    [spec.testTasks, 'test'],
  ] as const) {
    const seen = new Set<string>();
    for (const t of list) {
      const name = taskName(t);
      if (seen.has(name)) return { part: 'tasks', message: `${split} task ${name} is listed twice` };
      seen.add(name);
    }
  }
  return undefined;
}

/** A uuid (version 4 layout) drawn from a seed. */
export function seededUuid(seed: Seed): string {
  const rng = createRng(seed, 'uuid');
  const a = rng.uint32();
  const b = rng.uint32();
  const c = rng.uint32();
  const d = rng.uint32();
  // The 32 hex digits of a, b, c, d with the version nibble (13th digit) set to 4 and the
  // variant's top bits (17th digit) to 10, written from lookup tables rather than toString(16).
  return (
    `${HEX2[a >>> 24]!}${HEX2[(a >>> 16) & 255]!}${HEX2[(a >>> 8) & 255]!}${HEX2[a & 255]!}-` +
    `${HEX2[b >>> 24]!}${HEX2[(b >>> 16) & 255]!}-4${HEX1[(b >>> 8) & 15]!}${HEX2[b & 255]!}-` +
    `${HEX1[((c >>> 28) & 3) | 8]!}${HEX1[(c >>> 24) & 15]!}${HEX2[(c >>> 16) & 255]!}-${HEX2[(c >>> 8) & 255]!}${HEX2[c & 255]!}` +
    `${HEX2[d >>> 24]!}${HEX2[(d >>> 16) & 255]!}${HEX2[(d >>> 8) & 255]!}${HEX2[d & 255]!}`
  );
}

const HEX1: readonly string[] = Array.from({ length: 16 }, (_, i) => i.toString(16));
const HEX2: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** The seed of candidate `i` of a task's rows: every row can be regenerated from it alone. */
export const rowSeed = (spec: DatasetSpec, t: TaskSpec, split: Split, i: number): string =>
  `${spec.seed}:${taskName(t)}:${split}:${i}`;

export type Progress = (done: number, total: number) => void;

/**
 * The puzzle of each candidate number of one task of one split, generated from its seed (the
 * pattern filter is built once, not per row).
 */
export function recordMaker(spec: DatasetSpec, t: TaskSpec, split: Split): (i: number) => PuzzleRecord {
  const filter = splitFilter(spec, t, split);
  const name = taskName(t);
  return (i) => {
    const seed = rowSeed(spec, t, split, i);
    try {
      return generatePuzzleRecord({
        seed,
        k: t.k,
        task: t.task,
        family: spec.family,
        accept: filter,
        strict: spec.strict === true,
        ...(spec.labels === 'clutrr' ? { labels: 'clutrr' as const } : {}),
        ...(spec.keepAmbiguous === true ? { keepAmbiguous: true } : {}),
      });
    } catch (e) {
      if (e instanceof GenerationError) throw new GenerationError(`task ${name} (${split}): ${e.message}`);
      throw e;
    }
  };
}

/**
 * A row maker for one task of one split: each candidate number's row, its puzzle from `puzzles`
 * (generated here by default; a caller that had them made elsewhere reads them back instead).
 */
export function rowMaker(
  spec: DatasetSpec,
  t: TaskSpec,
  split: Split,
  puzzles: (i: number) => PuzzleRecord = recordMaker(spec, t, split),
): (i: number) => DatasetRow {
  const name = taskName(t);
  return (i) => {
    const puzzle = puzzles(i);
    return { puzzle, split, taskName: name, id: seededUuid(puzzle.seed) };
  };
}

/**
 * The balancing of `--equal`, fed one candidate pattern at a time in candidate order: first a
 * pool of twice the rows, then (up to 20 times the rows in all) only candidates whose pattern is
 * still below its share; `rows()` then chooses round-robin across patterns, so every pattern's
 * count differs from the others' by at most one unless a pattern is so rare that the budget runs
 * out first. It keeps candidate numbers and pattern ids, never rows, so its memory is a few bytes
 * per candidate; the chosen rows are generated again from their seeds.
 */
export class EqualSelector {
  private readonly patternIds = new Map<string, number>();
  private readonly counts: number[] = [];
  private readonly pool: number[] = [];
  private readonly poolPattern: number[] = [];
  private missing = 0;
  private readonly first: number;
  readonly budget: number;

  constructor(readonly wanted: number) {
    this.first = wanted * 2;
    this.budget = Math.max(this.first, wanted * 20);
  }

  /** Offers candidate `i` (offered in order 0, 1, 2, …) with its pattern. */
  offer(i: number, pattern: string): void {
    let id = this.patternIds.get(pattern);
    if (i < this.first) {
      if (id === undefined) this.patternIds.set(pattern, (id = this.counts.push(0) - 1));
      this.add(i, id);
      if (i === this.first - 1) this.missing = this.short();
      return;
    }
    if (id === undefined || this.counts[id]! < this.share()) {
      if (id === undefined) this.patternIds.set(pattern, (id = this.counts.push(0) - 1));
      this.add(i, id);
      this.missing = this.short();
    }
  }

  /** Whether candidate `i` is still worth drawing. */
  wants(i: number): boolean {
    return i < this.first || (this.missing > 0 && i < this.budget);
  }

  /** How far the top-up has come, 0..1 (1 when nothing is missing). */
  progress(start: number): number {
    return start <= 0 ? 1 : 1 - this.missing / start;
  }

  get shortfall(): number {
    return this.missing;
  }

  /** The chosen candidate numbers, in candidate order (balanceByPattern of the pool). */
  rows(): number[] {
    return balanceIndices(this.poolPattern, this.wanted).map((p) => this.pool[p]!);
  }

  private add(i: number, id: number): void {
    this.pool.push(i);
    this.poolPattern.push(id);
    this.counts[id]!++;
  }

  private share(): number {
    return Math.ceil(this.wanted / this.counts.length);
  }

  private short(): number {
    const s = this.share();
    let n = 0;
    for (const c of this.counts) if (c < s) n += s - c;
    return n;
  }
}

/**
 * Which candidates become the rows of one task of one split, in row order: exactly
 * `trainRows` / `testRows` of them. Without `equal` they are candidates 0..n-1; with it, the
 * EqualSelector's choice (candidates are drawn here, keeping only their patterns).
 */
export function taskRowNumbers(spec: DatasetSpec, t: TaskSpec, split: Split, onProgress?: Progress): number[] {
  const wanted = split === 'train' ? spec.trainRows : spec.testRows;
  if (!spec.equal) {
    onProgress?.(wanted, wanted);
    return Array.from({ length: wanted }, (_, i) => i);
  }
  const make = rowMaker(spec, t, split);
  const sel = new EqualSelector(wanted);
  const step = Math.max(1, Math.floor(wanted / 100));
  let startMissing = 0;
  for (let i = 0; sel.wants(i); i++) {
    sel.offer(i, make(i).puzzle.pattern);
    if (i === wanted * 2 - 1) startMissing = Math.max(1, sel.shortfall);
    if (onProgress && i % step === 0) {
      const half = wanted / 2;
      onProgress(i < wanted * 2 ? Math.floor(i / 4) : Math.round(half + sel.progress(startMissing) * half), wanted);
    }
  }
  onProgress?.(wanted, wanted);
  return sel.rows();
}

/** The rows of one task of one split (taskRowNumbers, each generated from its seed). */
export function generateTaskRows(spec: DatasetSpec, t: TaskSpec, split: Split, onProgress?: Progress): DatasetRow[] {
  const numbers = taskRowNumbers(spec, t, split, spec.equal ? (d, n) => onProgress?.(d / 2, n) : undefined);
  const make = rowMaker(spec, t, split);
  const wanted = numbers.length;
  const step = Math.max(1, Math.floor(wanted / 100));
  const base = spec.equal ? wanted / 2 : 0;
  const scale = spec.equal ? 0.5 : 1;
  return numbers.map((n, j) => {
    if (onProgress && (j % step === 0 || j === wanted - 1)) onProgress(Math.round(base + (j + 1) * scale), wanted);
    return make(n);
  });
}

/** The pattern filter of a split: user patterns, and the holdout rule. */
function splitFilter(spec: DatasetSpec, t: TaskSpec, split: Split): ((p: string) => boolean) | undefined {
  const user = spec.patterns && spec.patterns.length > 0 ? patternMatcher(spec.patterns) : undefined;
  const trainKs = new Set(spec.trainTasks.map((x) => x.k));
  const holdoutHere = spec.holdout > 0 && t.k > 2 && (split === 'train' || trainKs.has(t.k));
  if (!user && !holdoutHere) return undefined;
  return (p) => {
    if (user && !user(p)) return false;
    if (!holdoutHere) return true;
    return split === 'train' ? !isHeldOut(p, spec.seed, spec.holdout) : isHeldOut(p, spec.seed, spec.holdout);
  };
}

/**
 * Round-robin over patterns (in order of first appearance) until `wanted` entries: the positions
 * chosen from a list of pattern ids, in list order.
 */
export function balanceIndices(patterns: readonly (number | string)[], wanted: number): number[] {
  const groups = new Map<number | string, number[]>();
  patterns.forEach((p, i) => {
    const g = groups.get(p);
    if (g) g.push(i);
    else groups.set(p, [i]);
  });
  const lists = [...groups.values()];
  const chosen: number[] = [];
  for (let level = 0; chosen.length < wanted; level++) {
    let any = false;
    for (const l of lists) {
      if (level < l.length && chosen.length < wanted) {
        chosen.push(l[level]!);
        any = true;
      }
    }
    if (!any) break;
  }
  return chosen.sort((a, b) => a - b);
}

/** Round-robin over patterns (in order of first appearance) until `wanted` rows; keeps pool order. */
export function balanceByPattern(rows: readonly DatasetRow[], wanted: number): DatasetRow[] {
  return balanceIndices(
    rows.map((r) => r.puzzle.pattern),
    wanted,
  ).map((i) => rows[i]!);
}

/** All rows of a dataset, train tasks first, then each test task. */
export function generateDataset(
  spec: DatasetSpec,
  onProgress?: Progress,
): { train: DatasetRow[]; test: DatasetRow[][] } {
  const problem = checkDatasetSpec(spec);
  if (problem) throw new GenerationError(problem);
  const total = spec.trainTasks.length * spec.trainRows + spec.testTasks.length * spec.testRows;
  let done = 0;
  const run = (t: TaskSpec, split: Split) => {
    const n = split === 'train' ? spec.trainRows : spec.testRows;
    const rows = generateTaskRows(spec, t, split, (d, all) => onProgress?.(done + Math.round((d / all) * n), total));
    done += n;
    return rows;
  };
  const train = spec.trainTasks.flatMap((t) => run(t, 'train'));
  const test = spec.testTasks.map((t) => run(t, 'test'));
  return { train, test };
}
