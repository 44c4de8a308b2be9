import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import { parseCsv } from '../../src/core/formats/csv';
import { rowsToCsv, type ResultRow } from '../../src/study/results/results';
import { NO_ESTIMATE } from '../../src/study/results/resultFields';

/**
 * The results dashboard at #/results, on the production build, fed the generated study of 50
 * participants (e2e/fixtures/results-a.csv: participants 1–30, results-b.json: 26–50, so five
 * sessions come twice). The figures are recomputed here with plain code from the same files and
 * compared with what the page shows; bad files are refused with their row and column; the server
 * fetch sends the token; accessibility; screenshots at desktop width and at 390 px.
 */

const ARTIFACTS = 'e2e/artifacts';
mkdirSync(ARTIFACTS, { recursive: true });
/** Extra copies of the screenshots for whoever runs the spec (E2E_SHOTS, e.g. /work/tmp/shots-c). */
const SHOTS = process.env.E2E_SHOTS;
if (SHOTS) mkdirSync(SHOTS, { recursive: true });
/** A viewport screenshot to the artifacts (and SHOTS); a full-page one only to SHOTS (too big to keep). */
async function shoot(page: Page, name: string, fullPage = false) {
  if (!fullPage) await page.screenshot({ path: `${ARTIFACTS}/${name}.png` });
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage });
}

type Upload = { name: string; mimeType: string; buffer: Buffer };
const CSV_FILE = 'results-a.csv';
const JSON_FILE = 'results-b.json';
const csvText = readFileSync(`e2e/fixtures/${CSV_FILE}`, 'utf8');
const jsonText = readFileSync(`e2e/fixtures/${JSON_FILE}`, 'utf8');
const upload = (name: string, text: string): Upload => ({
  name,
  mimeType: name.endsWith('.json') ? 'application/json' : 'text/csv',
  buffer: Buffer.from(text),
});

/** The columns this check needs, read from both files with no code of the app's but the CSV splitter. */
interface Trial {
  session: string;
  participant: string;
  trial: number;
  phase: string;
  k: number;
  correct: boolean;
  ended: string;
  rtMs: number;
  hiddenMs: number;
}

