import { describe, expect, it } from 'vitest';
import { clauseFromId, factSentences, type Clause } from './clause';
import { storyRow } from './testRows';
import { withDefaults } from '../definition/definition';
import { rowsToCsv, rowsToJson } from '../results/results';
import { authorTag, itemOfStory, participantsNeeded, readStoriesFile, storiesFromRows } from './reviewStories';
import {
  fetchCoverage,
  fetchReviewItems,
  readReviewItemsAnswer,
  reviewItemsUrl,
  type JsonFetch,
} from '../delivery/serverApi';

const clause = (id: string, seed: number): Clause => {
  const c = clauseFromId(id, seed);
  if ('error' in c) throw new Error(c.error);
  return c;
};

const AUNT = clause('c1.father-sister.female-male-female', 7);
const SON = clause('c1.son.female-male', 8);

/** Rows of a paraphrase study: two stories that pass, one that does not, one timed out. */
function paraphraseRows() {
  const good = storyRow('s-1', 0, AUNT, factSentences(AUNT).join(' '));
  const second = storyRow('s-2', 1, SON, `${factSentences(SON).join(' ')} They get on well.`);
  const failing = storyRow('s-2', 2, SON, 'Too short.');
  const timedOut = { ...storyRow('s-3', 0, SON, ''), ended_on: 'timeout' as const };
  return [good, second, failing, { ...second, participant_id: '', session_id: 's-4' }, timedOut];
}

describe('embedded review stories', () => {
  it('takes the stories that passed the live checks, with their writer only as a tag', () => {
    const stories = storiesFromRows(paraphraseRows());
    expect(stories).toEqual([
      {
        id: 's-1/0',
        clause: AUNT.id,
        seed: 7,
        story: factSentences(AUNT).join(' '),
        author: authorTag('P-s-1'),
      },
      {
        id: 's-2/1',
        clause: SON.id,
        seed: 8,
        story: expect.stringMatching(/They get on well\.$/),
        author: authorTag('P-s-2'),
      },
      { id: 's-4/1', clause: SON.id, seed: 8, story: expect.stringMatching(/They get on well\.$/) },
    ]);
    expect(authorTag('P-s-1')).toMatch(/^[0-9a-f]{8}$/);
    expect(authorTag('P-s-1')).not.toBe(authorTag('P-s-2'));
  });

  it('reads them from a CSV or JSON export, or a stories file, and says what is wrong with a file', () => {
    const rows = paraphraseRows();
    const expected = storiesFromRows(rows);
    expect(readStoriesFile('para.csv', rowsToCsv(rows))).toEqual(expected);
    expect(readStoriesFile('para.json', rowsToJson(rows))).toEqual(expected);
    expect(readStoriesFile('para.stories.json', JSON.stringify(expected))).toEqual(expected);

    expect(() => readStoriesFile('empty.csv', rowsToCsv([rows[2]!]))).toThrow(
      /^empty\.csv: no paraphrase stories that passed the live checks/,
    );
    expect(() => readStoriesFile('x.csv', 'not,a,results,file\n1,2,3,4\n')).toThrow(/^x\.csv/);
    expect(() =>
      readStoriesFile('bad.json', '[{"id":"a/1","clause":"c1.son.female-female","seed":1,"story":"x"}]'),
    ).toThrow(/^bad\.json: story a\/1: clause "c1\.son\.female-female"/);
    expect(() => readStoriesFile('broken.json', '[{')).toThrow('broken.json: not a JSON list of stories');
  });

  it('become review items with their clause’s query and gold', () => {
    const [story] = storiesFromRows(paraphraseRows());
    expect(itemOfStory(story!)).toEqual({
      story_id: 's-1/0',
      seed: 7,
      k: 2,
      clause_id: AUNT.id,
      query_a: AUNT.people[0]!.name,
      query_b: AUNT.people[2]!.name,
      gold: 'aunt',
      story: story!.story,
    });
    expect(itemOfStory({ ...story!, clause: 'c1.nobody.male-male' })).toEqual({
      error: expect.stringMatching(/^story s-1\/0: clause "c1\.nobody\.male-male": "nobody" is not a relation word/),
    });
  });

  it('counts the participants it takes for every story to get its reviews', () => {
    const reviewStories = storiesFromRows(paraphraseRows());
    expect(
      participantsNeeded(withDefaults({ kind: 'review', reviewStories, reviewsPerStory: 3, reviewsPerParticipant: 2 })),
    ).toBe(5);
  });
});

