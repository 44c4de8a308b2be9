import { expect, test } from '@playwright/test';

/** Issue 23: the builder shows progress and errors where the user acted, and a refused submit leaves nothing stale. */

test.use({ viewport: { width: 1280, height: 800 } });

test('a refused submit clears the previous result and disables its downloads; k is 1..10', async ({ page }) => {
  await page.goto('/#/dataset');
  const status = page.getByTestId('dataset-status');
  await page.getByTestId('dataset-generate').click();
  await expect(status).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('dataset-download-zip')).toBeEnabled();
  await expect(page.getByTestId('dataset-preview-row').first()).toBeVisible();

  // The run's status is beside Generate (the panel's bottom is within a few lines of the button).
  const gen = (await page.getByTestId('dataset-generate').boundingBox())!;
  const panel = (await page.locator('.dataset__run').boundingBox())!;
  expect(Math.abs(panel.y + panel.height - (gen.y + gen.height))).toBeLessThan(80);

  await page.locator('input[name="trainTasks"]').fill('9.2');
  await page.getByTestId('dataset-generate').click();
  await expect(page.getByTestId('dataset-form-error')).toContainText('task 9 in "9.2" is not one of 1–7');
  await expect(status).toHaveAttribute('data-status', 'idle');
  await expect(status).toHaveText('Not generated: fix the settings listed by Generate.');
  await expect(page.getByTestId('dataset-download-zip')).toBeDisabled();
  await expect(page.getByTestId('dataset-download-csv')).toBeDisabled();
  await expect(page.getByTestId('dataset-progress')).toHaveCount(0);
  await expect(page.getByTestId('dataset-preview-row')).toHaveCount(0);

  for (const bad of ['1.11', '1.12']) {
    await page.locator('input[name="trainTasks"]').fill(`1.2,${bad}`);
    await page.getByTestId('dataset-generate').click();
    await expect(page.locator('[data-field="trainTasks"] [data-testid="dataset-field-error"]')).toHaveText(
      `--train-tasks: k in "${bad}" must be a whole number from 1 to 10`,
    );
  }
  // Two fields refused: each message is its own item in the summary and its own block by its field.
  await page.locator('input[name="trainRows"]').fill('many');
  await page.getByTestId('dataset-generate').click();
  await expect(page.getByTestId('dataset-form-error').locator('li')).toHaveCount(2);
  const errors = page.getByTestId('dataset-field-error');
  await expect(errors).toHaveCount(2);
  for (const e of await errors.all()) {
    expect(await e.evaluate((el) => getComputedStyle(el).display)).toBe('block');
  }
  await page.screenshot({ path: test.info().outputPath('builder-refused.png'), fullPage: true });

  await page.locator('input[name="trainTasks"]').fill('1.2,1.10');
  await page.locator('input[name="trainRows"]').fill('20');
  await page.getByTestId('dataset-generate').click();
  await expect(status).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('dataset-field-error')).toHaveCount(0);
});
