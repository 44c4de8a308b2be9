import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { RELATION_WORDS } from '../../src/core/kinship/relations';
import { withDefaults } from '../../src/study/definition/definition';
import { encodeStudyLink } from '../../src/study/definition/link';

/**
 * Issue 25: the worked example (examples/jspsych/index.html) runs jsPsych from node_modules with
 * plugin-clutrr from `npm run build:jspsych`, on a phone, by clicks and by keyboard; the data
 * jsPsych keeps has one row per CLUTRR trial with the engine's gold answer for its seed.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const SHOTS = process.env.E2E_SHOTS ?? path.join(ROOT, 'e2e', 'artifacts');

/** The example's three trials, as its page lists them. */
const TRIALS = [
  { seed: 101, k: 2, task: 1 },
  { seed: 202, k: 3, task: 2 },
  { seed: 303, k: 2, task: 1 },
] as const;

const COLUMNS = [
  'gold',
  'response',
  'correct',
  'difficulty',
  'rt_ms',
  'ended_on',
  'k',
  'task',
  'seed',
  'puzzle_id',
  'query_a',
  'query_b',
  'story',
  'question',
  'phase',
  'strict',
  'time_limit_s',
  'answer_changes',
  'hidden_ms',
  'started_at',
  'answered_at',
] as const;

interface EngineTrial {
  readonly story: string;
  readonly question: string;
  readonly gold: string;
  readonly queryA: string;
  readonly queryB: string;
}

/**
 * The engine's trials for the example's seeds, the study's way (storyRequest, the core generator,
 * the story writer with the template split seeded by '1'), in a Node child process with tsx:
 * the paraphrase bank is JSON that Playwright's loader does not import.
 */
function engineTrials(): EngineTrial[] {
  const script = `
    import { generatePuzzle } from './src/core/puzzle/puzzle.ts';
    import { createRng } from './src/core/random/rng.ts';
    import { datasetRenderer } from './src/core/text/datasetText.ts';
    import { withDefaults } from './src/study/definition/definition.ts';
    import { storyRequest, trialContent } from './src/study/schedule/trialContent.ts';
    const def = withDefaults({ strict: true, templateSplit: 'all' });
    const out = ${JSON.stringify(TRIALS)}.map((t) => {
      const item = { puzzleId: 'x', phase: 'main', seed: t.seed, k: t.k, task: t.task };
      const body = storyRequest(def, item);
      const puzzle = generatePuzzle({ seed: body.seed, k: body.k, task: body.task, strict: body.strict });
      const story = datasetRenderer(body.text, '1').render(puzzle, body.text.half, createRng(puzzle.seed, 'text'));
      return trialContent(puzzle, story, item);
    });
    console.log(JSON.stringify(out));`;
  const json = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(json) as EngineTrial[];
}

/** A study link's trials for participant 0 (session seed "jspsych", the helper's default), the study's way, in Node. */
function studyTrials(token: string): (EngineTrial & { phase: string })[] {
  const script = `
    import { generatePuzzle } from './src/core/puzzle/puzzle.ts';
    import { createRng } from './src/core/random/rng.ts';
    import { datasetRenderer } from './src/core/text/datasetText.ts';
    import { decodeStudyLink } from './src/study/definition/link.ts';
    import { scheduleParticipant } from './src/study/schedule/schedule.ts';
    import { storyRequest, trialContent } from './src/study/schedule/trialContent.ts';
    const def = decodeStudyLink(${JSON.stringify(token)}).definition;
    const out = scheduleParticipant(def, { participantNumber: 0, sessionSeed: 'jspsych' }).trials.map(({ item }) => {
      const body = storyRequest(def, item);
      const puzzle = generatePuzzle({ seed: body.seed, k: body.k, task: body.task, strict: body.strict });
      const story = datasetRenderer(body.text, '1').render(puzzle, body.text.half, createRng(puzzle.seed, 'text'));
      return trialContent(puzzle, story, item);
    });
    console.log(JSON.stringify(out));`;
  const json = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(json) as (EngineTrial & { phase: string })[];
}

let expected: EngineTrial[] = [];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};
/** What the example may load: itself, jsPsych and its plugins, and the built plugin. */
const SERVED = ['examples/', 'node_modules/jspsych/', 'node_modules/@jspsych/', 'dist-jspsych/'];

let server: Server;
let origin = '';

