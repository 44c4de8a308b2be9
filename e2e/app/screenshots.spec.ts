import { expect, type Page, test } from '@playwright/test';
import { Explorer } from '../fixtures/explorer';

/**
 * Screenshots of every view, kept in e2e/artifacts/ (git-ignored) for people to look at. Pixels
 * are not compared; each test first checks that the view it captures is really there (its
 * landmarks, its drawing, no failure), so a blank or broken page cannot pass as a screenshot.
 */
const shot = (page: Page, name: string) => page.screenshot({ path: `e2e/artifacts/${name}.png`, fullPage: true });

test.use({ viewport: { width: 1440, height: 900 } });

/** No view crashed (the error boundary's alert) and nothing runs off the right edge. */
async function expectIntact(page: Page) {
  await expect(page.getByText('This view failed.')).toHaveCount(0);
  expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
}

/** The explorer's landmarks, and a drawing with every person, fitted inside its frame. */
async function expectExplorer(page: Page, ex: Explorer) {
  await expect(page.getByRole('navigation', { name: 'Views' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: 'Puzzle explorer' })).toBeAttached();
  for (const name of ['Story', 'Family', 'Proof']) {
    await expect(page.getByRole('heading', { level: 2, name: new RegExp(`^${name}`) })).toBeVisible();
  }
  await expect(ex.story).toBeVisible();
  await expect(ex.query).toBeVisible();
  await expect(page.getByTestId('answer-option')).toHaveCount(20);
  await expect(page.getByTestId('error')).toBeEmpty();
  const p = await ex.puzzle();
  await expect(ex.nodes).toHaveCount(p.entities.length);
  await expectInsideGraph(ex);
  await expectIntact(page);
}

async function expectInsideGraph(ex: Explorer) {
  const frame = (await ex.graph.boundingBox())!;
  const centres = await ex.nodes.evaluateAll((els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
    }),
  );
  expect(centres.length).toBeGreaterThan(0);
  for (const c of centres) {
    expect(c.x).toBeGreaterThanOrEqual(frame.x);
    expect(c.x).toBeLessThanOrEqual(frame.x + frame.width);
    expect(c.y).toBeGreaterThanOrEqual(frame.y);
    expect(c.y).toBeLessThanOrEqual(frame.y + frame.height);
  }
}

test('puzzle view: fresh, then a sentence hovered', async ({ page }) => {
  const ex = new Explorer(page);
  await ex.goto({ seed: 1234, k: 3, task: 5 });
  await expectExplorer(page, ex);
  await expect(page.getByTestId('proof-closed')).toBeVisible();
  await shot(page, 'puzzle');

  await ex.sentences.nth(2).hover();
  await expect(ex.sentences.nth(2)).toHaveAttribute('data-highlighted', 'true');
  expect((await ex.litEdgeFacts()).length).toBeGreaterThan(0);
  await shot(page, 'puzzle-hover');
});

test('puzzle view: answered, proof stepped', async ({ page }) => {
  const ex = new Explorer(page);
  await ex.goto({ seed: 1234, k: 3, task: 5 });
  await page.locator('[data-testid="answer-option"][data-relation="aunt"]').click();
  await page.getByTestId('proof-next').click();
  await page.getByTestId('proof-next').click();
  await expectExplorer(page, ex);
  await expect(page.getByTestId('answer')).toBeVisible();
  await expect(page.locator('[data-testid="proof-step"][data-step="1"]')).toHaveAttribute('data-state', 'current');
  await expect(page.getByTestId('graph-derived-edge')).toHaveCount(1);
  await shot(page, 'puzzle-revealed-proof');
});

test('puzzle view: k = 10 drawn wide', async ({ page }) => {
  const ex = new Explorer(page);
  await ex.goto({ seed: 77, k: 10, task: 5 });
  await page.getByTestId('toggle-wide').click();
  await expect(page.locator('.explorer--wide')).toBeVisible();
  await expectExplorer(page, ex);
  expect((await ex.graph.boundingBox())!.width).toBeGreaterThan(1000);
  await shot(page, 'puzzle-k10-wide');
});

