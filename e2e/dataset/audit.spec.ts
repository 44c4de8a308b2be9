import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { strToU8, zipSync } from 'fflate';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Import and audit at #/audit, on the production build: the 1,000-row round trip from the
 * builder, verdict badges and summaries, malformed files named by file/row/column, zips,
 * opening a row in the puzzle view, and accessibility.
 */

const ARTIFACTS = 'e2e/artifacts';
mkdirSync(ARTIFACTS, { recursive: true });
const fixture = (name: string) => readFileSync(`e2e/fixtures/${name}`);

type Upload = { name: string; mimeType: string; buffer: Buffer };

/** Page object of the audit view. */
class AuditPage {
  constructor(readonly page: Page) {}
  async goto() {
    await this.page.goto('/#/audit');
    await expect(this.page.getByTestId('audit-view')).toBeVisible();
  }
  async upload(...files: Upload[]) {
    await this.page.getByTestId('audit-drop').setInputFiles(files);
  }
  total = () => this.page.getByTestId('audit-total');
  rows = () => this.page.getByTestId('audit-row');
  errors = () => this.page.getByTestId('audit-error');
}

const csv = (name: string, buffer: Buffer = fixture(name)): Upload => ({ name, mimeType: 'text/csv', buffer });

test('a 1,000-row dataset downloads from the builder and re-imports with every row entailed', async ({ page }) => {
  // Build: one train task of 1,000 rows (all three noises, k = 3), no test rows.
  await page.goto('/#/dataset');
  const form = page.getByTestId('dataset-form');
  await form.locator('[name=trainTasks]').fill('5.3');
  await form.locator('[name=trainRows]').fill('1000');
  await form.locator('[name=testTasks]').fill('1.2');
  await form.locator('[name=testRows]').fill('0');
  await form.locator('[name=seed]').fill('roundtrip');
  await page.getByTestId('dataset-generate').click();
  await expect(page.getByTestId('dataset-status')).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('dataset-download-csv').click(),
  ]);
  expect(download.suggestedFilename()).toBe('clutrr-lab_seed-roundtrip_all.csv');
  const path = `${ARTIFACTS}/${download.suggestedFilename()}`;
  await download.saveAs(path);

  // Re-import: through the app's navigation, so the builder's state stays as it was.
  await page.getByTestId('nav-audit').click();
  const audit = new AuditPage(page);
  await expect(page.getByTestId('audit-view')).toBeVisible();
  await audit.upload(csv(download.suggestedFilename(), readFileSync(path)));
  await expect(audit.total()).toHaveAttribute('data-rows', '1000', { timeout: 30_000 });
  await expect(audit.total()).toHaveAttribute('data-entailed', '1000');
  await expect(audit.total()).toHaveAttribute('data-ambiguous', '0');
  await expect(audit.total()).toHaveAttribute('data-unsupported', '0');
  // Our own rows: some need an assumption rule, none has a label true in no family.
  await expect(audit.total()).toHaveAttribute('data-impossible', '0');
  await expect(audit.errors()).toHaveCount(0);
  await expect(page.getByTestId('audit-summary-k')).toHaveCount(1);
  await expect(page.getByTestId('audit-summary-k')).toHaveAttribute('data-k', '3');
  await expect(audit.rows()).toHaveCount(25);
  expect(new Set(await audit.rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-verdict'))))).toEqual(
    new Set(['entailed']),
  );
  await page.getByTestId('audit-filter-verdict').selectOption('ambiguous');
  await expect(page.getByTestId('audit-row-count')).toHaveAttribute('data-count', '0');
  await page.getByTestId('audit-filter-verdict').selectOption('entailed');
  await expect(page.getByTestId('audit-row-count')).toHaveAttribute('data-count', '1000');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${ARTIFACTS}/audit-view.png` });

  // Any row opens in the puzzle view: its graph from the symbolic columns, its story as written.
  const first = audit.rows().first();
  const question = (await first.locator('td').nth(4).innerText()).trim();
  await first.getByTestId('audit-open-row').click();
  await expect(page.getByTestId('graph')).toBeVisible();
  await expect(page.getByTestId('external-notice')).toBeVisible();
  await expect(page.getByTestId('query')).toHaveText(question);
  await expect(page.getByTestId('graph-edge').first()).toBeVisible();
  await page.screenshot({ path: `${ARTIFACTS}/audit-open-row.png` });

  // Back in the audit, the import is still there.
  await page.getByTestId('nav-audit').click();
  await expect(audit.total()).toHaveAttribute('data-rows', '1000');
});

test('a malformed CSV shows an error naming the file, row 2 and column story_edges', async ({ page }) => {
  const audit = new AuditPage(page);
  await audit.goto();
  await audit.upload(csv('audit-malformed.csv'), csv('audit-verdicts.csv'));
  const error = audit.errors();
  await expect(error).toHaveCount(1);
  await expect(error).toHaveAttribute('data-file', 'audit-malformed.csv');
  await expect(error).toHaveAttribute('data-row', '2');
  await expect(error).toHaveAttribute('data-column', 'story_edges');
  await expect(error).toContainText('audit-malformed.csv, row 2, column story_edges:');
  await expect(error).toHaveAttribute('role', 'alert');
  // None of the malformed file's rows come in; the good file's do.
  await expect(audit.total()).toHaveAttribute('data-rows', '4');
  expect(await audit.rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-file')))).not.toContain(
    'audit-malformed.csv',
  );
  await expect(page.locator('[data-testid=audit-summary-file][data-file="audit-malformed.csv"]')).toContainText(
    'malformed: row 2, column story_edges',
  );
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: `${ARTIFACTS}/audit-error.png` });
});

test('badges and summaries per file and per k; untyped edges are drawn apart in the puzzle view', async ({ page }) => {
  const audit = new AuditPage(page);
  await audit.goto();
  await audit.upload(csv('audit-verdicts.csv'));
  await expect(audit.rows()).toHaveCount(4);
  expect(await audit.rows().evaluateAll((els) => els.map((e) => e.getAttribute('data-verdict')))).toEqual([
    'entailed',
    'unsupported',
    'ambiguous',
    'entailed',
  ]);
  await expect(audit.rows().nth(2).getByTestId('audit-verdict')).toHaveText('ambiguous');
  await expect(audit.rows().nth(2)).toContainText('mother, mother-in-law');
  const perK = page.getByTestId('audit-summary-k');
  await expect(perK).toHaveCount(2);
  await expect(perK.nth(0)).toHaveAttribute('data-k', '2');
  await expect(perK.nth(0).locator('td')).toHaveText(['2', '1', '0', '1', '50.0%', '0', '0']);
  await expect(perK.nth(1).locator('td')).toHaveText(['2', '1', '1', '0', '50.0%', '0', '0']);
  await page.locator('.audit__rows').screenshot({ path: `${ARTIFACTS}/audit-rows.png` });
  await page.getByTestId('audit-filter-k').selectOption('3');
  await expect(audit.rows()).toHaveCount(2);

  // Row 4 is a noisy row whose noise edges have no type (as in the released files).
  await audit.rows().nth(1).getByTestId('audit-open-row').click();
  await expect(page.getByTestId('graph')).toBeVisible();
  await expect(page.getByTestId('graph-link-untyped')).toHaveCount(2);
  await expect(page.getByTestId('graph-edge')).toHaveCount(3);
  await expect(page.getByTestId('story')).toContainText('Violet');
});

test('entailed rows say how they are decided; an opened row shows its verdict, never a ✓ or proof against it', async ({
  page,
}) => {
  // Rows of `generate --labels clutrr`: one decided by the sound rules, one only through the
  // assumption "my child's uncle or aunt is my sibling" (possible), one whose label is true in no family.
  const audit = new AuditPage(page);
  await audit.goto();
  await audit.upload(csv('audit-assumed.csv'), csv('audit-verdicts.csv'));
  await expect(audit.total()).toHaveAttribute('data-rows', '7');
  await expect(audit.total()).toHaveAttribute('data-entailed', '5');
  await expect(audit.total()).toHaveAttribute('data-assumed', '2');
  await expect(audit.total()).toHaveAttribute('data-impossible', '1');
  const assumedRows = page.locator('[data-testid=audit-row][data-file="audit-assumed.csv"]');
  expect(await assumedRows.evaluateAll((els) => els.map((e) => e.getAttribute('data-basis')))).toEqual([
    'sound',
    'assumed',
    'impossible',
  ]);
  await expect(assumedRows.nth(1).getByTestId('audit-basis')).toHaveText(
    "assumed (possible): my child's uncle or aunt is my sibling",
  );
  await expect(assumedRows.nth(2).getByTestId('audit-basis')).toContainText('true in no family');
  await page.getByTestId('audit-filter-basis').selectOption('impossible');
  await expect(audit.rows()).toHaveCount(1);
  await expect(page.getByTestId('audit-row-count')).toHaveAttribute('data-matching', '1');
  await page.getByTestId('audit-filter-basis').selectOption('assumed');
  await expect(audit.rows()).toHaveCount(2);
  await page.locator('.audit__rows').screenshot({ path: `${ARTIFACTS}/audit-basis.png` });
  await page.getByTestId('audit-filter-basis').selectOption('');

  // The row true in no family: its verdict, the imported row in place of the settings, no ✓.
  await assumedRows.nth(2).getByTestId('audit-open-row').click();
  await expect(page.getByTestId('graph')).toBeVisible();
  await expect(page.getByTestId('imported-row')).toBeVisible();
  await expect(page.getByTestId('imported-row-task')).toHaveText('task_1.3');
  await expect(page.getByTestId('imported-row-k')).toHaveText('3');
  await expect(page.getByTestId('seed-input')).toHaveCount(0);
  await page.getByTestId('answer-option').first().click();
  await page.getByTestId('reveal-answer').click();
  await expect(page.getByTestId('label-verdict')).toHaveAttribute('data-verdict', 'impossible');
  await expect(page.getByTestId('label-verdict')).toContainText('true in no family');
  await expect(page.locator('.answer--right')).toHaveCount(0);
  await expect(page.getByTestId('answer-panel')).not.toContainText('✓');
  await expect(page.getByTestId('proof-verdict')).toHaveAttribute('data-verdict', 'impossible');
  await expect(page.locator('[data-testid=proof-step][data-rule=assumption]').first()).toBeVisible();
  await page.screenshot({ path: `${ARTIFACTS}/audit-open-impossible.png`, fullPage: true });
  const axe = await new AxeBuilder({ page }).include('.puzzle-view').analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

  // An unsupported row: no ✓, and its proof_state is not drawn as a proof.
  await page.getByTestId('nav-audit').click();
  const unsupported = page.locator('[data-testid=audit-row][data-verdict=unsupported]');
  await unsupported.first().getByTestId('audit-open-row').click();
  await expect(page.getByTestId('imported-row')).toBeVisible();
  await page.getByTestId('show-proof').click();
  await expect(page.getByTestId('proof-withheld')).toBeVisible();
  await expect(page.getByTestId('proof-step')).toHaveCount(0);
  await expect(page.getByTestId('proof-verdict')).toHaveAttribute('data-verdict', 'unsupported');
  await page.getByTestId('reveal-answer').click();
  await expect(page.locator('.answer--right')).toHaveCount(0);
  await expect(page.getByTestId('label-verdict')).toHaveAttribute('data-verdict', 'unsupported');
  await expect(page.getByTestId('proof-words')).toHaveCount(0);
  await page.screenshot({ path: `${ARTIFACTS}/audit-open-unsupported.png`, fullPage: true });

  // Back to the generated puzzle: the settings come back.
  await page.getByTestId('external-notice').getByRole('button').click();
  await expect(page.getByTestId('seed-input')).toBeVisible();
  await expect(page.getByTestId('imported-row')).toHaveCount(0);
});

test('a dataset zip imports every CSV inside it', async ({ page }) => {
  const zip = zipSync({
    'run/verdicts.csv': new Uint8Array(fixture('audit-verdicts.csv')),
    'run/config.json': strToU8('{}'),
    'run/broken.csv': new Uint8Array(fixture('audit-malformed.csv')),
  });
  const audit = new AuditPage(page);
  await audit.goto();
  await audit.upload({ name: 'run.zip', mimeType: 'application/zip', buffer: Buffer.from(zip) });
  await expect(audit.total()).toHaveAttribute('data-rows', '4');
  await expect(page.getByTestId('audit-summary-file')).toHaveCount(2);
  await expect(audit.errors()).toHaveAttribute('data-file', 'run.zip/run/broken.csv');
  await expect(audit.errors()).toHaveAttribute('data-row', '2');
  await expect(audit.rows().first()).toHaveAttribute('data-file', 'run.zip/run/verdicts.csv');
});

test('files dropped on the drop zone are imported', async ({ page }) => {
  const audit = new AuditPage(page);
  await audit.goto();
  const text = fixture('audit-verdicts.csv').toString('utf8');
  const dataTransfer = await page.evaluateHandle((t) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], 'dropped.csv', { type: 'text/csv' }));
    return dt;
  }, text);
  await page.getByTestId('audit-dropzone').dispatchEvent('drop', { dataTransfer });
  await expect(audit.total()).toHaveAttribute('data-rows', '4');
  await expect(page.locator('[data-testid=audit-summary-file][data-file="dropped.csv"]')).toBeVisible();
  // Importing the same file again replaces it rather than counting it twice.
  await page.getByTestId('audit-dropzone').dispatchEvent('drop', { dataTransfer });
  await expect(page.locator('[data-testid=audit-summary-file]')).toHaveCount(1);
  await expect(audit.total()).toHaveAttribute('data-rows', '4');
});

test('the audit view has no serious or critical accessibility violation', async ({ page }) => {
  const audit = new AuditPage(page);
  await audit.goto();
  let result = await new AxeBuilder({ page }).include('[data-testid=audit-view]').analyze();
  const serious = (r: typeof result) =>
    r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious(result)).toEqual([]);
  await audit.upload(csv('audit-verdicts.csv'), csv('audit-malformed.csv'));
  await expect(audit.rows()).toHaveCount(4);
  await expect(audit.errors()).toHaveCount(1);
  result = await new AxeBuilder({ page }).include('[data-testid=audit-view]').analyze();
  expect(serious(result)).toEqual([]);
});

test('a 50 MB file imports whole: counts cover every row, the table lists a bounded subset', async ({
  page,
}, testInfo) => {
  test.setTimeout(240_000);
  // The four fixture rows (k = 2: entailed, unsupported; k = 3: ambiguous, entailed), 23,000
  // times over, each copy with its own index and ids: 92,000 rows, about 50 MB.
  const [header, ...lines] = fixture('audit-verdicts.csv').toString('utf8').trimEnd().split('\n');
  const copies = 23_000;
  const parts = [`${header}\n`];
  for (let c = 0; c < copies; c++) {
    lines.forEach((line, i) =>
      parts.push(
        line.replace(/^\d+,([^,]+),/, (_, id) => `${c * 4 + i},${id}-${c},`),
        '\n',
      ),
    );
  }
  const file = testInfo.outputPath('audit-large.csv');
  writeFileSync(file, parts.join(''));
  const rows = copies * 4;

  const audit = new AuditPage(page);
  await audit.goto();
  await page.getByTestId('audit-drop').setInputFiles(file);
  await expect(audit.total()).toHaveAttribute('data-rows', String(rows), { timeout: 200_000 });
  await expect(audit.total()).toHaveAttribute('data-entailed', String(copies * 2));
  await expect(audit.total()).toHaveAttribute('data-ambiguous', String(copies));
  await expect(audit.total()).toHaveAttribute('data-unsupported', String(copies));
  await expect(audit.errors()).toHaveCount(0);
  const perK = page.getByTestId('audit-summary-k');
  await expect(perK.nth(0).locator('td')).toHaveText(['46,000', '23,000', '0', '23,000', '50.0%', '0', '0']);
  await expect(perK.nth(1).locator('td')).toHaveText(['46,000', '23,000', '23,000', '0', '50.0%', '0', '0']);

  // The page keeps the first 5,000 rows, then only rows that are not entailed, 10,000 in all.
  const subset = page.getByTestId('audit-subset');
  await expect(subset).toHaveAttribute('data-listed', '10000');
  await expect(subset).toHaveAttribute('data-rows', String(rows));
  await expect(audit.rows()).toHaveCount(25);
  await page.getByTestId('audit-filter-verdict').selectOption('ambiguous');
  // 1,250 ambiguous rows among the first 5,000; then half of the next 5,000 non-entailed ones.
  await expect(page.getByTestId('audit-row-count')).toHaveAttribute('data-count', '3750');
  await expect(page.getByTestId('audit-row-count')).toHaveAttribute('data-matching', String(copies));
  await expect(audit.rows().first()).toHaveAttribute('data-verdict', 'ambiguous');
  const heap = await page.evaluate(
    () => (performance as Performance & { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0,
  );
  testInfo.annotations.push({ type: 'page heap after import', description: `${Math.round(heap / 2 ** 20)} MB` });
  await page.screenshot({ path: testInfo.outputPath('audit-large.png'), fullPage: true });
});

test('the stats panel shows the figures `npm run cli -- stats` prints for the same files', async ({ page }) => {
  // A generated file (tasks 1.2, 1.3, 5.3: every noise kind) and hand-written released-style rows.
  const paths = ['src/core/formats/fixtures/stats-generated.csv', 'src/core/formats/fixtures/stats-hand.csv'];
  const cli = execFileSync('node', ['scripts/cli.mjs', 'stats', ...paths], { encoding: 'utf8' })
    .trimEnd()
    .split('\n');
  // The CLI's table: "  <k|all>  <rows>  <patterns>  <tau>  …" under "per story length k:".
  const table = cli.slice(cli.indexOf('per story length k:') + 2, cli.indexOf('', cli.indexOf('per story length k:')));
  const cliRows = new Map(table.map((line) => line.trim().split(/\s+/)).map(([k, ...cells]) => [k!, cells]));

  const audit = new AuditPage(page);
  await audit.goto();
  await audit.upload(...paths.map((p) => csv(p.split('/').at(-1)!, readFileSync(p))));
  const panel = page.getByTestId('audit-stats');
  await expect(page.getByTestId('audit-stats-line')).toHaveText(cli.at(-1)!, { timeout: 30_000 });
  const perK = panel.getByTestId('audit-stats-k');
  await expect(perK).toHaveCount(cliRows.size - 1);
  for (const row of await perK.all()) {
    const k = (await row.getAttribute('data-k'))!;
    const cells = (await row.locator('td').allInnerTexts()).map((t) => t.replace(/,/g, ''));
    expect(cells, `k = ${k}`).toEqual(cliRows.get(k));
  }
  const overall = (await panel.getByTestId('audit-stats-overall').locator('td').allInnerTexts()).map((t) =>
    t.replace(/,/g, ''),
  );
  expect(overall).toEqual(cliRows.get('all'));
  // Targets per k, word for word.
  await panel.getByText('Targets, assumed patterns and noise vocabulary').click();
  for (const line of cli.filter((l) => /^ {2}k=\d+: /.test(l))) {
    const [, k, list] = /^ {2}k=(\d+): (.*)$/.exec(line)!;
    await expect(panel.getByTestId('audit-stats-targets')).toContainText(`Targets, k = ${k}${list}`);
  }
  await expect(panel.getByTestId('audit-stats-noise')).toContainText('Noise, k = 3, edges without a type1');
  await panel.screenshot({ path: `${ARTIFACTS}/audit-stats.png` });
});