/** A fetch that answers with one status and body, and remembers what was asked. */
function fakeFetch(status: number, body: unknown, headers: Record<string, string> = {}) {
  const asked: { url: string; headers?: Record<string, string> }[] = [];
  const fetchFn: JsonFetch = async (url, init) => {
    asked.push({ url, ...(init.headers ? { headers: init.headers } : {}) });
    return {
      ok: status >= 200 && status < 300,
      status,
      json: async () => body,
      headers: { get: (n: string) => headers[n.toLowerCase()] ?? null },
    } as Awaited<ReturnType<JsonFetch>>;
  };
  return { fetchFn, asked };
}

describe('the live review queue, client side', () => {
  const item = {
    story_id: 'p-1/0',
    seed: 7,
    k: 2,
    clause_id: AUNT.id,
    query_a: 'A',
    query_b: 'B',
    gold: 'aunt',
    story: 'A story.',
  };

  it('asks beside the page for the session, with the secret in a header, and keeps at most n items', async () => {
    const { fetchFn, asked } = fakeFetch(200, { items: [item, { ...item, story_id: 'p-2/0' }] });
    const answer = await fetchReviewItems(fetchFn, 'https://lab.example/sub/page', 'rev', 'srv 1', 'sec', 1);
    expect(answer).toEqual({ ok: true, items: [item] });
    expect(asked).toEqual([
      {
        url: 'https://lab.example/sub/api/studies/rev/review-items?session=srv%201',
        headers: { 'x-session-secret': 'sec' },
      },
    ]);
    expect(reviewItemsUrl('https://lab.example/', 'r', 's')).toBe(
      'https://lab.example/api/studies/r/review-items?session=s',
    );
  });

  it('tells refusals (retrying cannot help) from what may be tried again', async () => {
    expect(readReviewItemsAnswer(403, { error: 'wrong secret' })).toEqual({
      ok: false,
      kind: 'refused',
      message: 'wrong secret',
    });
    expect(readReviewItemsAnswer(409, null)).toEqual({
      ok: false,
      kind: 'refused',
      message: 'the results server answered 409',
    });
    expect(readReviewItemsAnswer(429, { error: 'slow down' }, '7')).toEqual({
      ok: false,
      kind: 'unavailable',
      message: 'slow down',
      retryAfterS: 7,
    });
    expect(readReviewItemsAnswer(503, null)).toMatchObject({ ok: false, kind: 'unavailable' });
    // Items this page cannot show are not taken for stories.
    expect(readReviewItemsAnswer(200, { items: [{ ...item, clause_id: 'c1.nobody.male-male' }] })).toMatchObject({
      ok: false,
      kind: 'unavailable',
      message: 'the results server gave review items this page cannot read',
    });
    expect(readReviewItemsAnswer(200, { items: [{ ...item, seed: '7' }] })).toMatchObject({ ok: false });
    const offline: JsonFetch = () => Promise.reject(new TypeError('Failed to fetch'));
    expect(await fetchReviewItems(offline, 'https://lab.example/', 'rev', 's', undefined, 3)).toEqual({
      ok: false,
      kind: 'unavailable',
      message: 'the results server cannot be reached',
    });
  });

  it('reads the stories per clause for favouring the least covered', async () => {
    const { fetchFn, asked } = fakeFetch(200, {
      study_id: 'para',
      stories: 3,
      coverage: { [SON.id]: 2, [AUNT.id]: 1, x: -1 },
    });
    expect(await fetchCoverage(fetchFn, 'https://lab.example/', 'para')).toEqual({
      ok: true,
      coverage: { [SON.id]: 2, [AUNT.id]: 1 },
    });
    expect(asked[0]!.url).toBe('https://lab.example/api/studies/para/coverage');
    const missing = fakeFetch(404, { error: 'no study "para"' });
    expect(await fetchCoverage(missing.fetchFn, 'https://lab.example/', 'para')).toEqual({
      ok: false,
      message: 'the results server gave no coverage: no study "para"',
    });
  });
});
