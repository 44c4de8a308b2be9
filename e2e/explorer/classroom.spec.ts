import { expect, test } from '@playwright/test';
import { Explorer, wordPattern } from '../fixtures/explorer';

test('classroom: the keyboard tells the story, takes a guess, reveals, and walks the proof', async ({ page }) => {
  const ex = new Explorer(page);
  await ex.goto({ seed: 1234, k: 4, task: 2 });
  const p = await ex.puzzle();
  const n = await ex.sentences.count();
  await page.getByTestId('open-classroom').click();
  await expect(page).toHaveURL(/seed=1234&k=4&task=2#\/classroom/);
  await expect(page.getByTestId('classroom')).toBeVisible();
  // The keys are documented on screen.
  await expect(page.getByTestId('classroom-keys')).toContainText('Space');
  await expect(page.getByTestId('classroom-keys')).toContainText('Esc');

  await expect(ex.sentences).toHaveCount(0);
  await expect(ex.edges).toHaveCount(0);
  for (let i = 1; i <= n; i++) {
    await page.keyboard.press(i % 2 ? 'ArrowRight' : ' ');
    await expect(ex.sentences).toHaveCount(i);
  }
  // The drawing grows with the story: every fact told is drawn.
  await expect(ex.edges).toHaveCount(p.facts.length);
  await page.keyboard.press('ArrowLeft');
  await expect(ex.sentences).toHaveCount(n - 1);
  await page.keyboard.press('ArrowRight');
  await expect(ex.query).toHaveCount(0);
  await page.keyboard.press('ArrowRight');
  await expect(ex.query).toBeVisible();

  // G: the class's guess, chosen with the keyboard.
  await page.keyboard.press('g');
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('class-guess')).toContainText('daughter');

  // R: the answer.
  await expect(page.getByTestId('answer')).toHaveCount(0);
  await page.keyboard.press('r');
  await expect(page.getByTestId('answer')).toHaveAttribute('data-relation', p.target.word);

  // Then the proof, one step per key.
  for (let i = 1; i <= p.proof.length; i++) {
    await page.keyboard.press('ArrowRight');
    await expect(ex.proofSteps).toHaveCount(i);
    await expect(page.getByTestId('graph-derived-edge')).toHaveCount(1);
  }
  await expect(page.getByTestId('classroom-progress')).toHaveText(
    `${n + 2 + p.proof.length} / ${n + 2 + p.proof.length}`,
  );

  // Esc leaves for the puzzle view, the same puzzle.
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('classroom')).toHaveCount(0);
  await expect(page).toHaveURL(/seed=1234&k=4&task=2/);
  await expect(page).not.toHaveURL(/classroom/);
  await ex.ready();
});

test('classroom opens straight from a link and Esc closes the guess dialog first', async ({ page }) => {
  await page.goto('/?seed=9&k=3&task=1#/classroom');
  await expect(page.getByTestId('classroom')).toBeVisible();
  await page.getByTestId('classroom-next').click();
  await expect(page.getByTestId('story-sentence')).toHaveCount(1);
  await page.keyboard.press('G');
  await expect(page.getByRole('dialog')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(page.getByTestId('classroom')).toBeVisible();
  await page.getByTestId('classroom-exit').click();
  await expect(page.getByTestId('classroom')).toHaveCount(0);
  await expect(page.getByTestId('story')).toBeVisible();
});

test('classroom: nothing gives the answer away before the answer', async ({ page }) => {
  const ex = new Explorer(page);
  await ex.goto({ seed: 223, k: 4, task: 1 });
  const p = await ex.puzzle();
  const n = await ex.sentences.count();
  const own = await ex.story.innerText();
  const derived = [...new Set(p.proof.map((s) => s.head.word))].filter((w) => !wordPattern(w).test(own));
  expect(derived).toContain(p.target.word);
  await page.getByTestId('open-classroom').click();
  await expect(page.getByTestId('classroom')).toBeVisible();
  // Every sentence, then the question: no derived word on screen, no proof step, no derived edge.
  for (let i = 0; i <= n; i++) {
    await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('classroom-progress')).toHaveText(new RegExp(`^${i + 1} /`));
    const text = await ex.textOutsideAnswerChoices();
    for (const w of derived) expect(text, `"${w}" is on screen at beat ${i + 1}`).not.toMatch(wordPattern(w));
    await expect(ex.proofSteps).toHaveCount(0);
    await expect(page.getByTestId('graph-derived-edge')).toHaveCount(0);
  }
  await expect(ex.query).toBeVisible();
  await expect(page.getByTestId('answer')).toHaveCount(0);
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('answer')).toHaveAttribute('data-relation', p.target.word);
});