function fixtureTrials(): Trial[] {
  const [header, ...records] = parseCsv(csvText).filter((r) => r.length > 0);
  const col = (name: string) => header!.indexOf(name);
  const fromCsv = records.map((f) => ({
    session: f[col('session_id')]!,
    // The export puts a ' before a cell starting with = + - @ so spreadsheets do not run it.
    participant: f[col('participant_id')]!.replace(/^'(?=[=+\-@])/, ''),
    trial: Number(f[col('trial_index')]),
    phase: f[col('phase')]!,
    k: Number(f[col('k')]),
    correct: f[col('correct')] === 'true',
    ended: f[col('ended_on')]!,
    rtMs: Number(f[col('rt_ms')]),
    hiddenMs: Number(f[col('hidden_ms')]),
  }));
  const doc = JSON.parse(jsonText) as { rows: Record<string, string | number | boolean>[] };
  const fromJson = doc.rows.map((r) => ({
    session: r.session_id as string,
    participant: r.participant_id as string,
    trial: r.trial_index as number,
    phase: r.phase as string,
    k: r.k as number,
    correct: r.correct as boolean,
    ended: r.ended_on as string,
    rtMs: r.rt_ms as number,
    hiddenMs: r.hidden_ms as number,
  }));
  const seen = new Map<string, Trial>();
  for (const t of [...fromCsv, ...fromJson])
    if (!seen.has(`${t.session}/${t.trial}`)) seen.set(`${t.session}/${t.trial}`, t);
  return [...seen.values()];
}

/** Wilson's score interval, written out again from the formula. */
function wilson(x: number, n: number): [number, number] {
  const z = 1.959963984540054;
  const p = x / n;
  const c = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
  const h = (z / (1 + (z * z) / n)) * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [Math.max(0, c - h), Math.min(1, c + h)];
}

/** Page object of the dashboard. */
class ResultsPage {
  constructor(readonly page: Page) {}
  async goto() {
    await this.page.goto('/#/results');
    await expect(this.page.getByTestId('results-view')).toBeVisible();
  }
  async load(...files: Upload[]) {
    await this.page.getByTestId('results-drop').setInputFiles(files);
  }
  summary = () => this.page.getByTestId('results-summary');
  row = (key: string) => this.page.locator(`[data-testid=results-row][data-key="${key}"]`);
  cell = (key: string, testId: string) => this.row(key).getByTestId(testId);
}

/** Each session's condition, from the CSV and JSON as read above. */
const conditionOf = new Map<string, string>([
  ...(() => {
    const [header, ...records] = parseCsv(csvText).filter((r) => r.length > 0);
    return records.map(
      (f) => [f[header!.indexOf('session_id')]!, f[header!.indexOf('condition')]!] as [string, string],
    );
  })(),
  ...(JSON.parse(jsonText) as { rows: { session_id: string; condition: string }[] }).rows.map(
    (r) => [r.session_id, r.condition] as [string, string],
  ),
]);

/** `[lo, hi]` pairs as the cells print them. */
const pairs = (text: string): [number, number][] =>
  [...text.matchAll(/\[(-?[\d.]+), (-?[\d.]+)\]/g)].map((m) => [Number(m[1]), Number(m[2])]);

/**
 * Every interval the table shows lies on its measure's scale (accuracy 0–1, time above 0 s,
 * difficulty 1–5), both the trial-level one and the one by participant; the note says which
 * intervals they are; no chart's axis starts below its scale.
 */
async function expectIntervalsOnScale(page: Page) {
  const scales: [string, number, number][] = [
    ['results-accuracy', 0, 1],
    ['results-rt', 0, Infinity],
    ['results-difficulty', 1, 5],
    ['results-item-accuracy', 0, 1],
  ];
  let seen = 0;
  for (const [testId, min, max] of scales) {
    for (const text of await page.getByTestId(testId).allInnerTexts()) {
      for (const [lo, hi] of pairs(text)) {
        // Printed rounded: a time of 0.04 s shows as 0.0.
        expect(lo, `${testId} ${text}`).toBeGreaterThanOrEqual(min);
        expect(hi, `${testId} ${text}`).toBeLessThanOrEqual(max);
        expect(lo).toBeLessThanOrEqual(hi);
        seen++;
      }
    }
  }
  expect(seen).toBeGreaterThan(0);
  const note = page.getByTestId('results-interval-note');
  await expect(note).toContainText('Wilson');
  await expect(note).toContainText('geometric mean');
  await expect(note).toContainText('t interval on log response time');
  await expect(note).toContainText('logit of (rating − 1)/4');
  await expect(note).toContainText('resampling whole participants');
  for (const [chart, method, bottom] of [
    ['results-chart-accuracy', 'Wilson', 0],
    ['results-chart-rt', 'on log time', 0],
    ['results-chart-difficulty', 'logit', 1],
  ] as const) {
    await expect(page.getByTestId(chart).getByTestId('results-chart-method')).toContainText(method);
    const ticks = (await page.getByTestId(chart).locator('.results__grid > g > text').allTextContents()).map(Number);
    expect(Math.min(...ticks), `${chart} axis`).toBe(bottom);
  }
}

const trials = fixtureTrials();
const main = trials.filter((t) => t.phase === 'main');

test('the 50-participant study: table and charts show the figures recomputed from the files', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const rp = new ResultsPage(page);
  await rp.goto();
  await expect(page.getByTestId('results-empty')).toBeVisible();
  await rp.load(upload(CSV_FILE, csvText), upload(JSON_FILE, jsonText));

  const sessions = new Set(trials.map((t) => t.session));
  expect(sessions.size).toBe(50);
  await expect(rp.summary()).toHaveAttribute('data-sessions', '50');
  await expect(rp.summary()).toHaveAttribute('data-rows', String(trials.length));
  await expect(rp.summary()).toHaveAttribute('data-duplicates', String(5 * 55));
  await expect(rp.summary()).toHaveAttribute('data-conflicts', '0');
  await expect(page.getByTestId('results-file')).toHaveCount(2);

  // Table by k: accuracy and its Wilson interval to 3 decimals, mean response time to 1, the paper beside.
  const paper: Record<number, string> = { 2: '0.848', 3: '0.773', 4: '0.477', 5: '0.424', 6: '0.406' };
  await expect(page.getByTestId('results-row')).toHaveCount(5);
  const shown: number[] = [];
  for (const k of [2, 3, 4, 5, 6]) {
    const atK = main.filter((t) => t.k === k);
    const right = atK.filter((t) => t.correct).length;
    const [lo, hi] = wilson(right, atK.length);
    const acc = rp.cell(String(k), 'results-accuracy');
    await expect(acc.locator('.results__est')).toHaveText((right / atK.length).toFixed(3));
    await expect(acc.locator('.results__ci').first()).toHaveText(`[${lo.toFixed(3)}, ${hi.toFixed(3)}]`);
    await expect(acc).toHaveAttribute('data-n', String(atK.length));
    // Response time: the geometric mean (exp of the mean log time, a 0 ms time taken as 1 ms).
    const answered = atK.filter((t) => t.ended === 'response');
    const logMean = answered.reduce((s, t) => s + Math.log(Math.max(0.001, t.rtMs / 1000)), 0) / answered.length;
    await expect(rp.cell(String(k), 'results-rt').locator('.results__est')).toHaveText(Math.exp(logMean).toFixed(1));
    await expect(rp.cell(String(k), 'results-paper-accuracy')).toHaveText(paper[k]!);
    shown.push(right / atK.length);
  }
  // The generated people get worse with k, as the paper's did.
  expect(shown[0]).toBeGreaterThan(shown[4]!);
  await expect(page.getByTestId('results-paper-difficulty').first()).toHaveText('1.49 ± 1.25');
  await expect(page.getByTestId('results-paper-difficulty').last()).toHaveText('4.46 ± 0.87');

  // Charts: three images with a title and a description; a point per k, the paper's five diamonds.
  for (const id of ['results-chart-accuracy', 'results-chart-rt', 'results-chart-difficulty']) {
    const svg = page.getByTestId(id).locator('svg[role=img]');
    await expect(svg).toBeVisible();
    await expect(svg.locator('title')).not.toBeEmpty();
    await expect(page.getByTestId(id).locator('.results__point')).toHaveCount(5);
  }
  await expect(page.getByTestId('results-chart-accuracy').locator('.results__paper')).toHaveCount(5);
  await expect(page.getByTestId('results-chart-rt').locator('.results__paper')).toHaveCount(0);
  await expect(page.getByTestId('results-chart-accuracy').locator('desc')).toContainText(
    `k 2: ${shown[0]!.toFixed(3)}`,
  );
  await expect(page.getByTestId('results-cluster-note')).toBeVisible();
  await expectIntervalsOnScale(page);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shoot(page, 'results-desktop');
  await shoot(page, 'results-desktop-full', true);
  await page.getByTestId('results-figures').screenshot({ path: `${ARTIFACTS}/results-figures.png` });
  if (SHOTS) await page.getByTestId('results-figures').screenshot({ path: `${SHOTS}/results-figures.png` });

  // Participants: 50 lines, the simulated troublemakers flagged for the right reason, ids as recorded.
  await expect(page.getByTestId('results-participant')).toHaveCount(50);
  const failedCheck = new Set(trials.filter((t) => t.phase === 'check' && !t.correct).map((t) => t.session));
  expect(failedCheck.size).toBeGreaterThanOrEqual(2);
  for (const s of failedCheck) {
    await expect(page.locator(`[data-testid=results-participant][data-session="${s}"]`)).toHaveAttribute(
      'data-flags',
      /checks/,
    );
  }
  const hiddenMost = [...sessions].sort(
    (a, b) =>
      trials.filter((t) => t.session === b).reduce((s, t) => s + t.hiddenMs, 0) -
      trials.filter((t) => t.session === a).reduce((s, t) => s + t.hiddenMs, 0),
  )[0]!;
  await expect(page.locator(`[data-testid=results-participant][data-session="${hiddenMost}"]`)).toHaveAttribute(
    'data-flags',
    /hidden/,
  );
  await expect(page.locator('[data-testid=results-participant][data-flags~=timeouts]')).not.toHaveCount(0);
  const formula = trials.find((t) => t.participant.startsWith('@'))!;
  await expect(
    page
      .locator(`[data-testid=results-participant][data-session="${formula.session}"]`)
      .getByTestId('results-participant-id'),
  ).toHaveText(formula.participant);
  await page.getByTestId('results-flagged-only').check();
  const flaggedCount = await page.getByTestId('results-participant').count();
  expect(flaggedCount).toBeGreaterThanOrEqual(4);
  expect(flaggedCount).toBeLessThan(50);
  await page.getByTestId('results-participants').screenshot({ path: `${ARTIFACTS}/results-participants.png` });

  // Items: every main item and check, none of the practice.
  await expect(page.getByTestId('results-item')).toHaveCount(50 + 3);
  await expect(page.locator('[data-testid=results-item][data-puzzle^=practice]')).toHaveCount(0);

  // Leaving flagged participants out changes the counts the table shows.
  // (The figures are computed in the results worker: wait for the view that was asked for.)
  await page.getByTestId('results-exclude-flagged').check();
  await expect(page.getByTestId('results-figures')).toHaveAttribute('data-exclude-flagged', 'true');
  const k2 = main.filter((t) => t.k === 2);
  await expect(rp.row('2').locator('td').first()).toHaveText(String(50 - flaggedCount));
  await expect(rp.cell('2', 'results-accuracy')).not.toHaveAttribute('data-n', String(k2.length));
  await page.getByTestId('results-exclude-flagged').uncheck();
  await expect(page.getByTestId('results-figures')).toHaveAttribute('data-exclude-flagged', 'false');

  // Export: the table as CSV, the same accuracy figures.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('results-export').click()]);
  expect(download.suggestedFilename()).toBe('results-by-k.csv');
  const exported = parseCsv(readFileSync(await download.path(), 'utf8')).filter((r) => r.length > 0);
  const h = exported[0]!;
  expect(exported.slice(1).map((r) => Number(r[h.indexOf('accuracy')]).toFixed(3))).toEqual(
    shown.map((v) => v.toFixed(3)),
  );
  expect(exported.slice(1).map((r) => r[h.indexOf('paper_accuracy')])).toEqual(Object.values(paper));

  // Keyboard: the grouping select changes with the arrow keys; by task, then by condition.
  await page.getByTestId('results-group-by').focus();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByTestId('results-figures')).toHaveAttribute('data-group-by', 'task');
  await expect(page.getByTestId('results-row')).toHaveCount(2);
  await page.getByTestId('results-group-by').selectOption('condition');
  await expect(page.getByTestId('results-figures')).toHaveAttribute('data-group-by', 'condition');
  await expect(page.getByTestId('results-row')).toHaveCount(2);
  await expect(page.getByTestId('results-chart-accuracy').locator('.results__paper')).toHaveCount(0);
  for (const condition of ['untimed', 'timed-90']) {
    const at = main.filter((t) => conditionOf.get(t.session) === condition);
    const right = at.filter((t) => t.correct).length;
    await expect(rp.cell(condition, 'results-accuracy').locator('.results__est')).toHaveText(
      (right / at.length).toFixed(3),
    );
  }

  // By condition and k: one series per condition on the k axis, the paper beside each k.
  await page.getByTestId('results-group-by').selectOption('condition-k');
  await expect(page.getByTestId('results-figures')).toHaveAttribute('data-group-by', 'condition-k');
  await expect(page.getByTestId('results-row')).toHaveCount(10);
  await expect(page.getByTestId('results-legend-series')).toHaveCount(2);
  await expect(page.getByTestId('results-chart-accuracy').locator('.results__point')).toHaveCount(10);
  await expect(page.getByTestId('results-chart-accuracy').locator('.results__paper')).toHaveCount(5);
  for (const condition of ['untimed', 'timed-90']) {
    for (const k of [2, 6]) {
      const at = main.filter((t) => conditionOf.get(t.session) === condition && t.k === k);
      const right = at.filter((t) => t.correct).length;
      await expect(rp.cell(`${condition} k=${k}`, 'results-accuracy').locator('.results__est')).toHaveText(
        (right / at.length).toFixed(3),
      );
      await expect(rp.cell(`${condition} k=${k}`, 'results-paper-accuracy')).toHaveText(paper[k]!);
    }
  }
  await expectIntervalsOnScale(page);
  await page.getByTestId('results-figures').screenshot({ path: `${ARTIFACTS}/results-condition-k.png` });
});

