import { describe, expect, it } from 'vitest';
import { items } from './figures';
import type { ResultRow } from './results';
import { isResumedMode, RESUMED_MODES, resumedNote, resumedTally, withoutResumed } from './resumed';
import { NO_ESTIMATE } from './resultFields';

/** A trial of session `s` with only the fields these functions read set meaningfully. */
function row(s: string, trial: number, over: Partial<ResultRow> = {}): ResultRow {
  return {
    study_id: 'st',
    session_id: s,
    participant_id: '',
    condition: 'untimed',
    trial_index: trial,
    phase: 'main',
    puzzle_id: `main-${trial % 3}`,
    seed: 1,
    k: 2,
    task: 1,
    strict: true,
    query_a: 'A',
    query_b: 'B',
    gold: 'aunt',
    response: 'aunt',
    correct: true,
    difficulty: 2,
    rt_ms: 9000,
    ended_on: 'response',
    time_limit_s: null,
    answer_changes: 0,
    hidden_ms: 0,
    resumed: false,
    started_at: '',
    answered_at: '',
    story: '',
    prolific_study_id: '',
    prolific_session_id: '',
    ...NO_ESTIMATE,
    ...over,
  };
}

const rows: ResultRow[] = [
  row('a', 0, { phase: 'practice', puzzle_id: 'practice-0', resumed: true }),
  row('a', 1, { resumed: true }),
  row('a', 2),
  row('a', 3, { phase: 'check', puzzle_id: 'check-0', resumed: true }),
  row('b', 1),
  row('b', 2, { resumed: true, ended_on: 'timeout', correct: false, response: '', difficulty: null }),
  row('b', 3, { phase: 'check', puzzle_id: 'check-0' }),
];

describe('withoutResumed', () => {
  it('keeps the rows not resumed, in order', () => {
    expect(withoutResumed(rows).map((r) => `${r.session_id}${r.trial_index}`)).toEqual(['a2', 'b1', 'b3']);
    expect(withoutResumed([])).toEqual([]);
  });
});

describe('resumedTally', () => {
  it('counts resumed main and check trials over all main and check trials, never practice', () => {
    const direct = rows.filter((r) => r.phase !== 'practice');
    expect(resumedTally(items(rows))).toEqual({
      resumed: direct.filter((r) => r.resumed).length,
      trials: direct.length,
    });
    expect(resumedTally(items(rows))).toEqual({ resumed: 3, trials: 6 });
  });

  it('follows the sessions left out of the figures', () => {
    expect(resumedTally(items(rows, new Set(['a'])))).toEqual({ resumed: 1, trials: 3 });
  });
});

describe('resumedNote', () => {
  it('says what each mode did, with the counts', () => {
    const tally = { resumed: 3, trials: 1200 };
    expect(resumedNote('include', tally)).toBe(
      '3 resumed trials (of 1,200 main and check trials) included in every figure, unmarked.',
    );
    expect(resumedNote('mark', tally)).toMatch(
      /^3 resumed trials \(of 1,200 main and check trials\) included and marked/,
    );
    expect(resumedNote('omit', tally)).toMatch(
      /^3 resumed trials \(of 1,200 main and check trials\) left out of every figure/,
    );
    expect(resumedNote('omit', { resumed: 1, trials: 5 })).toMatch(/^1 resumed trial \(of 5/);
  });

  it('says when there is nothing to choose', () => {
    for (const mode of RESUMED_MODES)
      expect(resumedNote(mode, { resumed: 0, trials: 40 })).toBe(
        'No resumed trials (of 40 main and check trials): every figure is the same whichever you choose.',
      );
  });
});

describe('isResumedMode', () => {
  it('accepts the three modes only', () => {
    expect(RESUMED_MODES.every(isResumedMode)).toBe(true);
    expect(isResumedMode('drop')).toBe(false);
  });
});
