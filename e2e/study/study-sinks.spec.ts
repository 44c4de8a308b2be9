import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, type Request, test } from '@playwright/test';
import { cliLink, countBy, definitionOf, Participant, PHONE, trialCount } from '../fixtures/study';

/**
 * An HTTP results server (`--http-sink`) that is down, or down for a while (issue 9): the run
 * never waits for it, the participant's own download always has every row, the server gets each
 * row exactly once when it comes back, and the redirect waits for every acknowledgement. The
 * server is a route in the browser (another origin, where nothing listens), except for the
 * beacon at the end of the first test, which only a real server can see.
 */
test.use({ viewport: PHONE });

const port = Number(process.env.E2E_PORT ?? 4173);
/** Another origin than the app's, as a results server would be: the app must cope with CORS. */
const SINK = `http://127.0.0.1:${port + 1}/api/rows`;
const CORS = { 'access-control-allow-origin': '*' };

interface SinkRow {
  session_id: string;
  trial_index: number;
}

/** The rows of a request to the sink: `{ sessions, rows }`. */
const rowsOf = (request: Request): SinkRow[] =>
  (JSON.parse(request.postData() ?? '{}') as { rows?: SinkRow[] }).rows ?? [];

/**
 * A results server that refuses everything (503), on a port of its own; it records what reaches
 * it. Used where Playwright cannot stand in: a beacon sent while a page unloads bypasses (or is
 * lost in) request interception, so only a real server sees it.
 */
