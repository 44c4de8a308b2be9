import { type ChildProcess, execFileSync } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { spawnServer, type SpawnedServer } from '../../server/spawnServer';
import {
  countBy,
  definitionOf,
  mainPuzzleIds,
  Participant,
  PHONE,
  readResultsCsv,
  trialCount,
} from '../fixtures/study';

/**
 * The results server's fault test through the participant's page (issue 10): the REAL server
 * process (`node scripts/serve.mjs`, as `npm run serve` runs it) serves the production build on
 * a free loopback port; a study made by `study link --sink server --data` (registered in that
 * data folder) is run in Chromium at the server's own address; the server is SIGKILLed in the
 * middle while the participant keeps answering, restarted on the same port and data folder, and
 * the run finished. The offline export (`results export`) then holds every main trial once.
 * Also the designer's "Register with results server" against the same real server.
 *
 * Every wait is bounded; every server this file starts is killed in afterAll, pass or fail.
 */

const DIST = path.resolve(process.env.E2E_DIST ?? 'dist');
const STARTUP_MS = 90_000;
const started = new Set<ChildProcess>();
const folders: string[] = [];

test.afterAll(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** A port nothing listens on now (the server then takes it, and takes it again after the kill). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function tempFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'clutrr-server-fault-'));
  folders.push(dir);
  return dir;
}

type Server = SpawnedServer;

/** `node scripts/serve.mjs --port P --host 127.0.0.1 --data DIR --dist DIST` (server/spawnServer.ts), once it says it listens. */
async function startServer(port: number, data: string): Promise<Server> {
  const server = await spawnServer({ port, data, args: ['--dist', DIST], timeoutMs: STARTUP_MS });
  started.add(server.child);
  return server;
}

/** SIGKILL: no shutdown handler runs, the database is left as the kill found it. */
const killHard = (server: Server) => server.kill();

/** SIGTERM, bounded: the exit code (the server closes the database and exits 0). */
const stopGently = (server: Server, ms = 15_000) => server.stop(ms);

