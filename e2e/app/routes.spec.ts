import { expect, test } from '@playwright/test';

test('every view is reachable from the navigation, and the puzzle’s parameters survive', async ({ page }) => {
  await page.goto('/?seed=21&k=3&task=2');
  await expect(page.getByTestId('story')).toBeVisible();
  const story = await page.getByTestId('story').innerText();

  await page.getByTestId('nav-dataset').click();
  await expect(page).toHaveURL(/seed=21&k=3&task=2#\/dataset/);
  await expect(page.getByTestId('nav-dataset')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();

  await page.getByTestId('nav-audit').click();
  await expect(page).toHaveURL(/#\/audit/);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();

  await page.getByTestId('nav-classroom').click();
  await expect(page.getByTestId('classroom')).toBeVisible();
  await page.keyboard.press('Escape');

  await expect(page.getByTestId('nav-puzzle')).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('story')).toHaveText(story);

  // Back and forward move between views.
  await page.goBack();
  await expect(page.getByTestId('classroom')).toBeVisible();
  await page.goBack();
  await expect(page).toHaveURL(/#\/audit/);
});

test('a view that is not the start page loads only when opened', async ({ page }) => {
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.resourceType() === 'script') scripts.push(r.url());
  });
  await page.goto('/?seed=1&k=2&task=1');
  await expect(page.getByTestId('story')).toBeVisible();
  expect(scripts.some((u) => /classroom|dataset-|audit-/.test(u))).toBe(false);
  await page.getByTestId('nav-classroom').click();
  await expect(page.getByTestId('classroom')).toBeVisible();
  expect(scripts.some((u) => /classroom/.test(u))).toBe(true);
});

test('nothing is fetched from another origin', async ({ page, baseURL }) => {
  const foreign: string[] = [];
  const origin = new URL(baseURL!).origin;
  page.on('request', (r) => {
    if (!r.url().startsWith(origin) && !r.url().startsWith('data:') && !r.url().startsWith('blob:'))
      foreign.push(r.url());
  });
  for (const hash of ['', '#/classroom', '#/dataset', '#/audit']) {
    await page.goto(`/?seed=2&k=3&task=5${hash}`);
    await page.waitForLoadState('networkidle');
  }
  expect(foreign).toEqual([]);
});
