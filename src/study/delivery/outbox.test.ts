import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { leaseLock, realTimer, webLocksLock, type WebLocks } from './lock';
import { Outbox, rowKey, SessionNotClaimedError } from './outbox';
import { transportsFor } from '../definition/sinks';
import { MemoryStorage, type OutboxStorage } from './storage';
import {
  httpTransport,
  isPermanentRefusal,
  jatosTransport,
  SinkRefusedError,
  type FetchLike,
  type Transport,
} from './transports';
import type { ResultRow, SessionInfo } from '../results/results';
import { NO_ESTIMATE } from '../results/resultFields';

const row = (trial_index: number, over: Partial<ResultRow> = {}): ResultRow => ({
  study_id: 'study',
  session_id: 'sess-1',
  participant_id: 'p1',
  condition: 'untimed',
  trial_index,
  phase: 'main',
  puzzle_id: `main-k2-t1-${trial_index}`,
  seed: 1000 + trial_index,
  k: 2,
  task: 1,
  strict: true,
  query_a: 'Ann',
  query_b: 'Bob',
  gold: 'uncle',
  response: 'uncle',
  correct: true,
  difficulty: 3,
  rt_ms: 5000,
  ended_on: 'response',
  time_limit_s: null,
  answer_changes: 0,
  hidden_ms: 0,
  resumed: false,
  started_at: '2026-01-01T00:00:00.000Z',
  answered_at: '2026-01-01T00:00:05.000Z',
  story: 'Ann is Bob’s niece.',
  prolific_study_id: '',
  prolific_session_id: '',
  ...NO_ESTIMATE,
  ...over,
});

const SESSION: SessionInfo = {
  study_id: 'study',
  session_id: 'sess-1',
  participant_id: 'p1',
  condition: 'untimed',
  user_agent: 'test',
  screen: '390x844@3',
  started_at: '2026-01-01T00:00:00.000Z',
};

/** A sink that records what it received and fails while `down` is true. */
function fakeSink(id: string, batchSize?: number) {
  const received: ResultRow[] = [];
  const sink = {
    down: false,
    calls: 0,
    received,
    transport: {
      id,
      ...(batchSize ? { batchSize } : {}),
      beaconUrl: `https://${id}.example/rows`,
      async send(rows: readonly ResultRow[]) {
        sink.calls++;
        if (sink.down) throw new Error('offline');
        received.push(...rows);
      },
    } satisfies Transport,
  };
  return sink;
}

