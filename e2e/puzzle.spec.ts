import { expect, test } from '@playwright/test';

test('a seeded URL shows the same puzzle twice', async ({ page }) => {
  await page.goto('/?seed=1234&k=3&task=1');
  const story = page.getByTestId('story');
  await expect(story).toBeVisible();
  const first = await story.innerText();
  const query = await page.getByTestId('query').innerText();
  expect(query).toMatch(/^How is \w+ related to \w+\?$/);
  await page.goto('/?seed=1234&k=3&task=1');
  await expect(page.getByTestId('story')).toHaveText(first);
  await expect(page.getByTestId('story-sentence')).toHaveCount(3);
});

test('new puzzle changes the seed in the URL and the story', async ({ page }) => {
  await page.goto('/?seed=5&k=2&task=1');
  const before = await page.getByTestId('story').innerText();
  await page.getByTestId('new-puzzle').click();
  await expect(page).toHaveURL(/seed=6/);
  await expect(page.getByTestId('story')).not.toHaveText(before);
});
