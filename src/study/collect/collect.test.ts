import { describe, expect, it } from 'vitest';
import { OUR_BANK } from '../../core/text/bank';
import { bankSize, fillTemplate, validateTemplateData } from '../../core/text/templates';
import type { ResultRow } from '../results/results';
import { type Clause, clauseFromId, factSentences } from './clause';
import { collectionSummary, collectTemplates, DEFAULT_COLLECT } from './collect';
import { bad, GOOD, reviewRow, storyRow } from './testRows';

const clause = (id: string, seed: number): Clause => {
  const c = clauseFromId(id, seed);
  if ('error' in c) throw new Error(c.error);
  return c;
};
/** A story in our bank's words, with the clause's names. */
const bankStory = (c: Clause, i: number) =>
  fillTemplate(
    OUR_BANK[c.relations]![c.genders]![i]!,
    c.people.map((p) => p.name),
  );

const c1 = clause('c1.sister-father.male-female-male', 11);
const c1b = clause('c1.sister-father.male-female-male', 99);
const c2 = clause('c1.mother.male-female', 12);
const c3 = clause('c1.grandson.female-male', 13);
const c4 = clause('c1.brother-son.male-male-male', 14);

const s1 = storyRow('w1', 0, c1, bankStory(c1, 0));
const s2 = storyRow('w1', 1, c2, bankStory(c2, 0));
const s3 = storyRow('w1', 2, c3, 'Nobody is named here at all.');
const s4 = storyRow('w1', 3, c4, bankStory(c4, 0));
const s5 = storyRow('w2', 0, c1b, bankStory(c1b, 1));
const s6 = storyRow('w2', 1, c2, factSentences(c2).join(' ') + ' They live by the sea.');

const rows: ResultRow[] = [
  s1,
  s2,
  s3,
  s4,
  s5,
  s6,
  // r1, r2, r3 review three stories each; s4 gets two reviews, s6 none.
  reviewRow('r1', 0, s1, GOOD),
  reviewRow('r1', 1, s2, GOOD),
  reviewRow('r1', 2, s5, GOOD),
  reviewRow('r2', 0, s1, GOOD),
  reviewRow('r2', 1, s2, bad('missing-fact')),
  reviewRow('r2', 2, s4, GOOD),
  reviewRow('r3', 0, s1, GOOD),
  reviewRow('r3', 1, s2, GOOD),
  reviewRow('r3', 2, s5, GOOD),
  reviewRow('r4', 0, s4, GOOD),
  reviewRow('r4', 1, s5, GOOD),
];

/** Reviews that must be left out, each for its own reason. */
const strayReviews: ResultRow[] = [
  reviewRow('w1', 10, s1, bad('other')),
  reviewRow('r1', 9, s1, bad('ungrammatical')),
  { ...reviewRow('r5', 0, s1, bad('reveals-implied')), story: 'Another text.' },
  { ...reviewRow('r5', 1, s1, GOOD), puzzle_id: 'ghost/3' },
  { ...reviewRow('r6', 0, s2, bad('other')), participant_id: 'P-w1' },
];

