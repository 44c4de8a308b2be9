import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';
import { mkdirSync, readFileSync } from 'node:fs';

/**
 * A template file in the original CLUTRR JSON shape, loaded in the dataset builder
 * (`--templates`): its paraphrases write the stories and config.json names it; a file of the
 * wrong shape lists the keys and templates that are wrong.
 */

const ARTIFACTS = 'e2e/artifacts';
mkdirSync(ARTIFACTS, { recursive: true });
const MINI = 'e2e/fixtures/templates-mini.json';
const BAD = 'e2e/fixtures/templates-bad.json';

async function gotoBuilder(page: Page) {
  await page.goto('/#/dataset');
  await expect(page.getByTestId('dataset-form')).toBeVisible();
}

async function fill(page: Page, values: Record<string, string>) {
  for (const [name, v] of Object.entries(values))
    await page.getByTestId('dataset-form').locator(`[name="${name}"]`).fill(v);
}

test('a template file writes the stories and config.json names it', async ({ page }) => {
  await gotoBuilder(page);
  await page.getByTestId('template-file').setInputFiles(MINI);
  await expect(page.getByTestId('template-summary')).toContainText('templates-mini.json: 3 keys, 6 paraphrases');
  await expect(page.getByTestId('template-problems')).toHaveCount(0);

  await fill(page, {
    trainTasks: '1.1',
    trainRows: '20',
    testTasks: '1.1',
    testRows: '5',
    patterns: 'son,daughter,niece',
    seed: 'tpl',
  });
  await page.getByTestId('dataset-generate').click();
  await expect(page.getByTestId('dataset-status')).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
  const rows = page.getByTestId('dataset-preview-row');
  await expect(rows.first()).toBeVisible();
  // Every one-fact story is one of the file's sentences (each mentions a lighthouse).
  const texts = await rows.allInnerTexts();
  expect(texts.length).toBeGreaterThan(0);
  for (const t of texts) expect(t).toMatch(/lighthouse/);
  await page.screenshot({ path: `${ARTIFACTS}/dataset-templates.png`, fullPage: true });

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('dataset-download-zip').click(),
  ]);
  const path = `${ARTIFACTS}/${download.suggestedFilename()}`;
  await download.saveAs(path);
  const zip = unzipSync(readFileSync(path));
  const config = JSON.parse(strFromU8(zip['clutrr-lab_seed-tpl/config.json']!)) as Record<string, unknown>;
  expect(JSON.stringify(config)).toContain('"templates":"templates-mini.json"');

  // Plain sentences take no template file; "Use our bank" goes back to the built-in bank.
  await page.getByTestId('dataset-form').locator('[name="synthetic"]').check();
  await expect(page.getByTestId('template-file')).toBeDisabled();
  await page.getByTestId('dataset-form').locator('[name="synthetic"]').uncheck();
  await page.getByTestId('template-reset').click();
  await expect(page.getByTestId('template-summary')).toContainText('Using our bank');
});

test('a file of the wrong shape names the wrong key and template', async ({ page }) => {
  await gotoBuilder(page);
  await page.getByTestId('template-file').setInputFiles(BAD);
  const problems = page.getByTestId('template-problems');
  await expect(problems).toHaveAttribute('role', 'alert');
  await expect(problems).toContainText('templates-bad.json: key "son", gender comb "female-male", template 0');
  await expect(problems).toContainText('key "sonn": "sonn" is not a relation word');
  // The valid part is still used.
  await expect(page.getByTestId('template-summary')).toContainText('1 key, 1 paraphrase');
  await page.locator('[data-field="templates"]').screenshot({ path: `${ARTIFACTS}/template-problems.png` });

  const result = await new AxeBuilder({ page }).include('[data-testid=dataset-view]').analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
});

/** A bank of `n` distinct valid templates over two keys, as the original's big files are. */
function bigBank(n: number): Buffer {
  const lists: Record<string, Record<string, string[]>> = {
    son: { 'female-male': [] },
    daughter: { 'male-female': [] },
  };
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) lists.son!['female-male']!.push(`ENT_0_female and her son ENT_1_male saw lighthouse ${i}.`);
    else lists.daughter!['male-female']!.push(`ENT_0_male and his daughter ENT_1_female saw lighthouse ${i}.`);
  }
  return Buffer.from(JSON.stringify(lists));
}

test('a big template file is read in a worker, with progress, while the page keeps drawing', async ({ page }) => {
  await gotoBuilder(page);
  // Each animation frame the page draws while the file is read records the progress bar's value:
  // frames only run when the main thread is free.
  await page.evaluate(() => {
    const seen: number[] = [];
    (window as unknown as { __progress: number[] }).__progress = seen;
    const tick = () => {
      const bar = document.querySelector<HTMLProgressElement>('[data-testid=template-progress]');
      if (bar) seen.push(bar.value);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await page
    .getByTestId('template-file')
    .setInputFiles({ name: 'big.json', mimeType: 'application/json', buffer: bigBank(200_000) });
  await expect(page.getByTestId('template-summary')).toContainText('big.json: 2 keys, 200,000 paraphrases', {
    timeout: 60_000,
  });
  await expect(page.getByTestId('template-progress')).toHaveCount(0);
  const seen = await page.evaluate(() => (window as unknown as { __progress: number[] }).__progress);
  expect(new Set(seen).size).toBeGreaterThan(1);
});

test('a file with no usable template says so and keeps our bank', async ({ page }) => {
  await gotoBuilder(page);
  await page
    .getByTestId('template-file')
    .setInputFiles({ name: 'empty.json', mimeType: 'application/json', buffer: Buffer.from('{}') });
  await expect(page.getByTestId('template-summary')).toHaveText('empty.json holds no usable template; using our bank');
  await expect(page.getByTestId('template-problems')).toHaveCount(0);
});
