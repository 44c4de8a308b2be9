import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type BrowserContext, expect, type Page, test } from '@playwright/test';
import { spawnServer, type SpawnedServer } from '../../server/spawnServer';
import type { StudyDefinition } from '../../src/study/definition/definition';
import type { RelationWord } from '../../src/core/kinship/relations';
import { adaptiveAnswers, adaptiveItem, adaptiveSettings, storedEstimate } from '../../src/study/kinds/adaptive';
import { adaptiveState } from '../../src/study/adaptive/procedure';
import type { EstimateColumns, ResultRow } from '../../src/study/results/resultFields';
import type { Answer } from '../../src/study/adaptive/psychometric';
import { studyTrialContent } from '../../src/study/schedule/trialFacts';
import { definitionOf, normalise, Participant, PHONE } from '../fixtures/study';

/**
 * Issue 32: an adaptive study made in the designer (QUEST+, the estimate shown at the end), run
 * on a phone by a participant who is right up to k = 4 and wrong beyond: every trial shows the
 * very puzzle the procedure picks after the answers so far (replayed here in Node), the run ends
 * at its stopping rule, and the completion screen shows the estimate. Then the designer's power
 * planner gives its figures for the paper's design. Screenshots of the adaptive trial, the
 * completion and the planner at phone and desktop sizes go to SHOTS. Through the results server:
 * every row is stored, and a session begun on a phone continues on a desktop with its resume code,
 * which picks the very puzzle the phone would have shown next (from the server's earlier rows).
 * The server stores each row's running threshold estimate (its own recomputation), and the
 * results dashboard's threshold table (`adaptive-thresholds`, on the phone) shows the stored one.
 * The planner of an adaptive design answers the adaptive questions (interval half-width, power
 * between conditions) from the same procedure in the power worker.
 */
const SHOTS = process.env.E2E_SHOTS ?? 'e2e/artifacts';
const DESKTOP = { width: 1280, height: 800 } as const;
const TRIALS = 10;

