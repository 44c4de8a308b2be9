/**
 * Each participant's threshold as an adaptive study's rows store it (the estimate columns of
 * resultFields.ts, which the results server recomputes from the session's answers): the estimate
 * after the session's last answered main trial, with its 95% interval, the procedure, the trials
 * and why the run stopped; and the mean threshold over participants with its spread. Read from the
 * rows alone, so the results dashboard (which has no study definition) and `study estimates` agree.
 */
import type { ResultRow } from './resultFields';
import { meanT, sampleSd } from './stats';

/** One session's stored estimate after its last answered adaptive trial. */
export interface ParticipantThreshold {
  readonly session_id: string;
  readonly participant_id: string;
  readonly condition: string;
  readonly procedure: 'staircase' | 'quest';
  readonly threshold: number;
  readonly low: number;
  readonly high: number;
  /** Main trials answered or timed out up to that row (what the procedure counted). */
  readonly trials: number;
  /** Why the run stopped (`trials`, `interval`), or '' when the session ended before its stopping rule. */
  readonly stop: '' | 'trials' | 'interval';
}

export interface ThresholdSummary {
  readonly participants: number;
  readonly mean: number;
  /** SD of the participants' thresholds (NaN for one). */
  readonly sd: number;
  /** The 95% t interval of the mean (NaN ends for one participant). */
  readonly low: number;
  readonly high: number;
}

/**
 * Every session whose rows store an estimate, by session id: the values of its last main row
 * (by trial index) that has one. Sessions without (other kinds, files written before the columns)
 * are left out.
 */
export function storedThresholds(rows: readonly ResultRow[]): ParticipantThreshold[] {
  const last = new Map<string, ResultRow>();
  const counted = new Map<string, ResultRow[]>();
  for (const r of rows) {
    if (r.phase !== 'main') continue;
    if (r.ended_on !== 'skipped') {
      const list = counted.get(r.session_id);
      if (list) list.push(r);
      else counted.set(r.session_id, [r]);
    }
    if (r.threshold_k === null || r.adaptive_procedure === '') continue;
    const known = last.get(r.session_id);
    if (!known || r.trial_index > known.trial_index) last.set(r.session_id, r);
  }
  return [...last.values()]
    .map((r) => ({
      session_id: r.session_id,
      participant_id: r.participant_id,
      condition: r.condition,
      procedure: r.adaptive_procedure as 'staircase' | 'quest',
      threshold: r.threshold_k!,
      low: r.threshold_low ?? r.threshold_k!,
      high: r.threshold_high ?? r.threshold_k!,
      trials: (counted.get(r.session_id) ?? []).filter((x) => x.trial_index <= r.trial_index).length,
      stop: r.adaptive_stop,
    }))
    .sort((a, b) => (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0));
}

/** The mean threshold over participants, its SD and its 95% t interval; null without participants. */
export function thresholdSummary(list: readonly ParticipantThreshold[]): ThresholdSummary | null {
  if (list.length === 0) return null;
  const values = list.map((p) => p.threshold);
  const t = meanT(values);
  return {
    participants: values.length,
    mean: t.estimate,
    sd: values.length < 2 ? Number.NaN : sampleSd(values),
    low: t.lo,
    high: t.hi,
  };
}
