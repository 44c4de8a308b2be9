/**
 * Where a review study's stories come from, on the participant's side.
 *
 * - **Live, from the results server** (`sourceStudy` with the `server` sink): after the session is
 *   issued, `fetchReviewItems` (serverApi.ts) asks the server for the session's items. The server
 *   hands out stories of the source study that passed the live checks, never the participant's
 *   own, fewest reviews first, and gives the same session the same items again.
 * - **Embedded in the link** (`reviewStories`, without the results server: JATOS, files): the
 *   stories are read from a results export (`storiesFromRows`, `readStoriesFile`, used by
 *   `study link --stories FILE` and the designer) and each participant reviews
 *   `reviewsPerParticipant` of them picked by `embeddedStoriesFor`: consecutive participant
 *   numbers take consecutive runs of one seeded order, so every story is reviewed equally often.
 *
 * Either way a story becomes a `ReviewItem`, the queue's own shape; its facts are regenerated
 * from its clause id and seed (`clauseFromId`).
 */
import { createRng, hashSeed, type Seed } from '../../core/random/rng';
import { type Clause, clauseFromId, clauseQuery } from './clause';
import type { EmbeddedStory, StudyDefinition } from '../definition/types';
import { CLAUSE_ID_PATTERN, STUDY_LIMITS, STORY_ID_PATTERN } from '../definition/vocabulary';
import type { ReviewItem } from '../delivery/serverApi';
import type { ResultRow } from '../results/results';
import { readResultsFile, ResultsFileError } from '../results/resultsFile';

/** A review item with the clause it tells (for its facts). */
export interface ReviewTask {
  readonly item: ReviewItem;
  readonly clause: Clause;
}

/**
 * The short tag of a story's writer that an embedded story carries instead of their id (a
 * Prolific id has no business in a link): 8 hex digits of a hash of the participant id.
 */
export const authorTag = (participantId: string): string =>
  hashSeed(participantId, 'story-author').toString(16).padStart(8, '0');

/** The clause of a review item, or why it has none. */
export function reviewTask(item: ReviewItem): ReviewTask | { error: string } {
  const clause = clauseFromId(item.clause_id, item.seed);
  if ('error' in clause) return { error: `story ${item.story_id}: ${clause.error}` };
  return { item, clause };
}

/** An embedded story as the queue's item: the query pair and gold come from its clause. */
export function itemOfStory(story: EmbeddedStory): ReviewItem | { error: string } {
  const clause = clauseFromId(story.clause, story.seed);
  if ('error' in clause) return { error: `story ${story.id}: ${clause.error}` };
  const q = clauseQuery(clause);
  return {
    story_id: story.id,
    seed: story.seed,
    k: clause.k,
    clause_id: story.clause,
    query_a: clause.people[q.a]!.name,
    query_b: clause.people[q.b]!.name,
    gold: q.word,
    story: story.story,
  };
}

/**
 * The embedded stories a participant reviews: the study's stories in one order seeded by the
 * study seed, of which participant n takes `reviewsPerParticipant` from position n × that count
 * (round the end), passing over stories tagged with their own id. Over consecutive participant
 * numbers (the server's or JATOS's counter, `participant=<n>`) every story gets the same number of
 * reviews; `participantsNeeded` says how many make `reviewsPerStory` each. Shown in an order drawn
 * from the session seed.
 */
export function embeddedStoriesFor(
  def: Pick<StudyDefinition, 'seed' | 'reviewStories' | 'reviewsPerParticipant'>,
  participantNumber: number,
  participantId: string,
  sessionSeed: Seed,
): EmbeddedStory[] {
  const all = createRng(def.seed, 'review-stories').shuffle([...def.reviewStories]);
  const n = all.length;
  if (n === 0) return [];
  const mine = participantId === '' ? null : authorTag(participantId);
  const start = (participantNumber * def.reviewsPerParticipant) % n;
  const out: EmbeddedStory[] = [];
  for (let i = 0; i < n && out.length < def.reviewsPerParticipant; i++) {
    const story = all[(start + i) % n]!;
    if (mine !== null && story.author === mine) continue;
    out.push(story);
  }
  return createRng(sessionSeed, 'review-order').shuffle(out);
}

/** Participants (numbered 0, 1, …) it takes for every embedded story to get `reviewsPerStory` reviews. */
export function participantsNeeded(
  def: Pick<StudyDefinition, 'reviewStories' | 'reviewsPerStory' | 'reviewsPerParticipant'>,
): number {
  return Math.ceil((def.reviewStories.length * def.reviewsPerStory) / def.reviewsPerParticipant);
}

// ---- stories from a results file ----

/**
 * The stories a review can embed: paraphrase rows (a clause id as `puzzle_id`) answered with a
 * story that passed the live checks (`correct`), one per `<session_id>/<trial_index>`, in that
 * order; the writer's id kept only as its tag.
 */
export function storiesFromRows(rows: readonly ResultRow[]): EmbeddedStory[] {
  const byId = new Map<string, EmbeddedStory>();
  for (const r of rows) {
    if (r.phase !== 'main' || r.ended_on !== 'response' || !r.correct || r.story.trim() === '') continue;
    if (!CLAUSE_ID_PATTERN.test(r.puzzle_id)) continue;
    const id = `${r.session_id}/${r.trial_index}`;
    if (byId.has(id) || !STORY_ID_PATTERN.test(id)) continue;
    byId.set(id, {
      id,
      clause: r.puzzle_id,
      seed: r.seed,
      story: r.story,
      ...(r.participant_id === '' ? {} : { author: authorTag(r.participant_id) }),
    });
  }
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The stories of a file for `study link --stories` and the designer: a results export (CSV, or
 * the JSON export) of a paraphrase study, or a stories file (a JSON list, as the designer saves
 * it). Throws an Error naming the file and what is wrong: unreadable, no stories that passed the
 * checks, a story whose clause is not one, a story too long for a link.
 */
export function readStoriesFile(name: string, text: string): EmbeddedStory[] {
  let stories: EmbeddedStory[];
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new Error(`${name}: not a JSON list of stories`, { cause: e });
    }
    stories = (value as unknown[]).map((v, i) => {
      if (!isRecord(v)) throw new Error(`${name}: item ${i + 1} is not a story`);
      return v as unknown as EmbeddedStory;
    });
  } else {
    try {
      stories = storiesFromRows(readResultsFile(name, text).rows);
    } catch (e) {
      throw new Error(e instanceof ResultsFileError ? e.message : `${name}: ${(e as Error).message}`, { cause: e });
    }
    if (stories.length === 0) {
      throw new Error(
        `${name}: no paraphrase stories that passed the live checks (rows with a clause id as puzzle_id, answered, correct)`,
      );
    }
  }
  for (const s of stories) {
    const item = typeof s.clause === 'string' && typeof s.seed === 'number' ? itemOfStory(s) : null;
    if (item === null || 'error' in item) {
      throw new Error(`${name}: ${item ? item.error : `story ${String(s.id)} has no clause id and seed`}`);
    }
    if (typeof s.story === 'string' && s.story.length > STUDY_LIMITS.maxStoryLength) {
      throw new Error(
        `${name}: story ${s.id} is ${s.story.length} characters long; a link carries at most ${STUDY_LIMITS.maxStoryLength}`,
      );
    }
  }
  if (stories.length > STUDY_LIMITS.maxEmbeddedStories) {
    throw new Error(
      `${name}: ${stories.length} stories; a link carries at most ${STUDY_LIMITS.maxEmbeddedStories} (review more through the results server: --source-study with --sink server)`,
    );
  }
  return stories;
}
