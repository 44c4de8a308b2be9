/**
 * Peer review: each participant judges other participants' stories (good, or bad with reasons).
 * The stories are embedded in the study (shared out by participant number, never one's own) or,
 * with a source study, handed out by the results server's live queue after the session is issued.
 */
import { reviewFields } from '../collect/rows';
import {
  embeddedStoriesFor,
  itemOfStory,
  participantsNeeded,
  reviewTask,
  type ReviewTask,
} from '../collect/reviewStories';
import { REVIEW_REASONS, type ReviewReason } from '../definition/vocabulary';
import type { ReviewItem } from '../delivery/serverApi';
import { ownItem, StudyScheduleError, type StudyItem } from '../schedule/items';
import type { ReviewScreen } from './screens';
import type { KindSpec } from './types';

/** The puzzle id of a live review study's trial before its story is known. */
export const reviewPlaceholderId = (i: number) => `review-${i}`;

/** The live queue's stories as the session's items (the story id is the puzzle id). */
export const queueItems = (reviews: readonly ReviewItem[]): StudyItem[] =>
  reviews.map((r) => ownItem(r.story_id, r.seed, r.k));

/** A review's verdict; switching from one to the other counts as an answer change. */
export function judge(s: ReviewScreen, verdict: 'good' | 'bad'): { screen: ReviewScreen; changed: boolean } {
  return { screen: { ...s, verdict }, changed: s.verdict !== null && s.verdict !== verdict };
}

/** Ticks or unticks a reason for "bad" (kept in REVIEW_REASONS order); null for a reason that is not one. */
export function toggleReason(s: ReviewScreen, reason: ReviewReason): ReviewScreen | null {
  if (!REVIEW_REASONS.includes(reason)) return null;
  const on = new Set(s.reasons);
  if (on.has(reason)) on.delete(reason);
  else on.add(reason);
  return { ...s, reasons: REVIEW_REASONS.filter((r) => on.has(r)) };
}

const NO_ITEMS = { practice: [], main: [], checks: [] } as const;
const isLive = (def: { readonly sourceStudy: string }) => def.sourceStudy !== '';

export const REVIEW = {
  kind: 'review',
  words: ['review', 'reviews'],
  collects: true,

  sharedItems: () => NO_ITEMS,
  /**
   * Embedded stories shared out by participant number (the puzzle id is the story id
   * `<session>/<trial>`); a live study scheduled before its stories came has
   * `reviewsPerParticipant` placeholder trials (`review-<i>`, seed 0), the number of trials a
   * session may have, which is what the results server checks.
   */
  ownItems(def, who) {
    if (isLive(def)) {
      return Array.from({ length: def.reviewsPerParticipant }, (_, i) => ownItem(reviewPlaceholderId(i), 0, 0));
    }
    const stories = embeddedStoriesFor(def, who.participantNumber, who.participantId ?? '', who.sessionSeed);
    return stories.map((s) => {
      const item = itemOfStory(s);
      if ('error' in item) throw new StudyScheduleError(item.error);
      return ownItem(s.id, s.seed, item.k);
    });
  },
  liveItems: isLive,
  coverage: null,
  writesStories: false,

  screen: 'review',
  generated: false,
  materialKey: (item) => item.puzzleId,
  pageMaterials(def, trials, stored) {
    const items: readonly ReviewItem[] = isLive(def)
      ? (stored?.reviews ?? [])
      : def.reviewStories.flatMap((s) => {
          const item = itemOfStory(s);
          return 'error' in item ? [] : [item];
        });
    const tasks = new Map<string, ReviewTask>();
    for (const item of items) {
      const task = reviewTask(item);
      if ('error' in task) return `This study cannot be shown: ${task.error}.`;
      tasks.set(item.story_id, task);
    }
    // A live study's stories have not come yet: nothing to show, nothing missing.
    const shown = isLive(def) && stored === undefined ? [] : trials;
    const unknown = shown.find((t) => !tasks.has(t.item.puzzleId));
    return unknown ? `This study cannot be shown: it has no story "${unknown.item.puzzleId}".` : tasks;
  },
  blank: (timing, task: ReviewTask) => ({ kind: 'review', ...timing, task, verdict: null, reasons: [] }),
  draft: null,
  ready: (s) => s.verdict === 'good' || (s.verdict === 'bad' && s.reasons.length > 0),
  answer(s, endedOn) {
    const verdict =
      s.verdict === null
        ? null
        : s.verdict === 'good'
          ? { verdict: 'good' as const }
          : { verdict: 'bad' as const, reasons: s.reasons };
    const { query_a, query_b, gold, response, correct, difficulty, story } = reviewFields(
      s.task.item,
      verdict,
      endedOn,
    );
    return { query_a, query_b, gold, response, correct, difficulty, story };
  },
  feedback: () => null,

  // A live study's main trials review the stories the queue handed this session: their puzzle id,
  // seed and k are the story's, which the queue checks (`reviewRowProblem`), not the schedule's.
  fixesItem: (def, item) => !(item.phase === 'main' && isLive(def)),
  rowProblem: () => undefined,

  designer: {
    summaryHeading: 'Reviews to collect',
    participantTask(def) {
      const each = `Each participant reviews ${def.reviewsPerParticipant} stor${def.reviewsPerParticipant === 1 ? 'y' : 'ies'}; each story gets ${def.reviewsPerStory} review${def.reviewsPerStory === 1 ? '' : 's'}`;
      if (def.sourceStudy !== '')
        return `${each}, from the stories of study ${def.sourceStudy} the results server holds.`;
      const n = participantsNeeded(def);
      return `${each}: ${def.reviewStories.length} stories are embedded, so participants 0 to ${n - 1} (${n}) give every story its reviews.`;
    },
    assignmentLegend: 'Assignment',
    orderFields: false,
    displays: false,
    storiesFile: true,
  },
} as const satisfies KindSpec<ReviewScreen, ReviewTask>;
