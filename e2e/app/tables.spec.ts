import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';

/**
 * Issue 23: the dataset preview searches the story, names and ids, sorts by its columns
 * (aria-sort), keeps its view in the URL (so a filtered, sorted view is a link), and links to any
 * generated row.
 */

test.use({ viewport: { width: 1280, height: 800 } });

test('the dataset preview: search, sort, a view in the URL, a link to a row', async ({ page }) => {
  await page.goto('/#/dataset');
  await page.getByTestId('dataset-generate').click();
  await expect(page.getByTestId('dataset-status')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  const rows = page.getByTestId('dataset-preview-row');
  const count = page.getByTestId('dataset-preview-count');
  const total = Number(await count.getAttribute('data-count'));
  expect(total).toBeGreaterThan(100);

  // Search: a name from the third row's question finds rows that name it (story, question or id).
  const question = await rows.nth(2).locator('td').nth(4).innerText();
  const name = /How is (\w+) related/.exec(question)![1]!;
  await page.getByTestId('dataset-search').fill(name);
  await expect(page).toHaveURL(new RegExp(`#/dataset\\?q=${name}$`));
  const found = Number(await count.getAttribute('data-count'));
  expect(found).toBeGreaterThan(0);
  expect(found).toBeLessThan(total);
  for (const r of await rows.all()) await expect(r).toContainText(name);

  // Sort by task (k within task), descending: the first row has the largest k; aria-sort says so.
  await page.getByTestId('dataset-search').fill('');
  const sortTask = page.getByTestId('sort-task');
  await sortTask.click();
  await sortTask.click();
  await expect(page.locator('th', { has: sortTask })).toHaveAttribute('aria-sort', 'descending');
  await expect(page).toHaveURL(/#\/dataset\?sort=task&dir=desc$/);
  const ks = await rows.evaluateAll((rs) => rs.map((r) => Number(r.getAttribute('data-k'))));
  expect(ks).toEqual([...ks].sort((a, b) => b - a));
  expect(ks[0]).toBe(4);

  // A filter too; then the URL alone reopens the same view (the builder keeps its rows).
  await page.getByTestId('dataset-filter-split').selectOption('test');
  await expect(page).toHaveURL(/#\/dataset\?sort=task&dir=desc&split=test$/);
  const view = page.url();
  const firstId = await rows.first().getAttribute('data-k');
  await page.getByTestId('nav-puzzle').click();
  await expect(page.getByTestId('story')).toBeVisible();
  await page.goto(view);
  await expect(page.getByTestId('dataset-filter-split')).toHaveValue('test');
  await expect(page.locator('th', { has: page.getByTestId('sort-task') })).toHaveAttribute('aria-sort', 'descending');
  await expect(rows.first()).toHaveAttribute('data-k', firstId!);

  // A row's link shows that row alone.
  const link = rows.nth(3).getByTestId('dataset-row-link');
  const story = (await rows.nth(3).locator('.dataset__story').textContent()) ?? '';
  expect(story.length).toBeGreaterThan(20);
  await link.click();
  await expect(page).toHaveURL(/#\/dataset\?row=/);
  await expect(rows).toHaveCount(1);
  await expect(rows.first().locator('.dataset__story')).toHaveText(story);
});

test("the audit's rows: a search, and filters that survive Open → Back (they are in the URL)", async ({ page }) => {
  await page.goto('/#/audit');
  await page.getByTestId('audit-drop').setInputFiles({
    name: 'audit-verdicts.csv',
    mimeType: 'text/csv',
    buffer: readFileSync('e2e/fixtures/audit-verdicts.csv'),
  });
  const rows = page.getByTestId('audit-row');
  await expect(rows.first()).toBeVisible();
  const all = await rows.count();

  await page.getByTestId('audit-search').fill('Julian');
  await expect(page).toHaveURL(/#\/audit\?q=Julian$/);
  await expect(rows).not.toHaveCount(all);
  for (const r of await rows.all()) await expect(r).toContainText('Julian');
  await page.getByTestId('audit-search').fill('');

  const verdict = page.getByTestId('audit-filter-verdict');
  await verdict.selectOption('entailed');
  await expect(page).toHaveURL(/#\/audit\?verdict=entailed$/);
  const entailed = await rows.count();
  expect(entailed).toBeGreaterThan(0);
  await rows.first().getByTestId('audit-open-row').click();
  await expect(page.getByTestId('story')).toBeVisible();
  await page.goBack();
  await expect(page.getByTestId('audit-view')).toBeVisible();
  await expect(verdict).toHaveValue('entailed');
  await expect(rows).toHaveCount(entailed);
});

test("the audit's rows: sort by a column (aria-sort), kept in the URL across a reload", async ({ page }) => {
  const drop = () =>
    page.getByTestId('audit-drop').setInputFiles({
      name: 'audit-verdicts.csv',
      mimeType: 'text/csv',
      buffer: readFileSync('e2e/fixtures/audit-verdicts.csv'),
    });
  const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
  const labels = () =>
    page.getByTestId('audit-row').evaluateAll((rs) => rs.map((r) => r.querySelectorAll('td')[5]!.textContent!.trim()));
  await page.goto('/#/audit');
  await drop();
  await expect(page.getByTestId('audit-row').first()).toBeVisible();
  const unsorted = await labels();
  const sortLabel = page.getByTestId('sort-label');
  const header = page.locator('th', { has: sortLabel });
  await expect(header).toHaveAttribute('aria-sort', 'none');
  await sortLabel.click();
  await expect(header).toHaveAttribute('aria-sort', 'ascending');
  await expect(page).toHaveURL(/#\/audit\?sort=label$/);
  await sortLabel.click();
  await expect(header).toHaveAttribute('aria-sort', 'descending');
  await expect(page).toHaveURL(/#\/audit\?sort=label&dir=desc$/);
  const desc = await labels();
  expect(desc).toEqual([...desc].sort((a, b) => collator.compare(b, a)));
  expect(new Set(desc).size).toBeGreaterThan(1);
  expect(desc).not.toEqual(unsorted);
  await page.getByTestId('audit-filter-verdict').selectOption('entailed');
  await expect(page).toHaveURL(/#\/audit\?sort=label&dir=desc&verdict=entailed$/);

  // A reload (the file read again) keeps the sort and the filter: they are in the URL.
  await page.reload();
  await drop();
  await expect(page.getByTestId('audit-row').first()).toBeVisible();
  await expect(page.locator('th', { has: page.getByTestId('sort-label') })).toHaveAttribute('aria-sort', 'descending');
  await expect(page.getByTestId('audit-filter-verdict')).toHaveValue('entailed');
  const again = await labels();
  expect(again).toEqual([...again].sort((a, b) => collator.compare(b, a)));
  for (const r of await page.getByTestId('audit-row').all())
    await expect(r).toHaveAttribute('data-verdict', 'entailed');
  await page.getByTestId('sort-label').click();
  await expect(page.locator('th', { has: page.getByTestId('sort-label') })).toHaveAttribute('aria-sort', 'none');
  await expect(page).toHaveURL(/#\/audit\?verdict=entailed$/);
});

test('the results tables: items and participants search and sort (aria-sort)', async ({ page }) => {
  await page.goto('/#/results');
  await page.getByTestId('results-drop').setInputFiles({
    name: 'results-a.csv',
    mimeType: 'text/csv',
    buffer: readFileSync('e2e/fixtures/results-a.csv'),
  });
  const items = page.getByTestId('results-item');
  await expect(items.first()).toBeVisible();
  const allItems = await items.count();
  const sortAcc = page.getByTestId('results-items').getByTestId('sort-accuracy');
  await sortAcc.click();
  await expect(page.getByTestId('results-items').locator('th:has([data-testid="sort-accuracy"])')).toHaveAttribute(
    'aria-sort',
    'ascending',
  );
  const acc = await page
    .getByTestId('results-item-accuracy')
    .evaluateAll((cells) => cells.map((c) => Number(c.textContent!.trim().split(' ')[0])));
  expect(acc).toEqual([...acc].sort((a, b) => a - b));
  const firstId = (await items.first().getAttribute('data-puzzle'))!;
  await page.getByTestId('results-items-search').fill(firstId);
  await expect(items.first()).toHaveAttribute('data-puzzle', firstId);
  expect(await items.count()).toBeLessThan(allItems);

  const people = page.getByTestId('results-participant');
  await expect(people.first()).toBeVisible();
  const sortSession = page.getByTestId('results-participants').getByTestId('sort-session');
  await sortSession.click();
  await sortSession.click();
  const sessions = await people.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-session')!));
  expect(sessions).toEqual(
    [...sessions].sort((a, b) => b.localeCompare(a, 'en', { numeric: true, sensitivity: 'base' })),
  );
  await page.getByTestId('results-participants-search').fill(sessions[3]!);
  await expect(people).toHaveCount(1);
  await expect(people.first()).toHaveAttribute('data-session', sessions[3]!);
});

test('the results tables keep their search and sort in the URL: a reload (or a shared link) shows the same view', async ({
  page,
}) => {
  const drop = () =>
    page.getByTestId('results-drop').setInputFiles({
      name: 'results-a.csv',
      mimeType: 'text/csv',
      buffer: readFileSync('e2e/fixtures/results-a.csv'),
    });
  await page.goto('/#/results');
  await drop();
  const items = page.getByTestId('results-item');
  await expect(items.first()).toBeVisible();
  const allItems = await items.count();
  const itemHead = page.getByTestId('results-items').locator('th:has([data-testid="sort-accuracy"])');
  const sortAcc = page.getByTestId('results-items').getByTestId('sort-accuracy');
  await sortAcc.click();
  await sortAcc.click();
  await expect(itemHead).toHaveAttribute('aria-sort', 'descending');
  await expect(page).toHaveURL(/#\/results\?items_sort=accuracy&items_dir=desc$/);
  const accuracies = () =>
    page
      .getByTestId('results-item-accuracy')
      .evaluateAll((cells) => cells.map((c) => Number(c.textContent!.trim().split(' ')[0])));
  const acc = await accuracies();
  expect(acc).toEqual([...acc].sort((a, b) => b - a));
  // Search the items by their answer word: several puzzles share it.
  const answer = (await items.first().locator('td').nth(2).textContent())!.trim();
  await page.getByTestId('results-items-search').fill(answer);
  await expect(page).toHaveURL(new RegExp(`items_q=${answer}`));
  const matching = await items.count();
  expect(matching).toBeLessThan(allItems);

  const peopleHead = page.getByTestId('results-participants').locator('th:has([data-testid="sort-session"])');
  const sortSession = page.getByTestId('results-participants').getByTestId('sort-session');
  await sortSession.click();
  await sortSession.click();
  await expect(peopleHead).toHaveAttribute('aria-sort', 'descending');
  await page.getByTestId('results-flagged-only').check();
  await expect(page).toHaveURL(/people_sort=session&people_dir=desc&people_flagged=1$/);
  // The items' part of the URL is kept when the participants' table writes its own.
  await expect(page).toHaveURL(/items_sort=accuracy&items_dir=desc/);
  const people = page.getByTestId('results-participant');
  const flaggedSessions = await people.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-session')!));
  expect(flaggedSessions.length).toBeGreaterThan(0);

  const url = page.url();
  await page.reload();
  await drop();
  await expect(items.first()).toBeVisible();
  expect(page.url()).toBe(url);
  await expect(itemHead).toHaveAttribute('aria-sort', 'descending');
  await expect(page.getByTestId('results-items-search')).toHaveValue(answer);
  await expect(items).toHaveCount(matching);
  const again = await accuracies();
  expect(again).toEqual([...again].sort((a, b) => b - a));
  await expect(peopleHead).toHaveAttribute('aria-sort', 'descending');
  await expect(page.getByTestId('results-flagged-only')).toBeChecked();
  expect(await people.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-session')!))).toEqual(flaggedSessions);

  await page.getByTestId('results-items-search').fill('');
  await page.getByTestId('results-flagged-only').uncheck();
  await expect(page).toHaveURL(/#\/results\?items_sort=accuracy&items_dir=desc&people_sort=session&people_dir=desc$/);
});
