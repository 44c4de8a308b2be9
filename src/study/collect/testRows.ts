/**
 * Test support (unit tests and the CLI's tests, not the app): whole result rows of collection
 * studies, as a participant's run would record them.
 */
import type { ResultRow } from '../results/results';
import type { Clause } from './clause';
import { checkParaphrase } from './checks';
import { paraphraseFields, type ReviewVerdict, reviewFields, storyIdOf } from './rows';
import { clauseQuery } from './clause';
import { NO_ESTIMATE } from '../results/resultFields';

/** A row of `session`'s trial `trial` with the collection fields given. */
export function collectionRow(
  study: string,
  session: string,
  trial: number,
  fields: Partial<ResultRow>,
  participant = `P-${session}`,
): ResultRow {
  return {
    study_id: study,
    session_id: session,
    participant_id: participant,
    condition: 'untimed',
    trial_index: trial,
    phase: 'main',
    puzzle_id: '',
    seed: 0,
    k: 1,
    task: 1,
    strict: false,
    query_a: '',
    query_b: '',
    gold: '',
    response: '',
    correct: false,
    difficulty: null,
    rt_ms: 30000 + trial,
    ended_on: 'response',
    time_limit_s: null,
    answer_changes: 0,
    hidden_ms: 0,
    resumed: false,
    started_at: '2026-12-01T10:00:00.000Z',
    answered_at: '2026-12-01T10:01:00.000Z',
    story: '',
    prolific_study_id: '',
    prolific_session_id: '',
    ...NO_ESTIMATE,
    ...fields,
  };
}

/** A paraphrase row for a story written for `clause`, `correct` as the live checks say. */
export function storyRow(session: string, trial: number, clause: Clause, text: string): ResultRow {
  const passed = checkParaphrase(clause, text).length === 0;
  return collectionRow('para', session, trial, paraphraseFields(clause, text, passed));
}

/** A review row of the story in `story` (a paraphrase row) with the verdict given. */
export function reviewRow(session: string, trial: number, story: ResultRow, verdict: ReviewVerdict): ResultRow {
  const item = {
    story_id: storyIdOf(story),
    seed: story.seed,
    k: story.k,
    clause_id: story.puzzle_id,
    query_a: story.query_a,
    query_b: story.query_b,
    gold: story.gold,
    story: story.story,
  };
  return collectionRow('review', session, trial, reviewFields(item, verdict));
}

export const GOOD: ReviewVerdict = { verdict: 'good' };
export const bad = (...reasons: Extract<ReviewVerdict, { verdict: 'bad' }>['reasons']): ReviewVerdict => ({
  verdict: 'bad',
  reasons,
});

/** The query a clause's row records, as names (for assertions). */
export const queryNames = (clause: Clause) => {
  const q = clauseQuery(clause);
  return [clause.people[q.a]!.name, clause.people[q.b]!.name, q.word];
};
