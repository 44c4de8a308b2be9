import { expect, test } from '@playwright/test';
import { Explorer } from './fixtures/explorer';

/** Issue 23: a dark theme that follows the system setting; the drawing's kinds of fact stay apart. */

test('dark theme: dark paper, light ink, and every kind of fact its own colour', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  const ex = new Explorer(page);
  await ex.goto({ seed: 3, k: 4, task: 5 });
  const luminance = (rgb: string) => {
    const [r, g, b] = (rgb.match(/\d+/g) ?? []).map(Number) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const ink = await page.evaluate(() => getComputedStyle(document.body).color);
  expect(luminance(bg)).toBeLessThan(60);
  expect(luminance(ink)).toBeGreaterThan(180);
  const strokes = await page.evaluate(() => {
    const out: Record<string, string> = {};
    for (const e of document.querySelectorAll('[data-testid="graph-edge"]')) {
      const kind = e.getAttribute('data-fact-kind') === 'memory' ? 'memory' : e.getAttribute('data-kind')!;
      out[kind] = getComputedStyle(e.querySelector('.edge__line')!).stroke;
    }
    return out;
  });
  const kinds = Object.keys(strokes);
  expect(kinds.length).toBeGreaterThanOrEqual(3);
  expect(new Set(Object.values(strokes)).size).toBe(kinds.length);
  // The drawing's paper is dark too.
  const paper = await ex.graph.evaluate((svg) => getComputedStyle(svg).backgroundColor);
  expect(luminance(paper)).toBeLessThan(60);
  await page.screenshot({ path: test.info().outputPath('dark-explorer.png') });

  await page.emulateMedia({ colorScheme: 'light' });
  expect(luminance(await page.evaluate(() => getComputedStyle(document.body).backgroundColor))).toBeGreaterThan(200);
});
