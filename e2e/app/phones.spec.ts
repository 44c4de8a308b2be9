import { readFileSync } from 'node:fs';
import { expect, type Page, test } from '@playwright/test';
import { seriousViolations } from '../fixtures/axe';
import { Explorer } from '../fixtures/explorer';

/**
 * Issue 33: the analysis views on a 390 × 844 phone, each with real content on screen (a file in
 * CLUTRR's released CSV format dropped on #/audit, a generated dataset, the models' report, a
 * results file): the page never scrolls sideways, every chart's text renders at least 11 px
 * high, and axe finds nothing serious or critical — in the light theme and the dark one.
 * Screenshots go to e2e/artifacts/phone-*.png.
 */

const upload = (file: string) => ({
  name: file.replace(/^phone-/, ''),
  mimeType: 'text/csv',
  buffer: readFileSync(`e2e/fixtures/${file}`),
});

const VIEWS: readonly [string, (page: Page) => Promise<void>][] = [
  [
    'audit',
    async (page) => {
      await page.goto('/#/audit');
      // A file as the paper's release names and writes it (our own rows, generated with --labels clutrr).
      await page.getByTestId('audit-drop').setInputFiles(upload('phone-1.3_test.csv'));
      await expect(page.getByTestId('audit-row').first()).toBeVisible({ timeout: 30_000 });
      await expect(page.getByTestId('audit-stats')).toBeVisible();
    },
  ],
  [
    'dataset',
    async (page) => {
      await page.goto('/#/dataset');
      await page.getByTestId('dataset-generate').click();
      await expect(page.getByTestId('dataset-status')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
      await expect(page.getByTestId('dataset-preview-row').first()).toBeVisible();
    },
  ],
  [
    'models',
    async (page) => {
      await page.goto('/#/models');
      await expect(page.getByTestId('models-report')).toBeVisible();
      await page.waitForLoadState('networkidle');
    },
  ],
  [
    'results',
    async (page) => {
      await page.goto('/#/results');
      await expect(page.getByTestId('results-view')).toBeVisible();
      await page.getByTestId('results-drop').setInputFiles(upload('results-real.csv'));
      await expect(page.getByTestId('results-summary')).toBeVisible({ timeout: 30_000 });
    },
  ],
];

/** The page's width beyond the window (0 when it does not scroll sideways). */
const overflow = (page: Page) => page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth);

/** Every SVG text drawn smaller than 11 px (rendered height), with where it is. */
const smallText = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('svg text')]
      .map((t) => ({ t, r: t.getBoundingClientRect() }))
      .filter(({ t, r }) => r.width > 0 && (t.textContent ?? '').trim() !== '' && r.height < 11)
      .map(({ t, r }) => {
        const owner = t.closest('[data-testid]')?.getAttribute('data-testid') ?? '?';
        return `${owner}: "${t.textContent}" ${r.height.toFixed(1)} px`;
      }),
  );

/** Elements wider than the window, to say what pushes the page (empty when nothing does). */
const widest = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
      .filter((e) => !e.closest('[role=region], .table-scroll'))
      .slice(0, 6)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`),
  );

test.describe('a 390 × 844 phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });
  for (const scheme of ['light', 'dark'] as const) {
    for (const [name, open] of VIEWS) {
      test(`#/${name} (${scheme}): no sideways scroll, chart text ≥ 11 px, axe clean`, async ({ page }) => {
        test.setTimeout(90_000);
        await page.emulateMedia({ colorScheme: scheme });
        await open(page);
        expect(await overflow(page), `pushed by ${(await widest(page)).join(', ')}`).toBeLessThanOrEqual(0);
        expect(await smallText(page)).toEqual([]);
        expect(await seriousViolations(page)).toEqual([]);
        await page.screenshot({ path: `e2e/artifacts/phone-${name}-${scheme}.png`, fullPage: true });
      });
    }
  }

  test('#/audit: each row’s Open button is in view and opens the row', async ({ page }) => {
    await VIEWS[0]![1](page);
    const open = page.getByTestId('audit-open-row').first();
    await open.scrollIntoViewIfNeeded();
    const box = (await open.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    // A real tap at the button's centre: nothing lies over it.
    await open.click();
    await expect(page.getByTestId('story')).toBeVisible();
  });
});

/** Each chart of a view, cropped, for looking at (the full pages are long). */
const CHARTS: Readonly<Record<string, string>> = {
  dataset: '[data-testid="pattern-chart"]',
  models: '[data-testid="models-chart"]',
  results: '[data-testid="results-chart-difficulty"]',
  audit: '[data-testid="audit-stats"]',
};

