import { expect, test } from '@playwright/test';
import { generatePuzzle } from '../../src/core/puzzle/puzzle';
import type { TaskId } from '../../src/core/puzzle/tasks';

// The same seed and settings give the same puzzle in Node and in the browser's worker.
const CASES: [string, number, TaskId][] = [
  ['1234', 3, 1],
  ['node-vs-browser', 6, 5],
  ['7', 10, 2],
  ['memory', 4, 7],
];

for (const [seed, k, task] of CASES) {
  test(`seed ${seed}, k ${k}, task ${task}: browser puzzle equals Node's`, async ({ page }) => {
    await page.goto(`/?seed=${encodeURIComponent(seed)}&k=${k}&task=${task}`);
    await expect(page.getByTestId('story')).toBeVisible();
    const inBrowser = await page.evaluate(() => window.__clutrr?.getPuzzle() ?? null);
    const inNode = generatePuzzle({ seed, k, task });
    expect(JSON.parse(JSON.stringify(inBrowser))).toEqual(JSON.parse(JSON.stringify(inNode)));
    await expect(page.getByTestId('graph-edge')).toHaveCount(inNode.facts.length);
  });
}