/** `node scripts/cli.mjs …` (the CLI the README documents), bounded; its stdout. */
const cli = (args: readonly string[]) =>
  execFileSync(process.execPath, ['scripts/cli.mjs', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';

/** The researcher's view of the sessions (GET /api/sessions with the token), bounded. */
async function storedRows(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/api/sessions`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await res.json()) as { sessions: { rows: number }[] };
  return body.sessions.reduce((n, s) => n + s.rows, 0);
}

/** The sessions the server holds (GET /api/sessions with the token). */
async function listSessions(url: string, token: string): Promise<{ session_id: string; rows: number }[]> {
  const res = await fetch(`${url}/api/sessions`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5_000),
  });
  return ((await res.json()) as { sessions: { session_id: string; rows: number }[] }).sessions;
}

/** Main and check trials done, as the progress bar says. */
const progressNow = async (p: Participant) => Number(await p.progress.first().getAttribute('aria-valuenow'));

/** Answers trials until a trial shows with `done` main and check trials behind it. */
async function answerUntil(p: Participant, done: number): Promise<void> {
  for (let guard = 0; guard < 100; guard++) {
    await p.runUntil('trial');
    if ((await progressNow(p)) >= done) return;
    await p.answer();
  }
  throw new Error(`never reached ${done} trials done`);
}

test.beforeAll(() => {
  if (!existsSync(path.join(DIST, 'index.html'))) {
    throw new Error(`no app build in ${DIST}: run vite build (E2E_DIST names another folder)`);
  }
});

test('SIGKILL of the results server mid-study: the outbox keeps the rows; the export has every main trial once', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const data = path.join(tempFolder(), 'data');
  const port = await freePort();

  const made = cli([
    'study',
    'link',
    '--study-id',
    'fault',
    '--k',
    '2,3',
    '--per-k',
    '4',
    '--seed',
    '11',
    '--practice',
    '1',
    '--sink',
    'server',
    '--data',
    data,
  ]);
  expect(made).toContain('results server: registered in');
  // The last line is the short link, and the participant opens it: the page asks the server for
  // the study's token (GET api/studies/fault/link), then for a session after consent.
  expect(lastLine(made)).toBe('?s=fault');
  expect(lastLine(made).length).toBeLessThanOrEqual(100);
  const link = (made.split('\n').find((l) => l.startsWith('full link: ')) ?? '').slice('full link: '.length);
  const def = definitionOf(link);
  expect(def.sinks).toEqual([{ kind: 'server' }]);
  const trials = trialCount(def); // 1 practice + 8 main + 1 attention check
  const mainIds = mainPuzzleIds(def);
  expect(mainIds).toHaveLength(8);

  let server = await startServer(port, data);
  expect(server.url).toBe(`http://127.0.0.1:${port}`);
  const token = readFileSync(path.join(data, 'token'), 'utf8').trim();

  const context = await browser.newContext({ viewport: PHONE });
  const page: Page = await context.newPage();
  const p = new Participant(page);
  try {
    const sessionRequests: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/sessions')) sessionRequests.push(r.postData() ?? '');
    });
    await page.goto(`${server.url}/${lastLine(made)}`);
    expect(await p.screen()).toBe('consent');
    // Nothing asked before consent.
    expect(sessionRequests).toEqual([]);

    // The practice trial and two main ones, and the server has stored them.
    await answerUntil(p, 2);
    await expect.poll(() => storedRows(server.url, token), { timeout: 30_000 }).toBeGreaterThanOrEqual(3);

    // The third main answer is submitted and the server killed at once: its POST may be on the
    // wire, stored without an answer, or never sent.
    const before = await p.signature();
    await p.pick();
    await p.submit.click();
    await killHard(server);
    await p.leaves(before);

    // The participant carries on with nobody listening: rows are committed in the browser only.
    await answerUntil(p, 6);
    await expect(p.failure).toHaveCount(0);
    await expect(fetch(`${server.url}/api/health`, { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
    // The killed server's database opens (offline) with what it acknowledged: the practice and
    // at least two main rows, and none of those answered while it was down.
    const atKill = Number(
      /rows=(\d+)$/.exec(
        lastLine(cli(['results', 'export', '--data', data, '--out', path.join(path.dirname(data), 'at-kill.csv')])),
      )?.[1],
    );
    expect(atKill).toBeGreaterThanOrEqual(3);
    expect(atKill).toBeLessThanOrEqual(4);

    server = await startServer(port, data);
    await p.runUntil('completion');
    await expect(p.completion).toBeVisible();
    // The outbox's retries find the server again (backoff of at most a few tens of seconds here).
    await expect(p.sinkStatus).toHaveAttribute('data-state', 'sent', { timeout: 120_000 });
    const downloaded = await p.results();
    expect(downloaded.rows).toHaveLength(trials);
    expect(await storedRows(server.url, token)).toBe(trials);
    // One session asked for, by the short link's study id; the rows carry the issued session's id.
    expect(sessionRequests).toHaveLength(1);
    expect(JSON.parse(sessionRequests[0]!)).toEqual({ study_id: 'fault' });
    const issued = await listSessions(server.url, token);
    expect(issued.map((s) => s.session_id)).toEqual([downloaded.rows[0]!.session_id]);
  } finally {
    await context.close();
  }

  expect(await stopGently(server)).toBe(0);
  const out = path.join(path.dirname(data), 'x.csv');
  const exported = cli(['results', 'export', '--data', data, '--out', out]);
  expect(lastLine(exported)).toBe(`sessions=1 rows=${trials}`);
  const { rows } = readResultsCsv(readFileSync(out, 'utf8'));
  const main = rows.filter((r) => r.phase === 'main');
  expect([...countBy(main, (r) => r.puzzle_id).entries()].sort()).toEqual(mainIds.map((id) => [id, 1]).sort());
  expect([...countBy(rows, (r) => r.trial_index).values()].every((n) => n === 1)).toBe(true);
  expect(new Set(rows.map((r) => r.session_id)).size).toBe(1);
  expect(rows.every((r) => r.study_id === 'fault' && r.response !== '')).toBe(true);
});

test('the designer served by the results server registers its study there (401, registered, unchanged, down)', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const data = path.join(tempFolder(), 'data');
  const server = await startServer(await freePort(), data);
  const token = readFileSync(path.join(data, 'token'), 'utf8').trim();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto(`${server.url}/#/study`);
    await page.locator('[name="studyId"]').fill('designed');
    // Only a study that sends rows to the server offers to register with it.
    await expect(page.getByTestId('study-register')).toHaveCount(0);
    await page.locator('[name="server"]').check();
    const register = page.getByTestId('study-register');
    const result = page.getByTestId('study-register-result');
    const secret = page.getByLabel('Researcher token');
    await expect(register).toBeDisabled();
    await expect(page.getByTestId('study-cli')).toContainText('--sink server');

    await secret.fill('not-the-token');
    await register.click();
    await expect(result).toHaveText(/refused the researcher token \(401\)/);
    const serious = (await new AxeBuilder({ page }).include('.sd').analyze()).violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    expect(serious).toEqual([]);

    await secret.fill(token);
    await register.click();
    await expect(result).toHaveText('Study "designed" registered; the server now accepts its rows.');
    await page.screenshot({ path: 'e2e/artifacts/designer-register.png', fullPage: true });
    await register.click();
    await expect(result).toHaveText(/already registered/);

    // What the server holds is the designer's own link.
    const link = (await page.getByTestId('study-link').textContent()) ?? '';
    const res = await fetch(`${server.url}/api/studies`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5_000),
    });
    const { studies } = (await res.json()) as { studies: { study_id: string; token: string }[] };
    expect(studies.map((s) => s.study_id)).toEqual(['designed']);
    expect(link).toContain(`?study=${studies[0]!.token}`);
    expect(definitionOf(link.slice(link.indexOf('?'))).sinks).toEqual([{ kind: 'server' }]);

    await killHard(server);
    await register.click();
    await expect(result).toHaveText(/could not be reached/, { timeout: 30_000 });
  } finally {
    await context.close();
  }
});

