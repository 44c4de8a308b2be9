import { familyProblem, type FamilyParams } from '../family/family';
import type { TextSettings } from '../text/datasetText';
import { STORY_ORDERS, type StoryOrder } from '../text/order';
import { datasetSpecProblem, type DatasetSpec } from './dataset';
import {
  checkPuzzleSettings,
  KEEP_AMBIGUOUS_NEEDS_CLUTRR,
  LABEL_SOURCES,
  type LabelSource,
  STRICT_CLUTRR_LABELS,
} from './puzzle';
import { parseTaskList, taskName, type TaskSpec } from './tasks';

/**
 * The options of dataset generation, declared once: the CLI's `generate` flags and the dataset
 * builder's form fields are both made from this table, read by `readDatasetOptions`, and refused
 * with the same words. A field name is the one name of a setting in code, in the form and in
 * links; `flag` is its command-line spelling.
 */
export type OptionKind = 'tasks' | 'integer' | 'number' | 'text' | 'boolean' | 'choice';

export interface DatasetOption {
  readonly field: string;
  /** Command-line flag, without the leading `--`. */
  readonly flag: string;
  readonly kind: OptionKind;
  /** Form label. */
  readonly label: string;
  readonly help: string;
  /** The default, as an input holds it. */
  readonly default: string | boolean;
  /** The values a `choice` takes. */
  readonly choices?: readonly string[];
}

export const DATASET_OPTIONS = [
  {
    field: 'trainTasks',
    flag: 'train-tasks',
    kind: 'tasks',
    label: 'Train tasks',
    help: 'train tasks as task.k, comma-separated',
    default: '1.2,1.3',
  },
  {
    field: 'testTasks',
    flag: 'test-tasks',
    kind: 'tasks',
    label: 'Test tasks',
    help: 'test tasks as task.k, comma-separated',
    default: '1.2,1.3,1.4',
  },
  {
    field: 'trainRows',
    flag: 'train-rows',
    kind: 'integer',
    label: 'Rows per train task',
    help: 'rows per train task, exactly',
    default: '5000',
  },
  {
    field: 'testRows',
    flag: 'test-rows',
    kind: 'integer',
    label: 'Rows per test task',
    help: 'rows per test task, exactly',
    default: '100',
  },
  {
    field: 'holdout',
    flag: 'holdout',
    kind: 'boolean',
    label: 'Hold patterns out',
    help: 'hold relation patterns of k > 2 out of training (test uses them)',
    default: false,
  },
  {
    field: 'holdoutShare',
    flag: 'holdout-share',
    kind: 'number',
    label: 'Share held out',
    help: 'share of patterns held out with --holdout',
    default: '0.1',
  },
  {
    field: 'equal',
    flag: 'equal',
    kind: 'boolean',
    label: 'Balance patterns',
    help: 'balance the count of every relation pattern (f_comb)',
    default: false,
  },
  {
    field: 'patterns',
    flag: 'patterns',
    kind: 'text',
    label: 'Patterns',
    help: 'only these f_comb patterns, comma-separated; * matches one word',
    default: '',
  },
  {
    field: 'strict',
    flag: 'strict',
    kind: 'boolean',
    label: 'Strict (sound rules only)',
    help: 'only puzzles whose proof and uniqueness hold with the rules sound in the family (no in-law uncles or grandmothers)',
    default: false,
  },
  {
    field: 'labels',
    flag: 'labels',
    kind: 'choice',
    label: 'Labels',
    help: "family: what holds in the family; clutrr: CLUTRR's own labels, as its generator closes the family (assumption rules included; wrong in some families)",
    default: 'family',
    choices: LABEL_SOURCES,
  },
  {
    field: 'keepAmbiguous',
    flag: 'keep-ambiguous',
    kind: 'boolean',
    label: 'Keep ambiguous patterns (as CLUTRR did)',
    help: "with --labels clutrr: also keep stories the rule base cannot decide (husband-son-grandmother), labelled as CLUTRR's closure labels them, as its generator did; for release-like training data, not a fair test",
    default: false,
  },
  { field: 'seed', flag: 'seed', kind: 'text', label: 'Seed', help: 'seed of the whole dataset', default: '1' },
  {
    field: 'maxLevels',
    flag: 'max-levels',
    kind: 'integer',
    label: 'Generations',
    help: 'generations in each family',
    default: '3',
  },
  {
    field: 'minChild',
    flag: 'min-child',
    kind: 'integer',
    label: 'Fewest children',
    help: 'fewest children per couple',
    default: '4',
  },
  {
    field: 'maxChild',
    flag: 'max-child',
    kind: 'integer',
    label: 'Most children',
    help: 'most children per couple',
    default: '4',
  },
  {
    field: 'pMarry',
    flag: 'p-marry',
    kind: 'number',
    label: 'Marriage probability',
    help: 'probability that a person marries',
    default: '1',
  },
  {
    field: 'synthetic',
    flag: 'synthetic',
    kind: 'boolean',
    label: 'Plain sentences',
    help: 'plain one-sentence-per-fact stories (ignores the paraphrases)',
    default: false,
  },
  {
    field: 'combinationLength',
    flag: 'combination-length',
    kind: 'integer',
    label: 'Facts per paraphrase',
    help: 'most consecutive facts one paraphrase covers (1–3)',
    default: '3',
  },
  {
    field: 'templateSplit',
    flag: 'template-split',
    kind: 'boolean',
    label: 'Template split',
    help: 'hold 20% of every paraphrase list out for the test rows',
    default: false,
  },
  {
    field: 'storyOrder',
    flag: 'story-order',
    kind: 'choice',
    label: 'Story order',
    help: 'shuffled: sentences in a seeded random order, as CLUTRR; path: in path order',
    default: 'shuffled',
    choices: STORY_ORDERS,
  },
] as const satisfies readonly DatasetOption[];