async function refusingServer(): Promise<{
  url: string;
  hits: { mode: string; rows: SinkRow[] }[];
  close: () => void;
}> {
  const hits: { mode: string; rows: SinkRow[] }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      let rows: SinkRow[] = [];
      try {
        rows = (JSON.parse(body) as { rows?: SinkRow[] }).rows ?? [];
      } catch {
        // not a sink body
      }
      hits.push({ mode: String(req.headers['sec-fetch-mode'] ?? ''), rows });
      res.writeHead(503, CORS).end('down');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: p } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${p}/api/rows`, hits, close: () => server.close() };
}

test('a results server that stays down: the run ends, says it could not send, the code and the download stay', async ({
  page,
  baseURL,
}) => {
  const down = await refusingServer();
  try {
    const thanks = `${baseURL}/thanks-offline`;
    const path = cliLink(
      ['--k', '2', '--per-k', '2', '--seed', '31', '--practice', '0', '--attention-checks', '0'].concat([
        '--http-sink',
        down.url,
        '--completion-code',
        'OFFLINE42',
        '--redirect',
        thanks,
      ]),
    );
    const def = definitionOf(path);
    // During the run the server is unreachable altogether (connection refused).
    const tries: Request[] = [];
    await page.route(down.url, (route) => {
      tries.push(route.request());
      return route.abort('connectionrefused');
    });
    let redirected = 0;
    await page.route('**/thanks-offline', (route) => {
      redirected++;
      return route.fulfill({ contentType: 'text/html', body: '<p>thanks</p>' });
    });
    const p = new Participant(page);
    await page.goto(`/${path}`);
    await p.runUntil('completion');

    await expect(p.completionCode).toContainText('OFFLINE42');
    await expect(p.sinkStatus).toContainText(/could not/i, { timeout: 40_000 });
    expect(tries.length).toBeGreaterThan(0);
    const { rows } = await p.results();
    expect(rows).toHaveLength(trialCount(def));
    expect([...countBy(rows, (r) => r.trial_index).values()].every((n) => n === 1)).toBe(true);
    // Still here: the redirect waits for rows the server never acknowledged.
    await expect(p.completion).toBeVisible();
    await expect(p.completionCode).toContainText('OFFLINE42');
    expect(redirected).toBe(0);
    expect(new URL(page.url()).pathname).not.toContain('thanks');

    // Leaving the page hands every unsent row to a beacon (refused too: the server is still down).
    await page.unroute(down.url);
    await page.goto('about:blank');
    await expect
      .poll(() => down.hits.filter((h) => h.mode === 'no-cors').flatMap((h) => h.rows).length, { timeout: 10_000 })
      .toBe(trialCount(def));
  } finally {
    down.close();
  }
});

test('a results server that fails, then recovers: every row arrives once, and only then the redirect', async ({
  page,
  baseURL,
}) => {
  const thanks = `${baseURL}/thanks-sink`;
  const path = cliLink(
    ['--k', '2,3', '--per-k', '2', '--seed', '32', '--practice', '1', '--attention-checks', '1'].concat([
      '--http-sink',
      SINK,
      '--redirect',
      thanks,
    ]),
  );
  const def = definitionOf(path);
  const received: SinkRow[] = [];
  let requests = 0;
  await page.route(SINK, async (route) => {
    requests++;
    // Down twice (refused, then an error status), then up.
    if (requests === 1) return route.abort('connectionrefused');
    if (requests === 2) return route.fulfill({ status: 503, headers: CORS, body: 'busy' });
    received.push(...rowsOf(route.request()));
    return route.fulfill({ status: 200, headers: CORS, contentType: 'application/json', body: '{"ok":true}' });
  });
  let receivedAtRedirect = -1;
  await page.route('**/thanks-sink', (route) => {
    receivedAtRedirect = received.length;
    return route.fulfill({ contentType: 'text/html', body: '<p>thanks</p>' });
  });
  const p = new Participant(page);
  await page.goto(`/${path}`);
  await p.answerAll(trialCount(def));
  // The completion says everything was sent, then the redirect follows.
  await expect(p.sinkStatus).toContainText(/\ball\b.*\bsent\b/i, { timeout: 30_000 });
  await page.waitForURL(thanks, { timeout: 30_000 });

  expect(requests).toBeGreaterThanOrEqual(3);
  const perTrial = countBy(received, (r) => `${r.session_id}/${r.trial_index}`);
  expect(perTrial.size).toBe(trialCount(def));
  expect([...perTrial.values()].every((n) => n === 1)).toBe(true);
  expect(receivedAtRedirect).toBe(trialCount(def));
});

test('a preview run sends nothing and leaves the real session untouched', async ({ page }) => {
  const path = cliLink(['--k', '2', '--per-k', '2', '--seed', '33', '--practice', '0', '--http-sink', SINK]);
  const def = definitionOf(path);
  let requests = 0;
  await page.route(SINK, (route) => {
    requests++;
    return route.fulfill({ status: 200, headers: CORS, body: '{}' });
  });
  const p = new Participant(page);
  await page.goto(`/${path}&preview=1`);
  await p.runUntil('completion');
  const { rows } = await p.results();
  expect(rows).toHaveLength(trialCount(def));
  // Rows go out right after each put, so a run that sent anything has done so by now.
  expect(requests).toBe(0);

  // The real link starts afresh: the preview's rows live in a store of their own.
  await page.goto(`/${path}`);
  expect(await p.screen()).toBe('consent');
});

test('a results address that refuses the rows (400): no endless retries, the participant is told, no redirect', async ({
  page,
  baseURL,
}) => {
  const thanks = `${baseURL}/thanks-refused`;
  const path = cliLink(
    ['--k', '2', '--per-k', '2', '--seed', '34', '--practice', '0', '--attention-checks', '0'].concat([
      '--http-sink',
      SINK,
      '--redirect',
      thanks,
    ]),
  );
  const def = definitionOf(path);
  let requests = 0;
  await page.route(SINK, (route) => {
    requests++;
    return route.fulfill({
      status: 400,
      headers: CORS,
      contentType: 'application/json',
      body: JSON.stringify({ error: 'rows.0.participant_id: longer than 200 characters' }),
    });
  });
  let redirected = 0;
  await page.route('**/thanks-refused', (route) => {
    redirected++;
    return route.fulfill({ contentType: 'text/html', body: '<p>thanks</p>' });
  });
  const p = new Participant(page);
  await page.goto(`/${path}`);
  await p.runUntil('completion');
  await expect(p.sinkStatus).toHaveAttribute('data-state', 'refused', { timeout: 15_000 });
  await expect(p.sinkStatus).toContainText('127.0.0.1');
  await expect(p.sinkStatus).toContainText('refused');
  await expect(p.sinkStatus).toContainText('longer than 200 characters');
  await expect(p.sinkStatus).toContainText('download your answers');
  await page.screenshot({ path: `${process.env.E2E_SHOTS ?? 'test-results'}/sink-refused.png`, fullPage: true });
  // One request per row at most besides the first batch: the refusal ended the retries.
  const settled = requests;
  expect(settled).toBeLessThanOrEqual(1 + trialCount(def));
  await page.waitForTimeout(5_000);
  expect(requests).toBe(settled);
  // The only destination refused: no redirect; a reload does not send them again either.
  expect(redirected).toBe(0);
  await page.reload();
  await expect(p.sinkStatus).toHaveAttribute('data-state', 'refused');
  await page.waitForTimeout(2_000);
  expect(requests).toBe(settled);
  const { rows } = await p.results();
  expect(rows).toHaveLength(trialCount(def));
});
