import { describe, expect, it } from 'vitest';
import { type Clause, clauseFromId, factSentences, makeClause } from './clause';
import { paraphraseFields, parseReviewResponse, readCollectedRows, reviewFields, reviewResponse } from './rows';
import { bad, collectionRow, GOOD, reviewRow, storyRow } from './testRows';

const john = makeClause(['sister', 'father'], 'male', ['Patrick', 'Sylvia', 'John'], 4242);
const ben = makeClause(['mother'], 'male', ['Ben', 'Anna'], 7);

describe('paraphraseFields', () => {
  it('records the clause, the implied fact and the story as written', () => {
    expect(paraphraseFields(john, 'Some story.', true)).toEqual({
      phase: 'main',
      puzzle_id: 'c1.sister-father.male-female-male',
      seed: 4242,
      k: 2,
      task: 1,
      strict: false,
      query_a: 'Patrick',
      query_b: 'John',
      gold: 'father',
      response: '',
      correct: true,
      difficulty: null,
      story: 'Some story.',
      ended_on: 'response',
    });
  });

  it('records the fact itself for a single fact, and no story for a skipped trial', () => {
    expect(paraphraseFields(ben, 'x', true)).toMatchObject({ query_a: 'Ben', query_b: 'Anna', gold: 'mother' });
    expect(paraphraseFields(ben, 'draft', true, 'timeout')).toMatchObject({
      story: '',
      correct: false,
      ended_on: 'timeout',
    });
  });
});

describe('review responses', () => {
  it('writes reasons in the fixed order and reads them back', () => {
    expect(reviewResponse(GOOD)).toBe('good');
    expect(reviewResponse(bad('reveals-implied', 'ungrammatical'))).toBe('bad:ungrammatical,reveals-implied');
    expect(() => reviewResponse(bad())).toThrow(/at least one reason/);
    expect(parseReviewResponse('bad:missing-fact,other')).toEqual({
      verdict: 'bad',
      reasons: ['missing-fact', 'other'],
    });
    for (const wrong of ['bad', 'bad:', 'bad:other,missing-fact', 'bad:rude', 'bad:other,other', 'Good']) {
      expect(parseReviewResponse(wrong)).toHaveProperty('error');
    }
  });

  it('copies the reviewed story into the review row', () => {
    const story = storyRow('w1', 3, john, 'John is the father of Sylvia. Sylvia has a brother Patrick.');
    const r = reviewRow('r1', 0, story, bad('missing-fact'));
    expect(r).toMatchObject({
      puzzle_id: 'w1/3',
      seed: 4242,
      k: 2,
      query_a: 'Patrick',
      query_b: 'John',
      gold: 'father',
      story: story.story,
      response: 'bad:missing-fact',
      correct: false,
    });
    const item = {
      story_id: 'w1/3',
      seed: 1,
      k: 1,
      clause_id: ben.id,
      query_a: 'a',
      query_b: 'b',
      gold: 'mother',
      story: 's',
    };
    expect(reviewFields(item, null, 'timeout')).toMatchObject({ response: '', correct: false, ended_on: 'timeout' });
  });
});

describe('readCollectedRows', () => {
  const ok = (c: Clause | { error: string }): Clause => {
    if ('error' in c) throw new Error(c.error);
    return c;
  };
  // Rows name their people by the clause seed: the clause the row rebuilds.
  const seeded = ok(clauseFromId(john.id, 4242));
  const text = factSentences(seeded).join(' ');

  it('sorts stories, reviews, unanswered trials and other rows', () => {
    const s = storyRow('w1', 0, seeded, text);
    const rows = [
      s,
      collectionRow('para', 'w1', 1, paraphraseFields(ok(clauseFromId(ben.id, 7)), '', false, 'skipped')),
      reviewRow('r1', 0, s, GOOD),
      collectionRow('review', 'r1', 1, { puzzle_id: 'w1/0', response: '', ended_on: 'timeout' }),
      collectionRow('solve', 's1', 2, { puzzle_id: 'main-k2-t1-0', response: 'uncle' }),
      collectionRow('solve', 's1', 0, { phase: 'practice', puzzle_id: 'practice-0', response: 'uncle' }),
    ];
    const read = readCollectedRows(rows);
    expect(read.stories.map((x) => [x.id, x.passed, x.clause, x.text])).toEqual([['w1/0', true, seeded, text]]);
    expect(read.reviews.map((x) => [x.storyId, x.verdict])).toEqual([['w1/0', GOOD]]);
    expect(read.unanswered).toBe(2);
    expect(read.other).toBe(2);
    expect(read.problems).toEqual([]);
  });

  it('reports rows it cannot use, by row', () => {
    const s = storyRow('w1', 0, seeded, text);
    const rows = [
      { ...s, puzzle_id: 'c1.father.male-female' },
      { ...s, trial_index: 1, gold: 'uncle' },
      { ...s, trial_index: 2, k: 3 },
      { ...reviewRow('r1', 0, s, GOOD), response: 'fine' },
      { ...reviewRow('r1', 1, s, GOOD), correct: false },
    ];
    expect(readCollectedRows(rows).problems).toEqual([
      { row: 'w1/0', message: expect.stringMatching(/give the genders male-male, not male-female/) as string },
      {
        row: 'w1/1',
        message: 'gold is "uncle" but clause c1.sister-father.male-female-male with seed 4242 gives "father"',
      },
      { row: 'w1/2', message: expect.stringMatching(/^k is 3 but clause/) as string },
      { row: 'r1/0', message: expect.stringMatching(/^response: "fine" is not a verdict/) as string },
      { row: 'r1/1', message: 'correct is false but the verdict is good (correct is true for "good" only)' },
    ]);
  });

  it('rebuilds a clause of any seed from its row', () => {
    const c = clauseFromId('c1.husband-son-wife.female-male-male-female', 991);
    if ('error' in c) throw new Error(c.error);
    const read = readCollectedRows([storyRow('w', 0, c, 'anything at all here')]);
    expect(read.stories[0]!.clause).toEqual(c);
    expect(read.stories[0]!.passed).toBe(false);
  });
});
