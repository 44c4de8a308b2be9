import { expect, test } from '@playwright/test';
import { Explorer } from '../fixtures/explorer';

/** Issue 23: seeds as typed, a second try before the reveal, a plain Reveal button once used, words that fit, copy confirmed. */

test('a seed of twenty digits stays as typed after New puzzle', async ({ page }) => {
  const ex = new Explorer(page);
  await ex.goto({ seed: '99999999999999999999', k: 2, task: 1 });
  await expect(page.getByTestId('seed-input')).toHaveValue('99999999999999999999');
  await page.getByTestId('new-puzzle').click();
  await expect(page.getByTestId('seed-input')).toHaveValue('99999999999999999999-1');
  await expect(page).toHaveURL(/seed=99999999999999999999-1&/);
  expect((await ex.puzzle()).seed).toBe('99999999999999999999-1');
});

test('with "Let me try again", a wrong first pick keeps the answer hidden; the second pick reveals', async ({
  page,
}) => {
  const ex = new Explorer(page);
  await ex.goto({ seed: 1234, k: 4, task: 1 });
  const p = await ex.puzzle();
  const wrong = p.target.word === 'aunt' ? 'uncle' : 'aunt';
  const reveal = page.getByTestId('reveal-answer');
  await expect(reveal).toHaveClass(/button--primary/);
  await page.getByTestId('second-try').check();
  await page.locator(`[data-testid="answer-option"][data-relation="${wrong}"]`).click();
  await expect(page.getByTestId('try-again')).toHaveText(`✗ Not ${wrong}. One more try.`);
  await expect(page.getByTestId('answer')).toHaveCount(0);
  await page.locator(`[data-testid="answer-option"][data-relation="${p.target.word}"]`).click();
  await expect(page.getByTestId('answer')).toHaveAttribute('data-relation', p.target.word);
  await expect(page.getByTestId('answer-panel')).toContainText('Right');
  await expect(page.getByTestId('try-again')).toHaveCount(0);
  // Used, the Reveal button is a plain button.
  await expect(reveal).toHaveText('Answer shown below');
  await expect(reveal).not.toHaveClass(/button--primary/);

  // The setting stays for the next puzzle, which starts with nothing picked.
  await page.getByTestId('new-puzzle').click();
  await expect(page.getByTestId('answer')).toHaveCount(0);
  await expect(page.getByTestId('second-try')).toBeChecked();
  await page.getByTestId('second-try').uncheck();
  const next = await ex.puzzle();
  const wrong2 = next.target.word === 'aunt' ? 'uncle' : 'aunt';
  await page.locator(`[data-testid="answer-option"][data-relation="${wrong2}"]`).click();
  await expect(page.getByTestId('answer')).toHaveAttribute('data-relation', next.target.word);
});

for (const width of [1280, 390]) {
  test(`every answer word fits inside its button at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 844 });
    await new Explorer(page).goto({ seed: 1, k: 2, task: 1 });
    const tight = await page.getByTestId('answer-option').evaluateAll((buttons) =>
      buttons
        .map((b) => {
          const r = document.createRange();
          r.selectNodeContents(b);
          const text = r.getBoundingClientRect();
          const box = b.getBoundingClientRect();
          return { word: b.textContent, left: text.left - box.left, right: box.right - text.right };
        })
        .filter((w) => w.left < 3 || w.right < 3),
    );
    expect(tight).toEqual([]);
  });
}

test('Copy link says it copied (or that it could not)', async ({ page, context }) => {
  const ex = new Explorer(page);
  await ex.goto({ seed: 5, k: 3, task: 2 });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.getByTestId('copy-link').click();
  await expect(page.getByTestId('copy-link-status')).toHaveText('Link copied to the clipboard.');
  await expect(page.getByTestId('copy-link')).toHaveText('Link copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('seed=5&k=3&task=2');
});
