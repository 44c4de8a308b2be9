import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import { parseCsv } from '../src/core/formats/csv';

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
    const ticks = (await page.getByTestId(chart).locator('.rs-grid > g > text').allTextContents()).map(Number);
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
    await expect(acc.locator('.rs-est')).toHaveText((right / atK.length).toFixed(3));
    await expect(acc.locator('.rs-ci').first()).toHaveText(`[${lo.toFixed(3)}, ${hi.toFixed(3)}]`);
    await expect(acc).toHaveAttribute('data-n', String(atK.length));
    // Response time: the geometric mean (exp of the mean log time, a 0 ms time taken as 1 ms).
    const answered = atK.filter((t) => t.ended === 'response');
    const logMean = answered.reduce((s, t) => s + Math.log(Math.max(0.001, t.rtMs / 1000)), 0) / answered.length;
    await expect(rp.cell(String(k), 'results-rt').locator('.rs-est')).toHaveText(Math.exp(logMean).toFixed(1));
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
    await expect(page.getByTestId(id).locator('.rs-point')).toHaveCount(5);
  }
  await expect(page.getByTestId('results-chart-accuracy').locator('.rs-paper')).toHaveCount(5);
  await expect(page.getByTestId('results-chart-rt').locator('.rs-paper')).toHaveCount(0);
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
  await expect(page.getByTestId('results-chart-accuracy').locator('.rs-paper')).toHaveCount(0);
  for (const condition of ['untimed', 'timed-90']) {
    const at = main.filter((t) => conditionOf.get(t.session) === condition);
    const right = at.filter((t) => t.correct).length;
    await expect(rp.cell(condition, 'results-accuracy').locator('.rs-est')).toHaveText((right / at.length).toFixed(3));
  }

  // By condition and k: one series per condition on the k axis, the paper beside each k.
  await page.getByTestId('results-group-by').selectOption('condition-k');
  await expect(page.getByTestId('results-figures')).toHaveAttribute('data-group-by', 'condition-k');
  await expect(page.getByTestId('results-row')).toHaveCount(10);
  await expect(page.getByTestId('results-legend-series')).toHaveCount(2);
  await expect(page.getByTestId('results-chart-accuracy').locator('.rs-point')).toHaveCount(10);
  await expect(page.getByTestId('results-chart-accuracy').locator('.rs-paper')).toHaveCount(5);
  for (const condition of ['untimed', 'timed-90']) {
    for (const k of [2, 6]) {
      const at = main.filter((t) => conditionOf.get(t.session) === condition && t.k === k);
      const right = at.filter((t) => t.correct).length;
      await expect(rp.cell(`${condition} k=${k}`, 'results-accuracy').locator('.rs-est')).toHaveText(
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