async function openOutbox(storage: OutboxStorage, transports: Transport[], owner = 'tab-a') {
  const outbox = await Outbox.open({
    storage,
    transports,
    lock: leaseLock(storage, owner),
    baseDelayMs: 1000,
    maxDelayMs: 8000,
  });
  return outbox;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the outbox', () => {
  it('loses nothing when a sink fails and recovers, and sends each row once per sink', async () => {
    const storage = new MemoryStorage();
    const a = fakeSink('a');
    const b = fakeSink('b', 2);
    const outbox = await openOutbox(storage, [a.transport, b.transport]);
    expect(await outbox.claim('sess-1')).toBe(true);
    b.down = true;
    for (let i = 0; i < 5; i++) expect(await outbox.put(row(i))).toBe('added');
    await outbox.idle();
    expect(a.received.map((r) => r.trial_index).sort()).toEqual([0, 1, 2, 3, 4]);
    expect(b.received).toEqual([]);
    expect(outbox.allAcknowledged()).toBe(false);
    expect(outbox.pendingCount()).toBe(5);

    // Backoff: 1 s, 2 s, 4 s, 8 s, 8 s… between attempts while the sink is down.
    const callsAt = (n: number) => b.calls - n;
    const before = b.calls;
    await vi.advanceTimersByTimeAsync(999);
    expect(callsAt(before)).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    await outbox.idle();
    expect(callsAt(before)).toBe(1);
    await vi.advanceTimersByTimeAsync(2000);
    await outbox.idle();
    expect(callsAt(before)).toBe(2);
    await vi.advanceTimersByTimeAsync(4000 + 8000);
    await outbox.idle();
    expect(callsAt(before)).toBe(4);

    b.down = false;
    await vi.advanceTimersByTimeAsync(8000);
    await outbox.idle();
    expect(b.received.map((r) => r.trial_index)).toEqual([0, 1, 2, 3, 4]);
    expect(a.received).toHaveLength(5);
    expect(outbox.allAcknowledged()).toBe(true);
    // Every row is stored with both acknowledgements.
    const stored = (await storage.list('row/')).map(([, v]) => (v as { acked: string[] }).acked.sort());
    expect(stored).toEqual(Array(5).fill(['a', 'b']));
    outbox.stop();
  });

  it('is idempotent by (session_id, trial_index): the first row stands', async () => {
    const storage = new MemoryStorage();
    const a = fakeSink('a');
    const outbox = await openOutbox(storage, [a.transport]);
    await outbox.claim('sess-1');
    expect(await outbox.put(row(0))).toBe('added');
    expect(await outbox.put(row(0))).toBe('unchanged');
    expect(await outbox.put(row(0, { response: 'aunt', correct: false }))).toBe('conflict');
    await outbox.idle();
    expect(a.received).toHaveLength(1);
    expect((await outbox.rows('sess-1')).map((r) => r.response)).toEqual(['uncle']);
    // Rows sort by trial index, not as text.
    await outbox.put(row(10));
    await outbox.put(row(2));
    expect((await outbox.rows('sess-1')).map((r) => r.trial_index)).toEqual([0, 2, 10]);
    expect(rowKey('a/b', 3)).toBe('row/a%2Fb/000003');
    outbox.stop();
  });

  it('after a reload, sends only what a sink has not acknowledged', async () => {
    const storage = new MemoryStorage();
    const a = fakeSink('a');
    const b = fakeSink('b');
    b.down = true;
    const first = await openOutbox(storage, [a.transport, b.transport]);
    await first.claim('sess-1');
    await first.put(row(0));
    await first.put(row(1));
    await first.idle();
    first.stop(); // the tab closes

    b.down = false;
    vi.advanceTimersByTime(60_000); // the old lease runs out
    const second = await openOutbox(storage, [a.transport, b.transport], 'tab-b');
    await second.idle();
    expect(a.received.map((r) => r.trial_index)).toEqual([0, 1]);
    expect(b.received.map((r) => r.trial_index)).toEqual([0, 1]);
    expect(second.allAcknowledged()).toBe(true);
    second.stop();
  });

  it('flushes unacknowledged rows with beacons on pagehide, in bodies under 60 kB', async () => {
    const storage = new MemoryStorage();
    const a = fakeSink('a');
    a.down = true;
    const jatos = { appendResultData: vi.fn(async () => undefined) };
    const outbox = await openOutbox(storage, [a.transport, jatosTransport('jatos', jatos)]);
    await outbox.claim('sess-1');
    await outbox.putSession(SESSION);
    const story = 'x'.repeat(20_000);
    for (let i = 0; i < 7; i++) await outbox.put(row(i, { story }));
    await outbox.idle();
    const beacons: { url: string; body: { sessions: SessionInfo[]; rows: ResultRow[] } }[] = [];
    const queued = outbox.flushWithBeacon((url, data) => {
      expect(new TextEncoder().encode(data).length).toBeLessThanOrEqual(60_000);
      beacons.push({ url, body: JSON.parse(data) });
      return true;
    });
    // Only the HTTP-like sink takes beacons; JATOS acknowledged everything already.
    expect(queued).toBe(7);
    expect(beacons.every((b) => b.url === 'https://a.example/rows')).toBe(true);
    expect(beacons.flatMap((b) => b.body.rows.map((r) => r.trial_index))).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(beacons.length).toBeGreaterThan(1);
    expect(beacons[0]!.body.sessions).toEqual([SESSION]);
    // A beacon is not an acknowledgement.
    expect(outbox.allAcknowledged()).toBe(false);
    // A refused beacon is not counted.
    expect(outbox.flushWithBeacon(() => false)).toBe(0);
    expect(jatos.appendResultData).toHaveBeenCalledTimes(7);
    outbox.stop();
  });

  it('remembers which trials were shown, for marking an interrupted one as resumed', async () => {
    const storage = new MemoryStorage();
    const outbox = await openOutbox(storage, []);
    await outbox.claim('sess-1');
    await outbox.markStarted('sess-1', 3, '2026-01-01T00:01:00.000Z');
    // The first start stands (a reload shows the trial again).
    await outbox.markStarted('sess-1', 3, '2026-01-01T00:02:00.000Z');
    expect(await outbox.startedAt('sess-1', 3)).toBe('2026-01-01T00:01:00.000Z');
    expect(await outbox.startedAt('sess-1', 4)).toBeUndefined();
    expect(await outbox.getSession('sess-1')).toBeUndefined();
    await outbox.putSession(SESSION);
    await outbox.putSession({ ...SESSION, screen: 'other' });
    expect(await outbox.getSession('sess-1')).toEqual(SESSION);
    outbox.stop();
  });

  it('flush() retries at once instead of waiting for the backoff', async () => {
    const storage = new MemoryStorage();
    const a = fakeSink('a');
    a.down = true;
    const outbox = await openOutbox(storage, [a.transport]);
    await outbox.claim('sess-1');
    await outbox.put(row(0));
    await outbox.idle();
    a.down = false;
    await outbox.flush();
    expect(a.received).toHaveLength(1);
    expect(outbox.allAcknowledged()).toBe(true);
    outbox.stop();
  });
});

