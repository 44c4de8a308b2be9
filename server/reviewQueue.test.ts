/**
 * The live review queue (issue 24), in-process through Hono's app.request() with a real SQLite
 * file: which stories a reviewer gets (fewest reviews first, never their own, never twice, at most
 * reviewsPerStory reviews each, the same items again), the refusals, the review rows that come
 * back through POST api/rows, coverage, the limit, and the schema step on an older database.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { withDefaults, type StudyDefinition } from '../src/study/definition/definition';
import type { ResultRow } from '../src/study/results/results';
import type { SessionGrant } from '../src/study/delivery/serverApi';
import type { createApp } from './app';
import { DEFAULT_ACCESS_LIMITS } from './limits';
import { reviewResponseProblem, type ReviewItem } from './reviewQueue';
import { StudyAccess } from './sessions';
import { ResultStore, SCHEMA_VERSION } from './store';
import { downgradeDatabase, makeRow, scheduledRow, startServer, tempDirs, testApp } from './testServer';
import { scheduleParticipant } from '../src/study/schedule/schedule';
import { clauseFromId, clauseQuery, factSentences } from '../src/study/collect/clause';

const tempDir = tempDirs('clutrr-review-queue-');
const RESEARCHER = 'researcher-token-for-tests-0123456789';

/** A study sending to this server, with the defaults of its kind for everything not given. */
const study = (over: Partial<StudyDefinition>): StudyDefinition =>
  withDefaults({ sinks: [{ kind: 'server' }], ...over });

const PARAPHRASE = study({ studyId: 'para', kind: 'paraphrase' });
const REVIEW = study({
  studyId: 'rev',
  kind: 'review',
  sourceStudy: 'para',
  reviewsPerStory: 3,
  reviewsPerParticipant: 3,
});

/** Clauses of k = 1, 2, 3 (cells of clauseCells). */
const CLAUSES = ['c1.mother.male-female', 'c1.son-son.male-male-male', 'c1.son-son-brother.male-male-male-male'];

interface Setup {
  store: ResultStore;
  app: ReturnType<typeof createApp>;
  access: StudyAccess;
  clock: { now: Date };
  logs: Record<string, unknown>[];
}

function setup(options: { limits?: typeof DEFAULT_ACCESS_LIMITS } = {}): Setup {
  const store = ResultStore.open(path.join(tempDir(), 'results.sqlite'));
  const logs: Record<string, unknown>[] = [];
  const clock = { now: new Date() };
  const app = testApp(store, RESEARCHER, (e) => logs.push(e), {
    trustProxy: true,
    ...(options.limits ? { limits: options.limits } : {}),
  });
  // The app's own StudyAccess issues sessions with the real clock; this one (same database) reads
  // the queue with a clock the test moves.
  const access = new StudyAccess(store, { now: () => clock.now });
  return { store, app, access, clock, logs };
}

/** Registers a study as `study register` does (checked definition, issued sessions). */
function register(t: Setup, def: StudyDefinition): void {
  t.access.register({ definition: def }, 'issued');
}

/**
 * A paraphrase row (collect-spec.md's mapping) written by `session`, trial `trial`: a real clause
 * (by its id and seed) told by its facts as shown and a sentence of the writer's own, so it
 * passes the live checks, which the server runs again before handing a story out.
 */
function storyRow(session: string, trial: number, over: Partial<ResultRow> = {}): ResultRow {
  const clause = clauseFromId(CLAUSES[trial % CLAUSES.length]!, 5000 + trial);
  if ('error' in clause) throw new Error(clause.error);
  const q = clauseQuery(clause);
  return makeRow('para', session, trial, {
    participant_id: `writer-${session}`,
    phase: 'main',
    puzzle_id: clause.id,
    seed: clause.seed,
    k: clause.k,
    task: 1,
    strict: false,
    query_a: clause.people[q.a]!.name,
    query_b: clause.people[q.b]!.name,
    gold: q.word,
    response: '',
    correct: true,
    difficulty: null,
    ended_on: 'response',
    story: `${factSentences(clause).join(' ')} They met on day ${trial} in ${session}.`,
    ...over,
  });
}

