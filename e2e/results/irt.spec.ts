import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import { irtReport } from '../../src/study/results/irtRows';
import { mergeResults, readResultsFile } from '../../src/study/results/resultsFile';

/**
 * The IRT panel of #/results (`irt-panel`), on the production build, fed the simulated study
 * (e2e/fixtures/results-a.csv, 30 participants) and the real-puzzle file the models can answer
 * (results-real.csv, 4 participants, 9 items). The page's figures are checked against the same
 * fit computed here from the files; the models, once asked, are placed on the scale
 * (`irt-models`); on a phone nothing scrolls sideways and the charts' text stays ≥ 11 px.
 */

const ARTIFACTS = 'e2e/artifacts';
mkdirSync(ARTIFACTS, { recursive: true });

const FILES = ['results-a.csv', 'results-real.csv'];
const texts = FILES.map((f) => readFileSync(`e2e/fixtures/${f}`, 'utf8'));
const merged = mergeResults(FILES.map((f, i) => readResultsFile(f, texts[i]!)));
const INDEX = JSON.parse(readFileSync('public/models/index.json', 'utf8')) as {
  models: { id: string; version: string; label: string }[];
};
const MAIN = INDEX.models.filter((m) => !m.version.includes('-'));

async function load(page: Page) {
  await page.goto('/#/results');
  await page
    .getByTestId('results-drop')
    .setInputFiles(FILES.map((name, i) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(texts[i]!) })));
  const panel = page.getByTestId('irt-panel');
  await expect(panel).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  return panel;
}

/** Every SVG text of `scope` at least `min` px tall as rendered. */
async function smallestText(page: Page, selector: string): Promise<number> {
  return page.evaluate((sel) => {
    const heights = [...document.querySelectorAll(`${sel} svg text`)]
      .filter((t) => (t.textContent ?? '').trim() !== '')
      .map((t) => {
        const size = parseFloat(getComputedStyle(t).fontSize);
        const svg = (t as SVGTextElement).ownerSVGElement!;
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        return size * scale;
      });
    return heights.length ? Math.min(...heights) : NaN;
  }, selector);
}

test.describe('results dashboard: item response theory', () => {
  test.setTimeout(150_000);

  test('desktop: the Rasch fit of the files, the models placed on its scale, then the 2PL', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const panel = await load(page);
    const rasch = irtReport(merged.rows, 'rasch');
    const flagged = rasch.items.filter((i) => i.flag !== null).length;
    await expect(page.getByTestId('irt-summary')).toContainText(
      `${rasch.persons.length} participants, ${rasch.items.length} items`,
    );
    expect(flagged).toBeGreaterThan(0);
    await expect(page.getByTestId('irt-summary')).toContainText(`(${flagged} not fitted`);
    await expect(page.getByTestId('irt-reliability')).toHaveText(rasch.reliability.toFixed(3));
    await expect(page.getByTestId('irt-method')).toContainText('marginal maximum likelihood, EM (Bock–Aitkin)');
    await expect(page.getByTestId('irt-method')).toContainText('EAP');
    await expect(page.getByTestId('irt-ratings')).toContainText(
      `r = ${rasch.ratingCorrelation!.r.toFixed(2)} over ${rasch.ratingCorrelation!.items} rated items`,
    );
    // One dot per fitted item, one mean per k; an information curve; bars of abilities.
    const fitted = rasch.items.filter((i) => i.difficulty !== null);
    await expect(page.getByTestId('irt-difficulty-chart').locator('circle.irt__dot')).toHaveCount(fitted.length);
    await expect(page.getByTestId('irt-difficulty-chart').locator('circle.irt__mean')).toHaveCount(
      new Set(fitted.map((i) => i.k)).size,
    );
    await expect(page.getByTestId('irt-information-chart').locator('path.irt__curve')).toHaveAttribute('d', /^M/);
    expect(await page.getByTestId('irt-ability-chart').locator('rect.irt__bar').count()).toBeGreaterThan(4);
    // The items' table holds the same difficulties.
    await page.locator('.irt__items summary').click();
    const first = fitted[0]!;
    await expect(page.getByTestId('irt-items').locator('tbody tr').first()).toContainText(first.difficulty!.toFixed(2));

    // Models: none yet; ask them, and each is placed on the scale with its sentence.
    const models = page.getByTestId('irt-models');
    await expect(models).toHaveAttribute('data-placed', '0');
    await expect(models).toContainText('Ask the models');
    await page.getByTestId('results-models-run').click();
    await expect(page.getByTestId('results-models')).toHaveAttribute('data-status', 'done', { timeout: 120_000 });
    await expect(models).toHaveAttribute('data-placed', String(MAIN.length));
    const lines = models.getByTestId('irt-model-line');
    await expect(lines).toHaveCount(MAIN.length);
    for (const m of MAIN) {
      const line = models.locator(`[data-model="${m.id}"]`);
      await expect(line).toHaveText(
        new RegExp(
          `^${m.label.replace(/[()]/g, '\\$&')} answers like a person at the \\d+(st|nd|rd|th) percentile \\(ability -?\\d\\.\\d\\d ± \\d\\.\\d\\d, \\d/\\d right\\)\\.$`,
        ),
      );
      const pct = Number(await line.getAttribute('data-percentile'));
      expect(pct).toBeGreaterThan(0);
      expect(pct).toBeLessThan(100);
    }
    await expect(page.getByTestId('irt-ability-chart').locator('.irt__marker')).toHaveCount(MAIN.length);
    await page.locator('.irt__items summary').click(); // the table closed again for the picture
    await panel.scrollIntoViewIfNeeded();
    await panel.screenshot({ path: `${ARTIFACTS}/results-irt-desktop.png` });

    // The 2PL: the same people and items, discriminations in the table, models placed again.
    await page.getByTestId('irt-model').selectOption('2pl');
    await expect(page.getByTestId('irt-method')).toContainText('2PL');
    const twoPl = irtReport(merged.rows, '2pl');
    await expect(page.getByTestId('irt-reliability')).toHaveText(twoPl.reliability.toFixed(3));
    await expect(page.getByTestId('irt-items').locator('thead')).toContainText('Discr.');
    await expect(models.getByTestId('irt-model-line')).toHaveCount(MAIN.length);
  });

  test('phone (390 × 844): no sideways scroll, chart text ≥ 11 px, no serious axe finding', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    const panel = await load(page);
    await expect(page.getByTestId('irt-summary')).toContainText('34 participants');
    await panel.scrollIntoViewIfNeeded();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(await smallestText(page, '[data-testid=irt-panel]')).toBeGreaterThanOrEqual(11);
    // Also measured as laid out: every chart text's box at least 11 px tall.
    const boxes = await page
      .getByTestId('irt-panel')
      .locator('svg text')
      .evaluateAll((ts) => ts.filter((t) => t.textContent?.trim()).map((t) => t.getBoundingClientRect().height));
    expect(Math.min(...boxes)).toBeGreaterThanOrEqual(11);
    await page.locator('.irt__items summary').click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const axe = await new AxeBuilder({ page }).include('[data-testid=irt-panel]').analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual(
      [],
    );
    await page.getByTestId('irt-difficulty-chart').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${ARTIFACTS}/results-irt-phone.png` });
  });
});