describe('one writer per session', () => {
  it('lets only one of two tabs on the same storage record a session', async () => {
    const storage = new MemoryStorage();
    const tabA = await openOutbox(storage, [], 'tab-a');
    const tabB = await openOutbox(storage, [], 'tab-b');
    const [a, b] = await Promise.all([tabA.claim('sess-1'), tabB.claim('sess-1')]);
    expect([a, b].sort()).toEqual([false, true]);
    const [winner, loser] = a ? [tabA, tabB] : [tabB, tabA];
    expect(await winner.put(row(0))).toBe('added');
    await expect(loser.put(row(1))).rejects.toThrow(SessionNotClaimedError);
    await expect(loser.putSession(SESSION)).rejects.toThrow(SessionNotClaimedError);
    // Another session is free.
    expect(await loser.claim('sess-2')).toBe(true);

    // The holder keeps the lease alive by renewing it; the other tab stays out.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await loser.claim('sess-1')).toBe(false);
    // Once released, the other tab may take over.
    await winner.release('sess-1');
    expect(await loser.claim('sess-1')).toBe(true);
    expect(await loser.put(row(1))).toBe('added');
    await expect(winner.put(row(2))).rejects.toThrow(SessionNotClaimedError);
    expect((await loser.rows('sess-1')).map((r) => r.trial_index)).toEqual([0, 1]);
    tabA.stop();
    tabB.stop();
  });

  it('a lease left by a closed tab expires; the frozen tab then finds it lost', async () => {
    const storage = new MemoryStorage();
    // A tab whose renewal timer never runs (frozen in the background).
    const frozen = { ...realTimer, setTimeout: () => 0, clearTimeout: () => undefined };
    const lockA = leaseLock(storage, 'tab-a', frozen, 15_000);
    const handle = await lockA.acquire('sess-1');
    expect(handle).not.toBeNull();
    const lockB = leaseLock(storage, 'tab-b', realTimer, 15_000);
    expect(await lockB.acquire('sess-1')).toBeNull();
    vi.advanceTimersByTime(15_001);
    const taken = await lockB.acquire('sess-1');
    expect(taken).not.toBeNull();
    expect(await handle!.isHeld()).toBe(false);
    expect(await taken!.isHeld()).toBe(true);
    await taken!.release();
  });

  it('works on the Web Locks API too', async () => {
    const held = new Set<string>();
    const locks: WebLocks = {
      async request(name, _options, callback) {
        if (held.has(name)) return callback(null);
        held.add(name);
        await callback({ name });
        held.delete(name);
      },
    };
    const lock = webLocksLock(locks);
    const first = await lock.acquire('sess-1');
    expect(first).not.toBeNull();
    expect(await lock.acquire('sess-1')).toBeNull();
    await first!.release();
    await Promise.resolve();
    await Promise.resolve();
    const again = await lock.acquire('sess-1');
    expect(await again?.isHeld()).toBe(true);
    // navigator.locks fits the interface.
    const _fits: WebLocks = {} as LockManager;
  });
});

