import { checkFamilyParams, type FamilyParams } from '../../core/family/family';
import { checkDatasetSpec, type DatasetSpec } from '../../core/puzzle/dataset';
import { checkPuzzleSettings } from '../../core/puzzle/puzzle';
import { parseTaskList, taskName, type TaskSpec } from '../../core/puzzle/tasks';
import type { DatasetText } from '../../worker/datasetProtocol';
import { formatCount } from './summary';

/**
 * The builder's form: the CLI's `generate` options (same names, defaults and messages), as the
 * strings the inputs hold. `readDatasetForm` turns them into a DatasetSpec or says, per field,
 * what is wrong — with the engine's own words for settings it cannot meet.
 */
export interface DatasetFormValues {
  readonly trainTasks: string;
  readonly testTasks: string;
  readonly trainRows: string;
  readonly testRows: string;
  readonly holdout: boolean;
  readonly holdoutShare: string;
  readonly equal: boolean;
  readonly patterns: string;
  readonly seed: string;
  readonly maxLevels: string;
  readonly minChild: string;
  readonly maxChild: string;
  readonly pMarry: string;
  readonly synthetic: boolean;
  readonly combinationLength: string;
  readonly templateSplit: boolean;
}

export type DatasetField = keyof DatasetFormValues;

/** The CLI flag of each field, shown beside its label. */
export const FLAG: Record<DatasetField, string> = {
  trainTasks: '--train-tasks',
  testTasks: '--test-tasks',
  trainRows: '--train-rows',
  testRows: '--test-rows',
  holdout: '--holdout',
  holdoutShare: '--holdout-share',
  equal: '--equal',
  patterns: '--patterns',
  seed: '--seed',
  maxLevels: '--max-levels',
  minChild: '--min-child',
  maxChild: '--max-child',
  pMarry: '--p-marry',
  synthetic: '--synthetic',
  combinationLength: '--combination-length',
  templateSplit: '--template-split',
};

/** The CLI's defaults. */
export const DEFAULT_FORM: DatasetFormValues = {
  trainTasks: '1.2,1.3',
  testTasks: '1.2,1.3,1.4',
  trainRows: '5000',
  testRows: '100',
  holdout: false,
  holdoutShare: '0.1',
  equal: false,
  patterns: '',
  seed: '1',
  maxLevels: '3',
  minChild: '4',
  maxChild: '4',
  pMarry: '1',
  synthetic: false,
  combinationLength: '3',
  templateSplit: false,
};

/** The browser keeps every row in memory; past this, the CLI is the tool. */
export const MAX_BROWSER_ROWS = 200_000;

export type FormErrors = Partial<Record<DatasetField, string>>;

export type FormReading =
  | { readonly ok: true; readonly spec: DatasetSpec; readonly text: DatasetText; readonly totalRows: number }
  | { readonly ok: false; readonly errors: FormErrors };

/** Reads and checks the form as `generate` reads its flags; every problem found is reported. */
export function readDatasetForm(v: DatasetFormValues): FormReading {
  const errors: FormErrors = {};
  const fail = (field: DatasetField, message: string) => {
    errors[field] ??= message;
  };
  const number = (field: DatasetField, integer: boolean): number => {
    const raw = String(v[field]).trim();
    const n = Number(raw);
    if (raw === '' || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
      fail(field, `${FLAG[field]} must be ${integer ? 'a whole number' : 'a number'} (got "${raw}")`);
      return NaN;
    }
    return n;
  };
  const tasks = (field: 'trainTasks' | 'testTasks'): TaskSpec[] => {
    try {
      return parseTaskList(v[field], FLAG[field]);
    } catch (e) {
      fail(field, (e as Error).message);
      return [];
    }
  };

  const trainTasks = tasks('trainTasks');
  const testTasks = tasks('testTasks');
  const trainRows = number('trainRows', true);
  const testRows = number('testRows', true);
  const share = v.holdout ? number('holdoutShare', false) : 0;
  const family: FamilyParams = {
    maxLevels: number('maxLevels', true),
    minChild: number('minChild', true),
    maxChild: number('maxChild', true),
    pMarry: number('pMarry', false),
  };
  // As the CLI: plain sentences take no paraphrase settings (here they are simply ignored).
  let combinationLength: DatasetText['combinationLength'] = 3;
  if (!v.synthetic) {
    const raw = v.combinationLength.trim();
    if (raw === '1' || raw === '2' || raw === '3') combinationLength = Number(raw) as 1 | 2 | 3;
    else fail('combinationLength', `${FLAG.combinationLength} must be 1, 2 or 3 (got "${raw}")`);
  }
  const seed = v.seed.trim();
  if (seed === '') fail('seed', `${FLAG.seed} needs a value`);
  const patterns = v.patterns
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  for (const [field, list] of [
    ['trainTasks', trainTasks],
    ['testTasks', testTasks],
  ] as const) {
    const seen = new Set<string>();
    for (const t of list) {
      if (seen.has(taskName(t))) fail(field, `${FLAG[field]}: task ${taskName(t)} is listed twice`);
      seen.add(taskName(t));
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };

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
  };
  // The engine's own checks, in the CLI's order: family, dataset, then each task's settings.
  const familyProblem = checkFamilyParams(family);
  if (familyProblem) fail(familyField(familyProblem), familyProblem);
  const specProblem = familyProblem ? undefined : checkDatasetSpec(spec);
  if (specProblem) fail(specField(specProblem), specProblem);
  if (!familyProblem && !specProblem) {
    for (const [field, list, split] of [
      ['trainTasks', trainTasks, 'train'],
      ['testTasks', testTasks, 'test'],
    ] as const) {
      for (const t of list) {
        const problem = checkPuzzleSettings(t.k, t.task, family);
        if (problem) fail(field, `task ${taskName(t)} (${split}): ${problem}`);
      }
    }
  }
  const totalRows = trainTasks.length * trainRows + testTasks.length * testRows;
  if (totalRows > MAX_BROWSER_ROWS) {
    fail(
      'trainRows',
      `that is ${formatCount(totalRows)} rows; the browser builder makes at most ${formatCount(MAX_BROWSER_ROWS)} (use npm run cli -- generate for more)`,
    );
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    spec,
    text: { synthetic: v.synthetic, combinationLength, templateSplit: !v.synthetic && v.templateSplit },
    totalRows,
  };
}

/** The field a checkFamilyParams message is about (its messages start with the flag name). */
function familyField(message: string): DatasetField {
  if (message.startsWith('min-child')) return 'minChild';
  if (message.startsWith('max-child')) return 'maxChild';
  if (message.startsWith('p-marry')) return 'pMarry';
  return 'maxLevels';
}

function specField(message: string): DatasetField {
  if (message.startsWith('pattern') || message.startsWith('no pattern')) return 'patterns';
  if (message.startsWith('test-rows')) return 'testRows';
  if (message.startsWith('holdout')) return 'holdoutShare';
  if (message.startsWith('train-rows')) return 'trainRows';
  return 'trainTasks';
}

/** Field order, for the error summary. */
export const FIELD_ORDER: readonly DatasetField[] = [
  'trainTasks',
  'trainRows',
  'testTasks',
  'testRows',
  'holdout',
  'holdoutShare',
  'equal',
  'patterns',
  'seed',
  'synthetic',
  'combinationLength',
  'templateSplit',
  'maxLevels',
  'minChild',
  'maxChild',
  'pMarry',
];