describe('collectTemplates', () => {
  it('keeps the stories every reviewer passed, as templates of their clause key', () => {
    expect(s3.correct).toBe(false);
    const r = collectTemplates(rows, DEFAULT_COLLECT);
    expect([r.paraphrases, r.accepted, r.templates]).toEqual([6, 2, 2]);
    expect(Object.keys(r.bank)).toEqual(['sister-father']);
    expect(r.bank['sister-father']!['male-female-male']).toEqual([
      OUR_BANK['sister-father']!['male-female-male']![0],
      OUR_BANK['sister-father']!['male-female-male']![1],
    ]);
    expect(validateTemplateData(r.bank).problems).toEqual([]);
    expect(r.problems).toEqual([]);
    const status = Object.fromEntries(r.perStory.map((s) => [s.id, [s.status, s.why]]));
    expect(status).toEqual({
      'w1/0': ['accepted', '3 good, 0 bad'],
      'w1/1': ['rejected', '2 good, 1 bad (every reviewer must say good)'],
      'w1/2': ['failed-checks', 'the live checks did not pass'],
      'w1/3': ['pending', '2 of 3 reviews'],
      'w2/0': ['accepted', '3 good, 0 bad'],
      'w2/1': ['pending', '0 of 3 reviews'],
    });
  });

  it('takes the majority, fewer reviews, or none when asked', () => {
    const majority = collectTemplates(rows, { ...DEFAULT_COLLECT, agree: 'majority' });
    expect([majority.accepted, majority.templates]).toEqual([3, 3]);
    expect(majority.bank['mother']!['male-female']).toEqual([OUR_BANK['mother']!['male-female']![0]]);
    expect(collectTemplates(rows, { ...DEFAULT_COLLECT, minReviews: 2 }).accepted).toBe(3);
    // --min-reviews 0: a story without reviews is accepted; one with reviews is still judged by them.
    const pilot = collectTemplates(rows, { ...DEFAULT_COLLECT, minReviews: 0 });
    expect(pilot.perStory.filter((s) => s.status === 'accepted').map((s) => s.id)).toEqual([
      'w1/0',
      'w1/3',
      'w2/0',
      'w2/1',
    ]);
  });

  it('splits each list into seeded, disjoint train and test halves', () => {
    const a = collectTemplates(rows, { ...DEFAULT_COLLECT, testShare: 0.5, seed: 3 });
    expect(bankSize(a.train)).toBe(1);
    expect(bankSize(a.test)).toBe(1);
    const t = a.train['sister-father']!['male-female-male']![0];
    expect(a.test['sister-father']!['male-female-male']).not.toContain(t);
    expect(collectTemplates(rows, { ...DEFAULT_COLLECT, testShare: 0.5, seed: 3 })).toEqual(a);
    const none = collectTemplates(rows, { ...DEFAULT_COLLECT, testShare: 0 });
    expect([bankSize(none.train), bankSize(none.test)]).toEqual([2, 0]);
    expect(() => collectTemplates(rows, { ...DEFAULT_COLLECT, testShare: 1 })).toThrow(/test share/);
    expect(() => collectTemplates(rows, { ...DEFAULT_COLLECT, minReviews: -1 })).toThrow(/reviews needed/);
  });

  it('leaves out and reports reviews by the writer, twice by one session, of other text or of no story', () => {
    const r = collectTemplates([...rows, ...strayReviews], DEFAULT_COLLECT);
    expect(r.accepted).toBe(2);
    expect(r.problems).toEqual([
      {
        story_id: 'ghost/3',
        problem: "1 review of a story that is not in the data (give the paraphrase study's rows too)",
      },
      { story_id: 'w1/0', problem: "review w1/10 is by the story's own writer: left out" },
      { story_id: 'w1/0', problem: 'review r1/9 is a second review by the same session: left out' },
      { story_id: 'w1/0', problem: 'review r5/0 shows a different text from the story: left out' },
      { story_id: 'w1/1', problem: "review r6/0 is by the story's own writer: left out" },
    ]);
  });

  it('reports a row whose story fails the checks it is said to have passed', () => {
    // Names the placeholders cannot place (Mary is outside the facts) are refused by the live
    // checks, so they reach collect only in a row changed after its checks.
    const good = storyRow('w3', 0, c2, factSentences(c2)[0]!);
    const changed = { ...good, story: `${good.story} Mary was there too.` };
    const more = [changed, ...['r1', 'r2', 'r3'].map((r) => reviewRow(r, 5, changed, GOOD))];
    expect(changed.correct).toBe(true);
    const r = collectTemplates([...rows, ...more], DEFAULT_COLLECT);
    expect([r.accepted, r.templates]).toEqual([2, 2]);
    expect(r.perStory.find((s) => s.id === 'w3/0')!.status).toBe('failed-checks');
    expect(r.problems).toEqual([
      {
        story_id: 'w3/0',
        problem:
          'its row says the checks passed, but they fail now: Mary is not in the facts: write only about the people named in them.',
      },
    ]);
  });

  it('keeps a template met twice once, and says so', () => {
    const again = storyRow('w3', 0, c1, s1.story);
    const r = collectTemplates(
      [
        ...rows,
        again,
        reviewRow('r1', 7, again, GOOD),
        reviewRow('r2', 7, again, GOOD),
        reviewRow('r3', 7, again, GOOD),
      ],
      DEFAULT_COLLECT,
    );
    expect([r.accepted, r.templates]).toEqual([3, 2]);
    expect(r.problems).toEqual([{ story_id: 'w3/0', problem: 'gives the same template as w1/0: kept once' }]);
  });
});