function addStories(t: Setup, rows: ResultRow[]): void {
  const outcome = t.store.ingest({ sessions: [], rows });
  expect(outcome.status).toBe('stored');
}

/** Reviewers' addresses: each new reviewer from its own (a study admits a few new sessions an hour per address). */
let reviewerAddress = 0;

async function startReviewer(t: Setup, participantId = ''): Promise<SessionGrant> {
  const res = await t.app.request('/api/sessions', {
    method: 'POST',
    headers: {
      'content-type': 'text/plain;charset=UTF-8',
      'x-forwarded-for': `198.18.${++reviewerAddress >> 8}.${reviewerAddress & 255}`,
    },
    // The same participant id continues its session with its resume code (sessions.ts).
    body: JSON.stringify({
      study_id: 'rev',
      ...(participantId ? { participant_id: participantId } : {}),
      ...(codesOf(t).has(participantId) ? { resume_code: codesOf(t).get(participantId) } : {}),
    }),
  });
  expect(res.status === 201 || res.status === 200).toBe(true);
  const grant = (await res.json()) as SessionGrant;
  if (participantId !== '') codesOf(t).set(participantId, grant.resume_code);
  return grant;
}

/** The resume codes of the reviewers started so far in a setup, by participant id. */
const codes = new WeakMap<Setup, Map<string, string>>();
const codesOf = (t: Setup) => codes.get(t) ?? codes.set(t, new Map()).get(t)!;

async function ask(
  t: Setup,
  grant: Pick<SessionGrant, 'session_id' | 'secret'>,
  studyId = 'rev',
  address = '192.0.2.9',
): Promise<{ status: number; json: { items?: ReviewItem[]; error?: string; reason?: string }; res: Response }> {
  const res = await t.app.request(
    `/api/studies/${studyId}/review-items?session=${encodeURIComponent(grant.session_id)}`,
    { headers: { 'x-session-secret': grant.secret, 'x-forwarded-for': address } },
  );
  return { status: res.status, json: (await res.json()) as never, res };
}

const ids = (items: readonly ReviewItem[] | undefined) => (items ?? []).map((i) => i.story_id);