describe('transports', () => {
  it('HTTP: posts sessions and rows; a non-2xx answer is a failure', async () => {
    const calls: { url: string; body: string; type: string | undefined }[] = [];
    let status = 503;
    const fetchFn: FetchLike = async (url, init) => {
      calls.push({ url, body: init.body, type: init.headers['content-type'] });
      return { ok: status < 300, status };
    };
    const t = httpTransport('results', 'https://results.example/rows', fetchFn);
    expect(t.beaconUrl).toBe('https://results.example/rows');
    await expect(t.send([row(0)], [SESSION])).rejects.toThrow(/503/);
    status = 200;
    await t.send([row(0)], [SESSION]);
    expect(JSON.parse(calls[1]!.body)).toEqual({ sessions: [SESSION], rows: [row(0)] });
    expect(calls[1]!.type).toMatch(/^text\/plain/);
  });

  it('JATOS: one appendResultData per row, a JSON line each', async () => {
    const appended: unknown[] = [];
    const t = jatosTransport('jatos', { appendResultData: async (data: unknown) => appended.push(data) });
    await t.send([row(0), row(1)], []);
    expect(appended).toEqual([`${JSON.stringify(row(0))}\n`, `${JSON.stringify(row(1))}\n`]);
    expect(t.batchSize).toBe(1);
  });

  it('are made from a definition’s sinks', () => {
    const fetchFn: FetchLike = async () => ({ ok: true, status: 200 });
    const sinks = [
      { kind: 'jatos' as const },
      { kind: 'http' as const, url: 'https://x.org/r' },
      { kind: 'download' as const, instructions: 'mail it' },
    ];
    // Outside JATOS the JATOS sink has no transport; the download sink never has one.
    expect(transportsFor(sinks, { fetch: fetchFn }).map((t) => t.id)).toEqual(['http:https://x.org/r']);
    expect(
      transportsFor(sinks, { fetch: fetchFn, jatos: { appendResultData: async () => undefined } }).map((t) => t.id),
    ).toEqual(['jatos', 'http:https://x.org/r']);
  });

  it('send the server sink to api/rows beside the page, by fetch and by beacon', async () => {
    const posted: string[] = [];
    const fetchFn: FetchLike = async (url) => {
      posted.push(url);
      return { ok: true, status: 200 };
    };
    const sinks = [{ kind: 'server' as const }];
    expect(() => transportsFor(sinks, { fetch: fetchFn })).toThrow(/page's address/);
    // A page in a proxy's sub-folder, with a study query and a hash: only the folder counts.
    const [t] = transportsFor(sinks, { fetch: fetchFn, pageUrl: 'https://lab.example/studies/?study=s1.x#/a' });
    expect(t!.id).toBe('server');
    expect(t!.beaconUrl).toBe('https://lab.example/studies/api/rows');
    await t!.send([row(0)], []);
    expect(posted).toEqual(['https://lab.example/studies/api/rows']);
    expect(transportsFor(sinks, { fetch: fetchFn, pageUrl: 'http://127.0.0.1:8080/?study=s1.x' })[0]!.beaconUrl).toBe(
      'http://127.0.0.1:8080/api/rows',
    );
  });

  it("HTTP: a 4xx no retry can fix is a SinkRefusedError with the server's sentence; 408, 429 and 5xx are failures", async () => {
    let answer: { status: number; body: unknown } = {
      status: 400,
      body: { error: 'rows.0.k: 9 is not a k of this study' },
    };
    const fetchFn: FetchLike = async () => ({
      ok: answer.status < 300,
      status: answer.status,
      json: async () => answer.body,
    });
    const t = httpTransport('server', 'https://lab.example/api/rows', fetchFn);
    const refused = await t.send([row(0)], []).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SinkRefusedError);
    expect((refused as SinkRefusedError).message).toBe('rows.0.k: 9 is not a k of this study');
    expect((refused as SinkRefusedError).status).toBe(400);
    answer = { status: 413, body: '<html>too large</html>' };
    await expect(t.send([row(0)], [])).rejects.toThrow('refused with status 413');
    for (const status of [408, 429, 500, 503]) {
      answer = { status, body: {} };
      const e = await t.send([row(0)], []).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(Error);
      expect(e).not.toBeInstanceOf(SinkRefusedError);
    }
    expect([400, 401, 403, 404, 409, 410, 413, 422].every(isPermanentRefusal)).toBe(true);
    expect([200, 408, 425, 429, 500, 502, 503].some(isPermanentRefusal)).toBe(false);
  });

  it("the server sink carries issued sessions' secrets, by fetch and by beacon; another address never gets them", async () => {
    const bodies = new Map<string, string[]>();
    const fetchFn: FetchLike = async (url, init) => {
      bodies.set(url, [...(bodies.get(url) ?? []), init.body]);
      return { ok: true, status: 200 };
    };
    const transports = transportsFor([{ kind: 'server' }, { kind: 'http', url: 'https://elsewhere.example/rows' }], {
      fetch: fetchFn,
      pageUrl: 'https://lab.example/',
    });
    const storage = new MemoryStorage();
    const outbox = await openOutbox(storage, transports);
    await outbox.claim('sess-1');
    await outbox.putSession(SESSION);
    await outbox.putSecret('sess-1', 'the-secret');
    await outbox.put(row(0));
    await outbox.idle();
    const server = JSON.parse(bodies.get('https://lab.example/api/rows')![0]!);
    expect(server.secrets).toEqual([{ session_id: 'sess-1', secret: 'the-secret' }]);
    expect(server.rows).toEqual([row(0)]);
    const other = JSON.parse(bodies.get('https://elsewhere.example/rows')![0]!);
    expect(other).toEqual({ sessions: [SESSION], rows: [row(0)] });
    // The beacon: a reloaded outbox still knows the secret (stored beside the rows).
    await outbox.release('sess-1');
    outbox.stop();
    const down: FetchLike = async () => ({ ok: false, status: 503 });
    const again = await openOutbox(
      storage,
      transportsFor([{ kind: 'server' }], { fetch: down, pageUrl: 'https://lab.example/' }),
      'tab-b',
    );
    await again.claim('sess-1');
    await again.put(row(1));
    await again.idle();
    const beacons: { url: string; data: string }[] = [];
    again.flushWithBeacon((url, data) => beacons.push({ url, data }) > 0);
    expect(beacons).toHaveLength(1);
    expect(JSON.parse(beacons[0]!.data).secrets).toEqual([{ session_id: 'sess-1', secret: 'the-secret' }]);
    again.stop();
  });
});

