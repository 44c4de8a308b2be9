import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { spawnServer, type SpawnedServer } from '../../server/spawnServer';
import { splitFComb } from '../../src/core/text/templates';
import { seriousViolations } from '../fixtures/axe';
import type { FiguresSummary } from '../fixtures/collectScripts';

/**
 * The paraphrase collection pipeline (issue 24) through the REAL results server (`node
 * scripts/serve.mjs` with the e2e build), its export and the CLI:
 *
 * - "thirty stories": test scripts write 30 stories for a paraphrase study and review them
 *   (three reviews each) through the server's API as participants' pages do; the export feeds
 *   `templates collect`; the dashboard (`#/results`, fetched from the same server) shows the
 *   collection panel, whose figures must equal what the CLI and the rows say. With
 *   `COLLECT_FIGURES=<dir>` the template files, the export, the dashboard's figures and its
 *   screenshots are kept there (the closing note's material).
 *
 * - "on a phone": a paraphrase study and a live review study made with `study link --kind … --sink
 *   server --data`; at 390 × 844 one participant writes stories for three clauses through the
 *   page (the first refused by the live checks, then fixed); three others review them through
 *   the page (the queue hands each the three stories); `results export` feeds `templates collect
 *   --from` (and `--data` gives the same); `generate --templates` with that file writes stories
 *   that hold the collected sentences with other names; `check` finds every row entailed.
 *
 * Every wait is bounded; every server started here is stopped in afterAll, pass or fail.
 */

/** A 390 px phone (as e2e/fixtures/study.ts's PHONE; that module loads the scheduler, which this file must not). */
const PHONE = { width: 390, height: 844 } as const;
const DIST = path.resolve(process.env.E2E_DIST ?? 'dist');
const FIGURES = process.env.COLLECT_FIGURES ? path.resolve(process.env.COLLECT_FIGURES) : null;
const SHOTS = process.env.E2E_SHOTS ? path.resolve(process.env.E2E_SHOTS) : null;
const servers: SpawnedServer[] = [];
const folders: string[] = [];

