import {
  DATASET_OPTIONS,
  type DatasetField,
  type DatasetValues,
  DEFAULT_DATASET_VALUES,
  flagOf,
  readDatasetOptions,
} from '../../core/puzzle/datasetOptions';
import type { DatasetSpec } from '../../core/puzzle/dataset';
import type { TextSettings } from '../../core/text/datasetText';
import { formatCount } from '../../core/util/format';

/**
 * The builder's form: core's dataset options (the CLI's `generate` flags) as the strings and
 * checkboxes the inputs hold, read by core's `readDatasetOptions`, whose problems already name
 * their field. What the form adds: a row limit for the browser, and fields the form disables
 * (plain sentences take no paraphrase settings) count as unset.
 */
export type DatasetFormValues = DatasetValues;
export type { DatasetField };

/** The CLI flag of each field, shown beside its label. */
export const FLAG = Object.fromEntries(DATASET_OPTIONS.map((o) => [o.field, flagOf(o.field)])) as Record<
  DatasetField,
  string
>;

export const DEFAULT_FORM: DatasetFormValues = DEFAULT_DATASET_VALUES;

/**
 * Rows the browser builder makes at most. Rows leave the workers as CSV bytes kept in Blobs
 * (which the browser may page to disk), so the page's heap does not grow with them; the limit
 * keeps a download within what a browser tab handles comfortably (about 1.5 GB of CSV).
 */
export const MAX_BROWSER_ROWS = 1_000_000;

export type FormErrors = Partial<Record<DatasetField, string>>;

export type FormReading =
  | { readonly ok: true; readonly spec: DatasetSpec; readonly text: TextSettings; readonly totalRows: number }
  | { readonly ok: false; readonly errors: FormErrors };

/** Reads and checks the form as `generate` reads its flags; every problem found is reported. */
export function readDatasetForm(v: DatasetFormValues, options: { templates?: boolean } = {}): FormReading {
  const reading = readDatasetOptions(
    { ...v, templateSplit: v.synthetic ? false : v.templateSplit },
    {
      templates: !v.synthetic && Boolean(options.templates),
      maxRows: {
        rows: MAX_BROWSER_ROWS,
        why: `that is more than ${formatCount(MAX_BROWSER_ROWS)} rows, the most the browser builder makes (use npm run cli -- generate for more)`,
      },
    },
  );
  if (reading.ok) return reading;
  const errors: FormErrors = {};
  for (const p of reading.problems) errors[p.field] ??= p.message;
  return { ok: false, errors };
}

/** Field order, for the error summary (every field: form.test.ts checks). */
export const FIELD_ORDER: readonly DatasetField[] = [
  'trainTasks',
  'trainRows',
  'testTasks',
  'testRows',
  'holdout',
  'holdoutShare',
  'equal',
  'patterns',
  'strict',
  'labels',
  'keepAmbiguous',
  'seed',
  'synthetic',
  'combinationLength',
  'templateSplit',
  'storyOrder',
  'maxLevels',
  'minChild',
  'maxChild',
  'pMarry',
];