test('a bad file is refused with its row and column; the good ones still count', async ({ page }) => {
  const rp = new ResultsPage(page);
  await rp.goto();
  const lines = csvText.split('\r\n');
  const header = lines[0]!.split(',');
  const third = lines[3]!.split(',');
  third[header.indexOf('rt_ms')] = 'fast';
  lines[3] = third.join(',');
  await rp.load(
    upload('broken.csv', lines.join('\r\n')),
    upload(JSON_FILE, jsonText),
    upload('other.json', '{"format": "something-else/2", "rows": []}'),
  );
  const errors = page.getByTestId('results-error');
  await expect(errors).toHaveCount(2);
  const broken = page.locator('[data-testid=results-error][data-file="broken.csv"]');
  await expect(broken).toHaveAttribute('data-row', '3');
  await expect(broken).toHaveAttribute('data-column', 'rt_ms');
  await expect(broken).toContainText('broken.csv (row 3, line 4, column rt_ms): "fast" is not a whole number');
  await expect(page.locator('[data-testid=results-error][data-file="other.json"]')).toContainText(
    'not a results file of this app',
  );
  await expect(rp.summary()).toHaveAttribute('data-sessions', '25');
  await expect(page.getByTestId('results-table')).toBeVisible();
  await page.evaluate(() => window.scrollTo(0, 0));
  await shoot(page, 'results-error');
});

