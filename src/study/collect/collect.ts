/**
 * From collected rows to templates and to the collection dashboard's figures: each story is
 * judged by its reviews (the paper kept the 79% every reviewer passed), an accepted story
 * becomes a template of its clause's key with its names as placeholders, and the templates are
 * split into train and test halves as `splitBank` splits any bank.
 */
import type { Seed } from '../../core/random/rng';
import { OUR_BANK } from '../../core/text/bank';
import { bankSize, splitBank, type TemplateBank, validateTemplateData } from '../../core/text/templates';
import type { ResultRow } from '../results/results';
import { REVIEW_REASONS, type ReviewReason } from '../definition/vocabulary';
import { type ClauseOverlap, type FleissKappa, fleissKappa, PAPER_JACCARD, withinClauseJaccard } from './agreement';
import { checkParaphrase, nameMentions } from './checks';
import { clauseCells, clauseFromId } from './clause';
import { toTemplate } from './placeholders';
import { type CollectedStory, readCollectedRows, type RowProblem } from './rows';

export const AGREE_RULES = ['all', 'majority'] as const;
export type AgreeRule = (typeof AGREE_RULES)[number];

export interface JudgeOptions {
  /** Reviews a story needs before it is judged; 0 accepts stories without reviews. */
  readonly minReviews: number;
  /** `all`: no reviewer said bad; `majority`: more said good than bad. */
  readonly agree: AgreeRule;
}

export interface CollectOptions extends JudgeOptions {
  /** Share of each (key, genders) list held out as the test half (0 ≤ share < 1). */
  readonly testShare: number;
  /** Seeds the split. */
  readonly seed: Seed;
}

export const DEFAULT_COLLECT: CollectOptions = { minReviews: 3, agree: 'all', testShare: 0.2, seed: 1 };

export type StoryStatus = 'accepted' | 'rejected' | 'pending' | 'failed-checks';

export interface StoryReview {
  /** The reviewer's session id and participant id (empty when none). */
  readonly session: string;
  readonly participant: string;
  readonly verdict: 'good' | 'bad';
  readonly reasons: readonly ReviewReason[];
}

export interface StoryReport {
  /** `<session_id>/<trial_index>` of the paraphrase row. */
  readonly id: string;
  readonly clauseId: string;
  readonly seed: number;
  readonly k: number;
  readonly fComb: string;
  readonly genderComb: string;
  readonly text: string;
  readonly author: { readonly session: string; readonly participant: string };
  /** The live checks passed at submit and pass again now. */
  readonly passed: boolean;
  readonly reviews: readonly StoryReview[];
  readonly good: number;
  readonly bad: number;
  readonly status: StoryStatus;
  /** Why the status (for the dashboard and the CLI's report). */
  readonly why: string;
  /** The template an accepted story gives; null when not accepted or when its names cannot be placed. */
  readonly template: string | null;
}

/** A story or row that could not be used, and why. */
export interface CollectProblem {
  readonly story_id: string;
  readonly problem: string;
}

export interface Judged {
  readonly stories: readonly StoryReport[];
  readonly problems: readonly CollectProblem[];
  readonly unanswered: number;
  readonly reviewRows: number;
}

/** Stories as a participant wrote them, checked again without a length range (the study's is not in the rows). */
const NO_RANGE = { minWords: 0, maxWords: Infinity };

/**
 * Every story with its reviews and status. Reviews count once per reviewer session; a review
 * by the story's own writer (same session, or same participant id), a second review by one
 * session, a review of a story not in the rows, and a review whose copy of the story differs
 * from the story are left out and reported. A story whose row says the checks passed but that
 * fails them now is reported too (the row was changed, or the checks have tightened).
 */
