import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Browser, type BrowserContext, expect, type Page, test } from '@playwright/test';
import { spawnServer, type SpawnedServer } from '../../server/spawnServer';
import { seriousViolations } from '../fixtures/axe';
import { Collector } from '../fixtures/collect';
import { countBy, definitionOf, Participant, PHONE, readResultsCsv, trialCount, type CsvRow } from '../fixtures/study';

/**
 * One participant, two devices, through the REAL results server (`node scripts/serve.mjs` with the
 * e2e build, a study made by `study link --sink server --data`): the session begun on a phone
 * (390×844) is continued in a fresh desktop browser (1280×800, its own storage) at the first trial
 * the server does not have, and finished there; the export then holds every trial exactly once.
 *
 * - a Prolific participant: the same link with the same PROLIFIC_PID, STUDY_ID and SESSION_ID
 *   continues the session without a code;
 * - the same for a paraphrase study (`study link --kind paraphrase`);
 * - an anonymous participant: the resume code shown on the phone's instructions, typed on the
 *   desktop's consent screen ("Continuing from another device?").
 *
 * Every wait is bounded; every server started here is stopped in afterAll, pass or fail.
 */

const DIST = path.resolve(process.env.E2E_DIST ?? 'dist');
const SHOTS = process.env.E2E_SHOTS ? path.resolve(process.env.E2E_SHOTS) : null;
const DESKTOP = { width: 1280, height: 800 } as const;
const servers: SpawnedServer[] = [];
const folders: string[] = [];

test.beforeAll(() => {
  if (!existsSync(path.join(DIST, 'index.html'))) {
    throw new Error(`no app build in ${DIST}: run vite build (E2E_DIST names another folder)`);
  }
});