test('a result file whose session_id is an object: the error names file, row and field, and reading ends', async ({
  page,
}) => {
  const rp = new ResultsPage(page);
  await rp.goto();
  const doc = JSON.parse(jsonText) as { rows: Record<string, unknown>[] };
  doc.rows[6]!.session_id = { toString: 1, id: 'fx-26' };
  await rp.load(upload('hostile.json', JSON.stringify(doc)), upload(CSV_FILE, csvText));
  const error = page.locator('[data-testid=results-error][data-file="hostile.json"]');
  await expect(error).toHaveAttribute('data-row', '7');
  await expect(error).toHaveAttribute('data-column', 'session_id');
  await expect(error).toContainText(
    'hostile.json (row 7, field session_id): {"toString":1,"id":"fx-26"} is an object, not a session id (text)',
  );
  await expect(page.getByTestId('results-reading')).toHaveCount(0);
  // The good file still counts.
  await expect(rp.summary()).toHaveAttribute('data-sessions', '30');

  // The same object in the file's "sessions" list (where the old reader threw a TypeError and hung).
  const withSessions = JSON.parse(jsonText) as { sessions: Record<string, unknown>[] };
  expect(withSessions.sessions.length).toBeGreaterThan(0);
  withSessions.sessions[0]!.session_id = { toString: 1 };
  await rp.load(upload('hostile-sessions.json', JSON.stringify(withSessions)));
  await expect(page.locator('[data-testid=results-error][data-file="hostile-sessions.json"]')).toContainText(
    'hostile-sessions.json (field session_id): "sessions" entry 1: {"toString":1} is an object, not a session id (text)',
  );
  await expect(page.getByTestId('results-reading')).toHaveCount(0);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shoot(page, 'results-hostile');
});

