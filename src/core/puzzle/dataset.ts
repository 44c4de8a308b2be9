import { DEFAULT_FAMILY, type FamilyParams } from '../family/family';
import { parseWord, PRED_CODE, RELATION_WORDS, wordFor } from '../kinship/relations';
import { cykPath, maskToPredicates } from '../reasoning/solver';
import { createRng, hashSeed, type Seed } from '../random/rng';
import type { Split } from '../text/render';
import { generatePuzzle, GenerationError, type PuzzleRecord, toRecord } from './puzzle';
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
 * rule base cannot decide.
 */
export function checkPatterns(globs: readonly string[], ks: readonly number[]): string | undefined {
  const wordRe = new RegExp(`^${ANY_WORD}$`);
  for (const g of globs) {
    const words = matchWords(g);
    if (!words) return `pattern "${g}" is not relation words joined by - (e.g. son-*-aunt; * is any one word)`;
    const bad = words.find((w) => w !== '*' && !wordRe.test(w));
    if (bad) return `pattern "${g}": "${bad}" is not a relation word`;
    if (!words.includes('*')) {
      const mask = cykPath(words.map((w) => PRED_CODE[parseWord(w)!.predicate]));
      const lastGender = parseWord(words.at(-1)!)!.gender;
      const answers = maskToPredicates(mask).map((p) => wordFor(p, lastGender));
      if (answers.length !== 1) {
        return answers.length === 0
          ? `pattern "${g}" derives no answer under the rule base, so no puzzle can have it`
          : `pattern "${g}" is ambiguous under the rule base (${answers.join(' or ')}), so no puzzle has it`;
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
  if (spec.patterns && spec.patterns.length > 0) {
    const bad = checkPatterns(
      spec.patterns,
      [...spec.trainTasks, ...spec.testTasks].map((t) => t.k),
    );
    if (bad) return bad;
  }
  const rows = (n: number, what: string) =>
    Number.isInteger(n) && n >= 0 ? undefined : `${what} must be a whole number ≥ 0 (got ${n})`;
  return (
    rows(spec.trainRows, 'train-rows') ??
    rows(spec.testRows, 'test-rows') ??
    (spec.holdout >= 0 && spec.holdout < 1 ? undefined : `holdout must be in [0, 1) (got ${spec.holdout})`) ??
    (spec.trainTasks.length + spec.testTasks.length > 0 ? undefined : 'no train or test task given')
  );
}

/** A uuid (version 4 layout) drawn from a seed. */
export function seededUuid(seed: Seed): string {
  const rng = createRng(seed, 'uuid');
  const hex: string[] = [];
  for (let i = 0; i < 4; i++) hex.push(rng.uint32().toString(16).padStart(8, '0'));
  const h = hex.join('');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The seed of candidate `i` of a task's rows: every row can be regenerated from it alone. */
export const rowSeed = (spec: DatasetSpec, t: TaskSpec, split: Split, i: number): string =>
  `${spec.seed}:${taskName(t)}:${split}:${i}`;

export type Progress = (done: number, total: number) => void;

/**
 * The rows of one task of one split: exactly `trainRows` / `testRows` of them. Each row is
 * `generatePuzzle` at its own seed (rowSeed) with the split's pattern filter. With `equal`, a
 * pool of twice the rows is drawn, then more candidates are drawn (up to 20 times the rows in
 * all) only for patterns still below their share, and rows are chosen round-robin across
 * patterns: every pattern's count then differs from the others' by at most one, unless a
 * pattern is so rare that the budget runs out first.
 */
export function generateTaskRows(spec: DatasetSpec, t: TaskSpec, split: Split, onProgress?: Progress): DatasetRow[] {
  const wanted = split === 'train' ? spec.trainRows : spec.testRows;
  const filter = splitFilter(spec, t, split);
  const candidate = (i: number): DatasetRow => {
    const seed = rowSeed(spec, t, split, i);
    try {
      const puzzle = generatePuzzle({ seed, k: t.k, task: t.task, family: spec.family, accept: filter });
      return { puzzle: toRecord(puzzle), split, taskName: taskName(t), id: seededUuid(seed) };
    } catch (e) {
      if (e instanceof GenerationError) throw new GenerationError(`task ${taskName(t)} (${split}): ${e.message}`);
      throw e;
    }
  };
  const step = Math.max(1, Math.floor(wanted / 100));
  if (!spec.equal) {
    const rows: DatasetRow[] = [];
    for (let i = 0; i < wanted; i++) {
      rows.push(candidate(i));
      if (onProgress && (i % step === 0 || i === wanted - 1)) onProgress(i + 1, wanted);
    }
    return rows;
  }
  const pool: DatasetRow[] = [];
  const counts = new Map<string, number>();
  const add = (row: DatasetRow) => {
    pool.push(row);
    counts.set(row.puzzle.pattern, (counts.get(row.puzzle.pattern) ?? 0) + 1);
  };
  const first = wanted * 2;
  const budget = Math.max(first, wanted * 20);
  let i = 0;
  for (; i < first; i++) {
    add(candidate(i));
    if (onProgress && i % step === 0) onProgress(Math.floor(i / 2), wanted);
  }
  const share = () => Math.ceil(wanted / counts.size);
  const short = () => {
    const s = share();
    let n = 0;
    for (const c of counts.values()) if (c < s) n += s - c;
    return n;
  };
  let missing = short();
  const startMissing = Math.max(1, missing);
  for (; missing > 0 && i < budget; i++) {
    const row = candidate(i);
    const c = counts.get(row.puzzle.pattern);
    if (c === undefined || c < share()) {
      add(row);
      missing = short();
      if (onProgress && i % step === 0) onProgress(wanted - Math.ceil((missing / startMissing) * (wanted / 2)), wanted);
    }
  }
  onProgress?.(wanted, wanted);
  return balanceByPattern(pool, wanted);
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

/** Round-robin over patterns (in order of first appearance) until `wanted` rows; keeps pool order. */
export function balanceByPattern(rows: readonly DatasetRow[], wanted: number): DatasetRow[] {
  const groups = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const g = groups.get(r.puzzle.pattern);
    if (g) g.push(i);
    else groups.set(r.puzzle.pattern, [i]);
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
  return chosen.sort((a, b) => a - b).map((i) => rows[i]!);
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
