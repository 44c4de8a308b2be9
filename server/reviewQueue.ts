/**
 * The live review queue: a review study whose definition names a `sourceStudy` (a
 * paraphrase study registered on the same server) has its items served from the stories that
 * study has collected so far.
 *
 *   GET /api/studies/<review study>/review-items?session=<session id>   (header X-Session-Secret)
 *   GET /api/studies/<paraphrase study>/coverage
 *
 * A story is a paraphrase row (src/study/README.md, "collection rows"): a main trial with
 * `correct` true (its live checks passed) and a non-empty story; its id is
 * `<session_id>/<trial_index>`. A reviewer (an issued session of the review study) is never handed
 * their own story (same participant id when not empty, or same session), one they already
 * reviewed, or one handed to them before. Among the rest the stories with the fewest reviews
 * come first (reviews returned, plus items handed out whose session has not expired and whose row
 * has not come back), ties in an order seeded by the study and the session; a story that has
 * `reviewsPerStory` reviews is not handed out again. What a session was handed is stored
 * (`review_assignments`, db/reviewTables.ts), so asking again gives the same items in the same order; when
 * fewer than `reviewsPerParticipant` were available before, the list is topped up with stories
 * collected since (never changing the items already handed out).
 *
 * Review rows that come back (`POST api/rows`) must match an item handed to their session
 * (`reviewRowProblem`, called by ingestChecks.ts).
 */
import { hashSeed } from '../src/core/random/rng';
import type { StudyDefinition } from '../src/study/definition/definition';
import type { ResultRow } from '../src/study/results/results';
import type { ReviewItem } from '../src/study/delivery/serverApi';
import { parseReviewResponse } from '../src/study/collect/rows';
import { KIND_WORDS, type StudyKind } from '../src/study/definition/vocabulary';
import { STUDY_KINDS } from '../src/study/kinds';
import { liveCheckFilter } from './collectChecks';
import type { ReviewTables, StoryRow } from './db/reviewTables';
import { sameSecret, SESSION_ID, STUDY_ID } from './sessionRecords';
import type { ResultStore } from './store';

/** The collection settings the server reads from a registered definition, with their defaults. */
export interface CollectSettings {
  readonly kind: StudyKind;
  /** Review kind: the paraphrase study whose stories are reviewed live; '' when none. */
  readonly sourceStudy: string;
  readonly reviewsPerStory: number;
  readonly reviewsPerParticipant: number;
}

/** Most items handed to one session, whatever a definition asks (it bounds the table). */
export const MAX_REVIEW_ITEMS = 50;

/**
 * A definition's collection settings. Read defensively: definitions stored before the kinds
 * existed have none of these fields (they are solve studies), and a value of the wrong type falls
 * back to the default (the definition was checked when it was registered).
 */
export function collectSettings(def: StudyDefinition): CollectSettings {
  const d = def as unknown as Record<string, unknown>;
  const whole = (v: unknown, fallback: number) =>
    typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : fallback;
  return {
    kind: (KIND_WORDS as readonly unknown[]).includes(d.kind) ? (d.kind as StudyKind) : 'solve',
    sourceStudy: typeof d.sourceStudy === 'string' ? d.sourceStudy : '',
    reviewsPerStory: whole(d.reviewsPerStory, 3),
    reviewsPerParticipant: whole(d.reviewsPerParticipant, 3),
  };
}

/** One story to review, as `GET …/review-items` answers it (the page's own declaration). */
export type { ReviewItem };

/** A refusal, as the HTTP layer sends it (`{error, reason}` with the status). */
export interface QueueRefusal {
  readonly ok: false;
  readonly status: 400 | 403 | 404 | 409;
  readonly reason: 'invalid' | 'unknown-study' | 'not-issued' | 'secret' | 'not-review' | 'no-source';
  readonly message: string;
}

export type ItemsOutcome = { readonly ok: true; readonly items: readonly ReviewItem[] } | QueueRefusal;
export type CoverageOutcome =
  { readonly ok: true; readonly stories: number; readonly coverage: Readonly<Record<string, number>> } | QueueRefusal;

/** The issued session asking (a row of `issued_sessions`). */
export interface Reviewer {
  readonly session_id: string;
  readonly study_id: string;
  readonly participant_id: string;
  readonly issued_at: string;
}

/**
 * Is a story of the paraphrase study `def` eligible for review beyond what its row says (correct,
 * not empty)? The server's own second look: by default the live checks run again
 * (collectChecks.ts), since a page could send `correct: true` for any text.
 */
export type StoryFilter = (def: StudyDefinition, row: StoryRow) => boolean;

const storyId = (r: { session_id: string; trial_index: number }) => `${r.session_id}/${r.trial_index}`;

const itemOf = (r: StoryRow): ReviewItem => ({
  story_id: storyId(r),
  seed: r.seed,
  k: r.k,
  clause_id: r.puzzle_id,
  query_a: r.query_a,
  query_b: r.query_b,
  gold: r.gold,
  story: r.story,
});

