import { expect, test } from '@playwright/test';
import { Explorer } from '../fixtures/explorer';
import { seriousViolations } from '../fixtures/axe';

test('puzzle view: no serious or critical accessibility violation', async ({ page }) => {
  const ex = new Explorer(page);
  await ex.goto({ seed: 1234, k: 4, task: 5 });
  expect(await seriousViolations(page)).toEqual([]);
  // With everything open: settings, hidden family, answer, a proof step, a lit sentence.
  await page.getByText('Family and text settings').click();
  await page.getByTestId('show-proof').click();
  await page.getByTestId('toggle-hidden').check();
  await page.locator('[data-testid="answer-option"][data-relation="aunt"]').click();
  await page.getByTestId('proof-next').click();
  await ex.sentences.first().hover();
  expect(await seriousViolations(page)).toEqual([]);
});

test('classroom view: no serious or critical accessibility violation', async ({ page }) => {
  await page.goto('/?seed=1234&k=3&task=2#/classroom');
  await expect(page.getByTestId('classroom')).toBeVisible();
  for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
  expect(await seriousViolations(page)).toEqual([]);
  await page.keyboard.press('g');
  await expect(page.getByRole('dialog')).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.keyboard.press('Escape');
  await page.keyboard.press('r');
  await page.keyboard.press('ArrowRight');
  expect(await seriousViolations(page)).toEqual([]);
});

test('error state: no serious or critical accessibility violation', async ({ page }) => {
  await page.goto('/?seed=1&k=10&task=1&max-child=1&min-child=1');
  await expect(page.getByTestId('error')).not.toBeEmpty();
  expect(await seriousViolations(page)).toEqual([]);
});

for (const [name, hash] of [
  ['dataset builder', '#/dataset'],
  ['import and audit', '#/audit'],
] as const) {
  test(`${name} view: no serious or critical accessibility violation`, async ({ page }) => {
    await page.goto(`/?seed=1&k=2&task=1${hash}`);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
  });
}