test.describe('a 390 × 844 phone, the charts close up', () => {
  test.use({ viewport: { width: 390, height: 844 } });
  for (const [name, open] of VIEWS) {
    test(`#/${name}: ${CHARTS[name]}`, async ({ page }) => {
      test.setTimeout(60_000);
      await open(page);
      const chart = page.locator(CHARTS[name]!).first();
      await chart.scrollIntoViewIfNeeded();
      await chart.screenshot({ path: `e2e/artifacts/phone-${name}-chart.png` });
    });
  }
});

test('#/models: the legend groups the lines, and a click (or Enter) hides and shows one', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/#/models');
  await expect(page.getByTestId('models-report')).toBeVisible();
  const groups = page.getByTestId('models-legend-group');
  await expect(groups.first()).toBeVisible();
  const order = await groups.evaluateAll((gs) => gs.map((g) => g.getAttribute('data-group')));
  // Groups in their fixed order (paper, ours, ablations), each present at most once.
  expect(order.length).toBeGreaterThanOrEqual(2);
  expect(order).toEqual(['paper', 'ours', 'ablations'].filter((g) => order.includes(g)));
  const entry = page.getByTestId('models-legend-entry').first();
  const key = (await entry.getAttribute('data-line'))!;
  const line = page.locator(`[data-testid="models-chart"] svg g[data-series="${key}"]`);
  await expect(line).toHaveCount(1);
  await entry.click();
  await expect(entry).toHaveAttribute('aria-pressed', 'false');
  await expect(line).toHaveCount(0);
  await entry.focus();
  await page.keyboard.press('Enter');
  await expect(entry).toHaveAttribute('aria-pressed', 'true');
  await expect(line).toHaveCount(1);
});

/** Which query people ('A', 'B') have their shapes inside the drawing's box (the opening view). */
const queryInView = (page: Page) =>
  page.getByTestId('graph').evaluate((svg) => {
    const box = svg.getBoundingClientRect();
    return [...svg.querySelectorAll('[data-testid="graph-node"][data-query]')]
      .filter((p) => {
        const r = p.getBoundingClientRect();
        return r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
      })
      .map((p) => p.getAttribute('data-query'))
      .sort()
      .join('');
  });

test('on a phone the family drawing opens with both of the question’s people in view (k = 10, seeds 0–19, tasks 1 and 5)', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 390, height: 844 });
  const explorer = new Explorer(page);
  await explorer.goto({ seed: 0, k: 10, task: 1 });
  for (const task of [1, 5]) {
    for (let seed = 0; seed < 20; seed++) {
      await explorer.load(String(seed), 10, task);
      // The opening view is set once the box is measured (and sized to the family).
      await expect.poll(() => queryInView(page), { message: `seed ${seed}, task ${task}` }).toBe('AB');
    }
  }
  // A pair too far apart for the readable zoom (semantic zoom: the names stay 10 px on screen).
  await explorer.load('11', 10, 5);
  await expect.poll(() => queryInView(page)).toBe('AB');
  await expect(page.getByTestId('graph')).toHaveAttribute('data-overview', 'true');
  await page.getByTestId('graph').screenshot({ path: 'e2e/artifacts/phone-drawing-k10-seed11.png' });
  // Zoomed in past the readable zoom, the drawing is as laid out again (whole names, every word).
  await page.getByTestId('zoom-in').click();
  await page.getByTestId('zoom-in').click();
  await page.getByTestId('zoom-in').click();
  await expect(page.getByTestId('graph')).not.toHaveAttribute('data-overview', 'true');
  const names = await page
    .getByTestId('graph-node')
    .evaluateAll((ns) => ns.map((n) => [n.getAttribute('data-name'), n.querySelector('.node__name')?.textContent]));
  for (const [name, shown] of names) expect(shown).toBe(name);
  const facts = (await explorer.puzzle()).facts.length;
  await expect(page.locator('[data-testid="graph"] .edge__label')).toHaveCount(facts);
});

test('the classroom on a projector shows the whole k = 10 family', async ({ page }) => {
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto('/?seed=11&k=10&task=5#/classroom');
  await expect(page.getByTestId('classroom')).toBeVisible();
  for (let i = 0; i < 30; i++) await page.keyboard.press('ArrowRight');
  const outside = () =>
    page.getByTestId('graph').evaluate((svg) => {
      const box = svg.getBoundingClientRect();
      const drawn = [...svg.querySelectorAll('[data-testid="graph-node"]')];
      return {
        count: drawn.length,
        outside: drawn
          .filter((e) => {
            const r = e.getBoundingClientRect();
            return r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1;
          })
          .map((e) => e.getAttribute('data-name')),
      };
    });
  await expect.poll(async () => (await outside()).outside).toEqual([]);
  expect((await outside()).count).toBeGreaterThan(10);
  await page.screenshot({ path: 'e2e/artifacts/projector-classroom-k10.png' });
});

