import { describe, expect, it } from 'vitest';
import { chatCompletion, completionsUrl, type FetchLike, LlmError, retryAfterMs } from './client';
import { askItems, tally } from './run';

const KEY = 'sk-test-SECRET-4242';

interface Call {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** A chat-completions server in-process: `script` answers each call (status, headers, body). */
function stub(script: (call: Call, n: number) => { status?: number; headers?: Record<string, string>; body: unknown }) {
  const calls: Call[] = [];
  const fetch: FetchLike = async (url, init) => {
    const call = { url, headers: init.headers, body: JSON.parse(init.body) as Record<string, unknown> };
    calls.push(call);
    const r = script(call, calls.length - 1);
    const status = r.status ?? 200;
    const headers = new Map(Object.entries(r.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    return {
      ok: status >= 200 && status < 300,
      status,
      headers: { get: (n: string) => headers.get(n.toLowerCase()) ?? null },
      text: async () => (typeof r.body === 'string' ? r.body : JSON.stringify(r.body)),
    };
  };
  let clock = 0;
  const sleeps: number[] = [];
  const transport = {
    fetch,
    now: () => clock,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      clock += ms;
    },
  };
  return { calls, sleeps, transport };
}

const reply = (content: string) => ({
  model: 'stub',
  choices: [{ message: { role: 'assistant', content } }],
  usage: { prompt_tokens: 50, completion_tokens: 2, total_tokens: 52 },
});

describe('chat-completions client', () => {
  it('finds the completions URL from what people type', () => {
    expect(completionsUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080/v1/chat/completions');
    expect(completionsUrl('http://localhost:11434/v1/')).toBe('http://localhost:11434/v1/chat/completions');
    expect(completionsUrl('https://api.example.org/v1/chat/completions')).toBe(
      'https://api.example.org/v1/chat/completions',
    );
    expect(() => completionsUrl('ftp://x')).toThrow('http');
    expect(() => completionsUrl('not a url')).toThrow('not a URL');
  });

  it('sends the model, the prompt and the sampling settings; the key only in Authorization', async () => {
    const s = stub(() => ({ body: reply('aunt') }));
    const r = await chatCompletion(
      { url: 'http://h/v1', model: 'm', apiKey: KEY },
      'PROMPT',
      { temperature: 0, maxTokens: 16, seed: 7 },
      s.transport,
    );
    expect(r).toMatchObject({ text: 'aunt', attempts: 1, tokens: { prompt: 50, completion: 2, total: 52 } });
    expect(s.calls[0]!.body).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'PROMPT' }],
      temperature: 0,
      max_tokens: 16,
      seed: 7,
    });
    expect(s.calls[0]!.headers.Authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.stringify(s.calls[0]!.body)).not.toContain(KEY);
    expect(JSON.stringify(r)).not.toContain(KEY);
  });

  it('retries on 429 waiting what Retry-After asks, then on 503 with backoff', async () => {
    const s = stub((_c, n) =>
      n === 0
        ? { status: 429, headers: { 'Retry-After': '3' }, body: { error: 'slow down' } }
        : n === 1
          ? { status: 503, body: 'busy' }
          : { body: reply('Answer: uncle') },
    );
    const r = await chatCompletion({ url: 'http://h', model: 'm' }, 'p', {}, s.transport);
    expect(r.attempts).toBe(3);
    expect(s.sleeps).toEqual([3000, 1000]);
    expect(r.ms).toBe(4000);
  });

  it('gives up after the retries with the status; does not retry a 400; never echoes the key', async () => {
    const busy = stub(() => ({ status: 429, body: `rate limited for ${KEY}` }));
    const e = await chatCompletion(
      { url: 'http://h', model: 'm', apiKey: KEY },
      'p',
      {},
      { ...busy.transport, retry: { retries: 2, baseDelayMs: 10, maxDelayMs: 100 } },
    ).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LlmError);
    expect((e as LlmError).message).toMatch(/HTTP 429 after 3 tries/);
    expect((e as LlmError).message).not.toContain(KEY);
    expect(busy.sleeps).toEqual([10, 20]);

    const bad = stub(() => ({ status: 400, body: 'no such model' }));
    await expect(chatCompletion({ url: 'http://h', model: 'm' }, 'p', {}, bad.transport)).rejects.toThrow(
      /HTTP 400 \(no such model\)/,
    );
    expect(bad.calls).toHaveLength(1);
  });

  it('reads Retry-After as seconds or a date', () => {
    expect(retryAfterMs('2', 0)).toBe(2000);
    expect(retryAfterMs(new Date(5000).toUTCString(), 1000)).toBe(4000);
    expect(retryAfterMs('soon', 0)).toBeNull();
    expect(retryAfterMs(null, 0)).toBeNull();
  });

  it('a fetch that throws (a refused origin) is a network error and stops the run', async () => {
    const transport = {
      fetch: (async () => {
        throw new TypeError('Failed to fetch');
      }) as FetchLike,
      now: () => 0,
      sleep: async () => {},
    };
    const items = [1, 2, 3].map((i) => ({ id: String(i), story: 's', a: 'A', b: 'B', gold: 'aunt' }));
    const e = await askItems(
      items,
      { endpoint: { url: 'http://h', model: 'm', apiKey: KEY }, prompt: 'zero-shot', sampling: {}, concurrency: 2 },
      transport,
    ).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LlmError);
    expect((e as LlmError).kind).toBe('network');
    expect((e as LlmError).message).not.toContain(KEY);
  });
});

describe('askItems', () => {
  it('asks at most `concurrency` at once, keeps each prompt and reply, counts unparseable as wrong', async () => {
    let inFlight = 0;
    let most = 0;
    const answers = ['aunt', 'I cannot tell.', 'Answer: nephew', 'niece'];
    const fetch: FetchLike = async (_url, init) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      const prompt = (JSON.parse(init.body) as { messages: { content: string }[] }).messages[0]!.content;
      const i = Number(/Story: story (\d)/.exec(prompt)![1]);
      return {
        ok: true,
        status: 200,
        headers: { get: () => null },
        text: async () => JSON.stringify(reply(answers[i]!)),
      };
    };
    const items = answers.map((_, i) => ({
      id: `r${i}`,
      story: `story ${i}`,
      a: 'A',
      b: 'B',
      gold: i === 3 ? 'neice' : 'aunt',
    }));
    const results = await askItems(
      items,
      { endpoint: { url: 'http://h', model: 'm', apiKey: KEY }, prompt: 'zero-shot', sampling: {}, concurrency: 2 },
      { fetch, now: () => 0, sleep: async () => {} },
    );
    expect(most).toBe(2);
    expect(results.map((r) => [r.id, r.outcome, r.answer, r.correct])).toEqual([
      ['r0', 'answer', 'aunt', true],
      ['r1', 'unparseable', null, false],
      ['r2', 'answer', 'nephew', false],
      ['r3', 'answer', 'niece', true],
    ]);
    expect(results[0]!.prompt).toContain('Story: story 0');
    expect(results[1]!.reply).toBe('I cannot tell.');
    expect(tally(results)).toEqual({ rows: 4, correct: 2, unparseable: 1, errors: 0 });
    expect(JSON.stringify(results)).not.toContain(KEY);
  });
});