const DIST = path.resolve(process.env.E2E_DIST ?? 'dist');
const servers: SpawnedServer[] = [];
const folders: string[] = [];
test.afterAll(async () => {
  for (const s of servers) await s.stop(5_000).catch(() => undefined);
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

/** `node scripts/cli.mjs …`: its stdout (throws with stderr on a failure). */
const cli = (args: readonly string[]) =>
  execFileSync(process.execPath, ['scripts/cli.mjs', ...args], {
    encoding: 'utf8',
    timeout: 180_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/**
 * Runs every adaptive trial as a participant right up to k = 4: each story must be the very puzzle
 * the procedure picks after the answers so far (replayed here); `onTrial` before each answer.
 */
async function runAdaptive(page: Page, def: StudyDefinition, onTrial?: (n: number) => Promise<void>) {
  const p = new Participant(page);
  await p.runUntil('trial');
  const answers: Answer[] = [];
  for (let n = 0; n < def.adaptiveTrials; n++) {
    expect(await p.screen()).toBe('trial');
    const item = adaptiveItem(def, answers)!;
    const content = studyTrialContent(def, item);
    expect(await p.storyText()).toBe(normalise(content.story));
    await onTrial?.(n);
    const right = item.k <= 4;
    const wrong: RelationWord = content.gold === 'father' ? 'mother' : 'father';
    await p.answer(right ? content.gold : wrong);
    answers.push({ k: item.k, correct: right });
  }
  expect(await p.screen()).toBe('completion');
  return { p, answers };
}

/** Answers the adaptive trial on screen as a participant right up to k = 4, checking it is the item `answers` decide. */
async function answerOne(p: Participant, def: StudyDefinition, answers: Answer[]): Promise<void> {
  expect(await p.screen()).toBe('trial');
  const item = adaptiveItem(def, answers)!;
  const content = studyTrialContent(def, item);
  expect(await p.storyText()).toBe(normalise(content.story));
  const right = item.k <= 4;
  await p.answer(right ? content.gold : content.gold === 'father' ? 'mother' : 'father');
  answers.push({ k: item.k, correct: right });
}

/** The study's rows the server stores (the CLI's export), adaptive ones in trial order. */
function exportedRows(data: string) {
  const file = path.join(data, 'export.json');
  rmSync(file, { force: true });
  cli(['results', 'export', '--data', data, '--out', file]);
  return (
    JSON.parse(readFileSync(file, 'utf8')) as {
      rows: { session_id: string; trial_index: number; puzzle_id: string; k: number; correct: boolean }[];
    }
  ).rows
    .filter((r) => r.puzzle_id.startsWith('adaptive-'))
    .sort((a, b) => a.trial_index - b.trial_index);
}

test.describe('the adaptive study kind', () => {
  test('made in the designer, run on a phone to its stopping rule, with the estimate at the end', async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize(DESKTOP);
    await page.goto('/#/study');
    await page.evaluate(() => localStorage.removeItem('clutrr-lab:study-designer'));
    await page.reload();
    const field = (name: string) => page.locator(`[name="${name}"]`);
    await page.locator('[data-testid="study-kind-option"][value="adaptive"]').check();
    await expect(page.getByTestId('study-adaptive-settings')).toBeVisible();
    await expect(field('itemsPerK')).toHaveCount(0);
    await field('adaptive').selectOption('quest');
    await field('adaptiveTrials').fill(String(TRIALS));
    await field('practice').fill('0');
    await field('showEstimate').check();
    await field('download').check();
    await field('sendInstructions').fill('Mail it to lab@example.org.');
    await expect(page.getByTestId('study-cli')).toContainText('--kind adaptive');
    await expect(page.getByTestId('study-cli')).toContainText('--adaptive quest');
    await expect(page.getByTestId('study-summary-counts')).toContainText(`up to ${TRIALS} puzzles`);
    const link = (await page.getByTestId('study-link').textContent())!;
    const linkPath = link.slice(link.indexOf('?'));
    const def = definitionOf(linkPath);
    expect(def).toMatchObject({ kind: 'adaptive', adaptive: 'quest', adaptiveTrials: TRIALS, showEstimate: true });
    expect(def.k).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);

    // The participant, on a phone.
    await page.setViewportSize(PHONE);
    await page.goto(`/${linkPath}`);
    const { p, answers } = await runAdaptive(page, def, async (n) => {
      if (n !== 1) return;
      await page.screenshot({ path: `${SHOTS}/adaptive-trial-phone.png`, fullPage: true });
      await page.setViewportSize(DESKTOP);
      await page.screenshot({ path: `${SHOTS}/adaptive-trial-desktop.png`, fullPage: true });
      await page.setViewportSize(PHONE);
    });
    expect(new Set(answers.map((a) => a.k)).size).toBeGreaterThan(1);
    await expect(page.getByTestId('adaptive-estimate')).toBeVisible();
    const shown = (await page.getByTestId('adaptive-threshold').textContent())!;
    const k = Number(/k ≈ (\d+\.\d)/.exec(shown)![1]);
    expect(Math.abs(k - 4)).toBeLessThanOrEqual(1);
    await page.screenshot({ path: `${SHOTS}/adaptive-completion-phone.png`, fullPage: true });
    await page.setViewportSize(DESKTOP);
    await page.screenshot({ path: `${SHOTS}/adaptive-completion-desktop.png`, fullPage: true });

    // The downloaded rows are the procedure's items, one per answer.
    const { rows } = await p.results();
    const main = rows.filter((r) => r.phase === 'main');
    expect(main).toHaveLength(TRIALS);
    const replay = main.map((r) => ({
      trial_index: Number(r.trial_index),
      phase: 'main' as const,
      k: Number(r.k),
      correct: r.correct === 'true',
      ended_on: 'response' as const,
    }));
    main.forEach((r, n) => {
      expect(r.puzzle_id).toBe(adaptiveItem(def, adaptiveAnswers(replay.slice(0, n)))!.puzzleId);
    });
  });

  test('through the results server: it stores every row, each what the procedure picks after the rows before it', async ({
    page,
  }) => {
    test.setTimeout(240_000);
    const data = mkdtempSync(path.join(tmpdir(), 'clutrr-adaptive-e2e-'));
    folders.push(data);
    const server = await spawnServer({ data, args: ['--dist', DIST], timeoutMs: 90_000 });
    servers.push(server);
    const out = cli(
      ['study', 'link', '--kind', 'adaptive', '--study-id', 'adapt-e2e', '--seed', '12'].concat([
        '--adaptive',
        'staircase',
        '--adaptive-trials',
        '8',
        '--practice',
        '0',
        '--sink',
        'server',
        '--data',
        data,
      ]),
    );
    const short = out.trimEnd().split('\n').at(-1)!;
    const full = /full link: (\S+)/.exec(out)![1]!;
    const def = definitionOf(full.slice(full.indexOf('?')));
    await page.setViewportSize(PHONE);
    await page.goto(`${server.url}/${short.slice(short.indexOf('?'))}`);
    const { p, answers } = await runAdaptive(page, def);
    await expect(p.sinkStatus).toHaveAttribute('data-state', 'sent', { timeout: 30_000 });
    const file = path.join(data, 'export.json');
    cli(['results', 'export', '--data', data, '--out', file]);
    const rows = (
      JSON.parse(readFileSync(file, 'utf8')) as {
        rows: (Pick<ResultRow, 'session_id' | 'trial_index' | 'puzzle_id' | 'k' | 'correct'> & EstimateColumns)[];
      }
    ).rows
      .filter((r) => r.puzzle_id.startsWith('adaptive-'))
      .sort((a, b) => a.trial_index - b.trial_index);
    expect(rows).toHaveLength(8);
    rows.forEach((r, n) => {
      expect(r.puzzle_id).toBe(adaptiveItem(def, answers.slice(0, n))!.puzzleId);
      expect(r.correct).toBe(answers[n]!.correct);
      // The estimate after each answer, stored with the row: the server's own recomputation.
      const state = adaptiveState(adaptiveSettings(def), answers.slice(0, n + 1));
      expect([r.threshold_k, r.threshold_low, r.threshold_high, r.adaptive_procedure, r.adaptive_stop]).toEqual([
        storedEstimate(state.estimate.threshold),
        storedEstimate(state.estimate.low),
        storedEstimate(state.estimate.high),
        'staircase',
        n === 7 ? 'trials' : '',
      ]);
    });
    const last = rows.at(-1)!;

    // The researcher's dashboard, on the phone: the threshold table shows what the server stored.
    const token = readFileSync(path.join(data, 'token'), 'utf8').trim();
    await page.goto(`${server.url}/#/results`);
    await page.getByTestId('results-server').locator('summary').click();
    await page.getByTestId('results-server-token').fill(token);
    await page.getByTestId('results-fetch').click();
    await expect(page.getByTestId('results-server-status')).toHaveAttribute('data-status', 'done', {
      timeout: 30_000,
    });
    const table = page.getByTestId('adaptive-thresholds');
    await expect(table).toBeVisible({ timeout: 30_000 });
    const line = table.getByTestId('adaptive-thresholds-row');
    await expect(line).toHaveCount(1);
    await expect(line).toHaveAttribute('data-session', last.session_id);
    await expect(line.getByTestId('adaptive-thresholds-k')).toHaveAttribute('data-value', String(last.threshold_k));
    await expect(line.getByTestId('adaptive-thresholds-k')).toHaveText(last.threshold_k!.toFixed(2));
    await expect(line.getByTestId('adaptive-thresholds-interval')).toHaveText(
      `[${last.threshold_low!.toFixed(2)}, ${last.threshold_high!.toFixed(2)}]`,
    );
    await expect(line.getByTestId('adaptive-thresholds-stop')).toHaveAttribute('data-value', 'trials');
    await expect(line).toContainText('staircase');
    await expect(line.locator('td').nth(5)).toHaveText('8');
    await expect(page.getByTestId('adaptive-thresholds-mean')).toContainText(`${last.threshold_k!.toFixed(2)} hops`);
    // On a phone the table scrolls in its own focusable region; the page does not scroll sideways.
    const region = table.locator('.table-scroll');
    await expect(region).toHaveAttribute('tabindex', '0');
    await expect(region).toHaveAttribute('role', 'region');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await table.scrollIntoViewIfNeeded();
    await table.screenshot({ path: `${SHOTS}/adaptive-thresholds-phone.png` });
    // Scrolled sideways inside its region: the remaining columns, the session column kept in view.
    await region.evaluate((el) => (el.scrollLeft = el.scrollWidth));
    await table.screenshot({ path: `${SHOTS}/adaptive-thresholds-phone-scrolled.png` });
  });

  test('the power planner gives the power and the participants needed, in a worker', async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize(DESKTOP);
    await page.goto('/#/study');
    await page.evaluate(() => localStorage.removeItem('clutrr-lab:study-designer'));
    await page.reload();
    const field = (name: string) => page.locator(`[name="${name}"]`);
    // The paper's design: k = 2..6.
    await field('k').fill('2,3,4,5,6');
    await field('download').check();
    await field('sendInstructions').fill('Mail it to lab@example.org.');
    const planner = page.getByTestId('study-power');
    await expect(planner).toBeVisible();
    await expect(page.getByTestId('study-power-accuracy')).toHaveValue('2:0.848, 3:0.773, 4:0.477, 5:0.424, 6:0.406');
    await page.getByTestId('study-power-participants').fill('20');
    await page.getByTestId('study-power-run').click();
    const result = page.getByTestId('study-power-result');
    await expect(result).toBeVisible({ timeout: 90_000 });
    const row = (t: string) => page.getByTestId(`study-power-${t}`).locator('td');
    await expect(row('decline').nth(1)).toHaveText(/^\d+%$/);
    const needed = Number(await row('conditions').nth(2).textContent());
    expect(needed).toBeGreaterThan(20);
    expect(Number(await row('contrast').nth(2).textContent())).toBeGreaterThanOrEqual(4);
    await expect(result).toContainText('simulated studies');
    await page.getByTestId('study-power-use').click();
    await expect(page.getByTestId('study-planned-n')).toContainText(`Planned N: ${needed}.`);
    await expect(page.getByTestId('study-recruitment')).toContainText(`recruit ${needed}`);
    await planner.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/adaptive-planner-desktop.png`, fullPage: true });
    await page.setViewportSize(PHONE);
    await planner.scrollIntoViewIfNeeded();
    await planner.screenshot({ path: `${SHOTS}/adaptive-planner-phone.png` });
  });

  test("an adaptive design's planner: participants for the mean threshold's interval, from its own procedure", async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await page.setViewportSize(PHONE);
    await page.goto('/#/study');
    await page.evaluate(() => localStorage.removeItem('clutrr-lab:study-designer'));
    await page.reload();
    const field = (name: string) => page.locator(`[name="${name}"]`);
    await page.locator('[data-testid="study-kind-option"][value="adaptive"]').check();
    await field('adaptive').selectOption('staircase');
    await field('adaptiveTrials').fill('20');
    await field('download').check();
    await field('sendInstructions').fill('Mail it to lab@example.org.');
    const planner = page.getByTestId('study-power');
    await expect(planner).toHaveAttribute('data-kind', 'adaptive');
    // The fixed-item planner's inputs are not asked; the adaptive ones are.
    await expect(page.getByTestId('study-power-accuracy')).toHaveCount(0);
    await expect(page.getByTestId('study-power-meanThreshold')).toHaveValue('3.5');
    await page.getByTestId('study-power-pool').fill('150');
    await page.getByTestId('study-power-run').click();
    await expect(page.getByTestId('study-power-result')).toBeVisible({ timeout: 90_000 });
    const needed = Number(await page.getByTestId('study-power-halfwidth').getAttribute('data-needed'));
    expect(needed).toBeGreaterThan(20);
    expect(needed).toBeLessThan(200);
    await expect(page.getByTestId('study-power-halfwidth').locator('td').nth(2)).toHaveText(String(needed));
    await expect(page.getByTestId('study-power-conditions')).toHaveCount(0);
    await expect(page.getByTestId('study-power-people')).toContainText('150 simulated people (20.0 trials each');
    await page.getByTestId('study-power-use').click();
    await expect(page.getByTestId('study-planned-n')).toContainText(`Planned N: ${needed}.`);
    await expect(page.getByTestId('study-planned-n')).toContainText('a 95% interval on the mean threshold no wider');
    await expect(page.getByTestId('study-recruitment')).toContainText(`recruit ${needed}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await planner.scrollIntoViewIfNeeded();
    await planner.screenshot({ path: `${SHOTS}/adaptive-planner-adaptive-phone.png` });
  });

  test('begun on a phone, continued on a desktop with the resume code: the next puzzle is the one the phone would have shown', async ({
    browser,
  }) => {
    test.setTimeout(240_000);
    const data = mkdtempSync(path.join(tmpdir(), 'clutrr-adaptive-e2e-'));
    folders.push(data);
    const server = await spawnServer({ data, args: ['--dist', DIST], timeoutMs: 90_000 });
    servers.push(server);
    const out = cli(
      ['study', 'link', '--kind', 'adaptive', '--study-id', 'adapt-devices', '--seed', '21'].concat([
        '--adaptive',
        'staircase',
        '--adaptive-trials',
        '8',
        '--practice',
        '0',
        '--sink',
        'server',
        '--data',
        data,
      ]),
    );
    const short = out.trimEnd().split('\n').at(-1)!;
    const full = /full link: (\S+)/.exec(out)![1]!;
    const def = definitionOf(full.slice(full.indexOf('?')));
    const link = `${server.url}/${short.slice(short.indexOf('?'))}`;
    const contexts: BrowserContext[] = [];
    const answers: Answer[] = [];
    try {
      const phone = await browser.newContext({ viewport: PHONE });
      contexts.push(phone);
      const p = new Participant(await phone.newPage());
      await p.page.goto(link);
      expect(await p.screen()).toBe('consent');
      await p.consentAccept.click();
      const code = (await p.page.getByTestId('resume-code').textContent()) ?? '';
      expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
      await p.runUntil('trial');
      // Three adaptive trials on the phone, stored by the server.
      for (let n = 0; n < 3; n++) await answerOne(p, def, answers);
      await expect.poll(() => exportedRows(data).length, { timeout: 30_000 }).toBe(3);
      const phoneNext = adaptiveItem(def, answers)!;
      expect(await p.storyText()).toBe(normalise(studyTrialContent(def, phoneNext).story));

      // The desktop: the same link, the code; the puzzle the phone shows next, then the rest.
      const desktop = await browser.newContext({ viewport: DESKTOP });
      contexts.push(desktop);
      const q = new Participant(await desktop.newPage());
      await q.page.goto(link);
      expect(await q.screen()).toBe('consent');
      await q.page.getByText('Continuing from another device?').click();
      await q.page.getByTestId('resume-code-input').fill(code);
      await q.page.getByTestId('resume-code-submit').click();
      await q.runUntil('trial');
      expect(await q.storyText()).toBe(normalise(studyTrialContent(def, phoneNext).story));
      await q.page.screenshot({ path: `${SHOTS}/adaptive-resumed-desktop.png`, fullPage: true });
      for (let n = 3; n < def.adaptiveTrials; n++) await answerOne(q, def, answers);
      expect(await q.screen()).toBe('completion');
      await expect(q.sinkStatus).toHaveAttribute('data-state', 'sent', { timeout: 30_000 });
      await expect(q.page.getByTestId('refusal-notice')).toHaveCount(0);
    } finally {
      for (const c of contexts) await c.close().catch(() => undefined);
    }
    // One session, every trial once, each the item the answers before it decide.
    const rows = exportedRows(data);
    expect(rows).toHaveLength(8);
    expect(new Set(rows.map((r) => r.session_id)).size).toBe(1);
    rows.forEach((r, n) => {
      expect(r.trial_index).toBe(n);
      expect(r.puzzle_id).toBe(adaptiveItem(def, answers.slice(0, n))!.puzzleId);
      expect(r.correct).toBe(answers[n]!.correct);
    });
    expect(new Set(rows.map((r) => r.k)).size).toBeGreaterThan(1);
  });
});