describe('GET api/studies/<id>/review-items', () => {
  it('hands out the stories with the fewest reviews, never the reviewer’s own, the same items when asked again', async () => {
    const t = setup();
    register(t, PARAPHRASE);
    register(t, REVIEW);
    // Writers w1 (3 stories) and w2 (3), one w2 story failed its checks, one timed out empty.
    addStories(
      t,
      [0, 1, 2].map((i) => storyRow('w1', i)),
    );
    addStories(t, [
      storyRow('w2', 0),
      storyRow('w2', 1),
      storyRow('w2', 2, { correct: false }),
      storyRow('w2', 3, { story: '', ended_on: 'timeout' }),
      // The page said the checks passed, but the text names nobody: the server's own checks keep it out.
      storyRow('w2', 4, { story: 'Somebody went to the park with somebody else.' }),
    ]);
    const eligible = ['w1/0', 'w1/1', 'w1/2', 'w2/0', 'w2/1'];

    const r1 = await startReviewer(t, 'R1');
    const a1 = await ask(t, r1);
    expect(a1.status).toBe(200);
    expect(a1.json.items).toHaveLength(3);
    expect(ids(a1.json.items).every((id) => eligible.includes(id))).toBe(true);
    // The item carries the paraphrase row's fields (collect-spec.md).
    const first = a1.json.items![0]!;
    const [session, trial] = first.story_id.split('/');
    const row = t.store.rows('para').find((r) => r.session_id === session && r.trial_index === Number(trial))!;
    expect(first).toEqual({
      story_id: first.story_id,
      seed: row.seed,
      k: row.k,
      clause_id: row.puzzle_id,
      query_a: row.query_a,
      query_b: row.query_b,
      gold: row.gold,
      story: row.story,
    });
    // Asking again: the same items in the same order, nothing new stored.
    expect(ids((await ask(t, r1)).json.items)).toEqual(ids(a1.json.items));
    expect(t.store.handleForTests().prepare('SELECT COUNT(*) AS n FROM review_assignments').get()).toEqual({ n: 3 });

    // The second reviewer gets the two stories nobody has yet first, then one of the others.
    const r2 = await startReviewer(t, 'R2');
    const a2 = ids((await ask(t, r2)).json.items);
    const untouched = eligible.filter((id) => !ids(a1.json.items).includes(id));
    expect(a2.slice(0, 2).sort()).toEqual(untouched.sort());
    expect(new Set(a2).size).toBe(3);

    // A writer who also reviews (same participant id) never gets their own stories.
    const w1 = await startReviewer(t, 'writer-w1');
    const own = ids((await ask(t, w1)).json.items);
    expect(own).toHaveLength(2);
    expect(own.every((id) => id.startsWith('w2/'))).toBe(true);
  });

  it('gives a story at most reviewsPerStory reviews, counting items handed out and not yet returned', async () => {
    const t = setup();
    register(t, PARAPHRASE);
    register(
      t,
      study({ studyId: 'rev', kind: 'review', sourceStudy: 'para', reviewsPerStory: 2, reviewsPerParticipant: 2 }),
    );
    addStories(t, [storyRow('w1', 0), storyRow('w1', 1)]);
    const got: string[][] = [];
    for (let i = 0; i < 3; i++) got.push(ids((await ask(t, await startReviewer(t, `R${i}`))).json.items));
    // Two stories × two reviews: the first two reviewers take all four slots; the third gets none.
    expect(got[0]!.sort()).toEqual(['w1/0', 'w1/1']);
    expect(got[1]!.sort()).toEqual(['w1/0', 'w1/1']);
    expect(got[2]).toEqual([]);
    // A story written later tops the third reviewer's list up (asking again), without changing what they had.
    addStories(t, [storyRow('w2', 0)]);
    expect(itemsOf(t.access.reviewItems('rev', ...(await creds(t, 'R2'))))).toEqual(['w2/0']);
  });

  it('an honest reviewer gets items while another address holds 30 review sessions that never answer', () => {
    const t = setup();
    register(t, PARAPHRASE);
    register(t, REVIEW);
    // 12 stories × 3 reviews: 36 places; each reviewer takes 3.
    addStories(
      t,
      Array.from({ length: 12 }, (_, i) => storyRow(`w${i}`, 0)),
    );
    const issueFrom = (address: string) => {
      const o = t.access.issue({ study_id: 'rev' }, { address });
      return o.ok ? o.grant : o;
    };
    const t0 = t.clock.now.getTime();
    // The flooder, online: at most 5 new sessions an hour from its address, so 30 take six hours.
    let held = 0;
    for (let hour = 0; hour < 6; hour++) {
      t.clock.now = new Date(t0 + hour * 61 * 60_000);
      for (let i = 0; i < 6; i++) {
        const g = issueFrom('203.0.113.13');
        if (!('session_id' in g)) {
          expect(g).toMatchObject({ status: 429, reason: 'rate' });
          continue;
        }
        held++;
        expect(itemsOf(t.access.reviewItems('rev', g.session_id, g.secret))).toHaveLength(3);
      }
    }
    expect(held).toBe(30);
    // None of its sessions ever sends a review: only the last hour's hold places (15 of 36), until
    // their claimMinutes pass too.
    const honest = issueFrom('192.0.2.200');
    if (!('session_id' in honest)) throw new Error('the honest reviewer got no session');
    expect(itemsOf(t.access.reviewItems('rev', honest.session_id, honest.secret))).toHaveLength(3);
  });

  it('frees the slots of sessions that expired without a review, and of reviews that timed out', () => {
    const t = setup();
    register(t, PARAPHRASE);
    // One review per story; maxAgeMinutes 60: a reviewer's items count for an hour after their session was issued.
    register(
      t,
      study({
        studyId: 'rev',
        kind: 'review',
        sourceStudy: 'para',
        reviewsPerStory: 1,
        reviewsPerParticipant: 1,
        maxAgeMinutes: 60,
      }),
    );
    addStories(t, [storyRow('w1', 0)]);
    // Sessions issued by the test's clock (StudyAccess.issue, as POST api/sessions does).
    const issue = (participantId: string) => {
      const o = t.access.issue({ study_id: 'rev', participant_id: participantId });
      if (!o.ok) throw new Error(o.message);
      return o.grant;
    };
    const items = (g: SessionGrant) => itemsOf(t.access.reviewItems('rev', g.session_id, g.secret));
    const t0 = t.clock.now.getTime();
    const a = issue('A');
    expect(items(a)).toEqual(['w1/0']);
    const b = issue('B');
    expect(items(b)).toEqual([]);
    // An hour and a minute later A's session can no longer send its review: the slot is free.
    t.clock.now = new Date(t0 + 61 * 60_000);
    // B's session is as old: an expired session gets no new items.
    expect(items(b)).toEqual([]);
    const c = issue('C');
    expect(items(c)).toEqual(['w1/0']);
    // C's trial ended on a timeout (no verdict): the story needs a review still.
    t.store.ingest({
      sessions: [],
      rows: [makeRow('rev', c.session_id, 0, { phase: 'main', puzzle_id: 'w1/0', ended_on: 'timeout', response: '' })],
    });
    const d = issue('D');
    expect(items(d)).toEqual(['w1/0']);
    // D's verdict came back: the story has its one review.
    t.store.ingest({
      sessions: [],
      rows: [
        makeRow('rev', d.session_id, 0, { phase: 'main', puzzle_id: 'w1/0', ended_on: 'response', response: 'good' }),
      ],
    });
    expect(items(issue('E'))).toEqual([]);
    // A's items are still A's (asked again after expiry, the same list).
    expect(items(a)).toEqual(['w1/0']);
  });

  it('refuses what is not an issued session of a live review study with the right secret', async () => {
    const t = setup();
    register(t, PARAPHRASE);
    register(t, REVIEW);
    register(t, study({ studyId: 'solve' }));
    // A review study whose source is not a paraphrase study here is refused when registered…
    expect(() => register(t, study({ studyId: 'orphan', kind: 'review', sourceStudy: 'solve' }))).toThrow(
      /reviews the stories of "solve", which is not a paraphrase study registered on this server: register it first/,
    );
    // …and if its source goes missing all the same (a database edited by hand), each request says so.
    register(t, study({ studyId: 'orphan', kind: 'review', sourceStudy: 'para' }));
    t.store
      .handleForTests()
      .prepare('UPDATE studies SET definition = ? WHERE study_id = ?')
      .run(JSON.stringify(study({ studyId: 'orphan', kind: 'review', sourceStudy: 'missing' })), 'orphan');
    const r = await startReviewer(t, 'R');
    const get = async (url: string, headers: Record<string, string> = {}) => {
      const res = await t.app.request(url, { headers });
      return { status: res.status, json: (await res.json()) as { error: string; reason: string } };
    };
    const q = `?session=${r.session_id}`;
    expect(await get(`/api/studies/nope/review-items${q}`)).toMatchObject({
      status: 404,
      json: { reason: 'unknown-study' },
    });
    expect(await get('/api/studies/rev/review-items', { 'x-session-secret': r.secret })).toMatchObject({
      status: 400,
      json: { reason: 'invalid', error: expect.stringMatching(/\?session=/) },
    });
    expect(
      await get('/api/studies/rev/review-items?session=i-made-up', { 'x-session-secret': r.secret }),
    ).toMatchObject({
      status: 403,
      json: { reason: 'not-issued' },
    });
    expect(await get(`/api/studies/rev/review-items${q}`)).toMatchObject({
      status: 403,
      json: { reason: 'secret', error: expect.stringMatching(/missing.*X-Session-Secret/) },
    });
    expect(await get(`/api/studies/rev/review-items${q}`, { 'x-session-secret': 'x'.repeat(32) })).toMatchObject({
      status: 403,
      json: { reason: 'secret', error: expect.stringMatching(/wrong/) },
    });
    // The session of one study does not read another's queue.
    expect(await get(`/api/studies/para/review-items${q}`, { 'x-session-secret': r.secret })).toMatchObject({
      status: 403,
      json: { reason: 'not-issued' },
    });
    // A study that is not a live review study, and one whose source is not registered here.
    const solve = await startOther(t, 'solve');
    expect(
      await get(`/api/studies/solve/review-items?session=${solve.session_id}`, { 'x-session-secret': solve.secret }),
    ).toMatchObject({
      status: 400,
      json: { reason: 'not-review' },
    });
    const orphan = await startOther(t, 'orphan');
    expect(
      await get(`/api/studies/orphan/review-items?session=${orphan.session_id}`, { 'x-session-secret': orphan.secret }),
    ).toMatchObject({
      status: 409,
      json: { reason: 'no-source', error: expect.stringMatching(/"missing".*must register it here/) },
    });
    expect(t.logs.filter((l) => l.event === 'refused-review-items').length).toBeGreaterThanOrEqual(4);
    expect(t.store.handleForTests().prepare('SELECT COUNT(*) AS n FROM review_assignments').get()).toEqual({ n: 0 });
  });

  it('limits requests per client address (429 with Retry-After)', async () => {
    const t = setup({ limits: { ...DEFAULT_ACCESS_LIMITS, addressQueue: { perSecond: 0.01, burst: 3 } } });
    register(t, PARAPHRASE);
    register(t, REVIEW);
    const r = await startReviewer(t, 'R');
    for (let i = 0; i < 3; i++) expect((await ask(t, r, 'rev', '198.51.100.1')).status).toBe(200);
    const limited = await ask(t, r, 'rev', '198.51.100.1');
    expect(limited.status).toBe(429);
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.json.error).toMatch(/too many requests for review items/);
    expect((await ask(t, r, 'rev', '198.51.100.2')).status).toBe(200);
  });
});