export function judgeStories(rows: readonly ResultRow[], options: JudgeOptions): Judged {
  const read = readCollectedRows(rows);
  const problems: CollectProblem[] = read.problems.map((p: RowProblem) => ({ story_id: p.row, problem: p.message }));
  const byId = new Map<string, CollectedStory>(read.stories.map((s) => [s.id, s]));
  const reviewsOf = new Map<string, StoryReview[]>();
  const missing = new Map<string, number>();
  for (const r of read.reviews) {
    const story = byId.get(r.storyId);
    if (!story) {
      missing.set(r.storyId, (missing.get(r.storyId) ?? 0) + 1);
      continue;
    }
    const reviewer = { session: r.row.session_id, participant: r.row.participant_id };
    const where = `review ${reviewer.session}/${r.row.trial_index}`;
    const author = story.row;
    if (
      reviewer.session === author.session_id ||
      (reviewer.participant !== '' && reviewer.participant === author.participant_id)
    ) {
      problems.push({ story_id: story.id, problem: `${where} is by the story's own writer: left out` });
      continue;
    }
    if (r.row.story !== story.text) {
      problems.push({ story_id: story.id, problem: `${where} shows a different text from the story: left out` });
      continue;
    }
    const list = reviewsOf.get(story.id) ?? [];
    if (list.some((x) => x.session === reviewer.session)) {
      problems.push({ story_id: story.id, problem: `${where} is a second review by the same session: left out` });
      continue;
    }
    list.push({
      ...reviewer,
      verdict: r.verdict.verdict,
      reasons: r.verdict.verdict === 'bad' ? r.verdict.reasons : [],
    });
    reviewsOf.set(story.id, list);
  }
  for (const [id, n] of missing) {
    problems.push({
      story_id: id,
      problem: `${n} review${n > 1 ? 's' : ''} of a story that is not in the data (give the paraphrase study's rows too)`,
    });
  }
  const stories = read.stories.map((s): StoryReport => {
    const reviews = reviewsOf.get(s.id) ?? [];
    const good = reviews.filter((r) => r.verdict === 'good').length;
    const bad = reviews.length - good;
    const base = {
      id: s.id,
      clauseId: s.clause.id,
      seed: s.clause.seed,
      k: s.clause.k,
      fComb: s.clause.relations,
      genderComb: s.clause.genders,
      text: s.text,
      author: { session: s.row.session_id, participant: s.row.participant_id },
      reviews,
      good,
      bad,
    };
    const now = checkParaphrase(s.clause, s.text, NO_RANGE);
    if (!s.passed || now.length > 0) {
      if (s.passed) {
        problems.push({
          story_id: s.id,
          problem: `its row says the checks passed, but they fail now: ${now.map((p) => p.message).join(' ')}`,
        });
      }
      return { ...base, passed: false, status: 'failed-checks', why: 'the live checks did not pass', template: null };
    }
    const judged = verdictOf(good, bad, options);
    if (judged.status !== 'accepted') return { ...base, passed: true, ...judged, template: null };
    const t = toTemplate(s.clause, s.text);
    if ('problem' in t) {
      problems.push({ story_id: s.id, problem: `accepted, but no template: ${t.problem}` });
      return { ...base, passed: true, ...judged, template: null };
    }
    return { ...base, passed: true, ...judged, template: t.template };
  });
  return { stories, problems, unanswered: read.unanswered, reviewRows: read.reviews.length };
}

function verdictOf(
  good: number,
  bad: number,
  { minReviews, agree }: JudgeOptions,
): { status: StoryStatus; why: string } {
  const n = good + bad;
  if (n < minReviews) return { status: 'pending', why: `${n} of ${minReviews} reviews` };
  if (n === 0) return { status: 'accepted', why: 'no review needed' };
  const ok = agree === 'all' ? bad === 0 : good > bad;
  const tally = `${good} good, ${bad} bad`;
  return ok
    ? { status: 'accepted', why: tally }
    : {
        status: 'rejected',
        why: `${tally} (${agree === 'all' ? 'every reviewer must say good' : 'most must say good'})`,
      };
}

export interface CollectResult {
  /** Paraphrase stories read (trials that ended with a story). */
  readonly paraphrases: number;
  /** Stories accepted by their reviews (some may have no template: see problems). */
  readonly accepted: number;
  /** Distinct templates in `bank`. */
  readonly templates: number;
  /** Every template, in the original shape `{f_comb: {gender_comb: [template…]}}`. */
  readonly bank: TemplateBank;
  readonly train: TemplateBank;
  readonly test: TemplateBank;
  /** Sorted by story id. */
  readonly problems: readonly CollectProblem[];
  readonly perStory: readonly StoryReport[];
}