test.afterAll(async () => {
  for (const s of servers) await s.stop(5_000).catch(() => undefined);
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

test.beforeAll(() => {
  if (!existsSync(path.join(DIST, 'index.html'))) {
    throw new Error(`no app build in ${DIST}: run vite build (E2E_DIST names another folder)`);
  }
});

function tempFolder(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  folders.push(dir);
  return dir;
}

/** A template file's f_comb as --patterns spells its words (in-law words whole, `neice` → `niece`). */
function wordsOf(fComb: string): string[] {
  const split = splitFComb(fComb);
  if ('unknown' in split) throw new Error(`templates collect wrote an unknown relation word: ${split.unknown}`);
  return split.words;
}

/** `node scripts/cli.mjs …`, bounded: stdout (throws with stderr on a failure). */
const cli = (args: readonly string[]) =>
  execFileSync(process.execPath, ['scripts/cli.mjs', ...args], {
    encoding: 'utf8',
    timeout: 180_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

const lastLine = (text: string) => text.trimEnd().split('\n').at(-1) ?? '';

async function startServer(data: string): Promise<SpawnedServer & { token: string }> {
  // Every scripted participant comes from this machine's address: the per-address session limit
  // (30 at once) is raised as for a lab behind one address.
  const server = await spawnServer({
    data,
    args: ['--dist', DIST, '--address-session-burst', '200'],
    timeoutMs: 90_000,
  });
  servers.push(server);
  return { ...server, token: readFileSync(path.join(data, 'token'), 'utf8').trim() };
}

/** Loads the server's export into the dashboard (its own "Fetch from a results server" form). */
async function openDashboard(page: Page, url: string, token: string): Promise<void> {
  await page.goto(`${url}/#/results`);
  await page.getByTestId('results-server').locator('summary').click();
  await page.getByTestId('results-server-token').fill(token);
  await page.getByTestId('results-fetch').click();
  await expect(page.getByTestId('results-server-status')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('collect-panel')).toBeVisible({ timeout: 30_000 });
}

const num = async (page: Page, testId: string, attr: string) =>
  Number(await page.getByTestId(testId).getAttribute(attr));

test('thirty stories written and reviewed by test scripts through the server: templates collect and the dashboard agree', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const data = tempFolder('clutrr-collect-figures-');
  const server = await startServer(data);
  // The scripted writers and reviewers (e2e/fixtures/collectScripts.ts, a child process).
  const summary = JSON.parse(
    lastLine(
      execFileSync(
        process.execPath,
        ['--import', 'tsx', 'e2e/fixtures/collectScripts.ts', 'figures', server.url, server.token],
        { encoding: 'utf8', timeout: 180_000, stdio: ['ignore', 'pipe', 'pipe'] },
      ),
    ),
  ) as FiguresSummary;
  const stories = summary.stories;
  expect(stories).toBeGreaterThanOrEqual(20);
  expect(summary.sameItemsAgain).toBe(true);
  // Each story × 3 reviews / 3 per reviewer: as many reviewers as stories, then the queue is empty.
  expect(Object.keys(summary.reviewed)).toHaveLength(stories);
  const perStory = new Map<string, number>();
  for (const id of Object.values(summary.reviewed).flat()) perStory.set(id, (perStory.get(id) ?? 0) + 1);
  expect(perStory.size).toBe(stories);
  expect([...perStory.values()].every((n) => n === 3)).toBe(true);
  // writer-0 reviewed too, and was never handed a story of their own.
  expect(summary.reviewed['writer-0']).toHaveLength(3);
  expect(summary.reviewed['writer-0']!.map((id) => id.split('/')[0])).not.toContain(summary.writerSessions['writer-0']);

  // The export and templates collect.
  const exportFile = path.join(data, 'export.json');
  expect(lastLine(cli(['results', 'export', '--data', data, '--out', exportFile]))).toBe(
    `sessions=${stories / 3 + stories} rows=${4 * stories}`,
  );
  const templatesFile = path.join(data, 'collected.json');
  const collected = lastLine(cli(['templates', 'collect', '--data', data, '--out', templatesFile]));
  const m = /^paraphrases=(\d+) accepted=(\d+) templates=(\d+)$/.exec(collected);
  expect(m, collected).not.toBeNull();
  const [paraphrases, accepted, templates] = m!.slice(1).map(Number) as [number, number, number];
  expect(paraphrases).toBe(stories);
  expect(templates).toBeGreaterThan(0);
  expect(templates).toBeLessThanOrEqual(accepted);

  // The collected templates make a dataset: every row entailed (check).
  const collectedBank = JSON.parse(readFileSync(templatesFile, 'utf8')) as Record<string, Record<string, string[]>>;
  const singles = Object.keys(collectedBank).filter((f) => wordsOf(f).length === 1);
  expect(singles.length).toBeGreaterThan(0);
  const generated = path.join(data, 'generated');
  cli([
    'generate',
    '--templates',
    templatesFile,
    '--train-tasks',
    '1.2',
    '--test-tasks',
    '1.2',
    '--train-rows',
    '100',
    '--test-rows',
    '50',
    '--patterns',
    singles
      .map((f) => wordsOf(f)[0]!)
      .map((f) => `${f}-*,*-${f}`)
      .join(','),
    '--out',
    generated,
  ]);
  // Every row entailed (some through an assumption rule, as any dataset made without --strict).
  expect(lastLine(cli(['check', path.join(generated, '1.2_train.csv'), path.join(generated, '1.2_test.csv')]))).toMatch(
    /^rows=150 entailed=150 ambiguous=0 unsupported=0 /,
  );

  // The dashboard, fetched from the same server, says the same.
  await page.setViewportSize({ width: 1280, height: 900 });
  await openDashboard(page, server.url, server.token);
  const counts = page.getByTestId('collect-counts');
  await expect(counts).toHaveAttribute('data-paraphrases', String(stories));
  await expect(counts).toHaveAttribute('data-reviews', String(3 * stories));
  await expect(counts).toHaveAttribute('data-accepted', String(accepted));
  await expect(page.getByTestId('collect-acceptance')).toHaveAttribute('data-judged', String(stories));
  await expect(page.getByTestId('collect-stories')).toHaveAttribute('data-count', String(stories));
  // 25 a page.
  await expect(page.getByTestId('collect-story')).toHaveCount(Math.min(25, stories));
  const storyRows = JSON.parse(readFileSync(exportFile, 'utf8')) as { rows: { study_id: string; correct: boolean }[] };
  const reviewRows = storyRows.rows.filter((r) => r.study_id === 'review-figures');
  expect(reviewRows).toHaveLength(3 * stories);
  // Acceptance as the rows say: a story is accepted when all three reviews are good.
  const acceptance = await num(page, 'collect-acceptance', 'data-value');
  expect(acceptance).toBeCloseTo(accepted / stories, 10);
  const kappa = await num(page, 'collect-kappa', 'data-value');
  expect(kappa).toBeGreaterThan(0);
  expect(kappa).toBeLessThanOrEqual(1);
  const reasons = await page
    .getByTestId('collect-reason')
    .evaluateAll(
      (els) =>
        Object.fromEntries(
          els.map((e) => [e.getAttribute('data-reason'), Number(e.getAttribute('data-count'))]),
        ) as Record<string, number>,
    );
  const badReviews = reviewRows.filter((r) => !r.correct).length;
  expect(Object.values(reasons).reduce((a, b) => a + b, 0)).toBe(badReviews);
  const jaccard = page.getByTestId('collect-jaccard');
  await expect(jaccard).toHaveAttribute('data-paper-unigram', '0.201');
  await expect(jaccard).toHaveAttribute('data-paper-bigram', '0.0385');

  if (SHOTS) {
    mkdirSync(SHOTS, { recursive: true });
    await page.getByTestId('collect-summary').screenshot({ path: path.join(SHOTS, 'collect-summary.png') });
    await page.getByTestId('collect-coverage').screenshot({ path: path.join(SHOTS, 'collect-coverage.png') });
    for (const status of ['accepted', 'rejected'] as const) {
      await page
        .locator(`[data-testid="collect-story"][data-status="${status}"]`)
        .first()
        .screenshot({ path: path.join(SHOTS, `collect-story-${status}.png`) });
    }
  }
  // Accessible: no serious or critical axe violation (colour contrast included) with the panel shown.
  expect(await seriousViolations(page)).toEqual([]);
  await page.setViewportSize(PHONE);
  if (SHOTS)
    await page.getByTestId('collect-summary').screenshot({ path: path.join(SHOTS, 'collect-summary-phone.png') });
  // Nothing wider than the phone (tables scroll inside their own box).
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

  if (FIGURES) {
    mkdirSync(FIGURES, { recursive: true });
    const base = templatesFile.replace(/\.json$/, '');
    for (const [from, to] of [
      [templatesFile, 'templates.json'],
      [`${base}.train.json`, 'templates.train.json'],
      [`${base}.test.json`, 'templates.test.json'],
      [exportFile, 'export.json'],
    ] as const) {
      if (existsSync(from)) writeFileSync(path.join(FIGURES, to), readFileSync(from));
    }
    const figures = {
      templates_collect: collected,
      stories,
      reviews: 3 * stories,
      accepted,
      acceptance_rate: acceptance,
      fleiss_kappa: kappa,
      kappa_items: await num(page, 'collect-kappa', 'data-items'),
      observed_agreement: await num(page, 'collect-kappa', 'data-observed'),
      chance_agreement: await num(page, 'collect-kappa', 'data-expected'),
      jaccard_unigram: await num(page, 'collect-jaccard', 'data-unigram'),
      jaccard_bigram: await num(page, 'collect-jaccard', 'data-bigram'),
      jaccard_clauses: await num(page, 'collect-jaccard', 'data-clauses'),
      paper_jaccard: { unigram: 0.201, bigram: 0.0385 },
      reasons,
      cells_with_stories: await page.getByTestId('collect-coverage-k').evaluateAll((els) =>
        els.map((e) => ({
          k: e.getAttribute('data-k'),
          cells: e.getAttribute('data-cells'),
          with_stories: e.getAttribute('data-with-stories'),
          with_accepted: e.getAttribute('data-with-accepted'),
        })),
      ),
    };
    writeFileSync(path.join(FIGURES, 'figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
  }
});

/** Consent, then the instructions, until the first trial of a collection study shows. */
async function startRun(page: Page, trialTestId: string): Promise<void> {
  await page.getByTestId('consent-accept').click();
  const trial = page.getByTestId(trialTestId);
  const next = page.getByTestId('continue');
  await expect(trial.or(next).first()).toBeVisible({ timeout: 30_000 });
  if (await next.isVisible()) await next.click();
  await expect(trial).toBeVisible({ timeout: 30_000 });
}

/** The regular expression of a collected template: its placeholders as bracketed names, the same name for the same placeholder. */
function templatePattern(template: string): RegExp {
  const seen = new Map<string, number>();
  let source = '';
  let at = 0;
  for (const m of template.matchAll(/ENT_(\d+)_(male|female)/g)) {
    source += template.slice(at, m.index).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const group = seen.get(m[0]);
    if (group === undefined) {
      seen.set(m[0], seen.size + 1);
      source += '\\[([^\\]]+)\\]';
    } else source += `\\[\\${group}\\]`;
    at = m.index + m[0].length;
  }
  return new RegExp(source + template.slice(at).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
}

test('on a phone: one participant writes three stories, three review them, templates collect, generate and check', async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const data = tempFolder('clutrr-collect-phone-');
  const server = await startServer(data);
  // The studies, made and registered in the server's data folder by the CLI.
  expect(
    lastLine(
      cli([
        'study',
        'link',
        '--kind',
        'paraphrase',
        '--study-id',
        'para-phone',
        '--seed',
        '31',
        '--clauses-per-participant',
        '3',
        // Every 2-fact combination occurs in the generator's default families; some 3-fact ones
        // (son-father-father needs four generations) do not, and generate could not show them.
        '--clause-k',
        '1,2',
        '--sink',
        'server',
        '--data',
        data,
      ]),
    ),
  ).toBe('?s=para-phone');
  expect(
    lastLine(
      cli([
        'study',
        'link',
        '--kind',
        'review',
        '--study-id',
        'review-phone',
        '--seed',
        '32',
        '--source-study',
        'para-phone',
        '--reviews-per-story',
        '3',
        '--reviews-per-participant',
        '3',
        '--sink',
        'server',
        '--data',
        data,
      ]),
    ),
  ).toBe('?s=review-phone');

  // The writer, on a phone.
  const writerContext = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true });
  const writer = await writerContext.newPage();
  await writer.goto(`${server.url}/?s=para-phone&PROLIFIC_PID=writer-phone`);
  await startRun(writer, 'paraphrase-text');
  const written: { facts: string[]; story: string }[] = [];
  for (let i = 0; i < 3; i++) {
    await expect(writer.getByTestId('paraphrase-text')).toBeVisible({ timeout: 30_000 });
    const facts = (await writer.getByTestId('paraphrase-facts').locator('li').allTextContents()).map((t) => t.trim());
    expect(facts.length).toBeGreaterThanOrEqual(1);
    const text = writer.getByTestId('paraphrase-text');
    const submit = writer.getByTestId('submit-paraphrase');
    if (i === 0) {
      // First a story that names nobody: the live checks refuse it and say why.
      await text.fill('They all went to the seaside together last summer.');
      await expect(writer.getByTestId('paraphrase-problems').locator('li').first()).toBeVisible();
      await expect(submit).toBeDisabled();
      if (SHOTS) await writer.screenshot({ path: path.join(SHOTS, 'phone-paraphrase-refused.png'), fullPage: true });
    }
    // The facts in the writer's order with a sentence of their own: the checks pass.
    const story = `${[...facts].reverse().join(' ')} ${['It rained all afternoon.', 'The cake was excellent.', 'Nobody wanted to go home.'][i]}`;
    await text.fill(story);
    await expect(submit).toBeEnabled({ timeout: 10_000 });
    written.push({ facts, story });
    await submit.click();
    if (i < 2) await expect(text).toHaveValue('', { timeout: 15_000 });
  }
  await expect(writer.getByTestId('completion')).toBeVisible({ timeout: 30_000 });
  await expect(writer.getByTestId('sink-status')).toHaveAttribute('data-state', 'sent', { timeout: 60_000 });
  expect(await writer.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await writerContext.close();

  // Three reviewers, each on a phone: the queue hands each the three stories; the third reviewer
  // calls the last one bad (another reason).
  const stories = new Set(written.map((w) => w.story));
  for (let r = 0; r < 3; r++) {
    const context = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${server.url}/?s=review-phone&PROLIFIC_PID=reviewer-${r}`);
    await startRun(page, 'review-story');
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const story = page.getByTestId('review-story');
      await expect(story).toBeVisible({ timeout: 30_000 });
      const shown = ((await story.textContent()) ?? '').replace(/\s+/g, ' ').trim();
      expect(stories.has(shown), shown).toBe(true);
      expect(seen).not.toContain(shown);
      seen.push(shown);
      await expect(page.getByTestId('review-facts').locator('li')).not.toHaveCount(0);
      const bad = r === 2 && shown === written[2]!.story;
      await page.locator(`[data-testid="review-verdict"][data-value="${bad ? 'bad' : 'good'}"]`).click();
      if (bad) await page.locator('[data-testid="review-reason"][data-value="other"]').check();
      if (SHOTS && r === 2 && i === 0) {
        await page.screenshot({ path: path.join(SHOTS, 'phone-review.png'), fullPage: true });
      }
      await page.getByTestId('submit-review').click();
      if (i < 2) await expect(page.getByTestId('review-story')).not.toHaveText(shown, { timeout: 15_000 });
    }
    await expect(page.getByTestId('completion')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('sink-status')).toHaveAttribute('data-state', 'sent', { timeout: 60_000 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await context.close();
  }

  // The export feeds templates collect; the data folder gives the same.
  const exportFile = path.join(data, 'export.csv');
  expect(lastLine(cli(['results', 'export', '--data', data, '--out', exportFile]))).toBe('sessions=4 rows=12');
  const templatesFile = path.join(data, 'collected.json');
  expect(lastLine(cli(['templates', 'collect', '--from', exportFile, '--out', templatesFile]))).toBe(
    'paraphrases=3 accepted=2 templates=2',
  );
  expect(
    lastLine(cli(['templates', 'collect', '--data', data, '--out', path.join(data, 'from-data.json'), '--force'])),
  ).toBe('paraphrases=3 accepted=2 templates=2');
  const bank = JSON.parse(readFileSync(templatesFile, 'utf8')) as Record<string, Record<string, string[]>>;
  const collected = Object.entries(bank).flatMap(([fComb, byGender]) =>
    Object.values(byGender).flatMap((list) => list.map((template) => ({ fComb, template }))),
  );
  expect(collected).toHaveLength(2);

  // generate --templates: stories holding the collected sentences, with other names; check.
  for (const [n, { fComb, template }] of collected.entries()) {
    const words = wordsOf(fComb);
    const k = Math.max(2, words.length);
    const patterns = words.length === 1 ? `${words[0]}-*,*-${words[0]}` : words.join('-');
    const out = path.join(data, `generated-${n}`);
    cli([
      'generate',
      '--templates',
      templatesFile,
      '--train-tasks',
      `1.${k}`,
      '--test-tasks',
      `1.${k}`,
      '--train-rows',
      '200',
      '--test-rows',
      '20',
      '--patterns',
      patterns,
      '--out',
      out,
    ]);
    const csv = readFileSync(path.join(out, `1.${k}_train.csv`), 'utf8');
    const pattern = templatePattern(template);
    const match = pattern.exec(csv);
    expect(match, `no generated story holds "${template}"`).not.toBeNull();
    // Names of the generator's, not the writer's.
    const names = match!.slice(1);
    const original = written.map((w) => w.story).join(' ');
    expect(
      names.some((name) => !original.includes(name)),
      names.join(', '),
    ).toBe(true);
    expect(lastLine(cli(['check', path.join(out, `1.${k}_train.csv`), path.join(out, `1.${k}_test.csv`)]))).toMatch(
      /^rows=220 entailed=220 ambiguous=0 unsupported=0 /,
    );
  }
});
