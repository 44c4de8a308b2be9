import { expect, type Page, test } from '@playwright/test';

/**
 * Issue 33: the builder's `--templates-only`. With a template file loaded, "Templates only
 * (refuse plain sentences)" makes a fact none of the file's paraphrases tells stop the run, the
 * engine's message naming the fact shown in the builder; without it the same settings finish,
 * and the facts-told summary counts the plain sentences the run fell back to.
 *
 * The fixture tells "son" and "daughter" only; the rows ask for niece patterns too.
 */

const FILE = 'e2e/fixtures/templates-no-niece.json';

async function setUp(page: Page) {
  await page.goto('/#/dataset');
  await expect(page.getByTestId('dataset-form')).toBeVisible();
  // Offered only once a template file is loaded.
  await expect(page.getByTestId('dataset-templates-only')).toHaveCount(0);
  await page.getByTestId('template-file').setInputFiles(FILE);
  await expect(page.getByTestId('template-summary')).toContainText('templates-no-niece.json: 2 keys, 4 paraphrases');
  const values = {
    trainTasks: '1.1',
    trainRows: '30',
    testTasks: '1.1',
    testRows: '5',
    patterns: 'son,daughter,niece',
  };
  for (const [name, v] of Object.entries(values))
    await page.getByTestId('dataset-form').locator(`[name="${name}"]`).fill(v);
}

test('templates only: a fact the file has no template for stops the run, naming the fact', async ({ page }) => {
  await setUp(page);
  const only = page.getByTestId('dataset-templates-only');
  await expect(only).not.toBeChecked();
  await only.check();
  await page
    .locator('[data-field="templatesOnly"]')
    .screenshot({ path: 'e2e/artifacts/dataset-templates-only-switch.png' });
  await page.getByTestId('dataset-generate').click();
  await expect(page.getByTestId('dataset-status')).toHaveAttribute('data-status', 'failed', { timeout: 60_000 });
  const error = page.getByTestId('dataset-run-error');
  await expect(error).toHaveAttribute('role', 'alert');
  // The MissingTemplateError's words: the file, the fact as its plain sentence, its relation.
  await expect(error).toContainText(/templates-no-niece\.json has no template for the fact ".+'s niece is .+\."/);
  await expect(error).toContainText('(relation niece, genders');
  await expect(error).toContainText('falling back to a plain sentence is refused');
  await expect(page.getByTestId('dataset-facts-told')).toHaveCount(0);
  await page
    .locator('.dataset__alert')
    .first()
    .screenshot({ path: 'e2e/artifacts/dataset-templates-only-refused.png' });
});

test('without templates only the same settings finish, and the summary counts the plain sentences', async ({
  page,
}) => {
  await setUp(page);
  await expect(page.getByTestId('dataset-templates-only')).not.toBeChecked();
  await page.getByTestId('dataset-generate').click();
  await expect(page.getByTestId('dataset-status')).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
  const told = page.getByTestId('dataset-facts-told');
  await expect(told).toContainText('plain sentences');
  await expect(told).toContainText('Facts no paraphrase tells were written as plain sentences.');
  expect(Number(await told.getAttribute('data-plain'))).toBeGreaterThan(0);
  expect(Number(await told.getAttribute('data-file'))).toBeGreaterThan(0);
  expect(Number(await told.getAttribute('data-bank'))).toBe(0);
  await expect(page.getByTestId('dataset-run-error')).toHaveCount(0);
  // "Use our bank" takes the file away, and the switch with it.
  await page.getByTestId('template-reset').click();
  await expect(page.getByTestId('dataset-templates-only')).toHaveCount(0);
});