/**
 * The accepted stories as a template bank and its seeded train/test halves (`splitBank`, with
 * `1 − testShare` to train; a share of 0 keeps every template in train). The bank is checked
 * with the loader `generate --templates` uses; a template it refuses is reported and left out.
 */
export function collectTemplates(rows: readonly ResultRow[], options: CollectOptions = DEFAULT_COLLECT): CollectResult {
  if (!(options.testShare >= 0 && options.testShare < 1)) {
    throw new RangeError(`the test share must be at least 0 and below 1 (got ${options.testShare})`);
  }
  if (!Number.isInteger(options.minReviews) || options.minReviews < 0) {
    throw new RangeError(`the reviews needed must be a whole number ≥ 0 (got ${options.minReviews})`);
  }
  const judged = judgeStories(rows, options);
  const problems = [...judged.problems];
  const data: Record<string, Record<string, string[]>> = {};
  const from = new Map<string, string>();
  for (const s of judged.stories) {
    if (s.template === null) continue;
    const list = ((data[s.fComb] ??= {})[s.genderComb] ??= []);
    const key = `${s.fComb}\u0000${s.genderComb}\u0000${s.template}`;
    const first = from.get(key);
    if (first !== undefined) {
      problems.push({ story_id: s.id, problem: `gives the same template as ${first}: kept once` });
      continue;
    }
    from.set(key, s.id);
    list.push(s.template);
  }
  const { bank, problems: refused } = validateTemplateData(data);
  for (const p of refused) {
    const t = p.index !== undefined ? data[p.fComb ?? '']?.[p.genderComb ?? '']?.[p.index] : undefined;
    const id = t === undefined ? '' : (from.get(`${p.fComb}\u0000${p.genderComb}\u0000${t}`) ?? '');
    problems.push({ story_id: id, problem: `the template loader refuses it: ${p.message}` });
  }
  const halves =
    options.testShare === 0 ? { train: bank, test: {} } : splitBank(bank, options.seed, 1 - options.testShare);
  // Grouped by story (a stable sort keeps each story's problems in the order they were met).
  problems.sort((a, b) => a.story_id.localeCompare(b.story_id, 'en', { numeric: true }));
  return {
    paraphrases: judged.stories.length,
    accepted: judged.stories.filter((s) => s.status === 'accepted').length,
    templates: bankSize(bank),
    bank,
    train: halves.train,
    test: halves.test,
    problems,
    perStory: judged.stories,
  };
}

/** One clause cell of the dashboard: what the bank has and what has been collected. */
export interface CellCoverage {
  readonly id: string;
  readonly k: number;
  readonly fComb: string;
  readonly genderComb: string;
  /** Templates our own bank has for the cell. */
  readonly bankTemplates: number;
  /** Stories written (that ended with a story), of them passing the live checks, of them accepted. */
  readonly stories: number;
  readonly passed: number;
  readonly accepted: number;
}

export interface CollectionSummary {
  readonly paraphrases: number;
  readonly passedChecks: number;
  /** Stories with at least one review, and review rows used. */
  readonly reviewed: number;
  readonly reviews: number;
  readonly accepted: number;
  readonly rejected: number;
  readonly pending: number;
  /** accepted / (accepted + rejected): the share of judged stories kept; null before any is judged. */
  readonly acceptanceRate: number | null;
  /** Share of stories with two or more reviews on which every reviewer agrees (good or bad). */
  readonly unanimous: number | null;
  /** Fleiss' κ over stories with two or more reviews, categories good and bad. */
  readonly kappa: FleissKappa;
  /** Within-clause overlap of the stories that passed the checks (names taken out), and of the accepted templates. */
  readonly jaccard: ClauseOverlap;
  readonly acceptedJaccard: ClauseOverlap;
  readonly paperJaccard: typeof PAPER_JACCARD;
  /** How often each reason was given in a bad review. */
  readonly reasons: Readonly<Record<ReviewReason, number>>;
  /** Every collectable cell (k = 1..3), in clauseCells order, then any other cell met in the rows. */
  readonly cells: readonly CellCoverage[];
  readonly stories: readonly StoryReport[];
  readonly problems: readonly CollectProblem[];
  readonly unanswered: number;
}

