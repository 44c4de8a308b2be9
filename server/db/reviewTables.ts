/**
 * The SQL of the live review queue (reviewQueue.ts): the source study's stories (its rows),
 * the reviews returned (the review study's rows) and what each session was handed
 * (`review_assignments`).
 */
import type { Connection } from './connection';

/** A story as the queue reads it from the source study's rows. */
export interface StoryRow {
  session_id: string;
  trial_index: number;
  participant_id: string;
  puzzle_id: string;
  seed: number;
  k: number;
  query_a: string;
  query_b: string;
  gold: string;
  story: string;
}

/** One story handed to a session, at its place in the session's list. */
export interface Assignment {
  readonly position: number;
  readonly story_id: string;
  readonly source_session: string;
  readonly source_trial: number;
}

/** Stories (or clauses) and how many of something each has. */
interface Counted {
  story_id: string;
  n: number;
}

export class ReviewTables {
  private readonly q;

  constructor(db: Connection) {
    const storyColumns = 'session_id, trial_index, participant_id, puzzle_id, seed, k, query_a, query_b, gold, story';
    this.q = {
      stories: db.prepare<[string], StoryRow>(
        `SELECT ${storyColumns} FROM trials
         WHERE study_id = ? AND phase = 'main' AND correct = 1 AND story <> ''`,
      ),
      story: db.prepare<[string, number], StoryRow>(
        `SELECT ${storyColumns} FROM trials WHERE session_id = ? AND trial_index = ?`,
      ),
      // Reviews returned: rows of the review study with a verdict.
      returned: db.prepare<[string], Counted>(
        `SELECT puzzle_id AS story_id, COUNT(*) AS n FROM trials
         WHERE study_id = ? AND phase = 'main' AND ended_on = 'response' GROUP BY puzzle_id`,
      ),
      // Items handed out whose session has not expired and whose row has not come back. A session
      // that stored no row within the study's claimMinutes of being handed them holds them no more
      // (as it holds no quota place: sessions.ts), so idle sessions cannot keep the queue empty.
      pending: db.prepare<{ study_id: string; now: string; claim: string }, Counted>(
        `SELECT a.story_id, COUNT(*) AS n FROM review_assignments a
         WHERE a.study_id = @study_id AND a.expires_at > @now
           AND (a.issued_at > @claim OR EXISTS (SELECT 1 FROM trials t WHERE t.session_id = a.session_id))
           AND NOT EXISTS (SELECT 1 FROM trials t WHERE t.session_id = a.session_id AND t.puzzle_id = a.story_id)
         GROUP BY a.story_id`,
      ),
      // Stories this reviewer has seen: reviewed (by session or participant id) or handed to them.
      seen: db
        .prepare<[string, string, string, string, string, string], string>(
          `SELECT puzzle_id FROM trials WHERE study_id = ? AND (session_id = ? OR (participant_id <> '' AND participant_id = ?))
           UNION SELECT a.story_id FROM review_assignments a JOIN issued_sessions s ON s.session_id = a.session_id
           WHERE a.study_id = ? AND (a.session_id = ? OR (s.participant_id <> '' AND s.participant_id = ?))`,
        )
        .pluck(),
      assigned: db.prepare<[string], Assignment>(
        'SELECT position, story_id, source_session, source_trial FROM review_assignments WHERE session_id = ? ORDER BY position',
      ),
      assign: db.prepare(
        `INSERT INTO review_assignments (session_id, position, study_id, story_id, source_session, source_trial, issued_at, expires_at)
         VALUES (@session_id, @position, @study_id, @story_id, @source_session, @source_trial, @issued_at, @expires_at)`,
      ),
      reviewedElsewhere: db.prepare<[string, string, number]>(
        'SELECT 1 FROM trials WHERE session_id = ? AND puzzle_id = ? AND trial_index <> ? LIMIT 1',
      ),
      coverage: db.prepare<[string], { clause_id: string; n: number }>(
        `SELECT puzzle_id AS clause_id, COUNT(*) AS n FROM trials
         WHERE study_id = ? AND phase = 'main' AND correct = 1 AND story <> '' GROUP BY puzzle_id ORDER BY puzzle_id`,
      ),
    };
  }

  /** The stories of a paraphrase study: main trials, correct, with a story. */
  stories(studyId: string): StoryRow[] {
    return this.q.stories.all(studyId);
  }

  story(sessionId: string, trialIndex: number): StoryRow | undefined {
    return this.q.story.get(sessionId, trialIndex);
  }

  /** Reviews returned per story id of a review study. */
  returned(studyId: string): Counted[] {
    return this.q.returned.all(studyId);
  }

  /** Items handed out per story id that still hold a place (not expired, not idle, not come back). */
  pending(studyId: string, now: string, claim: string): Counted[] {
    return this.q.pending.all({ study_id: studyId, now, claim });
  }

  /** Story ids a reviewer (session, and participant id when not empty) has reviewed or been handed. */
  seen(studyId: string, sessionId: string, participantId: string): string[] {
    return this.q.seen.all(studyId, sessionId, participantId, studyId, sessionId, participantId);
  }

  assigned(sessionId: string): Assignment[] {
    return this.q.assigned.all(sessionId);
  }

  assign(a: Assignment & { session_id: string; study_id: string; issued_at: string; expires_at: string }): void {
    this.q.assign.run(a);
  }

  /** Has the session reviewed this story in a trial other than `trialIndex`? */
  reviewedElsewhere(sessionId: string, storyId: string, trialIndex: number): boolean {
    return this.q.reviewedElsewhere.get(sessionId, storyId, trialIndex) !== undefined;
  }

  /** Stories per clause id of a paraphrase study. */
  coverage(studyId: string): { clause_id: string; n: number }[] {
    return this.q.coverage.all(studyId);
  }
}