/** The `full link: ?study=…` line of `study link --sink server` (printed while it is not too long). */
const fullLink = (made: string) =>
  (made.split('\n').find((l) => l.startsWith('full link: ')) ?? '').slice('full link: '.length);

/** `study link --sink server --data DATA` with small defaults and `extra` flags; the CLI's whole output. */
const makeStudy = (studyId: string, data: string, extra: readonly string[] = []) =>
  cli(
    ['study', 'link', '--study-id', studyId, '--k', '2', '--per-k', '2', '--seed', '21', '--practice', '0'].concat(
      ['--attention-checks', '0', '--sink', 'server', '--data', data],
      extra,
    ),
  );

test('a closed study: the short link opens, consent, then a screen saying the study is closed; nothing recorded', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const data = path.join(tempFolder(), 'data');
  const made = makeStudy('shut', data);
  expect(lastLine(made)).toBe('?s=shut');
  expect(lastLine(cli(['study', 'close', '--data', data, '--study-id', 'shut']))).toMatch(/^study shut: closed/);
  const server = await startServer(await freePort(), data);
  const token = readFileSync(path.join(data, 'token'), 'utf8').trim();
  const context = await browser.newContext({ viewport: PHONE });
  const page = await context.newPage();
  const p = new Participant(page);
  try {
    // An unknown study id: the participant is told, in words.
    await page.goto(`${server.url}/?s=nosuchstudy`);
    await expect(p.error).toHaveText('There is no study "nosuchstudy" here. Please check the link you were given.');

    await page.goto(`${server.url}/?s=shut&PROLIFIC_PID=closed-1`);
    expect(await p.screen()).toBe('consent');
    await p.consentAccept.click();
    const refused = page.getByTestId('study-refused');
    await expect(refused).toContainText(/closed/i);
    await expect(page.getByText('Nothing was recorded.')).toBeVisible();
    // Said once: the server's message already tells a Prolific participant to return the study.
    await expect(page.getByText(/Prolific/)).toHaveCount(1);
    await page.screenshot({ path: '/work/tmp/shots-e/refused-closed.png', fullPage: true });
    expect(await listSessions(server.url, token)).toEqual([]);
    // A reload asks again (nothing was stored) and is refused again.
    await page.reload();
    expect(await p.screen()).toBe('consent');
    await p.consentAccept.click();
    await expect(refused).toContainText(/closed/i);

    // Opened again: the same link now runs.
    expect(lastLine(cli(['study', 'open', '--data', data, '--study-id', 'shut']))).toMatch(/^study shut: open/);
    await page.reload();
    await p.runUntil('completion');
    await expect(p.sinkStatus).toHaveAttribute('data-state', 'sent', { timeout: 30_000 });
    expect((await listSessions(server.url, token)).map((s) => s.rows)).toEqual([
      trialCount(definitionOf(fullLink(made))),
    ]);
  } finally {
    await context.close();
    expect(await stopGently(server)).toBe(0);
  }
});

