/**
 * Collection studies record their trials in the study's own `ResultRow` (so the outbox, the
 * sinks, the results server, the exports and psych-DS carry them unchanged). This file is that
 * mapping, both ways:
 *
 * - a paraphrase row (one per clause written): `puzzle_id` the clause id, `seed` the clause seed,
 *   `k` its facts, `query_a`/`query_b`/`gold` the implied fact (for k = 1 the fact itself), `story`
 *   the text as written, `correct` whether the live checks passed at submit, `response` empty;
 * - a review row (one per story reviewed): `puzzle_id` the story id `<session_id>/<trial_index>`
 *   of its paraphrase row, `seed`/`k`/`query_*`/`gold`/`story` copied from it, `response` `good`
 *   or `bad:<reason>[,<reason>…]` (reasons in REVIEW_REASONS order), `correct` = good.
 */
import type { EndedOn, ResultRow } from '../results/results';
import { REVIEW_REASONS, type ReviewReason } from '../definition/vocabulary';
import type { ReviewItem } from '../delivery/serverApi';
import { type Clause, CLAUSE_ID_PREFIX, clauseFromId, clauseQuery } from './clause';

/** The columns a collection trial fills; the run adds the session's and the timing columns. */
export type CollectionFields = Pick<
  ResultRow,
  | 'phase'
  | 'puzzle_id'
  | 'seed'
  | 'k'
  | 'task'
  | 'strict'
  | 'query_a'
  | 'query_b'
  | 'gold'
  | 'response'
  | 'correct'
  | 'difficulty'
  | 'story'
  | 'ended_on'
>;

/** A story's id: its paraphrase row's `<session_id>/<trial_index>`. */
export const storyIdOf = (row: Pick<ResultRow, 'session_id' | 'trial_index'>): string =>
  `${row.session_id}/${row.trial_index}`;

/** The fields of a paraphrase row; a trial that ended without a story (timeout, skip) records none. */
export function paraphraseFields(
  clause: Clause,
  story: string,
  passed: boolean,
  endedOn: EndedOn = 'response',
): CollectionFields {
  const q = clauseQuery(clause);
  const answered = endedOn === 'response';
  return {
    phase: 'main',
    puzzle_id: clause.id,
    seed: clause.seed,
    k: clause.k,
    task: 1,
    strict: false,
    query_a: clause.people[q.a]!.name,
    query_b: clause.people[q.b]!.name,
    gold: q.word,
    response: '',
    correct: answered && passed,
    difficulty: null,
    story: answered ? story : '',
    ended_on: endedOn,
  };
}

export type ReviewVerdict =
  { readonly verdict: 'good' } | { readonly verdict: 'bad'; readonly reasons: readonly ReviewReason[] };

/** `good`, or `bad:` and the reasons in REVIEW_REASONS order, each once. Throws for bad without a reason. */
export function reviewResponse(v: ReviewVerdict): string {
  if (v.verdict === 'good') return 'good';
  const reasons = REVIEW_REASONS.filter((r) => v.reasons.includes(r));
  if (reasons.length === 0) throw new RangeError('a bad verdict needs at least one reason');
  return `bad:${reasons.join(',')}`;
}

/** A review row's `response` read back, or what is wrong with it. */
export function parseReviewResponse(response: string): ReviewVerdict | { error: string } {
  if (response === 'good') return { verdict: 'good' };
  const m = /^bad:(.+)$/.exec(response);
  const reasons = m ? m[1]!.split(',') : [];
  const order = reasons.map((r) => (REVIEW_REASONS as readonly string[]).indexOf(r));
  if (!m || order.some((i) => i < 0) || order.some((i, j) => j > 0 && i <= order[j - 1]!)) {
    return {
      error: `${JSON.stringify(response)} is not a verdict: "good", or "bad:" with reasons from ${REVIEW_REASONS.join(', ')} (in that order, each once)`,
    };
  }
  return { verdict: 'bad', reasons: reasons as ReviewReason[] };
}

