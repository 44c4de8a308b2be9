import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { Explorer } from '../fixtures/explorer';
import { encodedLink, Participant } from '../fixtures/study';
import { seriousViolations } from '../fixtures/axe';

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

const drop = (page: Page, testId: string, file: string) =>
  page
    .getByTestId(testId)
    .setInputFiles({ name: file, mimeType: 'text/csv', buffer: readFileSync(`e2e/fixtures/${file}`) });

/**
 * Each main route in dark mode, with its tables, badges and charts on screen (files loaded, a
 * dataset generated, a participant's trial): axe finds no serious or critical violation, colour
 * contrast included, and no panel keeps a light background.
 */
const DARK_ROUTES: readonly [string, (page: Page) => Promise<void>][] = [
  [
    'puzzle',
    async (page) => {
      await page.goto('/?seed=3&k=4&task=5');
      await expect(page.getByTestId('story')).toBeVisible();
    },
  ],
  [
    'classroom',
    async (page) => {
      await page.goto('/?seed=1234&k=3&task=2#/classroom');
      await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
      // Told sentence by sentence, then revealed: the highlights, the drawing and the answer on screen.
      for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
      await page.keyboard.press('r');
    },
  ],
  [
    'dataset',
    async (page) => {
      await page.goto('/?seed=1&k=2&task=1#/dataset');
      await page.getByTestId('dataset-generate').click();
      await expect(page.getByTestId('dataset-status')).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
    },
  ],
  [
    'audit',
    async (page) => {
      await page.goto('/#/audit');
      await drop(page, 'audit-drop', 'audit-verdicts.csv');
      await expect(page.getByTestId('audit-row').first()).toBeVisible();
    },
  ],
  [
    'study',
    async (page) => {
      await page.goto('/#/study');
      await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
    },
  ],
  [
    'results',
    async (page) => {
      await page.goto('/#/results');
      await drop(page, 'results-drop', 'results-a.csv');
      await expect(page.getByTestId('results-item').first()).toBeVisible();
    },
  ],
  [
    'models',
    async (page) => {
      await page.goto('/#/models');
      await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
    },
  ],
  [
    'participant',
    async (page) => {
      await page.goto(`/${encodedLink({}, { PROLIFIC_PID: 'dark' })}`);
      const p = new Participant(page);
      await p.consentAccept.click();
      // Each click waits for its screen to go: a loaded machine can still show the screen just
      // left when the next loop reads it, and a click on its Start button would wait forever.
      for (let i = 0; i < 5 && (await p.screen()) !== 'trial'; i++) {
        const before = await p.signature();
        await p.continueButton.click();
        await p.leaves(before);
      }
      await expect(p.story).toBeVisible();
    },
  ],
];

for (const [name, open] of DARK_ROUTES) {
  test(`dark theme, ${name}: axe finds no serious or critical violation, no light panel`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await open(page);
    await page.screenshot({ path: test.info().outputPath(`dark-${name}.png`), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    // No visible element keeps a light background (the light theme's panels, headers, badges).
    // Ink-filled marks (a background of the text colour, e.g. the legend's numbered dots) are
    // inverted on purpose in both themes.
    const light = await page.evaluate(() => {
      const ink = getComputedStyle(document.body).color;
      const out: string[] = [];
      for (const el of document.querySelectorAll<HTMLElement>('body *')) {
        const bg = getComputedStyle(el).backgroundColor;
        if (bg === ink) continue;
        const m = bg.match(/rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)/);
        if (!m || (m[4] !== undefined && Number(m[4]) < 0.5)) continue;
        const lum = 0.2126 * Number(m[1]) + 0.7152 * Number(m[2]) + 0.0722 * Number(m[3]);
        const box = el.getBoundingClientRect();
        if (lum > 160 && box.width > 0 && box.height > 0) {
          out.push(`${el.tagName.toLowerCase()}.${el.className} ${bg}`);
        }
      }
      return out;
    });
    expect(light).toEqual([]);
  });
}