test('a study of 150 participants: the participants table shows 100 a page', async ({ page }) => {
  // results-a.csv five times over, each copy's session ids made unique (session_id is the 2nd column).
  const [header, ...lines] = csvText.split('\r\n').filter((l) => l !== '');
  const copies = [0, 1, 2, 3, 4].flatMap((c) =>
    lines.map((line) => {
      const a = line.indexOf(',');
      const b = line.indexOf(',', a + 1);
      return `${line.slice(0, b)}-c${c}${line.slice(b)}`;
    }),
  );
  const rp = new ResultsPage(page);
  await rp.goto();
  await rp.load(upload('many.csv', `${[header, ...copies].join('\r\n')}\r\n`));
  await expect(rp.summary()).toHaveAttribute('data-sessions', '150');
  await expect(page.getByTestId('results-participant')).toHaveCount(100);
  const pager = page.getByRole('navigation', { name: 'Participant pages' });
  await expect(pager).toContainText('1 of 2');
  await pager.getByRole('button', { name: 'Next' }).click();
  await expect(page.getByTestId('results-participant')).toHaveCount(50);
  await expectIntervalsOnScale(page);
});

test('rows fetched from a results server with the researcher token', async ({ page }) => {
  const seen: { auth: string | undefined; study: string | null }[] = [];
  await page.route('**/api/results.json*', async (route) => {
    const req = route.request();
    const auth = req.headers()['authorization'];
    seen.push({ auth, study: new URL(req.url()).searchParams.get('study') });
    if (auth !== 'Bearer tok-123') {
      await route.fulfill({
        status: 401,
        contentType: 'application/json',
        body: '{"error":"a valid researcher token is needed"}',
      });
      return;
    }
    await route.fulfill({ status: 200, contentType: 'application/json', body: jsonText });
  });
  const rp = new ResultsPage(page);
  await rp.goto();
  await page.getByTestId('results-server').locator('summary').click();
  await page.getByTestId('results-server-token').fill('wrong');
  await page.getByTestId('results-server-study').fill('fixture-study');
  await page.getByTestId('results-fetch').click();
  const status = page.getByTestId('results-server-status');
  await expect(status).toHaveAttribute('data-status', 'error');
  await expect(status).toContainText('401');
  await page.getByTestId('results-server-token').fill('tok-123');
  await page.getByTestId('results-fetch').click();
  await expect(status).toHaveAttribute('data-status', 'done');
  expect(seen).toEqual([
    { auth: 'Bearer wrong', study: 'fixture-study' },
    { auth: 'Bearer tok-123', study: 'fixture-study' },
  ]);
  await expect(rp.summary()).toHaveAttribute('data-sessions', '25');
  await expect(page.getByTestId('results-row')).toHaveCount(5);
});