test('puzzle view: the hidden family', async ({ page }) => {
  const ex = new Explorer(page);
  await ex.goto({ seed: 1234, k: 3, task: 5 });
  await page.getByTestId('show-proof').click();
  await page.getByTestId('toggle-hidden').check();
  await expectExplorer(page, ex);
  expect(await page.getByTestId('graph-node-hidden').count()).toBeGreaterThan(0);
  await shot(page, 'puzzle-hidden-family');
});

test('puzzle view: a memory fact', async ({ page }) => {
  const ex = new Explorer(page);
  await ex.goto({ seed: 1234, k: 4, task: 6 });
  await expectExplorer(page, ex);
  const p = await ex.puzzle();
  expect(p.facts.some((f) => f.kind === 'memory')).toBe(true);
  await expect(ex.storyEdges).toHaveCount(p.facts.length);
  await shot(page, 'puzzle-memory');
});

test('puzzle view: impossible settings', async ({ page }) => {
  await page.goto('/?seed=1&k=10&task=1&max-child=1&min-child=1');
  await expect(page.getByTestId('error')).toContainText('k = 10');
  await expect(page.getByTestId('new-puzzle')).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Views' })).toBeVisible();
  await expectIntact(page);
  await shot(page, 'puzzle-error');
});

test('puzzle view: a narrow screen', async ({ page }) => {
  await page.setViewportSize({ width: 420, height: 900 });
  const ex = new Explorer(page);
  await ex.goto({ seed: 1234, k: 3, task: 2 });
  await expectExplorer(page, ex);
  // One column: the drawing comes below the story.
  expect((await ex.graph.boundingBox())!.y).toBeGreaterThan((await ex.story.boundingBox())!.y);
  await shot(page, 'puzzle-narrow');
});

test('classroom: start, story, guess, proof', async ({ page }) => {
  const ex = new Explorer(page);
  await page.goto('/?seed=1234&k=4&task=2#/classroom');
  await expect(page.getByTestId('classroom')).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: /^Classroom/ })).toBeVisible();
  await expect(page.getByTestId('classroom-keys')).toBeVisible();
  await expect(page.getByTestId('classroom-progress')).toHaveText(/^0 \/ \d+$/);
  await expect(ex.sentences).toHaveCount(0);
  await expectIntact(page);
  await shot(page, 'classroom-start');

  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('classroom-progress')).toHaveText(/^5 \//);
  const told = await ex.sentences.count();
  expect(told).toBeGreaterThan(0);
  expect(await ex.nodes.count()).toBeGreaterThan(0);
  await expectInsideGraph(ex);
  await expectIntact(page);
  await shot(page, 'classroom-story');

  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('g');
  await expect(page.getByRole('dialog', { name: "The class's guess" })).toBeVisible();
  await expect(page.getByRole('dialog').getByTestId('answer-option')).toHaveCount(20);
  await shot(page, 'classroom-guess');

  await page.keyboard.press('Enter');
  await page.keyboard.press('r');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('answer')).toBeVisible();
  await expect(ex.proofSteps).toHaveCount(2);
  await expect(page.getByTestId('graph-derived-edge')).toHaveCount(1);
  await expectIntact(page);
  await shot(page, 'classroom-proof');
});

for (const [name, hash, heading] of [
  ['dataset', '#/dataset', /dataset/i],
  ['audit', '#/audit', /audit/i],
] as const) {
  test(`${name} view`, async ({ page }) => {
    await page.goto(`/?seed=1&k=2&task=1${hash}`);
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    await expect(page.locator(`[data-testid="nav-${name}"][aria-current="page"]`)).toBeVisible();
    await expectIntact(page);
    await shot(page, name);
  });
}
