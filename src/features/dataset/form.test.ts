import { describe, expect, it } from 'vitest';
import { DEFAULT_FAMILY } from '../../core/family/family';
import { DATASET_OPTIONS } from '../../core/puzzle/datasetOptions';
import { DEFAULT_FORM, FIELD_ORDER, readDatasetForm, type DatasetFormValues } from './form';

const read = (v: Partial<DatasetFormValues>) => readDatasetForm({ ...DEFAULT_FORM, ...v });
const errorsOf = (v: Partial<DatasetFormValues>) => {
  const r = read(v);
  if (r.ok) throw new Error('expected errors');
  return r.errors;
};

describe('readDatasetForm', () => {
  it('reads the CLI defaults into the CLI spec', () => {
    const r = read({});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.spec).toEqual({
      seed: '1',
      trainTasks: [
        { task: 1, k: 2 },
        { task: 1, k: 3 },
      ],
      testTasks: [
        { task: 1, k: 2 },
        { task: 1, k: 3 },
        { task: 1, k: 4 },
      ],
      trainRows: 5000,
      testRows: 100,
      holdout: 0,
      equal: false,
      family: DEFAULT_FAMILY,
      patterns: undefined,
    });
    expect(r.totalRows).toBe(10300);
  });

  it('holdout uses the share only when checked; patterns split on commas', () => {
    const r = read({
      holdout: true,
      holdoutShare: '0.25',
      equal: true,
      patterns: ' son-*-aunt, father-*  , *-*-*-*,',
      seed: ' 7 ',
    });
    expect(r.ok && r.spec).toMatchObject({
      holdout: 0.25,
      equal: true,
      patterns: ['son-*-aunt', 'father-*', '*-*-*-*'],
      seed: '7',
    });
    expect(read({ holdout: false, holdoutShare: 'junk' }).ok).toBe(true);
  });

  it('gives the CLI messages for bad task lists and numbers, per field', () => {
    expect(errorsOf({ trainTasks: '1.x' }).trainTasks).toBe(
      '--train-tasks: "1.x" is not of the form task.k (e.g. 1.3)',
    );
    expect(errorsOf({ testTasks: '9.2' }).testTasks).toMatch(/^--test-tasks: task 9 in "9.2" is not one of 1–7/);
    expect(errorsOf({ testTasks: '' }).testTasks).toMatch(/no task given/);
    expect(errorsOf({ trainRows: '1.5' }).trainRows).toBe('--train-rows must be a whole number (got "1.5")');
    expect(errorsOf({ pMarry: 'x' }).pMarry).toBe('--p-marry must be a number (got "x")');
    expect(errorsOf({ seed: '  ' }).seed).toBe('--seed needs a value');
    expect(errorsOf({ trainTasks: '1.2,1.2' }).trainTasks).toBe('--train-tasks: task 1.2 is listed twice');
    expect(errorsOf({ seed: 'x'.repeat(201) }).seed).toBe('--seed is 201 characters long; use at most 200');
    const many = errorsOf({ trainTasks: 'x', testRows: 'y' });
    expect(Object.keys(many).sort()).toEqual(['testRows', 'trainTasks']);
  });

  it("shows the engine's message for settings it cannot meet, next to the right field", () => {
    expect(errorsOf({ minChild: '5', maxChild: '4' }).maxChild).toMatch(
      /^max-child must be a whole number ≥ min-child/,
    );
    expect(errorsOf({ pMarry: '2' }).pMarry).toMatch(/^p-marry must be between 0 and 1/);
    expect(errorsOf({ testRows: '-1' }).testRows).toMatch(/^test-rows must be a whole number ≥ 0/);
    expect(errorsOf({ holdout: true, holdoutShare: '1' }).holdoutShare).toMatch(/^holdout must be in \[0, 1\)/);
    // One range of k everywhere (issue 23): the explorer's and the designer's 1..10.
    expect(errorsOf({ trainTasks: '1.2,1.11' }).trainTasks).toBe(
      '--train-tasks: k in "1.11" must be a whole number from 1 to 10',
    );
    expect(errorsOf({ trainTasks: '1.10', maxLevels: '1' }).trainTasks).toMatch(
      /^task 1\.10 \(train\): k = 10 needs 11 different people/,
    );
    expect(read({ trainTasks: '1.10' }).ok).toBe(true);
    expect(errorsOf({ maxChild: '0', minChild: '0' }).trainTasks).toMatch(/max-child is 0/);
    expect(errorsOf({ patterns: 'son-cousin' }).patterns).toMatch(/"cousin" is not a relation word/);
  });

  it('reads the text flags as the CLI does: paraphrases by default, plain sentences ignore the rest', () => {
    const d = read({});
    expect(d.ok && d.text).toEqual({
      synthetic: false,
      combinationLength: 3,
      templateSplit: false,
      storyOrder: 'shuffled',
    });
    const r = read({ combinationLength: '2', templateSplit: true });
    expect(r.ok && r.text).toEqual({
      synthetic: false,
      combinationLength: 2,
      templateSplit: true,
      storyOrder: 'shuffled',
    });
    expect(errorsOf({ combinationLength: '4' }).combinationLength).toBe(
      '--combination-length must be 1, 2 or 3 (got "4")',
    );
    const plain = read({ synthetic: true, combinationLength: 'x', templateSplit: true });
    expect(plain.ok && plain.text).toEqual({
      synthetic: true,
      combinationLength: 3,
      templateSplit: false,
      storyOrder: 'shuffled',
    });
    expect(errorsOf({ storyOrder: 'random' }).storyOrder).toBe('--story-order must be shuffled or path (got "random")');
  });

  it('caps what the browser generates', () => {
    expect(read({ trainRows: '125000' }).ok).toBe(true); // a 250,000-row dataset is fine
    expect(errorsOf({ trainRows: '500001' }).trainRows).toMatch(/more than 1,000,000 rows/);
  });
});

describe('FIELD_ORDER', () => {
  it('lists every field once, so the error summary can name any problem (--labels with --strict included)', () => {
    expect([...FIELD_ORDER].sort()).toEqual(DATASET_OPTIONS.map((o) => o.field).sort());
    const r = readDatasetForm({ ...DEFAULT_FORM, strict: true, labels: 'clutrr' });
    expect(r.ok === false && Object.keys(r.errors)).toEqual(['labels']);
  });
});