test('narrow screen (390 px) and accessibility', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const rp = new ResultsPage(page);
  await rp.goto();
  const serious = (r: Awaited<ReturnType<AxeBuilder['analyze']>>) =>
    r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious(await new AxeBuilder({ page }).include('[data-testid=results-view]').analyze())).toEqual([]);
  await rp.load(upload(CSV_FILE, csvText), upload(JSON_FILE, jsonText));
  await expect(rp.summary()).toHaveAttribute('data-sessions', '50');
  expect(serious(await new AxeBuilder({ page }).include('[data-testid=results-view]').analyze())).toEqual([]);
  // Nothing wider than the screen but the tables, which scroll inside their own box.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(overflow).toBeLessThanOrEqual(390);
  await expectIntervalsOnScale(page);
  await page.getByTestId('results-figures').scrollIntoViewIfNeeded();
  await shoot(page, 'results-narrow');
  await page.getByTestId('results-table').scrollIntoViewIfNeeded();
  await shoot(page, 'results-narrow-table');
  await page.getByTestId('results-interval-note').scrollIntoViewIfNeeded();
  await shoot(page, 'results-narrow-note');
  await shoot(page, 'results-narrow-full', true);
});

/**
 * A small study with resumed trials: 4 sessions, each a practice trial, 6 main trials (three
 * items at k = 2, three at k = 3) and an attention check. Resumed: two wrong k = 2 answers with
 * long times, a right k = 3 answer, a check, and a practice trial (never counted).
 */