describe('permanent refusals', () => {
  /** A sink that refuses for good any request holding a row of `bad` trials (all or nothing, as the server). */
  function refusingSink(id: string, bad: ReadonlySet<number>) {
    const sent: number[][] = [];
    const transport: Transport = {
      id,
      beaconUrl: `https://${id}.example/rows`,
      async send(rows) {
        sent.push(rows.map((r) => r.trial_index));
        if (rows.some((r) => bad.has(r.trial_index))) throw new SinkRefusedError(400, `rows.0.k: not in this study`);
      },
    };
    return { transport, sent };
  }

  it('ends retries for the refused rows only, finds them one at a time, and remembers it across a reload', async () => {
    const storage = new MemoryStorage();
    const server = refusingSink('server', new Set([1]));
    const other = fakeSink('other');
    // Three rows stored before anything is sent (a page that was closed), so the first request holds all three.
    const recorder = await openOutbox(storage, []);
    await recorder.claim('sess-1');
    for (const i of [0, 1, 2]) await recorder.put(row(i));
    await recorder.release('sess-1');
    const outbox = await openOutbox(storage, [server.transport, other.transport]);
    await outbox.idle();
    expect(server.sent[0]!.length).toBeGreaterThan(1);
    // The refused batch was sent again one row at a time: rows 0 and 2 stored, row 1 refused.
    expect(server.sent.slice(1)).toEqual(expect.arrayContaining([[0], [1], [2]]));
    expect(other.received.map((r) => r.trial_index).sort()).toEqual([0, 1, 2]);
    expect(outbox.allAcknowledged()).toBe(true);
    expect(outbox.noRefusals()).toBe(false);
    expect(outbox.hasAll('server')).toBe(false);
    expect(outbox.hasAll('other')).toBe(true);
    expect(outbox.sinkReports()).toEqual([
      { id: 'server', waiting: 0, refused: 1, refusal: 'rows.0.k: not in this study' },
      { id: 'other', waiting: 0, refused: 0, refusal: null },
    ]);
    // No retry later: the timers run out with nothing sent.
    const calls = server.sent.length;
    await vi.advanceTimersByTimeAsync(120_000);
    await outbox.flush();
    expect(server.sent.length).toBe(calls);
    // Nor by beacon.
    expect(outbox.flushWithBeacon(() => true)).toBe(0);
    // Stored with the row: a reload does not send it again either, and still reports it.
    outbox.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    const again = await openOutbox(storage, [server.transport, other.transport], 'tab-b');
    await again.idle();
    expect(server.sent.length).toBe(calls);
    expect(again.sinkReports()[0]).toMatchObject({ refused: 1, waiting: 0 });
    expect(again.hasAll('server')).toBe(false);
    // A new row still goes to the sink that refused another.
    await again.claim('sess-1');
    await again.put(row(3));
    await again.idle();
    expect(server.sent.at(-1)).toEqual([3]);
    again.stop();
  });

  it('tells its subscribers of a refusal at once, and reports per session', async () => {
    const storage = new MemoryStorage();
    const server = refusingSink('server', new Set([1]));
    const outbox = await openOutbox(storage, [server.transport]);
    let heard = 0;
    const unsubscribe = outbox.subscribe(() => heard++);
    await outbox.claim('sess-1');
    await outbox.claim('sess-2');
    await outbox.put(row(0, { session_id: 'sess-2' }));
    await outbox.put(row(1));
    await outbox.idle();
    expect(heard).toBeGreaterThan(0);
    expect(outbox.sinkReports('sess-1')).toEqual([
      { id: 'server', waiting: 0, refused: 1, refusal: 'rows.0.k: not in this study' },
    ]);
    expect(outbox.sinkReports('sess-2')).toEqual([{ id: 'server', waiting: 0, refused: 0, refusal: null }]);
    unsubscribe();
    const before = heard;
    await outbox.put(row(2));
    await outbox.idle();
    expect(heard).toBe(before);
    outbox.stop();
  });

  it('a sink that fails (not refuses) stays pending and is retried', async () => {
    const storage = new MemoryStorage();
    const flaky = fakeSink('flaky');
    flaky.down = true;
    const outbox = await openOutbox(storage, [flaky.transport]);
    await outbox.claim('sess-1');
    await outbox.put(row(0));
    await outbox.idle();
    expect(outbox.sinkReports()).toEqual([{ id: 'flaky', waiting: 1, refused: 0, refusal: null }]);
    flaky.down = false;
    await vi.advanceTimersByTimeAsync(1000);
    await outbox.idle();
    expect(outbox.hasAll('flaky')).toBe(true);
    expect(outbox.noRefusals()).toBe(true);
    outbox.stop();
  });
});