describe('collection rows through POST api/rows', () => {
  const post = (t: Setup, rows: ResultRow[], grant: SessionGrant) =>
    t.app.request('/api/rows', {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify({ sessions: [], rows, secrets: [{ session_id: grant.session_id, secret: grant.secret }] }),
    });
  const refusal = async (res: Response) => ({ status: res.status, ...((await res.json()) as { error?: string }) });

  it('a review row must review a story handed to its session, as handed out, once, with a verdict', async () => {
    const t = setup();
    register(t, PARAPHRASE);
    register(t, REVIEW);
    addStories(
      t,
      [0, 1, 2].map((i) => storyRow('w1', i)),
    );
    addStories(t, [storyRow('w2', 0)]);
    const r = await startReviewer(t, 'R1');
    const items = (await ask(t, r)).json.items!;
    expect(items).toHaveLength(3);
    const handedOut = new Set(items.map((i) => i.story_id));
    const notMine = ['w1/0', 'w1/1', 'w1/2', 'w2/0'].find((id) => !handedOut.has(id))!;
    const review = (trial: number, item: ReviewItem, over: Partial<ResultRow> = {}) =>
      scheduledRow(REVIEW, r, trial, {
        participant_id: 'R1',
        puzzle_id: item.story_id,
        seed: item.seed,
        k: item.k,
        query_a: item.query_a,
        query_b: item.query_b,
        gold: item.gold,
        story: item.story,
        response: 'good',
        correct: true,
        difficulty: null,
        ended_on: 'response',
        ...over,
      });
    const [a, b, c] = items as [ReviewItem, ReviewItem, ReviewItem];
    expect((await post(t, [review(0, a)], r)).status).toBe(200);
    const other = { ...a, story_id: notMine };
    expect(await refusal(await post(t, [review(1, other)], r))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/rows\.0\.puzzle_id: .* is not a story handed to this session/),
    });
    expect(await refusal(await post(t, [review(1, b, { story: `${b.story} (edited)` })], r))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/rows\.0\.story: .* is not what story/),
    });
    expect(await refusal(await post(t, [review(1, b, { gold: 'uncle' })], r))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/rows\.0\.gold/),
    });
    expect(await refusal(await post(t, [review(1, a)], r))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/already reviewed in another trial/),
    });
    expect(await refusal(await post(t, [review(1, b, { response: 'bad', correct: false })], r))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/rows\.0\.response: "bad" is not a verdict/),
    });
    expect(await refusal(await post(t, [review(1, b, { response: 'bad:other', correct: true })], r))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/rows\.0\.correct: true does not follow the verdict/),
    });
    // Past the session's trials (reviewsPerParticipant = 3): refused by the schedule, as for any study.
    expect(await refusal(await post(t, [review(2, c, { trial_index: 3 })], r))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/trial_index: 3 is past the session.s last trial/),
    });
    expect(
      (await post(t, [review(1, b, { response: 'bad:missing-fact,reveals-implied', correct: false }), review(2, c)], r))
        .status,
    ).toBe(200);
    const stored = t.store.rows('rev');
    expect(stored.map((x) => [x.puzzle_id, x.response])).toEqual([
      [a.story_id, 'good'],
      [b.story_id, 'bad:missing-fact,reveals-implied'],
      [c.story_id, 'good'],
    ]);
    // A trial that timed out carries no verdict.
    const r2 = await startReviewer(t, 'R2');
    const d = (await ask(t, r2)).json.items![0]!;
    const timedOut = scheduledRow(REVIEW, r2, 0, {
      participant_id: 'R2',
      puzzle_id: d.story_id,
      seed: d.seed,
      k: d.k,
      query_a: d.query_a,
      query_b: d.query_b,
      gold: d.gold,
      story: d.story,
      difficulty: null,
      ended_on: 'timeout',
      response: 'good',
      correct: true,
    });
    expect(await refusal(await post(t, [timedOut], r2))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/a trial that ended on timeout has no verdict/),
    });
    expect((await post(t, [{ ...timedOut, response: '', correct: false }], r2)).status).toBe(200);
  });

  it('a live review study takes no rows of sessions the browser made up', async () => {
    const t = setup();
    register(t, PARAPHRASE);
    t.access.register({ definition: REVIEW }, 'browser');
    addStories(t, [storyRow('w1', 0)]);
    const res = await t.app.request('/api/rows', {
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify({
        sessions: [],
        rows: [makeRow('rev', 'made-up', 0, { phase: 'main', puzzle_id: 'w1/0', condition: 'untimed' })],
      }),
    });
    expect(await refusal(res)).toMatchObject({ status: 403, error: expect.stringMatching(/not one/) });
    expect(t.store.rows('rev')).toEqual([]);
  });

  it('a paraphrase row names a real clause of the study, with its query and gold', async () => {
    const t = setup();
    register(t, PARAPHRASE);
    const g = await startOther(t, 'para');
    const schedule = scheduleParticipant(PARAPHRASE, { participantNumber: g.participant, sessionSeed: g.session_id });
    expect(schedule.trials).toHaveLength(PARAPHRASE.clausesPerParticipant);
    const written = (i: number, over: Partial<ResultRow> = {}) => {
      const item = schedule.trials[i]!.item;
      const clause = clauseFromId(item.puzzleId, item.seed);
      if ('error' in clause) throw new Error(clause.error);
      const q = clauseQuery(clause);
      return scheduledRow(PARAPHRASE, g, i, {
        query_a: clause.people[q.a]!.name,
        query_b: clause.people[q.b]!.name,
        gold: q.word,
        response: '',
        correct: true,
        difficulty: null,
        ended_on: 'response',
        story: factSentences(clause).join(' '),
        ...over,
      });
    };
    expect((await post(t, [written(0)], g)).status).toBe(200);
    // A gold word the clause does not have (the schedule's clause depends on the random session id).
    const item1 = schedule.trials[1]!.item;
    const clause1 = clauseFromId(item1.puzzleId, item1.seed);
    const wrongGold = !('error' in clause1) && clauseQuery(clause1).word === 'aunt' ? 'uncle' : 'aunt';
    expect(await refusal(await post(t, [written(1, { gold: wrongGold })], g))).toMatchObject({
      status: 400,
      error: expect.stringMatching(new RegExp(`rows\\.0\\.gold: "${wrongGold}" is not what clause`)),
    });
    // A text longer than the study's word limit could ever take: refused, so its bytes are bounded.
    expect(await refusal(await post(t, [written(1, { story: 'word '.repeat(3000) })], g))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/^rows\.0\.story: 15000 characters, more than a story of at most 120 words/),
    });
    // Another clause than the schedule's: refused (the study does not favour uncovered cells).
    expect(await refusal(await post(t, [written(1, { puzzle_id: CLAUSES[0]! })], g))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/rows\.0\.puzzle_id/),
    });
  });

  it('with favourUncovered, any clause the study collects is taken, and only those', async () => {
    const t = setup();
    const def = study({ studyId: 'para', kind: 'paraphrase', favourUncovered: true, clauseKs: [1, 2] });
    register(t, def);
    const g = await startOther(t, 'para');
    const row = (i: number, clauseId: string, over: Partial<ResultRow> = {}) => {
      const clause = clauseFromId(clauseId, 77 + i);
      if ('error' in clause) throw new Error(clause.error);
      const q = clauseQuery(clause);
      return scheduledRow(def, g, i, {
        puzzle_id: clause.id,
        seed: clause.seed,
        k: clause.k,
        query_a: clause.people[q.a]!.name,
        query_b: clause.people[q.b]!.name,
        gold: q.word,
        response: '',
        correct: true,
        difficulty: null,
        ended_on: 'response',
        story: factSentences(clause).join(' '),
        ...over,
      });
    };
    expect((await post(t, [row(0, CLAUSES[0]!), row(1, CLAUSES[1]!)], g)).status).toBe(200);
    expect(await refusal(await post(t, [row(2, CLAUSES[2]!)], g))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/has 3 facts; study "para" collects clauses of 1, 2/),
    });
    expect(await refusal(await post(t, [row(2, CLAUSES[0]!, { puzzle_id: 'c1.mother.male-male' })], g))).toMatchObject({
      status: 400,
      error: expect.stringMatching(/rows\.0\.puzzle_id: clause "c1\.mother\.male-male"/),
    });
  });
});