function resumedStudy(): ResultRow[] {
  const rows: ResultRow[] = [];
  const resumed = new Set(['s1/0', 's1/1', 's2/2', 's3/5', 's4/7']);
  const wrong = new Set(['s1/1', 's2/2', 's4/1', 's2/4']);
  for (const s of ['s1', 's2', 's3', 's4']) {
    for (let t = 0; t < 8; t++) {
      const id = `${s}/${t}`;
      const phase = t === 0 ? 'practice' : t === 7 ? 'check' : 'main';
      const k = t >= 4 && t <= 6 ? 3 : 2;
      const right = !wrong.has(id);
      rows.push({
        study_id: 'resume-study',
        session_id: s,
        participant_id: `p-${s}`,
        condition: 'untimed',
        trial_index: t,
        phase,
        puzzle_id: phase === 'practice' ? 'practice-0' : phase === 'check' ? 'check-0' : `main-k${k}-t1-${(t - 1) % 3}`,
        seed: 100 + t,
        k,
        task: 1,
        strict: true,
        query_a: 'Ann',
        query_b: 'Bo',
        gold: 'aunt',
        response: right ? 'aunt' : 'uncle',
        correct: right,
        difficulty: right ? 2 : 4,
        rt_ms: resumed.has(id) ? 300_000 + t * 1000 : 20_000 + t * 1000,
        ended_on: 'response',
        time_limit_s: null,
        answer_changes: 0,
        hidden_ms: 0,
        resumed: resumed.has(id),
        started_at: '2026-03-02T09:00:00.000Z',
        answered_at: '2026-03-02T09:01:00.000Z',
        story: 'Ann and Bo.',
        prolific_study_id: '',
        prolific_session_id: '',
        ...NO_ESTIMATE,
      });
    }
  }
  return rows;
}