/** A story with its people's names taken out: its template, or the text without the names. */
function withoutNames(s: StoryReport): string {
  if (s.template !== null) return s.template;
  const clause = clauseFromId(s.clauseId, s.seed);
  if ('error' in clause) return s.text; // not met: the story was read from this clause
  let out = '';
  let at = 0;
  for (const m of nameMentions(clause, s.text)) {
    out += `${s.text.slice(at, m.at)} `;
    at = m.end;
  }
  return out + s.text.slice(at);
}

/** The collection dashboard's figures (see CollectionSummary), judged with `options`. */
export function collectionSummary(
  rows: readonly ResultRow[],
  options: JudgeOptions = { minReviews: DEFAULT_COLLECT.minReviews, agree: DEFAULT_COLLECT.agree },
): CollectionSummary {
  const judged = judgeStories(rows, options);
  const stories = judged.stories;
  const count = (status: StoryStatus) => stories.filter((s) => s.status === status).length;
  const accepted = count('accepted');
  const rejected = count('rejected');
  const multi = stories.filter((s) => s.reviews.length >= 2);
  const reasons = Object.fromEntries(REVIEW_REASONS.map((r) => [r, 0])) as Record<ReviewReason, number>;
  for (const s of stories) for (const r of s.reviews) for (const why of r.reasons) reasons[why]++;

  const group = (list: readonly StoryReport[]) => {
    const by = new Map<string, string[]>();
    for (const s of list) {
      const g = by.get(s.fComb) ?? [];
      g.push(withoutNames(s));
      by.set(s.fComb, g);
    }
    return withinClauseJaccard(by);
  };

  const byCell = new Map<string, { stories: number; passed: number; accepted: number }>();
  for (const s of stories) {
    const c = byCell.get(s.clauseId) ?? { stories: 0, passed: 0, accepted: 0 };
    c.stories++;
    if (s.passed) c.passed++;
    if (s.status === 'accepted') c.accepted++;
    byCell.set(s.clauseId, c);
  }
  const cells: CellCoverage[] = clauseCells().map((cell) => ({
    id: cell.id,
    k: cell.k,
    fComb: cell.fComb,
    genderComb: cell.genderComb,
    bankTemplates: cell.bankTemplates,
    ...(byCell.get(cell.id) ?? { stories: 0, passed: 0, accepted: 0 }),
  }));
  const known = new Set(cells.map((c) => c.id));
  for (const s of stories) {
    if (known.has(s.clauseId)) continue;
    known.add(s.clauseId);
    cells.push({
      id: s.clauseId,
      k: s.k,
      fComb: s.fComb,
      genderComb: s.genderComb,
      bankTemplates: OUR_BANK[s.fComb]?.[s.genderComb]?.length ?? 0,
      ...byCell.get(s.clauseId)!,
    });
  }

  return {
    paraphrases: stories.length,
    passedChecks: stories.filter((s) => s.passed).length,
    reviewed: stories.filter((s) => s.reviews.length > 0).length,
    reviews: stories.reduce((n, s) => n + s.reviews.length, 0),
    accepted,
    rejected,
    pending: count('pending'),
    acceptanceRate: accepted + rejected > 0 ? accepted / (accepted + rejected) : null,
    unanimous: multi.length > 0 ? multi.filter((s) => s.good === 0 || s.bad === 0).length / multi.length : null,
    kappa: fleissKappa(multi.map((s) => [s.good, s.bad])),
    jaccard: group(stories.filter((s) => s.passed)),
    acceptedJaccard: group(stories.filter((s) => s.template !== null)),
    paperJaccard: PAPER_JACCARD,
    reasons,
    cells,
    stories,
    problems: judged.problems,
    unanswered: judged.unanswered,
  };
}