describe('collectionSummary', () => {
  it("reports the dashboard's figures (κ and rates computed by hand)", () => {
    const s = collectionSummary(rows, { minReviews: 3, agree: 'all' });
    expect(s).toMatchObject({
      paraphrases: 6,
      passedChecks: 5,
      reviewed: 4,
      reviews: 11,
      accepted: 2,
      rejected: 1,
      pending: 2,
      unanswered: 0,
      reasons: { ungrammatical: 0, 'missing-fact': 1, 'reveals-implied': 0, other: 0 },
      paperJaccard: { unigram: 0.201, bigram: 0.0385 },
    });
    expect(s.acceptanceRate).toBeCloseTo(2 / 3, 12);
    // Stories with two or more reviews: [3,0], [2,1], [2,0], [3,0] (good, bad).
    expect(s.unanimous).toBeCloseTo(3 / 4, 12);
    // P̄ = (1 + 1/3 + 1 + 1)/4 = 5/6; P̄e = (10/11)² + (1/11)² = 101/121; κ = (5/6 − 101/121)/(20/121) = −1/120.
    expect(s.kappa.kappa).toBeCloseTo(-1 / 120, 12);
    expect(s.kappa.items).toBe(4);
  });

  it('counts stories per cell against every collectable cell', () => {
    const s = collectionSummary(rows);
    expect(s.cells).toHaveLength(26 + 112 + 676);
    const cell = s.cells.find((c) => c.id === c1.id)!;
    expect(cell).toMatchObject({ k: 2, fComb: 'sister-father', stories: 2, passed: 2, accepted: 2 });
    expect(cell.bankTemplates).toBe(OUR_BANK['sister-father']!['male-female-male']!.length);
    expect(s.cells.find((c) => c.id === c3.id)).toMatchObject({ stories: 1, passed: 0, accepted: 0 });
    expect(s.cells.reduce((n, c) => n + c.stories, 0)).toBe(6);
  });

  it('measures within-clause overlap with the names taken out', () => {
    const s = collectionSummary(rows);
    // Two clauses have two passing stories: sister-father (s1, s5) and mother (s2, s6).
    expect(s.jaccard.clauses).toBe(2);
    expect(s.jaccard.stories).toBe(5);
    expect(s.jaccard.unigram).toBeGreaterThan(0);
    expect(s.jaccard.unigram).toBeLessThan(1);
    expect(s.acceptedJaccard).toMatchObject({ clauses: 1, stories: 2 });
    // Names are not words of the overlap: the same story with other names overlaps fully.
    const twin = storyRow('w9', 0, c1b, bankStory(c1b, 0));
    const alone = collectionSummary([s1, twin], { minReviews: 0, agree: 'all' });
    expect([alone.jaccard.unigram, alone.jaccard.bigram]).toEqual([1, 1]);
  });

  it('is empty but well formed without rows', () => {
    const s = collectionSummary([]);
    expect(s).toMatchObject({ paraphrases: 0, acceptanceRate: null, unanimous: null, stories: [] });
    expect(s.kappa.kappa).toBeNull();
  });
});
