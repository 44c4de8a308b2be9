import { expect, test } from '@playwright/test';

test('a seeded URL shows the same puzzle twice', async ({ page }) => {
  await page.goto('/?seed=1234&k=3&task=1');
  const story = page.getByTestId('story');
  await expect(story).toBeVisible();
  const first = await story.innerText();
  const query = await page.getByTestId('query').innerText();
  expect(query).toMatch(/^How is \w+ related to \w+\?$/);
  const names = await page.getByTestId('graph-node').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')));
  await page.goto('/?seed=1234&k=3&task=1');
  await expect(page.getByTestId('story')).toHaveText(first);
  await expect(page.getByTestId('story-sentence')).toHaveCount(3);
  await expect(page.getByTestId('query')).toHaveText(query);
  await expect(page.getByTestId('graph-node')).toHaveCount(names.length);
  expect(
    await page.getByTestId('graph-node').evaluateAll((els) => els.map((e) => e.getAttribute('data-name'))),
  ).toEqual(names);
});

test('new puzzle changes the seed in the URL and the story', async ({ page }) => {
  await page.goto('/?seed=5&k=2&task=1');
  await expect(page.getByTestId('story')).toBeVisible();
  const before = await page.getByTestId('story').innerText();
  await page.getByTestId('new-puzzle').click();
  await expect(page).toHaveURL(/seed=6/);
  await expect(page.getByTestId('story')).not.toHaveText(before);
  // Back returns to the previous puzzle.
  await page.goBack();
  await expect(page).toHaveURL(/seed=5/);
  await expect(page.getByTestId('story')).toHaveText(before);
});

test('a bare URL gets a seed, k and task, so the link reproduces the puzzle', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByTestId('story')).toBeVisible();
  await expect(page).toHaveURL(/\?seed=\d+&k=2&task=1/);
  const story = await page.getByTestId('story').innerText();
  await page.goto(page.url());
  await expect(page.getByTestId('story')).toHaveText(story);
});
