import { expect, test, type Page } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { Explorer } from '../fixtures/explorer';

/**
 * Issue 23: a puzzle and a classroom handout print clean: no navigation or buttons, the story and
 * the question (and an answer line) are there; the handout's answers are on a page of their own.
 * The PDFs go to the test's output folder (and E2E_SHOTS, when set) to be looked at.
 */

const visibleButtons = (page: Page) =>
  page.evaluate(
    () =>
      [...document.querySelectorAll('button, nav, summary, select, input')].filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
      }).length,
  );

test('a puzzle from the explorer prints as its story, question and an answer line', async ({ page }) => {
  const ex = new Explorer(page);
  await ex.goto({ seed: 7, k: 4, task: 2 });
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByRole('navigation')).toBeHidden();
  await expect(page.getByTestId('new-puzzle')).toBeHidden();
  await expect(page.getByTestId('answer-option').first()).toBeHidden();
  expect(await visibleButtons(page)).toBe(0);
  await expect(ex.story).toBeVisible();
  await expect(ex.query).toBeVisible();
  expect(await ex.query.evaluate((q) => getComputedStyle(q, '::after').content)).toContain('Answer:');
  await expect(ex.graph).toBeVisible();
  const pdf = await page.pdf({ format: 'A4', printBackground: true });
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  await test.info().attach('explorer-print.pdf', { body: pdf, contentType: 'application/pdf' });
  if (process.env.E2E_SHOTS) writeFileSync(`${process.env.E2E_SHOTS}/explorer-print.pdf`, pdf);
});

test('the classroom prints a handout of N seeded puzzles, then the answers on their own page', async ({ page }) => {
  await page.goto('/?seed=20&k=3&task=1#/classroom');
  await expect(page.getByTestId('classroom')).toBeVisible();
  await page.locator('.classroom__print > summary').click();
  await page.getByTestId('handout-count').selectOption('4');
  const handout = page.getByTestId('handout');
  await expect(handout).toHaveAttribute('data-ready', 'true');
  await expect(handout).toHaveAttribute('data-count', '4');
  await expect(handout).toBeHidden(); // on screen: only in print

  await page.emulateMedia({ media: 'print' });
  await expect(handout).toBeVisible();
  expect(await visibleButtons(page)).toBe(0);
  await expect(page.getByTestId('classroom-keys')).toBeHidden();
  const puzzles = page.getByTestId('handout-puzzle');
  await expect(puzzles).toHaveCount(4);
  for (const p of await puzzles.all()) {
    await expect(p.locator('.handout__story')).toBeVisible();
    await expect(p.getByTestId('query')).toBeVisible();
    await expect(p.locator('.handout__answer-line')).toHaveText(/^Answer:/);
  }
  // The seeds New puzzle would give, from the classroom's own.
  await expect(puzzles.locator('.handout__meta')).toHaveText([
    'task 1.3 · seed 20',
    'task 1.3 · seed 21',
    'task 1.3 · seed 22',
    'task 1.3 · seed 23',
  ]);
  const answers = page.getByTestId('handout-answers');
  await expect(answers.locator('li')).toHaveCount(4);
  expect(await answers.evaluate((a) => getComputedStyle(a).breakBefore)).toBe('page');
  // The story's answer is in the answer sheet only.
  const target = await page.evaluate(() => window.__clutrr!.getPuzzle()!.target.word);
  await expect(answers.locator('li').first()).toContainText(target);

  const pdf = await page.pdf({ format: 'A4', printBackground: true });
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  // More than one page: the answers start a page of their own.
  expect((pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length).toBeGreaterThanOrEqual(2);
  await test.info().attach('classroom-handout.pdf', { body: pdf, contentType: 'application/pdf' });
  if (process.env.E2E_SHOTS) writeFileSync(`${process.env.E2E_SHOTS}/classroom-handout.pdf`, pdf);
});

test('the presenter goes to the next and the previous puzzle without leaving (N and P)', async ({ page }) => {
  await page.goto('/?seed=20&k=3&task=1#/classroom');
  await expect(page.getByTestId('classroom')).toBeVisible();
  await expect(page.getByTestId('classroom-keys')).toContainText('next puzzle');
  await expect(page.getByTestId('classroom-keys')).toContainText('previous puzzle');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('n');
  await expect(page).toHaveURL(/seed=21&k=3&task=1#\/classroom/);
  await expect(page.getByTestId('classroom-progress')).toHaveText(/^0 \//);
  await page.keyboard.press('n');
  await expect(page).toHaveURL(/seed=22&/);
  await page.keyboard.press('p');
  await expect(page).toHaveURL(/seed=21&/);
  await page.getByTestId('classroom-prev-puzzle').click();
  await expect(page).toHaveURL(/seed=20&/);
  await page.getByTestId('classroom-next-puzzle').click();
  await expect(page).toHaveURL(/seed=21&/);
  await expect(page.getByTestId('classroom')).toBeVisible();
  expect(await page.evaluate(() => window.__clutrr!.getPuzzle()!.seed)).toBe('21');
});
