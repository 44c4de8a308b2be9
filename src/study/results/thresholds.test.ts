import { describe, expect, it } from 'vitest';
import { NO_ESTIMATE, type ResultRow } from './resultFields';
import { storedThresholds, thresholdSummary } from './thresholds';

const row = (session: string, trial: number, over: Partial<ResultRow> = {}): ResultRow => ({
  study_id: 'adapt',
  session_id: session,
  participant_id: `p-${session}`,
  condition: 'untimed',
  trial_index: trial,
  phase: 'main',
  puzzle_id: `adaptive-k3-t1-${trial}`,
  seed: 1,
  k: 3,
  task: 1,
  strict: true,
  query_a: 'A',
  query_b: 'B',
  gold: 'son',
  response: 'son',
  correct: true,
  difficulty: 2,
  rt_ms: 1000,
  ended_on: 'response',
  time_limit_s: null,
  answer_changes: 0,
  hidden_ms: 0,
  resumed: false,
  started_at: '2026-01-01T00:00:00.000Z',
  answered_at: '2026-01-01T00:00:01.000Z',
  story: '',
  prolific_study_id: '',
  prolific_session_id: '',
  ...NO_ESTIMATE,
  ...over,
});

const est = (t: number, stop: '' | 'trials' | 'interval' = '') =>
  ({
    threshold_k: t,
    threshold_low: t - 1,
    threshold_high: t + 1,
    adaptive_procedure: 'quest',
    adaptive_stop: stop,
  }) as const;

describe('storedThresholds', () => {
  it("takes each session's last stored estimate, counts its answered trials, and leaves out sessions without one", () => {
    const rows = [
      row('b', 0, { phase: 'practice' }),
      row('b', 2, est(4.5, 'interval')),
      row('b', 1, est(3.25)),
      row('a', 0, est(5)),
      row('a', 1, { ...est(5.75), ended_on: 'timeout', correct: false }),
      row('c', 0),
    ];
    expect(storedThresholds(rows)).toEqual([
      {
        session_id: 'a',
        participant_id: 'p-a',
        condition: 'untimed',
        procedure: 'quest',
        threshold: 5.75,
        low: 4.75,
        high: 6.75,
        trials: 2,
        stop: '',
      },
      {
        session_id: 'b',
        participant_id: 'p-b',
        condition: 'untimed',
        procedure: 'quest',
        threshold: 4.5,
        low: 3.5,
        high: 5.5,
        trials: 2,
        stop: 'interval',
      },
    ]);
  });

  it('summarises the mean threshold with its SD and 95% t interval', () => {
    const list = storedThresholds([row('a', 0, est(4)), row('b', 0, est(5)), row('c', 0, est(6))]);
    const s = thresholdSummary(list)!;
    expect([s.participants, s.mean, s.sd]).toEqual([3, 5, 1]);
    // t(.975, 2) = 4.303: 5 ± 4.303 / √3.
    expect(s.low).toBeCloseTo(5 - 4.302653 / Math.sqrt(3), 5);
    expect(s.high).toBeCloseTo(5 + 4.302653 / Math.sqrt(3), 5);
    expect(thresholdSummary([])).toBeNull();
    expect(Number.isNaN(thresholdSummary(list.slice(0, 1))!.sd)).toBe(true);
  });
});