/** A review row's `response`: `good`, or `bad:` and at least one reason (parseReviewResponse's rule). */
export function reviewResponseProblem(response: string): string | undefined {
  const read = parseReviewResponse(response);
  return 'error' in read ? read.error : undefined;
}

export interface ReviewQueueOptions {
  readonly now?: () => Date;
  readonly storyFilter?: StoryFilter;
}

export class ReviewQueue {
  private readonly q: ReviewTables;
  private readonly now: () => Date;
  private readonly storyFilter: StoryFilter;

  constructor(
    private readonly store: ResultStore,
    /** The registered definition of a study (StudyAccess.definition), or undefined. */
    private readonly definition: (studyId: string) => StudyDefinition | undefined,
    options: ReviewQueueOptions = {},
  ) {
    this.q = store.reviewTables();
    this.now = options.now ?? (() => new Date());
    this.storyFilter = options.storyFilter ?? liveCheckFilter();
  }

  /**
   * The review items of an issued session of a live review study (`GET
   * api/studies/<id>/review-items?session=…`, the session's secret in `X-Session-Secret`): the
   * session must be one this server issued for that study, and the secret its own.
   */
  itemsForSession(studyId: string, sessionId: string | undefined, secret: string | undefined): ItemsOutcome {
    const refused = (
      status: QueueRefusal['status'],
      reason: QueueRefusal['reason'],
      message: string,
    ): QueueRefusal => ({
      ok: false,
      status,
      reason,
      message,
    });
    if (!STUDY_ID.test(studyId) || !this.definition(studyId)) {
      return refused(
        404,
        'unknown-study',
        `There is no study "${studyId}" here. Please check the link you were given.`,
      );
    }
    if (sessionId === undefined || !SESSION_ID.test(sessionId)) {
      return refused(400, 'invalid', 'session: name the session the review items are for (?session=<session id>)');
    }
    const issued = this.store.accessTables().issued(sessionId);
    if (!issued || issued.study_id !== studyId) {
      return refused(
        403,
        'not-issued',
        `session: "${sessionId}" is not a session this server issued for study "${studyId}"`,
      );
    }
    if (secret === undefined || !sameSecret(secret, issued.secret)) {
      return refused(
        403,
        'secret',
        `the secret of session "${sessionId}" is ${secret === undefined ? 'missing (send it in the X-Session-Secret header)' : 'wrong'}`,
      );
    }
    return this.itemsFor(issued);
  }

  /**
   * The items of a reviewer (an issued session of a live review study, checked by the caller):
   * those handed out before, in order, then (while fewer than the study's reviewsPerParticipant
   * and the session has not expired) new ones, stored in the same transaction.
   */
  itemsFor(reviewer: Reviewer): ItemsOutcome {
    const def = this.definition(reviewer.study_id);
    if (!def) return unknownStudy(reviewer.study_id);
    const settings = collectSettings(def);
    const live = liveReviewProblem(reviewer.study_id, settings, (id) => this.definition(id));
    if (live) return live;
    const wanted = Math.min(settings.reviewsPerParticipant, MAX_REVIEW_ITEMS);
    return this.store.transaction((): ItemsOutcome => {
      const old = this.q.assigned(reviewer.session_id);
      const items: ReviewItem[] = [];
      for (const a of old) {
        const row = this.q.story(a.source_session, a.source_trial);
        // Rows are never deleted: a stored assignment always finds its story.
        if (row) items.push(itemOf(row));
      }
      const now = this.now().toISOString();
      const expiresAt = expiry(reviewer.issued_at, def.maxAgeMinutes);
      if (old.length >= wanted || expiresAt <= now) return { ok: true, items };
      const fresh = this.pick(reviewer, def, settings, wanted - old.length, now);
      fresh.forEach((row, i) =>
        this.q.assign({
          session_id: reviewer.session_id,
          position: old.length + i,
          study_id: reviewer.study_id,
          story_id: storyId(row),
          source_session: row.session_id,
          source_trial: row.trial_index,
          issued_at: now,
          expires_at: expiresAt,
        }),
      );
      return { ok: true, items: [...items, ...fresh.map(itemOf)] };
    });
  }

