import { describe, expect, it } from 'vitest';
import { linkLengthProblem, MAX_LINK_LENGTH, readShortStudyRef, shortParticipantPath } from './route';
import {
  MAX_ID_LENGTH,
  normalResumeCode,
  readSessionAnswer,
  RESUME_CODE_ALPHABET,
  requestSession,
  resolveShortLink,
  rowsBody,
  sessionRequestOf,
  sessionRequestProblem,
  shortLinkUrl,
  type JsonFetch,
} from './serverApi';

/** A fetch that records its calls and answers from a list. */
function fakeFetch(answers: ({ status: number; body?: unknown; headers?: Record<string, string> } | Error)[]) {
  const calls: { url: string; init: Parameters<JsonFetch>[1] }[] = [];
  const fetchFn: JsonFetch = async (url, init) => {
    calls.push({ url, init });
    const a = answers.shift();
    if (!a) throw new Error('no answer left');
    if (a instanceof Error) throw a;
    return {
      ok: a.status >= 200 && a.status < 300,
      status: a.status,
      json: async () => {
        if (a.body === undefined) throw new SyntaxError('not JSON');
        return a.body;
      },
      headers: { get: (name: string) => a.headers?.[name.toLowerCase()] ?? null },
    } as Awaited<ReturnType<JsonFetch>>;
  };
  return { fetchFn, calls };
}

const GRANT = {
  study_id: 'lab',
  session_id: 'iABC',
  secret: 'sss',
  participant: 4,
  condition: null,
  resumed: false,
  answered: [],
  resume_code: 'K7QM-4TZP',
  server_time: '2026-03-01T10:00:00.000Z',
};

describe('short links', () => {
  it('makes ?s=<study id>, at most 3 + 64 characters, and reads it back (also after the hash)', () => {
    const id = 'a'.repeat(64);
    expect(shortParticipantPath(id)).toBe(`?s=${id}`);
    expect(shortParticipantPath(id).length).toBeLessThanOrEqual(100);
    expect(readShortStudyRef(`?s=${id}&PROLIFIC_PID=x`)).toBe(id);
    expect(readShortStudyRef('', '#/?s=lab-1')).toBe('lab-1');
    expect(readShortStudyRef('?s=%20lab%20')).toBe('lab');
    expect(readShortStudyRef('?study=s1.x.y')).toBeNull();
    expect(readShortStudyRef('?s=../etc')).toBeNull();
    expect(readShortStudyRef(`?s=${'a'.repeat(65)}`)).toBeNull();
  });

  it('resolves a study id to its token beside the page; an unknown study or a dead server is a sentence', async () => {
    const ok = fakeFetch([{ status: 200, body: { study_id: 'lab', token: 's1.abc.0123abcd' } }]);
    expect(await resolveShortLink(ok.fetchFn, 'https://lab.example/app/?s=lab', 'lab')).toEqual({
      ok: true,
      token: 's1.abc.0123abcd',
    });
    expect(ok.calls[0]!.url).toBe('https://lab.example/app/api/studies/lab/link');
    expect(shortLinkUrl('https://x.org/', 'a_b')).toBe('https://x.org/api/studies/a_b/link');
    const none = fakeFetch([{ status: 404, body: { error: 'x' } }]);
    expect(await resolveShortLink(none.fetchFn, 'https://x.org/', 'nope')).toEqual({
      ok: false,
      message: 'There is no study "nope" here. Please check the link you were given.',
    });
    const wrong = fakeFetch([{ status: 200, body: { study_id: 'other', token: 's1.x.y' } }]);
    expect((await resolveShortLink(wrong.fetchFn, 'https://x.org/', 'lab')).ok).toBe(false);
    const down = fakeFetch([new TypeError('Failed to fetch')]);
    expect(await resolveShortLink(down.fetchFn, 'https://x.org/', 'lab')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/cannot be reached/),
    });
  });

  it('refuses a participant link over the limit with the length and the way out', () => {
    expect(linkLengthProblem(`?study=${'a'.repeat(MAX_LINK_LENGTH - 7)}`)).toBeNull();
    const problem = linkLengthProblem(`?study=${'a'.repeat(MAX_LINK_LENGTH)}`);
    expect(problem).toMatch(/^the participant link is 6007 characters long, more than the 6000 /);
    expect(problem).toMatch(/--sink server --data DIR/);
  });
});