/** The fields of a review row; a trial that ended without a verdict (timeout, skip) records none. */
export function reviewFields(
  item: ReviewItem,
  verdict: ReviewVerdict | null,
  endedOn: EndedOn = 'response',
): CollectionFields {
  const answered = endedOn === 'response' && verdict !== null;
  return {
    phase: 'main',
    puzzle_id: item.story_id,
    seed: item.seed,
    k: item.k,
    task: 1,
    strict: false,
    query_a: item.query_a,
    query_b: item.query_b,
    gold: item.gold,
    response: answered ? reviewResponse(verdict) : '',
    correct: answered && verdict.verdict === 'good',
    difficulty: null,
    story: item.story,
    ended_on: answered ? 'response' : endedOn === 'response' ? 'skipped' : endedOn,
  };
}

export interface CollectedStory {
  /** `<session_id>/<trial_index>`. */
  readonly id: string;
  readonly row: ResultRow;
  readonly clause: Clause;
  readonly text: string;
  /** The live checks passed when it was submitted (the row's `correct`). */
  readonly passed: boolean;
}

export interface CollectedReview {
  /** The story reviewed (the review row's puzzle_id). */
  readonly storyId: string;
  readonly row: ResultRow;
  readonly verdict: ReviewVerdict;
}

/** A row that cannot be used, named by its own id and what is wrong with it. */
export interface RowProblem {
  /** The row's `<session_id>/<trial_index>`. */
  readonly row: string;
  readonly message: string;
}

export interface CollectedRows {
  readonly stories: readonly CollectedStory[];
  readonly reviews: readonly CollectedReview[];
  /** Collection trials that ended without a story or a verdict (timeout, skip). */
  readonly unanswered: number;
  /** Rows of other studies (puzzle solving) or other phases, left alone. */
  readonly other: number;
  readonly problems: readonly RowProblem[];
}

const STORY_ID = /^.+\/\d+$/;

/**
 * Sorts rows into stories and reviews. A paraphrase row is a `main` row whose puzzle_id is a
 * clause id; a review row a `main` row whose puzzle_id is a story id or whose response is a
 * verdict. A row whose clause cannot be rebuilt, whose query or gold disagree with its clause,
 * or whose verdict is malformed or disagrees with `correct` is reported, not used.
 */
export function readCollectedRows(rows: readonly ResultRow[]): CollectedRows {
  const stories: CollectedStory[] = [];
  const reviews: CollectedReview[] = [];
  const problems: RowProblem[] = [];
  let unanswered = 0;
  let other = 0;
  for (const row of rows) {
    const id = storyIdOf(row);
    const problem = (message: string) => problems.push({ row: id, message });
    if (row.phase !== 'main') {
      other++;
      continue;
    }
    if (row.puzzle_id.startsWith(`${CLAUSE_ID_PREFIX}.`)) {
      const clause = clauseFromId(row.puzzle_id, row.seed);
      if ('error' in clause) {
        problem(clause.error);
        continue;
      }
      const expected = paraphraseFields(clause, row.story, row.correct, row.ended_on);
      const differs = (['k', 'query_a', 'query_b', 'gold'] as const).find((c) => row[c] !== expected[c]);
      if (differs !== undefined) {
        problem(
          `${differs} is ${JSON.stringify(row[differs])} but clause ${row.puzzle_id} with seed ${row.seed} gives ${JSON.stringify(expected[differs])}`,
        );
        continue;
      }
      if (row.ended_on !== 'response' || row.story.trim() === '') {
        unanswered++;
        continue;
      }
      stories.push({ id, row, clause, text: row.story, passed: row.correct });
      continue;
    }
    const isVerdict = row.response === 'good' || row.response.startsWith('bad:');
    if (!STORY_ID.test(row.puzzle_id) && !isVerdict) {
      other++;
      continue;
    }
    if (row.ended_on !== 'response') {
      unanswered++;
      continue;
    }
    const verdict = parseReviewResponse(row.response);
    if ('error' in verdict) {
      problem(`response: ${verdict.error}`);
      continue;
    }
    if (row.correct !== (verdict.verdict === 'good')) {
      problem(`correct is ${row.correct} but the verdict is ${row.response} (correct is true for "good" only)`);
      continue;
    }
    reviews.push({ storyId: row.puzzle_id, row, verdict });
  }
  return { stories, reviews, unanswered, other, problems };
}
