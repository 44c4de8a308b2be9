import { describe, expect, it } from 'vitest';
import { registerWithServer, type RegisterFetch } from './register';

const PAGE = 'https://lab.example/studies/#/study';

/** A fetch that answers `status` with `body` and records what it was sent. */
function answering(status: number, body: unknown) {
  const sent: { url: string; headers: Record<string, string>; body: string }[] = [];
  const fetchFn: RegisterFetch = async (url, init) => {
    sent.push({ url, headers: init.headers, body: init.body });
    return { status, text: async () => (typeof body === 'string' ? body : JSON.stringify(body)) };
  };
  return { sent, fetchFn };
}

describe('registering with the results server', () => {
  it('POSTs the study token to api/studies beside the page, with the researcher token as a bearer', async () => {
    const { sent, fetchFn } = answering(201, { study_id: 'pilot', token: 's1.x.y', outcome: 'added' });
    const reply = await registerWithServer('s1.x.y', 'secret', PAGE, fetchFn);
    expect(sent).toEqual([
      {
        url: 'https://lab.example/studies/api/studies',
        headers: { authorization: 'Bearer secret', 'content-type': 'application/json' },
        body: '{"token":"s1.x.y"}',
      },
    ]);
    expect(reply).toEqual({ kind: 'ok', message: 'Study "pilot" registered; the server now accepts its rows.' });
  });

  it("says what the server's other answers mean", async () => {
    const say = async (status: number, body: unknown) =>
      registerWithServer('s1.x.y', 'secret', PAGE, answering(status, body).fetchFn);
    expect(await say(200, { study_id: 'pilot', outcome: 'unchanged' })).toMatchObject({
      kind: 'ok',
      message: expect.stringMatching(/already registered/),
    });
    expect(await say(200, { study_id: 'pilot', outcome: 'replaced' })).toMatchObject({
      kind: 'ok',
      message: expect.stringMatching(/replacing/),
    });
    expect(await say(401, { error: 'a valid researcher token is needed' })).toEqual({
      kind: 'error',
      message: 'Not registered: the server refused the researcher token (401); copy it again from the token file.',
    });
    const taken = await say(409, { error: 'the study id "pilot" is registered with another definition' });
    expect(taken.kind).toBe('error');
    expect(taken.message).toMatch(/already has results \(409\): the study id "pilot" is registered/);
    expect((await say(400, { error: 'sinks.0: bad' })).message).toMatch(/refused the study \(400\): sinks\.0: bad/);
    // A host that is not a results server: 404, or a page instead of JSON.
    expect((await say(404, 'Not Found')).message).toMatch(/not served by a results server/);
    expect((await say(200, '<!doctype html>')).message).toMatch(/not served by a results server/);
    expect((await say(500, { error: 'internal error' })).message).toBe(
      'Not registered: the server answered 500: internal error.',
    );
  });

  it('says when the server cannot be reached, and when no token was given', async () => {
    const down: RegisterFetch = async () => {
      throw new TypeError('Failed to fetch');
    };
    expect(await registerWithServer('s1.x.y', 'secret', PAGE, down)).toEqual({
      kind: 'error',
      message:
        'Not registered: the results server could not be reached (no connection): check that it runs and that it served this page.',
    });
    const { sent, fetchFn } = answering(201, {});
    expect((await registerWithServer('s1.x.y', '', PAGE, fetchFn)).message).toMatch(/enter the researcher token/);
    expect(sent).toEqual([]);
  });
});
