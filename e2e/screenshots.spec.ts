import { expect, test } from '@playwright/test';
import { Explorer } from './fixtures/explorer';

/**
 * Screenshots of every view, kept as artifacts in e2e/artifacts/ (git-ignored) for people to
 * look at; nothing is compared.
 */
const shot = (name: string) => ({ path: `e2e/artifacts/${name}.png`, fullPage: true });

test.use({ viewport: { width: 1440, height: 900 } });

test('screenshots of each view', async ({ page }) => {
  const ex = new Explorer(page);
  await ex.goto({ seed: 1234, k: 3, task: 5 });
  await page.screenshot(shot('puzzle'));

  await ex.sentences.nth(2).hover();
  await page.screenshot(shot('puzzle-hover'));

  await page.locator('[data-testid="answer-option"][data-relation="aunt"]').click();
  await page.getByTestId('proof-next').click();
  await page.getByTestId('proof-next').click();
  await page.screenshot(shot('puzzle-revealed-proof'));

  await ex.load(77, 10, 5);
  await page.getByTestId('toggle-wide').click();
  await page.screenshot(shot('puzzle-k10-wide'));
  await page.getByTestId('toggle-wide').click();

  await ex.load(1234, 3, 5);
  await page.getByTestId('toggle-hidden').check();
  await page.screenshot(shot('puzzle-hidden-family'));
  await page.getByTestId('toggle-hidden').uncheck();

  await ex.load(1234, 4, 6);
  await page.screenshot(shot('puzzle-memory'));

  await page.goto('/?seed=1&k=10&task=1&max-child=1&min-child=1');
  await expect(page.getByTestId('error')).not.toBeEmpty();
  await page.screenshot(shot('puzzle-error'));

  await page.setViewportSize({ width: 420, height: 900 });
  await ex.goto({ seed: 1234, k: 3, task: 2 });
  await page.screenshot(shot('puzzle-narrow'));
  await page.setViewportSize({ width: 1440, height: 900 });

  await page.goto('/?seed=1234&k=4&task=2#/classroom');
  await expect(page.getByTestId('classroom')).toBeVisible();
  await page.screenshot(shot('classroom-start'));
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await page.screenshot(shot('classroom-story'));
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('g');
  await page.screenshot(shot('classroom-guess'));
  await page.keyboard.press('Enter');
  await page.keyboard.press('r');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.screenshot(shot('classroom-proof'));

  await page.goto('/?seed=1&k=2&task=1#/dataset');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.screenshot(shot('dataset'));

  await page.goto('/?seed=1&k=2&task=1#/audit');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.screenshot(shot('audit'));
});
