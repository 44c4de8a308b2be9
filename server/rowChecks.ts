/**
 * What the results server checks of a row of a session it issued, beyond the schedule's fields
 * (sessions.ts): the facts of the puzzle, rebuilt here from the study and the item rather than
 * believed (the story, the query names, the gold word, whether the answer was right), and times
 * that can be true (after the session was issued, not in the future, the response time within
 * the time between first showing and answer).
 */
import { RELATION_WORDS } from '../src/core/kinship/relations';
import type { StudyDefinition } from '../src/study/definition/definition';
import type { ResultRow } from '../src/study/results/results';
import type { StudyItem } from '../src/study/schedule/schedule';
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

const WORDS: ReadonlySet<string> = new Set(RELATION_WORDS);

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

/** `<field>: <problem>` for a puzzle-solving row whose puzzle facts or answer columns are not the item's, or undefined. */
export function solveRowProblem(content: TrialContent, row: ResultRow): string | undefined {
  const expected = {
    query_a: content.queryA,
    query_b: content.queryB,
    gold: content.gold,
    story: content.story,
  } as const;
  for (const [field, want] of Object.entries(expected) as [keyof typeof expected, string][]) {
    if (row[field] !== want) {
      const sent = row[field].length > 80 ? `${JSON.stringify(row[field].slice(0, 80))}…` : JSON.stringify(row[field]);
      return `${field}: ${sent} is not the puzzle of trial ${row.trial_index} (the server rebuilds it from the study)`;
    }
  }
  const answered = row.ended_on === 'response';
  if (answered && !WORDS.has(row.response)) {
    return `response: ${JSON.stringify(row.response)} is not one of the relation words`;
  }
  if (!answered && row.response !== '') {
    return `response: a trial that ended on ${row.ended_on} has no response (got ${JSON.stringify(row.response)})`;
  }
  if (row.correct !== (row.response === content.gold)) {
    return `correct: ${row.correct} is not what the response ${JSON.stringify(row.response)} against the gold word says (${row.response === content.gold})`;
  }
  if (answered !== (row.difficulty !== null)) {
    return `difficulty: ${answered ? 'an answered trial has a rating' : `a trial that ended on ${row.ended_on} has none`}`;
  }
  return undefined;
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
 * Characters a written story may have in a study of `maxWords` words: generous for long words and
 * punctuation, so a study's stored bytes stay bounded by its schedule rather than by the schema.
 */
export const storyCharacters = (maxWords: number) => Math.max(400, maxWords * 40);

/** `story: <problem>` when a paraphrase row's text is longer than its study could take, or undefined. */
export function storyLengthProblem(def: StudyDefinition, row: ResultRow): string | undefined {
  const most = storyCharacters(def.maxWords);
  return row.story.length > most
    ? `story: ${row.story.length} characters, more than a story of at most ${def.maxWords} words takes here (${most})`
    : undefined;
}
