/**
 * What the results server checks of a row of a session it issued, beyond the schedule's fields
 * (ingestChecks.ts): the facts of the puzzle, rebuilt here from the study and the item rather
 * than believed (`TrialFacts`, handed to the kind's own row check in src/study/kinds), and times
 * that can be true (after the session was issued, not in the future, the response time within
 * the time between first showing and answer).
 */
import type { StudyDefinition } from '../src/study/definition/definition';
import type { EarlierRow } from '../src/study/kinds';
import type { ResultRow } from '../src/study/results/results';
import type { StudyItem } from '../src/study/schedule/items';
import type { TrialContent } from '../src/study/schedule/trialContent';
import { studyTrialContent } from '../src/study/schedule/trialFacts';

/**
 * How far a row's times may lie outside the session's life: the page corrects its clock by the
 * server's when the session is issued, so this covers the network and a clock that drifts.
 */
export const CLOCK_SKEW_MS = 5 * 60_000;
/** Slack between `rt_ms` and answered_at − started_at (both from the page's clock, rounded). */
const RT_SLACK_MS = 2_000;

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z$/;

/** The puzzle facts a row of this item must carry, rebuilt once per item of a registered definition (bounded). */
export class TrialFacts {
  private readonly made = new WeakMap<StudyDefinition, Map<string, TrialContent>>();

  constructor(private readonly maxPerStudy = 20_000) {}

  of(def: StudyDefinition, item: StudyItem): TrialContent {
    let study = this.made.get(def);
    if (!study) this.made.set(def, (study = new Map()));
    const key = `${item.puzzleId}@${item.seed}/${item.phase}`;
    const known = study.get(key);
    if (known) return known;
    const content = studyTrialContent(def, item);
    if (study.size >= this.maxPerStudy) study.delete(study.keys().next().value!);
    study.set(key, content);
    return content;
  }
}

/**
 * `<field>: <problem>` for times that cannot be true of a row of a session issued at `issuedAt`,
 * received at `now`; or undefined.
 */
export function timeProblem(row: ResultRow, issuedAt: string, now: Date): string | undefined {
  for (const field of ['started_at', 'answered_at'] as const) {
    if (!ISO_TIME.test(row[field]) || Number.isNaN(Date.parse(row[field]))) {
      return `${field}: ${JSON.stringify(row[field])} is not a time like 2026-11-28T09:30:00.000Z`;
    }
  }
  const started = Date.parse(row.started_at);
  const answered = Date.parse(row.answered_at);
  const issued = Date.parse(issuedAt);
  if (started < issued - CLOCK_SKEW_MS) {
    return `started_at: ${row.started_at} is before the session was issued (${issuedAt})`;
  }
  if (answered > now.getTime() + CLOCK_SKEW_MS) {
    return `answered_at: ${row.answered_at} is later than the server's time (${now.toISOString()})`;
  }
  if (answered < started) return `answered_at: ${row.answered_at} is before started_at (${row.started_at})`;
  if (row.rt_ms > answered - started + RT_SLACK_MS) {
    return `rt_ms: ${row.rt_ms} is longer than the time from started_at to answered_at (${answered - started} ms)`;
  }
  return undefined;
}

/**
 * A session's rows: the stored ones, then those of the request it has not stored (a batch sent
 * again after a lost answer repeats stored rows; each trial counts once, the stored row standing).
 */
export function sessionRows<R extends EarlierRow>(stored: readonly R[], sent: readonly R[]): R[] {
  const seen = new Set(stored.map((r) => r.trial_index));
  const out = [...stored];
  for (const r of sent) {
    if (seen.has(r.trial_index)) continue;
    seen.add(r.trial_index);
    out.push(r);
  }
  return out;
}