export type DatasetField = (typeof DATASET_OPTIONS)[number]['field'];

/** What the inputs hold: text for valued options, a flag for the others. */
export type DatasetValues = {
  readonly [O in (typeof DATASET_OPTIONS)[number] as O['field']]: O['kind'] extends 'boolean' ? boolean : string;
};

export const OPTION_BY_FIELD = Object.fromEntries(DATASET_OPTIONS.map((o) => [o.field, o])) as {
  readonly [F in DatasetField]: Extract<(typeof DATASET_OPTIONS)[number], { field: F }>;
};

/** `--train-rows`: how a message names a field. */
export const flagOf = (field: DatasetField): string => `--${OPTION_BY_FIELD[field].flag}`;

export const DEFAULT_DATASET_VALUES = Object.fromEntries(
  DATASET_OPTIONS.map((o) => [o.field, o.default]),
) as unknown as DatasetValues;

/** `1.2,1.3,…,1.10`: clean tasks of k = from..to. */
const cleanTasks = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `1.${from + i}`).join(',');

/**
 * The shapes of the datasets released with the paper (EMNLP 2019): their tasks, 5,000 rows per
 * train task and 100 per test task, balanced patterns (`--equal`, as the release was made).
 * `--preset NAME` and the builder's preset list set these fields; anything set explicitly wins.
 */
export const DATASET_PRESETS = {
  'emnlp-systematic': { trainTasks: '1.2,1.3', testTasks: cleanTasks(2, 10) },
  'emnlp-systematic-k4': { trainTasks: '1.2,1.3,1.4', testTasks: cleanTasks(2, 10) },
  'emnlp-robust-clean': { trainTasks: '1.2,1.3', testTasks: '1.2,1.3,2.3,3.3,4.3' },
  'emnlp-robust-supporting': { trainTasks: '2.2,2.3', testTasks: '1.3,2.2,2.3,3.3,4.3' },
  'emnlp-robust-irrelevant': { trainTasks: '3.2,3.3', testTasks: '1.3,2.3,3.2,3.3,4.3' },
  'emnlp-robust-disconnected': { trainTasks: '4.2,4.3', testTasks: '1.3,2.3,3.3,4.2,4.3' },
} as const;

export type PresetName = keyof typeof DATASET_PRESETS;
export const PRESET_NAMES = Object.keys(DATASET_PRESETS) as PresetName[];

/** The field values a preset sets, or undefined for a name that is not a preset. */
export function presetValues(name: string): Partial<DatasetValues> | undefined {
  if (!Object.hasOwn(DATASET_PRESETS, name)) return undefined;
  return { ...DATASET_PRESETS[name as PresetName], trainRows: '5000', testRows: '100', equal: true };
}

/** The preset whose fields all hold its values here, if any (what config.json records). */
export function matchingPreset(values: DatasetValues): PresetName | undefined {
  return PRESET_NAMES.find((name) =>
    Object.entries(presetValues(name)!).every(([field, value]) => values[field as DatasetField] === value),
  );
}

/** Why a preset name is refused (the same words for --preset and anywhere else). */
export const unknownPreset = (name: string): string =>
  `--preset "${name}" is not a preset; the presets are ${PRESET_NAMES.join(', ')}`;

/** A problem with one field, in the words both the CLI and the form show. */
export interface OptionProblem {
  readonly field: DatasetField;
  readonly message: string;
}

/** Longest seed accepted: seeds travel in links, and very long ones make URLs servers refuse. */
export const MAX_SEED_LENGTH = 200;

export type DatasetReading =
  | { readonly ok: true; readonly spec: DatasetSpec; readonly text: TextSettings; readonly totalRows: number }
  | { readonly ok: false; readonly problems: readonly OptionProblem[] };

export interface ReadContext {
  /** A template file was given (the CLI's --templates, the builder's file picker). */
  readonly templates?: boolean;
  /** Most rows in all, where the consumer has a limit (the browser builder), and why. */
  readonly maxRows?: { readonly rows: number; readonly why: string };
}

/**
 * Reads option values into a DatasetSpec and text settings, or lists every problem found, each
 * naming its field: the values' own shape first, then the engine's checks (family, dataset,
 * each task's settings) in that order. The CLI reports the first problem; the form shows each
 * next to its field.
 */
