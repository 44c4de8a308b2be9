/**
 * What the results server checks of a paraphrase study's rows and stories itself,
 * trusting no page:
 *
 * - `paraphraseRowProblem`: a paraphrase row of an issued session names a real clause (its
 *   `puzzle_id` and `seed` rebuild it, `clauseFromId`) of a size and genders the study collects,
 *   and its `k`, `query_a`, `query_b` and `gold` are that clause's (the row mapping of
 *   src/study/collect/rows.ts). With `favourUncovered` the page picks its clauses with the
 *   coverage it read from this server, which the server cannot replay, so only this is checked;
 *   otherwise the schedule fixes the clause too (sessions.ts).
 * - `storyPassesChecks`: before a story is handed out for review, the live checks are run again
 *   here with the study's length range: a page could send `correct: true` for any text, and a
 *   story that fails them should not cost reviewers' time. Results are kept per story (rows never
 *   change), bounded.
 */
import type { StudyDefinition } from '../src/study/definition/definition';
import { checkParaphrase } from '../src/study/collect/checks';
import { clauseFromId, clauseQuery } from '../src/study/collect/clause';
import type { ResultRow } from '../src/study/results/results';

/** `<field>: <problem>` for a paraphrase row whose clause fields are wrong, or undefined. */
export function paraphraseRowProblem(def: StudyDefinition, row: ResultRow): string | undefined {
  const clause = clauseFromId(row.puzzle_id, row.seed);
  if ('error' in clause) return `puzzle_id: ${clause.error}`;
  if (!def.clauseKs.includes(clause.k)) {
    return `puzzle_id: clause ${row.puzzle_id} has ${clause.k} facts; study "${def.studyId}" collects clauses of ${def.clauseKs.join(', ')}`;
  }
  if (def.clauseGenders === 'mixed' && new Set(clause.people.map((p) => p.gender)).size < 2) {
    return `puzzle_id: clause ${row.puzzle_id} has people of one gender; study "${def.studyId}" collects mixed ones`;
  }
  const q = clauseQuery(clause);
  const expected = {
    k: clause.k,
    query_a: clause.people[q.a]!.name,
    query_b: clause.people[q.b]!.name,
    gold: q.word,
  } as const;
  for (const [field, want] of Object.entries(expected) as [keyof typeof expected, string | number][]) {
    if (row[field] !== want) {
      return `${field}: ${JSON.stringify(row[field])} is not what clause ${row.puzzle_id} with seed ${row.seed} has (${JSON.stringify(want)})`;
    }
  }
  return undefined;
}

/** A story as the review queue reads it. */
export interface StoryForCheck {
  readonly session_id: string;
  readonly trial_index: number;
  readonly puzzle_id: string;
  readonly seed: number;
  readonly story: string;
}

const MAX_REMEMBERED = 50_000;

/**
 * A filter for the review queue: does the story pass the live checks of its study (the paraphrase
 * study `definition(studyId)`), run here again? Remembered per story and length range.
 */
export function liveCheckFilter(): (def: StudyDefinition, story: StoryForCheck) => boolean {
  const seen = new Map<string, boolean>();
  return (def, s) => {
    const key = `${s.session_id}/${s.trial_index}/${def.minWords}/${def.maxWords}`;
    const known = seen.get(key);
    if (known !== undefined) return known;
    const clause = clauseFromId(s.puzzle_id, s.seed);
    const ok =
      !('error' in clause) &&
      checkParaphrase(clause, s.story, { minWords: def.minWords, maxWords: def.maxWords }).length === 0;
    if (seen.size >= MAX_REMEMBERED) seen.delete(seen.keys().next().value!);
    seen.set(key, ok);
    return ok;
  };
}