  /** Up to `n` stories for a reviewer: eligible, not theirs, not seen, under the review cap, fewest reviews first. */
  private pick(
    reviewer: Reviewer,
    def: StudyDefinition,
    settings: CollectSettings,
    n: number,
    now: string,
  ): StoryRow[] {
    const reviews = new Map<string, number>();
    for (const r of this.q.returned(reviewer.study_id)) reviews.set(r.story_id, r.n);
    const claim = new Date(Date.parse(now) - def.claimMinutes * 60_000).toISOString();
    for (const r of this.q.pending(reviewer.study_id, now, claim)) {
      reviews.set(r.story_id, (reviews.get(r.story_id) ?? 0) + r.n);
    }
    const pid = reviewer.participant_id;
    const seen = new Set(this.q.seen(reviewer.study_id, reviewer.session_id, pid));
    const source = this.definition(settings.sourceStudy)!;
    const candidates = this.q
      .stories(settings.sourceStudy)
      .filter(
        (r) =>
          r.session_id !== reviewer.session_id &&
          !(pid !== '' && r.participant_id === pid) &&
          !seen.has(storyId(r)) &&
          (reviews.get(storyId(r)) ?? 0) < settings.reviewsPerStory &&
          this.storyFilter(source, r),
      )
      .map((r) => ({
        r,
        reviews: reviews.get(storyId(r)) ?? 0,
        tie: hashSeed(def.seed, 'review-queue', reviewer.session_id, storyId(r)),
      }));
    candidates.sort((a, b) => a.reviews - b.reviews || a.tie - b.tie || (storyId(a.r) < storyId(b.r) ? -1 : 1));
    return candidates.slice(0, n).map((c) => c.r);
  }

  /**
   * What is wrong with a review row of an issued session (`<field>: <problem>`), or undefined: its
   * story must be one handed to this session, every copied field equal to the story's row, the
   * story reviewed in one trial only, and the verdict well formed.
   */
  reviewRowProblem(sessionId: string, row: ResultRow): string | undefined {
    const assigned = this.q.assigned(sessionId).find((a) => a.story_id === row.puzzle_id);
    if (!assigned) {
      return `puzzle_id: ${JSON.stringify(row.puzzle_id)} is not a story handed to this session (GET api/studies/<id>/review-items)`;
    }
    const story = this.q.story(assigned.source_session, assigned.source_trial)!;
    const copied = ['seed', 'k', 'query_a', 'query_b', 'gold', 'story'] as const;
    for (const field of copied) {
      if (row[field] !== story[field]) {
        const shown = field === 'story' ? 'the story handed out' : JSON.stringify(story[field]);
        return `${field}: ${JSON.stringify(row[field]).slice(0, 80)} is not what story ${assigned.story_id} has (${shown})`;
      }
    }
    if (this.q.reviewedElsewhere(sessionId, row.puzzle_id, row.trial_index)) {
      return `puzzle_id: story ${row.puzzle_id} is already reviewed in another trial of this session`;
    }
    if (row.ended_on === 'response') {
      const problem = reviewResponseProblem(row.response);
      if (problem) return `response: ${problem}`;
    } else if (row.response !== '') {
      return `response: a trial that ended on ${row.ended_on} has no verdict (got ${JSON.stringify(row.response)})`;
    }
    if (row.correct !== (row.response === 'good')) {
      return `correct: ${row.correct} does not follow the verdict (${JSON.stringify(row.response)}: correct is true for "good" only)`;
    }
    return undefined;
  }

  /** Stories per clause id of a paraphrase study (`GET api/studies/<id>/coverage`), for `favourUncovered`. */
  coverage(studyId: string): CoverageOutcome {
    const def = this.definition(studyId);
    if (!def) return unknownStudy(studyId);
    if (!STUDY_KINDS[collectSettings(def).kind].writesStories) {
      return {
        ok: false,
        status: 400,
        reason: 'not-review',
        message: `study "${studyId}" is not a paraphrase study; coverage counts the stories of one`,
      };
    }
    const coverage: Record<string, number> = {};
    let stories = 0;
    for (const c of this.q.coverage(studyId)) {
      coverage[c.clause_id] = c.n;
      stories += c.n;
    }
    return { ok: true, stories, coverage };
  }
}

/** The end of a session's life: `issued_at` plus the study's maxAgeMinutes (after it the page does not resume). */
function expiry(issuedAt: string, maxAgeMinutes: number): string {
  const t = Date.parse(issuedAt) + maxAgeMinutes * 60_000;
  return new Date(Number.isFinite(t) ? Math.min(t, 8.64e15) : 0).toISOString();
}

const unknownStudy = (studyId: string): QueueRefusal => ({
  ok: false,
  status: 404,
  reason: 'unknown-study',
  message: `There is no study "${studyId}" here. Please check the link you were given.`,
});

/** Why a study cannot serve review items live (not a review study, no source, source not here), or undefined. */
export function liveReviewProblem(
  studyId: string,
  settings: CollectSettings,
  definition: (id: string) => StudyDefinition | undefined,
): QueueRefusal | undefined {
  if (!STUDY_KINDS[settings.kind].liveItems(settings)) {
    return {
      ok: false,
      status: 400,
      reason: 'not-review',
      message: `study "${studyId}" is not a live review study (kind "review" with a source study); its items are in its link`,
    };
  }
  const source = definition(settings.sourceStudy);
  if (!source || !STUDY_KINDS[collectSettings(source).kind].writesStories) {
    return {
      ok: false,
      status: 409,
      reason: 'no-source',
      message: `study "${studyId}" reviews the stories of "${settings.sourceStudy}", which is not a paraphrase study registered on this server; the researcher must register it here`,
    };
  }
  return undefined;
}