export function readDatasetOptions(v: DatasetValues, context: ReadContext = {}): DatasetReading {
  const problems: OptionProblem[] = [];
  const failed = new Set<DatasetField>();
  const fail = (field: DatasetField, message: string) => {
    if (failed.has(field)) return;
    failed.add(field);
    problems.push({ field, message });
  };
  const number = (field: DatasetField, integer: boolean): number => {
    const raw = String(v[field]).trim();
    const n = Number(raw);
    if (raw === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
      fail(field, `${flagOf(field)} must be ${integer ? 'a whole number' : 'a number'} (got "${raw}")`);
      return NaN;
    }
    return n;
  };
  const tasks = (field: 'trainTasks' | 'testTasks'): TaskSpec[] => {
    let list: TaskSpec[];
    try {
      list = parseTaskList(v[field], flagOf(field));
    } catch (e) {
      fail(field, (e as Error).message);
      return [];
    }
    const seen = new Set<string>();
    for (const t of list) {
      if (seen.has(taskName(t))) fail(field, `${flagOf(field)}: task ${taskName(t)} is listed twice`);
      seen.add(taskName(t));
    }
    return list;
  };

  const trainTasks = tasks('trainTasks');
  const trainRows = number('trainRows', true);
  const testTasks = tasks('testTasks');
  const testRows = number('testRows', true);
  const share = v.holdout ? number('holdoutShare', false) : 0;
  const patterns = v.patterns
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const seed = v.seed.trim();
  if (seed === '') fail('seed', `${flagOf('seed')} needs a value`);
  else if (seed.length > MAX_SEED_LENGTH) {
    fail('seed', `${flagOf('seed')} is ${seed.length} characters long; use at most ${MAX_SEED_LENGTH}`);
  }
  const labels = v.labels.trim() as LabelSource;
  if (!LABEL_SOURCES.includes(labels)) {
    fail('labels', `${flagOf('labels')} must be ${LABEL_SOURCES.join(' or ')} (got "${v.labels}")`);
  } else if (labels === 'clutrr' && v.strict) fail('labels', STRICT_CLUTRR_LABELS);
  if (v.keepAmbiguous && labels !== 'clutrr') fail('keepAmbiguous', KEEP_AMBIGUOUS_NEEDS_CLUTRR);
  const storyOrder = v.storyOrder.trim() as StoryOrder;
  if (!STORY_ORDERS.includes(storyOrder)) {
    fail('storyOrder', `${flagOf('storyOrder')} must be ${STORY_ORDERS.join(' or ')} (got "${v.storyOrder}")`);
  }
  let combinationLength: TextSettings['combinationLength'] = 3;
  if (v.synthetic) {
    if (v.templateSplit || context.templates) {
      fail(
        v.templateSplit ? 'templateSplit' : 'synthetic',
        '--synthetic writes plain sentences: it does not take --templates or --template-split',
      );
    }
  } else {
    const raw = v.combinationLength.trim();
    if (raw === '1' || raw === '2' || raw === '3') combinationLength = Number(raw) as 1 | 2 | 3;
    else fail('combinationLength', `${flagOf('combinationLength')} must be 1, 2 or 3 (got "${raw}")`);
  }
  const family: FamilyParams = {
    maxLevels: number('maxLevels', true),
    minChild: number('minChild', true),
    maxChild: number('maxChild', true),
    pMarry: number('pMarry', false),
  };
  if (problems.length > 0) return { ok: false, problems };

  const spec: DatasetSpec = {
    seed,
    trainTasks,
    testTasks,
    trainRows,
    testRows,
    holdout: share,
    equal: v.equal,
    family,
    patterns: patterns.length > 0 ? patterns : undefined,
    // Only when on: a default spec stays exactly what it was before strict mode existed.
    ...(v.strict ? { strict: true } : {}),
    ...(labels === 'clutrr' ? { labels: 'clutrr' as const } : {}),
    ...(v.keepAmbiguous && labels === 'clutrr' ? { keepAmbiguous: true } : {}),
  };
  const fam = familyProblem(family);
  if (fam) return { ok: false, problems: [{ field: fam.param, message: fam.message }] };
  const bad = datasetSpecProblem(spec);
  if (bad) {
    const field: DatasetField =
      bad.part === 'holdout' ? 'holdoutShare' : bad.part === 'tasks' ? 'trainTasks' : bad.part;
    return { ok: false, problems: [{ field, message: bad.message }] };
  }
  for (const [field, list, split] of [
    ['trainTasks', trainTasks, 'train'],
    ['testTasks', testTasks, 'test'],
  ] as const) {
    for (const t of list) {
      const problem = checkPuzzleSettings(t.k, t.task, family);
      if (problem) fail(field, `task ${taskName(t)} (${split}): ${problem}`);
    }
  }
  const totalRows = trainTasks.length * trainRows + testTasks.length * testRows;
  if (context.maxRows && totalRows > context.maxRows.rows) fail('trainRows', context.maxRows.why);
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    spec,
    text: { synthetic: v.synthetic, combinationLength, templateSplit: !v.synthetic && v.templateSplit, storyOrder },
    totalRows,
  };
}