test.beforeAll(async () => {
  expected = engineTrials();
  // The plugin's script, from this checkout's sources.
  execFileSync('npm', ['run', 'build:jspsych'], { cwd: ROOT, stdio: 'ignore', timeout: 120_000 });
  server = createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).replace(/^\/+/, '');
    const file = path.join(ROOT, rel);
    const ok =
      SERVED.some((p) => rel.startsWith(p)) &&
      !rel.split('/').includes('..') &&
      existsSync(file) &&
      statSync(file).isFile();
    if (!ok) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

test.use({ viewport: { width: 390, height: 844 } });

type Row = Record<string, unknown>;

/**
 * The page's own `jsPsych` (a top-level `const` of the example's script: `window.jsPsych` is
 * jsPsych's v7 migration trap), evaluated as the issue states the check.
 */
async function clutrrRows(page: Page): Promise<Row[]> {
  return page.evaluate<Row[]>("jsPsych.data.get().filter({ trial_type: 'clutrr' }).values()");
}

async function expectFitsPhone(page: Page) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);
}

function wrongWord(gold: string): string {
  return RELATION_WORDS.find((w) => w !== gold)!;
}

test('by clicks on a phone: three CLUTRR trials, a survey, one data row per trial with the engine’s gold', async ({
  page,
}) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${origin}/examples/jspsych/index.html`);
  await page.getByRole('button', { name: 'Start' }).click();

  const given = [expected[0]!.gold, wrongWord(expected[1]!.gold), expected[2]!.gold];
  const ratings = [3, 5, null];
  for (const [i, content] of expected.entries()) {
    await expect(page.getByTestId('trial-story')).toHaveText(content.story);
    await expect(page.getByTestId('trial-question')).toHaveText(content.question);
    await expect(page.getByTestId('answer-option')).toHaveCount(RELATION_WORDS.length);
    if (i === 1) await expect(page.getByTestId('facts-drawing-person').first()).toBeVisible();
    if (i === 2) await expect(page.getByTestId('countdown')).toContainText('s left');
    await expect(page.getByTestId('submit-answer')).toBeDisabled();
    // Change the mind once on the first trial: answer_changes counts it.
    if (i === 0) await page.locator(`[data-testid="answer-option"][data-relation="${wrongWord(given[0]!)}"]`).click();
    await page.locator(`[data-testid="answer-option"][data-relation="${given[i]}"]`).click();
    const rating = ratings[i];
    if (rating === null) await expect(page.getByTestId('difficulty-option')).toHaveCount(0);
    else await page.locator(`[data-testid="difficulty-option"][data-value="${rating}"]`).click();
    await expectFitsPhone(page);
    // The trial screen (with the drawing on the second) has no accessibility violation.
    if (i < 2) {
      const found = (await new AxeBuilder({ page }).include('.clutrr-trial').analyze()).violations;
      expect(found.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    }
    await page.screenshot({ path: path.join(SHOTS, `jspsych-trial-${i + 1}-phone.png`), fullPage: true });
    await expect(page.getByTestId('submit-answer')).toBeEnabled();
    await page.getByTestId('submit-answer').click();
  }
  await page.getByText('Yes', { exact: true }).click();
  await page.locator('#jspsych-survey-multi-choice-next').click();
  await expect(page.getByTestId('jspsych-data')).toContainText('"trial_type": "clutrr"');

  const rows = await clutrrRows(page);
  expect(rows).toHaveLength(3);
  for (const [i, row] of rows.entries()) {
    for (const c of COLUMNS) expect(row, `row ${i} column ${c}`).toHaveProperty(c);
    const content = expected[i]!;
    expect(row).toMatchObject({
      trial_type: 'clutrr',
      seed: TRIALS[i]!.seed,
      k: TRIALS[i]!.k,
      task: TRIALS[i]!.task,
      gold: content.gold,
      query_a: content.queryA,
      query_b: content.queryB,
      story: content.story,
      response: given[i],
      correct: given[i] === content.gold,
      difficulty: ratings[i],
      ended_on: 'response',
    });
    expect(row.rt_ms).toBeGreaterThan(0);
    expect(row.hidden_ms).toBe(0);
    expect(Date.parse(String(row.answered_at)) - Date.parse(String(row.started_at))).toBeGreaterThanOrEqual(0);
  }
  expect(rows[0]!.answer_changes).toBe(1);
  expect(rows[1]!.correct).toBe(false);
  expect(rows[2]!.time_limit_s).toBe(30);
  expect(errors).toEqual([]);
});

test('by keyboard on a phone; the timed trial ends with ended_on "timeout"', async ({ page }) => {
  await page.goto(`${origin}/examples/jspsych/index.html?timed=2`);
  await page.getByRole('button', { name: 'Start' }).focus();
  await page.keyboard.press('Enter');

  for (const [i, content] of expected.slice(0, 2).entries()) {
    await expect(page.getByTestId('trial-story')).toHaveText(content.story);
    // Tab into the words, arrows to the gold one, Space picks, a digit rates, Enter submits.
    await page.getByTestId('answer-option').first().focus();
    const at = (RELATION_WORDS as readonly string[]).indexOf(content.gold);
    for (let n = 0; n < at; n++) await page.keyboard.press('ArrowRight');
    await expect(page.locator(`[data-testid="answer-option"][data-relation="${content.gold}"]`)).toBeFocused();
    await page.keyboard.press('Space');
    await expect(page.locator(`[data-testid="answer-option"][data-relation="${content.gold}"]`)).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    await page.keyboard.press(String(i + 1));
    await expect(page.locator(`[data-testid="difficulty-option"][data-value="${i + 1}"]`)).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    await page.keyboard.press('Enter');
  }
  // The third trial: 2 s, no answer.
  await expect(page.getByTestId('countdown')).toBeVisible();
  await expect(page.getByTestId('trial-story')).toHaveText(expected[2]!.story);
  await expect(page.getByText('Did you enjoy the puzzles?')).toBeVisible({ timeout: 10_000 });
  await page.getByRole('radio', { name: 'No' }).focus();
  await page.keyboard.press('Space');
  await page.locator('#jspsych-survey-multi-choice-next').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('jspsych-data')).toBeVisible();

  const rows = await clutrrRows(page);
  expect(rows).toHaveLength(3);
  for (const [i, row] of rows.slice(0, 2).entries()) {
    expect(row).toMatchObject({
      gold: expected[i]!.gold,
      response: expected[i]!.gold,
      correct: true,
      difficulty: i + 1,
      ended_on: 'response',
    });
  }
  expect(rows[2]).toMatchObject({
    gold: expected[2]!.gold,
    response: '',
    correct: false,
    difficulty: null,
    ended_on: 'timeout',
    time_limit_s: 2,
  });
  expect(rows[2]!.rt_ms).toBeGreaterThanOrEqual(1900);
  await page.screenshot({ path: path.join(SHOTS, 'jspsych-data-phone.png'), fullPage: true });
});

test('a study link through the script build’s timeline helper: practice with feedback, then the study’s puzzles', async ({
  page,
}) => {
  const token = encodeStudyLink(
    withDefaults({ studyId: 'js-pilot', seed: 77, k: [2], tasks: [1], itemsPerK: 2, practice: 1, attentionChecks: 0 }),
  );
  const study = studyTrials(token);
  expect(study.map((t) => t.phase)).toEqual(['practice', 'main', 'main']);
  await page.goto(`${origin}/examples/jspsych/index.html?study=${token}`);
  await page.getByRole('button', { name: 'Start' }).click();
  const given = [wrongWord(study[0]!.gold), study[1]!.gold, study[2]!.gold];
  for (const [i, content] of study.entries()) {
    await expect(page.getByTestId('trial-story')).toHaveText(content.story);
    await expect(page.getByTestId('trial-question')).toHaveText(content.question);
    await page.locator(`[data-testid="answer-option"][data-relation="${given[i]}"]`).click();
    await page.locator('[data-testid="difficulty-option"][data-value="2"]').click();
    await page.getByTestId('submit-answer').click();
    if (i === 0) {
      // Practice: feedback names the right answer; Enter continues.
      await expect(page.getByTestId('practice-feedback')).toContainText(`Not quite`);
      await expect(page.getByTestId('practice-feedback')).toContainText(content.gold);
      await page.keyboard.press('Enter');
    }
  }
  await page.getByText('Yes', { exact: true }).click();
  await page.locator('#jspsych-survey-multi-choice-next').click();
  await expect(page.getByTestId('jspsych-data')).toBeVisible();
  const rows = await clutrrRows(page);
  expect(rows.map((r) => [r.phase, r.gold, r.story, r.query_a, r.query_b, r.study_id, r.study_trial_index])).toEqual(
    study.map((t, i) => [t.phase, t.gold, t.story, t.queryA, t.queryB, 'js-pilot', i]),
  );
  expect(rows.map((r) => r.correct)).toEqual([false, true, true]);
});
