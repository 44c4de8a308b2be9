/**
 * What the results server checks of a paraphrase study's stories itself, trusting no page (a
 * paraphrase row's clause fields are the kind's own check, src/study/kinds/paraphrase.ts):
 *
 * - `storyPassesChecks`: before a story is handed out for review, the live checks are run again
 *   here with the study's length range: a page could send `correct: true` for any text, and a
 *   story that fails them should not cost reviewers' time. Results are kept per story (rows never
 *   change), bounded.
 */
import type { StudyDefinition } from '../src/study/definition/definition';
import { checkParaphrase } from '../src/study/collect/checks';
import { clauseFromId } from '../src/study/collect/clause';

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