describe('the review queue in the real server process', () => {
  it('hands out items over HTTP; after SIGKILL and a restart the same session gets the same items', async () => {
    const data = tempDir();
    let server = await startServer(data);
    try {
      const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${server.url}${p}`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain;charset=UTF-8', ...headers },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
      const auth = { authorization: `Bearer ${server.token}` };
      expect((await post('/api/studies', { definition: PARAPHRASE }, auth)).status).toBe(201);
      expect((await post('/api/studies', { definition: REVIEW }, auth)).status).toBe(201);
      // Stories of two writers, sent as their pages send them (issued sessions, the schedule's clauses).
      for (const w of ['W1', 'W2']) {
        const grant = (await (
          await post('/api/sessions', { study_id: 'para', participant_id: w })
        ).json()) as SessionGrant;
        const schedule = scheduleParticipant(PARAPHRASE, {
          participantNumber: grant.participant,
          sessionSeed: grant.session_id,
        });
        const rows = schedule.trials.map((t, i) => {
          const clause = clauseFromId(t.item.puzzleId, t.item.seed);
          if ('error' in clause) throw new Error(clause.error);
          const q = clauseQuery(clause);
          return scheduledRow(PARAPHRASE, grant, i, {
            participant_id: w,
            query_a: clause.people[q.a]!.name,
            query_b: clause.people[q.b]!.name,
            gold: q.word,
            response: '',
            correct: true,
            difficulty: null,
            ended_on: 'response',
            story: `${factSentences(clause).join(' ')} That was in ${w}'s year ${i}.`,
          });
        });
        const res = await post('/api/rows', {
          sessions: [],
          rows,
          secrets: [{ session_id: grant.session_id, secret: grant.secret }],
        });
        expect(res.status).toBe(200);
      }
      const reviewer = (await (
        await post('/api/sessions', { study_id: 'rev', participant_id: 'R' })
      ).json()) as SessionGrant;
      const items = async () => {
        const res = await fetch(`${server.url}/api/studies/rev/review-items?session=${reviewer.session_id}`, {
          headers: { 'x-session-secret': reviewer.secret },
          signal: AbortSignal.timeout(10_000),
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { items: ReviewItem[] }).items.map((i) => i.story_id);
      };
      const first = await items();
      expect(first).toHaveLength(3);
      // The assignments were committed before the answer: a SIGKILL loses none of them.
      await server.kill();
      server = await startServer(data);
      expect(await items()).toEqual(first);
      const coverage = (await (await fetch(`${server.url}/api/studies/para/coverage`)).json()) as { stories: number };
      expect(coverage.stories).toBe(2 * PARAPHRASE.clausesPerParticipant);
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe('GET api/studies/<id>/coverage', () => {
  it('counts the stories that passed their checks per clause', async () => {
    const t = setup();
    register(t, PARAPHRASE);
    register(t, REVIEW);
    addStories(
      t,
      [0, 1, 2, 3].map((i) => storyRow('w1', i)),
    );
    addStories(t, [storyRow('w2', 0), storyRow('w2', 1, { correct: false })]);
    const res = await t.app.request('/api/studies/para/coverage');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      study_id: 'para',
      stories: 5,
      coverage: { [CLAUSES[0]!]: 3, [CLAUSES[1]!]: 1, [CLAUSES[2]!]: 1 },
    });
    expect((await t.app.request('/api/studies/rev/coverage')).status).toBe(400);
    expect((await t.app.request('/api/studies/none/coverage')).status).toBe(404);
  });
});

