import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { connectOrigin, CONTENT_SECURITY_POLICY, contentSecurityPolicy, securityHeaders, withPolicy } from './static';

describe('--llm-origin: the CSP names exactly the endpoint given', () => {
  it('narrows connect-src to the page and the origins given; the rest of the policy stays', () => {
    expect(contentSecurityPolicy()).toBe(CONTENT_SECURITY_POLICY);
    const p = contentSecurityPolicy(['http://127.0.0.1:8080', 'https://llm.example.org']);
    expect(p).toContain("connect-src 'self' http://127.0.0.1:8080 https://llm.example.org;");
    expect(p).not.toMatch(/connect-src[^;]*https: http:/);
    expect(p.replace(/connect-src [^;]*/, '')).toBe(CONTENT_SECURITY_POLICY.replace(/connect-src [^;]*/, ''));
  });

  it('takes the origin of an endpoint URL and refuses what is not http(s)', () => {
    expect(connectOrigin('http://127.0.0.1:11434/v1/chat/completions')).toEqual({ origin: 'http://127.0.0.1:11434' });
    expect(connectOrigin('ftp://x')).toEqual({ error: '--llm-origin must be an http: or https: URL (got "ftp://x")' });
    expect(connectOrigin('localhost')).toMatchObject({ error: expect.stringContaining('like http://127.0.0.1:8080') });
  });

  it('every response of the wrapped app carries the narrowed policy', async () => {
    const app = new Hono();
    app.use('*', securityHeaders);
    app.get('/', (c) => c.text('ok'));
    const policy = contentSecurityPolicy(['http://127.0.0.1:8080']);
    const fetch = withPolicy(app.fetch, policy);
    for (const path of ['/', '/missing']) {
      const res = await fetch(new Request(`http://localhost${path}`));
      expect(res.headers.get('content-security-policy')).toBe(policy);
      expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    }
    expect(await (await fetch(new Request('http://localhost/'))).text()).toBe('ok');
  });
});
