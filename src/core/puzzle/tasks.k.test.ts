import { describe, expect, it } from 'vitest';
import { K_MAX, K_MIN, parseTaskList } from './tasks';

describe('one range of k (issue 23)', () => {
  it('is 1..10', () => expect([K_MIN, K_MAX]).toEqual([1, 10]));
  it('accepts 1.1 and 5.10 and refuses 1.0, 1.11 and 1.12 with the range in words', () => {
    expect(parseTaskList('1.1,5.10', '--train-tasks')).toEqual([
      { task: 1, k: 1 },
      { task: 5, k: 10 },
    ]);
    for (const bad of ['1.0', '1.11', '2.12']) {
      expect(() => parseTaskList(`1.2,${bad}`, '--train-tasks')).toThrow(
        `--train-tasks: k in "${bad}" must be a whole number from 1 to 10`,
      );
    }
  });
});