test('resumed trials: included (as before), marked, or left out of every figure', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const rp = new ResultsPage(page);
  await rp.goto();
  const study = resumedStudy();
  await rp.load(upload('resumed.csv', rowsToCsv(study)));
  await expect(rp.summary()).toHaveAttribute('data-rows', String(study.length));

  // Recomputed here: main and check trials count, practice never.
  const counted = study.filter((r) => r.phase !== 'practice');
  const resumedN = counted.filter((r) => r.resumed).length;
  expect([resumedN, counted.length]).toEqual([4, 28]);
  const accuracy = (rows: ResultRow[]) => rows.filter((r) => r.correct).length / rows.length;
  const geomean = (rows: ResultRow[]) => Math.exp(rows.reduce((s, r) => s + Math.log(r.rt_ms / 1000), 0) / rows.length);
  const mainAt = (k: number) => study.filter((r) => r.phase === 'main' && r.k === k);
  const k2 = mainAt(2);
  const k2Kept = k2.filter((r) => !r.resumed);

  // Include, the default: every trial counts, as before.
  const mode = page.getByTestId('resumed-mode');
  const note = page.getByTestId('resumed-note');
  await expect(mode).toHaveValue('include');
  await expect(note).toHaveText('4 resumed trials (of 28 main and check trials) included in every figure, unmarked.');
  const acc2 = rp.cell('2', 'results-accuracy');
  await expect(acc2.locator('.results__est')).toHaveText(accuracy(k2).toFixed(3));
  await expect(acc2).toHaveAttribute('data-n', String(k2.length));
  await expect(page.getByTestId('results-resumed')).toHaveCount(0);

  // Mark: the same figures, each saying how many resumed trials it holds.
  await mode.selectOption('mark');
  await expect(note).toContainText('4 resumed trials (of 28 main and check trials) included and marked');
  await expect(acc2.locator('.results__est')).toHaveText(accuracy(k2).toFixed(3));
  await expect(rp.cell('2', 'results-resumed')).toHaveAttribute('data-value', '2');
  await expect(rp.cell('3', 'results-resumed')).toHaveAttribute('data-value', '1');
  await expect(rp.cell('2', 'results-rt')).toContainText('holds 2 resumed');
  await expect(page.getByTestId('results-rt-resumed')).toHaveText('Holds 3 resumed trials (k 2: 2, k 3: 1)');
  await expect(page.getByTestId('results-chart-rt').locator('desc')).toContainText('Holds 3 resumed trials');
  await expect(
    page.locator('[data-testid=results-participant][data-session=s1]').getByTestId('results-participant-resumed'),
  ).toHaveText('1');
  await expect(
    page.locator('[data-testid=results-participant][data-session=s4]').getByTestId('results-participant-resumed'),
  ).toHaveText('1');
  await expect(
    page.locator('[data-testid=results-item][data-puzzle=check-0]').getByTestId('results-item-resumed'),
  ).toHaveText('1');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.getByTestId('results-figures').scrollIntoViewIfNeeded();
  await shoot(page, 'results-resumed-desktop');
  await page.getByTestId('results-figures').screenshot({ path: `${ARTIFACTS}/results-resumed-figures.png` });
  const [marked] = await Promise.all([page.waitForEvent('download'), page.getByTestId('results-export').click()]);
  expect(marked.suggestedFilename()).toBe('results-by-k-resumed-marked.csv');
  const markedCsv = parseCsv(readFileSync(await marked.path(), 'utf8')).filter((r) => r.length > 0);
  expect(markedCsv.slice(1).map((r) => r[markedCsv[0]!.indexOf('resumed_trials')])).toEqual(['2', '1']);

  // Leave out: accuracy, response time and difficulty without them, and the note says so.
  await mode.selectOption('omit');
  await expect(note).toContainText('4 resumed trials (of 28 main and check trials) left out of every figure');
  expect(accuracy(k2Kept)).not.toBe(accuracy(k2));
  await expect(acc2.locator('.results__est')).toHaveText(accuracy(k2Kept).toFixed(3));
  await expect(acc2).toHaveAttribute('data-n', String(k2Kept.length));
  await expect(rp.cell('2', 'results-rt').locator('.results__est')).toHaveText(geomean(k2Kept).toFixed(1));
  expect(geomean(k2Kept)).toBeLessThan(geomean(k2));
  await expect(rp.row('2').getByTestId('results-resumed-left-out')).toHaveText('(2 resumed left out)');
  await expect(page.locator('[data-testid=results-participant][data-session=s1]').locator('td').nth(3)).toHaveText('5');
  const [left] = await Promise.all([page.waitForEvent('download'), page.getByTestId('results-export').click()]);
  expect(left.suggestedFilename()).toBe('results-by-k-resumed-left-out.csv');
  const leftCsv = parseCsv(readFileSync(await left.path(), 'utf8')).filter((r) => r.length > 0);
  const lh = leftCsv[0]!;
  expect(Number(leftCsv[1]![lh.indexOf('accuracy')])).toBeCloseTo(accuracy(k2Kept), 4);
  expect(leftCsv[1]![lh.indexOf('resumed_left_out')]).toBe('2');

  // The choice holds through a regrouping (the worker computes the new view).
  await page.getByTestId('results-group-by').selectOption('condition');
  await expect(page.getByTestId('results-figures')).toHaveAttribute('data-group-by', 'condition');
  const main = study.filter((r) => r.phase === 'main');
  await expect(rp.cell('untimed', 'results-accuracy').locator('.results__est')).toHaveText(
    accuracy(main.filter((r) => !r.resumed)).toFixed(3),
  );

  // Back to include: the figures as at first.
  await page.getByTestId('results-group-by').selectOption('k');
  await mode.selectOption('include');
  await expect(acc2.locator('.results__est')).toHaveText(accuracy(k2).toFixed(3));
  await expect(acc2).toHaveAttribute('data-n', String(k2.length));

  // A phone: the control and the note fit, nothing wider than the screen but the tables; no serious axe finding.
  await page.setViewportSize({ width: 390, height: 844 });
  await mode.selectOption('mark');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  const axe = await new AxeBuilder({ page }).include('[data-testid=results-figures]').analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await page.getByTestId('resumed-mode').scrollIntoViewIfNeeded();
  await shoot(page, 'results-resumed-narrow');
  await page.getByTestId('results-table').scrollIntoViewIfNeeded();
  await shoot(page, 'results-resumed-narrow-table');
});