describe('review verdicts', () => {
  it('accepts good and bad with reasons in order, and nothing else', () => {
    expect(reviewResponseProblem('good')).toBeUndefined();
    expect(reviewResponseProblem('bad:ungrammatical')).toBeUndefined();
    expect(reviewResponseProblem('bad:missing-fact,reveals-implied,other')).toBeUndefined();
    for (const bad of [
      '',
      'bad',
      'bad:',
      'Good',
      'bad:other,ungrammatical',
      'bad:other,other',
      'bad:rude',
      'good,bad',
    ]) {
      expect(reviewResponseProblem(bad), bad).toMatch(/is not a verdict/);
    }
  });
});

describe('the schema step of the review queue', () => {
  it('brings a version-2 database up to date, keeping its studies, sessions and rows', () => {
    const file = path.join(tempDir(), 'results.sqlite');
    {
      const old = ResultStore.open(file);
      old.registerStudy({ definition: withDefaults({ studyId: 'kept' }) });
      old.ingest({ sessions: [], rows: [makeRow('kept', 's1', 0), makeRow('kept', 's1', 1)] });
      downgradeDatabase(old.handleForTests(), 2);
      old.close();
      const db = new Database(file);
      expect(db.pragma('user_version', { simple: true })).toBe(2);
      db.close();
    }
    const store = ResultStore.open(file);
    expect(store.handleForTests().pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(store.rows('kept')).toHaveLength(2);
    expect(store.studies().map((s) => s.study_id)).toEqual(['kept']);
    expect(store.handleForTests().prepare('SELECT COUNT(*) AS n FROM review_assignments').get()).toEqual({ n: 0 });
    store.close();
  });
});

const itemsOf = (o: ReturnType<StudyAccess['reviewItems']>) => (o.ok ? o.items.map((i) => i.story_id) : [o.message]);

async function creds(t: Setup, participantId: string): Promise<[string, string]> {
  const g = await startReviewer(t, participantId);
  return [g.session_id, g.secret];
}

async function startOther(t: Setup, studyId: string): Promise<SessionGrant> {
  const res = await t.app.request('/api/sessions', {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8' },
    body: JSON.stringify({ study_id: studyId }),
  });
  return (await res.json()) as SessionGrant;
}