test('a four-puzzle handout prints every drawing at one scale, names at 9 pt or more, on white even in dark mode', async ({
  page,
}) => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.goto('/?seed=20&k=4&task=1#/classroom');
  await expect(page.getByTestId('classroom')).toBeVisible();
  await page.locator('.classroom__print > summary').click();
  await page.getByTestId('handout-count').selectOption('4');
  await page.getByTestId('handout-drawing').check();
  const handout = page.getByTestId('handout');
  await expect(handout).toHaveAttribute('data-ready', 'true');
  await page.emulateMedia({ media: 'print', colorScheme: 'dark' });
  await expect(page.getByTestId('handout-puzzle')).toHaveCount(4);
  const drawings = page.locator('.handout__drawing svg[data-testid="graph"]');
  await expect(drawings).toHaveCount(4);
  // One scale: a drawing's on-screen px per layout unit (its width over its viewBox's width).
  const scales = await drawings.evaluateAll((svgs) =>
    svgs.map((s) => (s as SVGSVGElement).getBoundingClientRect().width / (s as SVGSVGElement).viewBox.baseVal.width),
  );
  for (const s of scales) expect(s).toBeCloseTo(scales[0]!, 2);
  // 9 pt = 12 CSS px: each name's font size times the drawing's scale.
  const names = await page
    .locator('.handout__drawing .node__name')
    .evaluateAll((ts) => ts.map((t) => parseFloat(getComputedStyle(t).fontSize)));
  expect(names.length).toBeGreaterThan(8);
  for (const n of names) expect(n * scales[0]!).toBeGreaterThanOrEqual(12 - 0.01);
  // The theme's paper colours: white paper and dark ink, whatever the screen's scheme.
  const paper = await drawings.first().evaluate((s) => getComputedStyle(s).backgroundColor);
  expect(paper).toBe('rgb(255, 255, 255)');
  const ink = await page
    .locator('.handout__story')
    .first()
    .evaluate((e) => getComputedStyle(e).color);
  expect(ink).toBe('rgb(0, 0, 0)');
  await page.setViewportSize({ width: 794, height: 1123 });
  await page.screenshot({ path: 'e2e/artifacts/print-handout-4.png', fullPage: true });
});

/**
 * At 1280 px the wide tables (the results' figures with the paper's columns, items, participants;
 * the models' accuracy to k = 10) either fit or scroll inside a focusable, named region with
 * their first column kept in place.
 */
test('at 1280 × 800 the wide tables fit or scroll in place with their first column sticky', async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  const check = async (table: string) => {
    const found = await page
      .locator(table)
      .first()
      .evaluate((t) => {
        const region = t.closest('[role="region"]') as HTMLElement | null;
        const first = t.querySelector('tbody tr > :first-child') as HTMLElement | null;
        return {
          region:
            region !== null &&
            region.tabIndex === 0 &&
            !!(region.getAttribute('aria-label') || region.getAttribute('aria-labelledby')),
          fits: region !== null && region.scrollWidth <= region.clientWidth,
          sticky: first !== null && getComputedStyle(first).position === 'sticky',
          page: document.scrollingElement!.scrollWidth <= window.innerWidth,
        };
      });
    expect(found.region, `${table} in a focusable, named region`).toBe(true);
    expect(found.fits || found.sticky, `${table} fits or keeps its first column`).toBe(true);
    expect(found.page).toBe(true);
  };
  await VIEWS[3]![1](page);
  await check('[data-testid="results-table"]');
  await page
    .locator('[role="region"]:has([data-testid="results-table"])')
    .screenshot({ path: 'e2e/artifacts/desktop-results-table-1280.png' });
  await check('.results__table:has([data-testid="results-item"])');
  await check('.results__table:has([data-testid^="results-participant"])');
  await VIEWS[2]![1](page);
  await check('[data-testid="models-accuracy"]');
  const accuracy = page.locator('[role="region"]:has([data-testid="models-accuracy"])');
  await accuracy.evaluate((r) => r.scrollBy({ left: 400 }));
  await accuracy.screenshot({ path: 'e2e/artifacts/desktop-models-accuracy-1280.png' });
});