describe('requestSession', () => {
  it('posts the request beside the page as text/plain JSON and reads the grant', async () => {
    const f = fakeFetch([{ status: 201, body: GRANT }]);
    const request = { study_id: 'lab', participant_id: 'PID', prolific_study_id: 'S', prolific_session_id: 'X' };
    expect(await requestSession(f.fetchFn, 'https://lab.example/app/index.html?s=lab', request)).toEqual({
      ok: true,
      grant: GRANT,
    });
    expect(f.calls[0]!.url).toBe('https://lab.example/app/api/sessions');
    expect(f.calls[0]!.init).toEqual({
      method: 'POST',
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify(request),
    });
  });

  it('catches ids over the server limits before sending anything', async () => {
    const f = fakeFetch([]);
    const answer = await requestSession(f.fetchFn, 'https://x.org/', {
      study_id: 'lab',
      participant_id: 'p'.repeat(MAX_ID_LENGTH + 1),
    });
    expect(answer).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'invalid',
      message:
        'the participant id (PROLIFIC_PID) in the link is 201 characters long; at most 200 are accepted. Please check the link you were given.',
    });
    expect(f.calls).toHaveLength(0);
    expect(sessionRequestProblem({})).toMatch(/one of the two/);
    expect(sessionRequestProblem({ study_id: 'lab', token: 's1' })).toMatch(/one of the two/);
    expect(sessionRequestProblem({ study_id: 'a b' })).toMatch(/not a study id/);
    expect(sessionRequestProblem({ token: 's1.x.y', participant: 1.5 })).toMatch(/whole number/);
    expect(sessionRequestProblem({ token: 's1.x.y', participant: 3, condition: 'timed' })).toBeNull();
  });

  it('tells refusals (end the run) from unavailability (retry)', async () => {
    const closed = fakeFetch([{ status: 403, body: { error: 'This study is closed…', reason: 'closed' } }]);
    expect(await requestSession(closed.fetchFn, 'https://x.org/', { study_id: 'lab' })).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'closed',
      message: 'This study is closed…',
    });
    const limited = fakeFetch([
      { status: 429, body: { error: 'too many', reason: 'rate' }, headers: { 'retry-after': '7' } },
    ]);
    expect(await requestSession(limited.fetchFn, 'https://x.org/', { study_id: 'lab' })).toEqual({
      ok: false,
      kind: 'unavailable',
      message: 'too many',
      retryAfterS: 7,
    });
    const proxy = fakeFetch([{ status: 502 }]);
    expect(await requestSession(proxy.fetchFn, 'https://x.org/', { study_id: 'lab' })).toEqual({
      ok: false,
      kind: 'unavailable',
      message: 'the results server answered 502',
    });
    const offline = fakeFetch([new TypeError('Failed to fetch')]);
    expect((await requestSession(offline.fetchFn, 'https://x.org/', { study_id: 'lab' })).ok).toBe(false);
    expect(readSessionAnswer(404, { error: 'There is no study', reason: 'unknown-study' })).toMatchObject({
      kind: 'refused',
      reason: 'unknown-study',
    });
    expect(readSessionAnswer(400, null)).toMatchObject({ kind: 'refused', reason: 'invalid' });
    expect(readSessionAnswer(201, { ...GRANT, secret: '' })).toMatchObject({ ok: false, kind: 'unavailable' });
  });

  it('reads the resume refusals, and a grant of a server without resume codes or its time', () => {
    expect(
      readSessionAnswer(403, { error: 'Type the code shown on your other device.', reason: 'resume-code' }),
    ).toEqual({
      ok: false,
      kind: 'refused',
      reason: 'resume-code',
      message: 'Type the code shown on your other device.',
    });
    expect(readSessionAnswer(403, { error: 'Another Prolific session.', reason: 'resume-refused' })).toMatchObject({
      kind: 'refused',
      reason: 'resume-refused',
    });
    const { resume_code: _code, server_time: _time, ...older } = GRANT;
    expect(readSessionAnswer(200, older)).toEqual({ ok: true, grant: { ...older, resume_code: '', server_time: '' } });
  });

  it('sends a typed resume code with the request', async () => {
    const f = fakeFetch([{ status: 200, body: { ...GRANT, resumed: true, answered: [0, 1] } }]);
    const request = { study_id: 'lab', resume_code: 'K7QM-4TZP' };
    expect(await requestSession(f.fetchFn, 'https://x.org/', request)).toMatchObject({
      ok: true,
      grant: { resumed: true, answered: [0, 1] },
    });
    expect(JSON.parse(f.calls[0]!.init.body!)).toEqual(request);
  });
});

describe('normalResumeCode', () => {
  it('reads a typed code in any case, with spaces or hyphens, O as 0 and I, L as 1', () => {
    expect(normalResumeCode('K7QM-4TZP')).toBe('K7QM-4TZP');
    expect(normalResumeCode(' k7qm 4tzp ')).toBe('K7QM-4TZP');
    expect(normalResumeCode('k7qm4tzp')).toBe('K7QM-4TZP');
    expect(normalResumeCode('oIlo-0000')).toBe('0110-0000');
    expect(RESUME_CODE_ALPHABET).toHaveLength(32);
  });
  it('is null for what cannot be a code', () => {
    for (const typed of ['', 'K7QM-4TZ', 'K7QM-4TZPX', 'K7QM-4TZU', 'K7QM_4TZP', '12345678!']) {
      expect(normalResumeCode(typed)).toBeNull();
    }
  });
});

describe('sessionRequestOf', () => {
  it('names the study and carries the ids the rows will carry, leaving out what is empty', () => {
    const who = {
      participantId: '',
      prolificStudyId: '',
      prolificSessionId: '',
      participantNumber: null,
      forcedCondition: null,
    };
    expect(sessionRequestOf({ studyId: 'lab' }, who)).toEqual({ study_id: 'lab' });
    expect(
      sessionRequestOf(
        { token: 's1.x.y' },
        {
          participantId: 'P',
          prolificStudyId: 'S',
          prolificSessionId: 'X',
          participantNumber: 0,
          forcedCondition: 'timed',
        },
      ),
    ).toEqual({
      token: 's1.x.y',
      participant_id: 'P',
      prolific_study_id: 'S',
      prolific_session_id: 'X',
      participant: 0,
      condition: 'timed',
    });
  });
});

describe('rowsBody', () => {
  it('carries the secret of each issued session of the rows, and nothing for the others', () => {
    const rows = [{ session_id: 'a' }, { session_id: 'a' }, { session_id: 'b' }];
    const sessions = [{ session_id: 'a' }];
    const body = JSON.parse(rowsBody(rows, sessions, (id) => (id === 'a' ? 'secret-a' : undefined))) as unknown;
    expect(body).toEqual({ sessions, rows, secrets: [{ session_id: 'a', secret: 'secret-a' }] });
    expect(rowsBody(rows, sessions, () => undefined)).toBe(JSON.stringify({ sessions, rows }));
  });
});