test.afterAll(async () => {
  for (const s of servers) await s.stop(10_000).catch(() => undefined);
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** `node scripts/cli.mjs …`, bounded; its stdout. */
const cli = (args: readonly string[]) =>
  execFileSync(process.execPath, ['scripts/cli.mjs', ...args], {
    encoding: 'utf8',
    timeout: 120_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';

/** The `full link: ?study=…` line of `study link --sink server`. */
const fullLink = (made: string) =>
  (made.split('\n').find((l) => l.startsWith('full link: ')) ?? '').slice('full link: '.length);

/** A data folder with the study `args` makes registered in it, and the server serving the e2e build on it. */
async function serveStudy(args: readonly string[]): Promise<{ server: SpawnedServer; data: string; made: string }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'clutrr-devices-'));
  folders.push(dir);
  const data = path.join(dir, 'data');
  const made = cli(['study', 'link', ...args, '--sink', 'server', '--data', data]);
  expect(made).toContain('results server: registered in');
  const server = await spawnServer({ data, args: ['--dist', DIST], timeoutMs: 90_000 });
  servers.push(server);
  return { server, data, made };
}

const researcherToken = (data: string) => readFileSync(path.join(data, 'token'), 'utf8').trim();

/** Rows the server stores for the study (GET api/sessions with the researcher's token). */
async function storedRows(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/api/sessions`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(5_000),
  });
  const body = (await res.json()) as { sessions: { rows: number }[] };
  return body.sessions.reduce((n, s) => n + s.rows, 0);
}

/** The server's CSV export of the study (GET api/results.csv with the token). */
async function exported(url: string, token: string): Promise<CsvRow[]> {
  const res = await fetch(`${url}/api/results.csv`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(10_000),
  });
  expect(res.status).toBe(200);
  return readResultsCsv(await res.text()).rows;
}

/** Every trial of the study once, one session, every answer given (the export of a finished run). */
function expectEveryTrialOnce(rows: readonly CsvRow[], trials: number): void {
  expect(rows).toHaveLength(trials);
  expect([...countBy(rows, (r) => r.trial_index).entries()].sort()).toEqual(
    Array.from({ length: trials }, (_, i) => [String(i), 1]).sort(),
  );
  expect(new Set(rows.map((r) => r.session_id)).size).toBe(1);
  expect(rows.every((r) => r.ended_on === 'response')).toBe(true);
  // The times the server checks: never a longer time on screen than the trial's span.
  for (const r of rows) {
    expect(Number(r.rt_ms)).toBeLessThanOrEqual(Date.parse(r.answered_at!) - Date.parse(r.started_at!));
  }
}

/** A fresh browser (its own storage) of a size. */
const device = (browser: Browser, viewport: { width: number; height: number }) => browser.newContext({ viewport });

/** Main and check trials done, as the progress bar says. */
const progressNow = async (page: Page) =>
  Number(await page.getByTestId('progress').first().getAttribute('aria-valuenow'));

/** Goes through the puzzle screens until `done` main trials are answered and the next trial shows. */
async function answerUntil(p: Participant, done: number): Promise<void> {
  for (let guard = 0; guard < 100; guard++) {
    await p.runUntil('trial');
    if ((await progressNow(p.page)) >= done) return;
    await p.answer();
  }
  throw new Error(`never reached ${done} trials done`);
}

/** Writes the paraphrase on screen (its facts, which always pass the live checks) and submits it. */
async function writeOne(c: Collector): Promise<void> {
  const before = await c.done();
  const facts = await c.factLines();
  await c.text.fill(facts.join(' '));
  await expect(c.submitParaphrase).toBeEnabled();
  await c.submitParaphrase.click();
  await expect.poll(() => c.done().catch(() => before + 1)).toBeGreaterThan(before);
}

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `devices-${name}.png`), fullPage: true });
}

async function closeAll(contexts: BrowserContext[]): Promise<void> {
  for (const c of contexts) await c.close().catch(() => undefined);
}

test('a Prolific participant starts on a phone and finishes on a desktop: every trial stored once', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const { server, data, made } = await serveStudy(
    ['--study-id', 'devices', '--k', '2,3', '--per-k', '2', '--seed', '31'].concat([
      '--practice',
      '1',
      '--attention-checks',
      '0',
    ]),
  );
  const def = definitionOf(fullLink(made));
  const trials = trialCount(def); // 1 practice + 4 main
  const token = researcherToken(data);
  const link = `${server.url}/${lastLine(made)}&PROLIFIC_PID=p1&STUDY_ID=s1&SESSION_ID=x1`;
  const contexts: BrowserContext[] = [];
  try {
    const phone = await device(browser, PHONE);
    contexts.push(phone);
    const p = new Participant(await phone.newPage());
    await p.page.goto(link);
    // The practice trial and two main ones on the phone, stored by the server.
    await answerUntil(p, 2);
    const onPhone = await p.storyText();
    await expect.poll(() => storedRows(server.url, token), { timeout: 30_000 }).toBe(3);

    const desktop = await device(browser, DESKTOP);
    contexts.push(desktop);
    const q = new Participant(await desktop.newPage());
    await q.page.goto(link);
    expect(await q.screen()).toBe('consent');
    await q.consentAccept.click();
    // The instructions again (a new device), then the first trial the server does not have.
    await expect(q.page.getByTestId('resume-code')).toHaveText(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    await q.runUntil('trial');
    expect(await progressNow(q.page)).toBe(2);
    expect(await q.storyText()).toBe(onPhone);
    await shot(q.page, 'prolific-desktop-continues');
    await q.runUntil('completion');
    await expect(q.sinkStatus).toHaveAttribute('data-state', 'sent', { timeout: 30_000 });
    await expect(q.page.getByTestId('refusal-notice')).toHaveCount(0);
    expect((await q.results()).rows.map((r) => r.trial_index)).toEqual(['3', '4']);
  } finally {
    await closeAll(contexts);
  }
  const rows = await exported(server.url, token);
  expectEveryTrialOnce(rows, trials);
  expect(rows.every((r) => r.participant_id === 'p1' && r.prolific_session_id === 'x1')).toBe(true);
});

test('a paraphrase study, begun on a phone and finished on a desktop: every story stored once', async ({ browser }) => {
  test.setTimeout(240_000);
  const { server, data, made } = await serveStudy([
    ...['--kind', 'paraphrase', '--study-id', 'para-devices', '--seed', '13'],
  ]);
  const def = definitionOf(fullLink(made));
  const trials = def.clausesPerParticipant;
  expect(trials).toBeGreaterThanOrEqual(3);
  const token = researcherToken(data);
  const link = `${server.url}/${lastLine(made)}&PROLIFIC_PID=writer-9&STUDY_ID=s1&SESSION_ID=x9`;
  const contexts: BrowserContext[] = [];
  try {
    const phone = await device(browser, PHONE);
    contexts.push(phone);
    const page = await phone.newPage();
    const p = new Participant(page);
    const c = new Collector(page);
    await page.goto(link);
    await p.consentAccept.click();
    await p.continueButton.click();
    await writeOne(c);
    await writeOne(c);
    const third = await c.factLines();
    await expect.poll(() => storedRows(server.url, token), { timeout: 30_000 }).toBe(2);

    const desktop = await device(browser, DESKTOP);
    contexts.push(desktop);
    const page2 = await desktop.newPage();
    const q = new Participant(page2);
    const d = new Collector(page2);
    await page2.goto(link);
    await q.consentAccept.click();
    await q.continueButton.click();
    expect(await d.done()).toBe(2);
    expect(await d.factLines()).toEqual(third);
    for (let i = 2; i < trials; i++) await writeOne(d);
    await expect(q.completion).toBeVisible();
    await expect(q.sinkStatus).toHaveAttribute('data-state', 'sent', { timeout: 30_000 });
    await expect(page2.getByTestId('refusal-notice')).toHaveCount(0);
  } finally {
    await closeAll(contexts);
  }
  const rows = await exported(server.url, token);
  expectEveryTrialOnce(rows, trials);
  // A paraphrase row holds the story written (in `story`) and whether the live checks passed.
  expect(rows.every((r) => r.story !== '' && r.correct === 'true')).toBe(true);
});

test('without Prolific ids: the resume code from the phone continues the session on a desktop', async ({ browser }) => {
  test.setTimeout(240_000);
  const { server, data, made } = await serveStudy(
    ['--study-id', 'devices-code', '--k', '2,3', '--per-k', '2', '--seed', '37'].concat([
      '--practice',
      '0',
      '--attention-checks',
      '0',
    ]),
  );
  const def = definitionOf(fullLink(made));
  const trials = trialCount(def); // 4 main
  const token = researcherToken(data);
  const link = `${server.url}/${lastLine(made)}`;
  const contexts: BrowserContext[] = [];
  try {
    const phone = await device(browser, PHONE);
    contexts.push(phone);
    const p = new Participant(await phone.newPage());
    await p.page.goto(link);
    expect(await p.screen()).toBe('consent');
    await p.consentAccept.click();
    const code = (await p.page.getByTestId('resume-code').textContent()) ?? '';
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    await expect(p.page.getByTestId('resume-code-note')).toContainText(
      'To continue on another device, open the same link there and enter this code.',
    );
    await shot(p.page, 'code-phone-instructions');
    expect(await seriousViolations(p.page)).toEqual([]);
    await answerUntil(p, 2);
    const onPhone = await p.storyText();
    await expect.poll(() => storedRows(server.url, token), { timeout: 30_000 }).toBe(2);

    const desktop = await device(browser, DESKTOP);
    contexts.push(desktop);
    const q = new Participant(await desktop.newPage());
    await q.page.goto(link);
    expect(await q.screen()).toBe('consent');
    // A code that cannot be one is said on the page, before any request.
    await q.page.getByText('Continuing from another device?').click();
    await shot(q.page, 'code-desktop-consent');
    expect(await seriousViolations(q.page)).toEqual([]);
    await q.page.getByTestId('resume-code-input').fill('K7QM');
    await q.page.getByTestId('resume-code-submit').click();
    await expect(q.page.getByTestId('resume-problem')).toContainText('is not a resume code');
    await shot(q.page, 'code-desktop-not-a-code');
    expect(await seriousViolations(q.page)).toEqual([]);
    // A wrong code: the server's sentence, and another try.
    await q.page.getByTestId('resume-code-input').fill(code === 'ZZZZ-ZZZZ' ? 'YYYY-YYYY' : 'ZZZZ-ZZZZ');
    await q.page.getByTestId('resume-code-submit').click();
    await expect(q.page.getByTestId('resume-problem')).toContainText('does not belong to a session of this study', {
      timeout: 15_000,
    });
    await q.page.getByTestId('resume-code-input').fill(code.toLowerCase().replace('-', ' '));
    await q.page.getByTestId('resume-code-submit').click();
    await q.runUntil('trial');
    expect(await progressNow(q.page)).toBe(2);
    expect(await q.storyText()).toBe(onPhone);
    await q.runUntil('completion');
    await expect(q.sinkStatus).toHaveAttribute('data-state', 'sent', { timeout: 30_000 });
    await expect(q.page.getByTestId('refusal-notice')).toHaveCount(0);
  } finally {
    await closeAll(contexts);
  }
  const rows = await exported(server.url, token);
  expectEveryTrialOnce(rows, trials);
});