test('a second HTTP sink that never answers (no CORS): the redirect goes once the results server has every row', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  // Answers 200 without CORS headers: the browser's fetch throws a TypeError, every time.
  let foreignHits = 0;
  const foreign = createHttpServer((req, res) => {
    foreignHits++;
    req.resume();
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  const foreignUrl = `http://127.0.0.1:${(foreign.address() as { port: number }).port}/rows`;
  const data = path.join(tempFolder(), 'data');
  const port = await freePort();
  const thanks = `http://127.0.0.1:${port}/thanks-primary`;
  const made = makeStudy('twosinks', data, ['--http-sink', foreignUrl, '--redirect', thanks]);
  const server = await startServer(port, data);
  const token = readFileSync(path.join(data, 'token'), 'utf8').trim();
  const context = await browser.newContext({ viewport: PHONE });
  const page = await context.newPage();
  let storedAtRedirect = -1;
  await page.route('**/thanks-primary', async (route) => {
    storedAtRedirect = (await listSessions(server.url, token)).reduce((n, s) => n + s.rows, 0);
    return route.fulfill({ contentType: 'text/html', body: '<p>thanks</p>' });
  });
  const p = new Participant(page);
  try {
    await page.goto(`${server.url}/${lastLine(made)}&PROLIFIC_PID=two-sinks`);
    await p.runUntil('completion');
    // The primary (the results server) has every row; the copy for the other address is still pending.
    await expect(p.sinkStatus).toHaveAttribute('data-state', 'partly-sent', { timeout: 30_000 });
    await expect(p.sinkStatus).toContainText('Your answers were sent to the study server');
    await expect(p.sinkStatus).toContainText(`A copy is still being sent to 127.0.0.1:`);
    await page.screenshot({ path: '/work/tmp/shots-e/partly-sent.png', fullPage: true });
    await page.waitForURL(thanks, { timeout: 30_000 });
    expect(storedAtRedirect).toBe(trialCount(definitionOf(fullLink(made))));
    // The browser did try the other address (the server saw requests it answered without CORS).
    expect(foreignHits).toBeGreaterThan(0);
  } finally {
    await context.close();
    foreign.close();
    expect(await stopGently(server)).toBe(0);
  }
});

test('the designer refuses a participant link too long for proxies, and names the short link instead', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const data = path.join(tempFolder(), 'data');
  const server = await startServer(await freePort(), data);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto(`${server.url}/#/study`);
    await page.locator('[name="studyId"]').fill('longtexts');
    await page.locator('[name="server"]').check();
    await expect(page.getByTestId('study-link')).toBeVisible();
    // Words from a seeded generator: text that deflate cannot shrink much, as real prose.
    let x = 7;
    const word = () => {
      let w = '';
      for (let i = 0; i < 6; i++) {
        x = (x * 1103515245 + 12345) % 2 ** 31;
        w += 'abcdefghijklmnopqrstuvwxyz'[x % 26];
      }
      return w;
    };
    const text = Array.from({ length: 2_000 }, word).join(' ').slice(0, 12_000);
    await page.locator('[name="consentText"]').fill(text);
    const tooLong = page.getByTestId('study-link-too-long');
    await expect(tooLong).toContainText(/the participant link is \d+ characters long, more than the 6000/);
    await expect(tooLong).toContainText(`${server.url}/?s=longtexts`);
    for (const id of ['study-link', 'study-link-copy', 'study-preview']) {
      await expect(page.getByTestId(id)).toHaveCount(0);
    }
    await tooLong.scrollIntoViewIfNeeded();
    await page.screenshot({ path: '/work/tmp/shots-e/designer-link-too-long.png' });
    // A short text: the link is back.
    await page.locator('[name="consentText"]').fill('Short consent.');
    await expect(page.getByTestId('study-link')).toBeVisible();
    await expect(tooLong).toHaveCount(0);
  } finally {
    await context.close();
    expect(await stopGently(server)).toBe(0);
  }
});

test('the study server unreachable when the session is asked for: connecting, the problem and Try again, then the run', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const data = path.join(tempFolder(), 'data');
  const made = makeStudy('flaky', data);
  const server = await startServer(await freePort(), data);
  const token = readFileSync(path.join(data, 'token'), 'utf8').trim();
  const context = await browser.newContext({ viewport: PHONE });
  const page = await context.newPage();
  let refusedTries = 0;
  let down = true;
  await page.route('**/api/sessions', (route) => {
    if (!down) return route.continue();
    refusedTries++;
    return route.abort('connectionrefused');
  });
  const p = new Participant(page);
  try {
    await page.goto(`${server.url}/${lastLine(made)}`);
    expect(await p.screen()).toBe('consent');
    await p.consentAccept.click();
    await expect(page.getByTestId('connecting')).toBeVisible();
    // After three failed tries (1 s and 2 s apart) the page says why and offers to try again.
    const retry = page.getByTestId('connecting-retry');
    await expect(retry).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId('connecting-problem')).toContainText('cannot be reached');
    expect(refusedTries).toBeGreaterThanOrEqual(3);
    await page.screenshot({ path: '/work/tmp/shots-e/connecting.png', fullPage: true });
    expect(await listSessions(server.url, token)).toEqual([]);
    down = false;
    await retry.click();
    await p.runUntil('completion');
    await expect(p.sinkStatus).toHaveAttribute('data-state', 'sent', { timeout: 30_000 });
    const sessions = await listSessions(server.url, token);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.rows).toBe(trialCount(definitionOf(fullLink(made))));
  } finally {
    await context.close();
    expect(await stopGently(server)).toBe(0);
  }
});
