import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCsv } from '../../src/core/formats/csv';

/**
 * The model report at #/models and the results dashboard's model columns, on the production
 * build with the models of its `models/` folder (public/models, or dev models copied into the
 * build under test): a run in the browser with progress fills accuracy for k = 2..10 for every
 * main model, cancel stops it, the robustness table shows every folder's metadata beside the
 * paper, a missing index says where, and the dashboard shows the models' answers to the items of
 * a results file made of real puzzles.
 */

const ARTIFACTS = 'e2e/artifacts';
mkdirSync(ARTIFACTS, { recursive: true });

const DIST = process.env.E2E_DIST ?? 'dist';
interface Entry {
  id: string;
  kind: string;
  model: string;
  version: string;
  label: string;
  reads: 'graph' | 'text';
  supervision: 'answer' | 'answer+rule-pairs';
  paperModel: string | null;
  description: string;
}
const INDEX = JSON.parse(readFileSync(path.join(DIST, 'models', 'index.json'), 'utf8')) as { models: Entry[] };
const MAIN = INDEX.models.filter((m) => !m.version.includes('-'));
const KS = [2, 3, 4, 5, 6, 7, 8, 9, 10];
const metadataOf = (id: string) =>
  JSON.parse(readFileSync(path.join(DIST, 'models', id, 'metadata.json'), 'utf8')) as {
    training: { noise: string; labels?: string };
    test: { accuracy: Record<string, number> };
    robustness: { test: string; rows: number; accuracy: number }[];
  };

async function openReport(page: Page) {
  await page.goto('/#/models');
  await expect(page.getByTestId('models-report')).toBeVisible();
  await expect(page.getByTestId('models-run')).toBeEnabled();
}

test.describe('model report', () => {
  test.setTimeout(180_000);

  test('runs every main model in the browser with progress and fills k = 2..10', async ({ page }) => {
    expect(MAIN.length).toBeGreaterThan(0);
    await openReport(page);
    await expect(page.getByTestId('models-entry')).toHaveCount(MAIN.length);
    // Each says what it reads, what supervised it and which paper model it is, as index.json does.
    for (const m of MAIN) {
      const entry = page.locator(`[data-testid="models-entry"][data-id="${m.id}"]`);
      await expect(entry).toHaveAttribute('data-reads', m.reads);
      await expect(entry).toHaveAttribute('data-supervision', m.supervision);
      await expect(entry).toHaveAttribute('data-paper', m.paperModel ?? 'none');
      await expect(entry.getByTestId('models-description')).toHaveText(m.description);
      await expect(entry.getByTestId('models-trained-on')).toContainText('puzzles per k');
      if (m.supervision === 'answer+rule-pairs')
        await expect(entry.getByTestId('models-supervision')).toHaveText(
          "answer plus every pair's relation from the rule base, unsound rules included",
        );
    }
    await expect(page.locator('[data-testid="models-entry"][data-id="gat-improved/1"] th')).not.toContainText('GAT');
    await expect(page.getByTestId('models-other-entry')).toHaveCount(INDEX.models.length - MAIN.length);
    // Before a run: the training script's curve is there, the browser cells are empty.
    for (const m of MAIN) {
      const meta = metadataOf(m.id);
      await expect(page.getByTestId(`models-train-${m.model}-2`)).toHaveAttribute(
        'data-value',
        String(meta.test.accuracy['2']),
      );
      await expect(page.getByTestId(`models-acc-${m.model}-2`)).not.toHaveAttribute('data-value', /./);
    }
    // 50 puzzles per k with the training seed (1): the browser's curve lies on the training script's.
    const rows = 50;
    await page.getByTestId('models-rows').fill(String(rows));
    await page.getByTestId('models-seed').fill('1');
    // Keyboard: the run button is reached and pressed from the seed field.
    await page.getByTestId('models-seed').press('Enter');
    const progress = page.getByTestId('models-progress');
    await expect(progress).toHaveAttribute('data-status', 'running');
    await expect(progress.locator('progress')).toBeVisible();
    await expect(page.getByTestId('models-cancel')).toBeEnabled();
    await expect(progress).toHaveAttribute('data-status', 'done', { timeout: 150_000 });
    await expect(progress).toHaveAttribute('data-done', String(MAIN.length * rows * KS.length));
    await expect(progress).toHaveAttribute('data-total', String(MAIN.length * rows * KS.length));
    for (const m of MAIN)
      for (const k of KS) {
        const cell = page.getByTestId(`models-acc-${m.model}-${k}`);
        await expect(cell).toHaveAttribute('data-rows', String(rows));
        const correct = Number(await cell.getAttribute('data-correct'));
        expect(correct).toBeGreaterThanOrEqual(0);
        expect(correct).toBeLessThanOrEqual(rows);
        await expect(cell).toHaveText((correct / rows).toFixed(3));
      }
    // The chart: a browser line and a training line per model, a paper segment per paper model reimplemented.
    const chart = page.getByTestId('models-chart');
    for (const m of MAIN) {
      await expect(chart.locator(`[data-series="run:${m.id}"]`)).toHaveAttribute('data-points', String(KS.length));
      await expect(chart.locator(`[data-series="training:${m.id}"]`)).toHaveCount(1);
    }
    const reimplemented = new Set(MAIN.flatMap((m) => (m.paperModel ? [m.paperModel] : [])));
    await expect(chart.locator('[data-series^="paper:"]')).toHaveCount(reimplemented.size);
    // The relation composer beside its answer-only ablation, the difference by k from their metadata.
    if (MAIN.some((m) => m.model === 'gat-improved') && MAIN.some((m) => m.model === 'gat-improved-answer-only')) {
      const [full, ablation] = ['gat-improved/1', 'gat-improved-answer-only/1'].map(metadataOf);
      const diff = full!.test.accuracy['3']! - ablation!.test.accuracy['3']!;
      await expect(page.getByTestId('models-ablation-diff-3')).toHaveAttribute('data-value', String(diff));
      await expect(page.getByTestId('models-ablation-run-diff-3')).toHaveAttribute('data-value', /\d/);
    }
    await page.screenshot({ path: `${ARTIFACTS}/models-report.png`, fullPage: true });

    const axe = await new AxeBuilder({ page }).include('[data-testid="models-report"]').analyze();
    expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(' ')}`)).toEqual([]);
  });

  test('the robustness table shows every folder’s metadata beside the paper', async ({ page }) => {
    await openReport(page);
    const table = page.getByTestId('models-robustness');
    await expect(table).toBeVisible();
    await expect(table.getByTestId('models-rob-row')).toHaveCount(16);
    // Each folder's robustness rows land in its model's column, on its training noise's rows.
    const seen = new Set<string>();
    for (const e of [...INDEX.models].sort((a, b) => Number(b.version === '1') - Number(a.version === '1'))) {
      const meta = metadataOf(e.id);
      for (const r of meta.robustness) {
        const column = meta.training.labels === 'clutrr' ? `${e.model}-clutrr-labels` : e.model;
        const key = `${column}-${meta.training.noise}-${r.test}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const cell = page.getByTestId(`models-rob-${key}`);
        await expect(cell).toHaveAttribute('data-id', e.id);
        await expect(cell).toHaveText(r.accuracy.toFixed(3));
      }
    }
    await expect(page.getByTestId('models-rob-paper-gat-clean-supporting')).toHaveText('0.24 ± 0.20');
    await expect(page.getByTestId('models-rob-paper-bilstm-clean-clean')).toHaveText('0.58 ± 0.05');
    // All seven of the paper's columns, as printed; BERT's marked not shipped.
    await expect(page.getByTestId('models-rob-paper-mac-irrelevant-disconnected')).toHaveText('0.61 ± 0.06');
    await expect(page.getByTestId('models-rob-paper-bilstm-mean-clean-supporting')).toHaveText('0.64 ± 0.22');
    await expect(page.getByTestId('models-rob-paper-rn-disconnected-disconnected')).toHaveText('0.45 ± 0.11');
    await expect(page.getByTestId('models-rob-paper-bert-lstm-clean-clean')).toHaveText('0.67 ± 0.03');
    await expect(page.locator('[data-testid="models-rob-col"][data-shipped="no"]')).toHaveText([
      /BERT\s*not shipped/,
      /BERT-LSTM\s*not shipped/,
    ]);
    // The paper GAT's column stands right after ours that reimplement it.
    const heads = await page
      .getByTestId('models-rob-col')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-key')));
    const at = heads.indexOf('paper-gat');
    expect(heads[at - 1]).toMatch(/^gat(-clutrr-labels)?$/);
    await table.scrollIntoViewIfNeeded();
    await table.screenshot({ path: `${ARTIFACTS}/models-report-robustness.png` });
  });

  test('cancel stops a run; a new run starts again', async ({ page }) => {
    await openReport(page);
    await page.getByTestId('models-rows').fill('1000');
    await page.getByTestId('models-run').click();
    const progress = page.getByTestId('models-progress');
    await expect
      .poll(async () => Number(await progress.getAttribute('data-done')), { timeout: 60_000 })
      .toBeGreaterThan(0);
    await page.getByTestId('models-cancel').focus();
    await page.keyboard.press('Enter');
    await expect(progress).toHaveAttribute('data-status', 'cancelled');
    await expect(progress).toContainText('Cancelled');
    const stopped = Number(await progress.getAttribute('data-done'));
    expect(stopped).toBeLessThan(Number(await progress.getAttribute('data-total')));
    await expect(page.getByTestId('models-cancel')).toBeDisabled();
    await page.screenshot({ path: `${ARTIFACTS}/models-report-cancelled.png`, fullPage: true });
    // Nothing more arrives after the cancel.
    await page.waitForTimeout(1500);
    expect(Number(await progress.getAttribute('data-done'))).toBe(stopped);
    // A fresh worker takes the next run.
    await page.getByTestId('models-rows').fill('2');
    await page.getByTestId('models-run').click();
    await expect(progress).toHaveAttribute('data-status', 'done', { timeout: 120_000 });
    await expect(page.getByTestId(`models-acc-${MAIN[0]!.model}-10`)).toHaveAttribute('data-rows', '2');
  });

  test('a narrow screen (390 px): nothing overflows the page, tables scroll in place', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openReport(page);
    await expect(page.getByTestId('models-robustness')).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${ARTIFACTS}/models-report-narrow.png`, fullPage: true });
  });

  test('a missing model list says what and where', async ({ page }) => {
    await page.route('**/models/index.json', (route) => route.fulfill({ status: 404, body: 'not here' }));
    await page.goto('/#/models');
    const error = page.getByTestId('models-error');
    await expect(error).toBeVisible();
    await expect(error).toContainText('models/index.json');
    await expect(error).toContainText('404');
    await expect(page.getByTestId('models-run')).toBeDisabled();
    await page.screenshot({ path: `${ARTIFACTS}/models-report-missing.png` });
  });

  test('a model whose weights fail to load stops the run, named with its file', async ({ page }) => {
    const first = MAIN[0]!;
    await page.route(`**/models/${first.id}/weights.bin`, (route) => route.fulfill({ status: 404, body: '' }));
    await openReport(page);
    await page.getByTestId('models-rows').fill('2');
    await page.getByTestId('models-run').click();
    const progress = page.getByTestId('models-progress');
    await expect(progress).toHaveAttribute('data-status', 'error');
    await expect(progress).toContainText(`${first.label} (${first.id}) stopped:`);
    await expect(progress).toContainText(`models/${first.id}/weights.bin: 404`);
    await expect(page.getByTestId('models-run')).toBeEnabled();
  });

  test('a folder whose metadata fails to load is named', async ({ page }) => {
    const broken = INDEX.models[INDEX.models.length - 1]!;
    await page.route(`**/models/${broken.id}/metadata.json`, (route) => route.fulfill({ status: 500, body: 'x' }));
    await openReport(page);
    const error = page.getByTestId('models-metadata-error');
    await expect(error).toContainText(`models/${broken.id}/metadata.json`);
    await expect(error).toContainText('500');
  });
});

/** The people of e2e/fixtures/results-real.csv (made by src/features/results/modelItems.test.ts). */
function realResults(): { csv: string; items: { id: string; k: number }[]; people: Map<number, [number, number]> } {
  const csv = readFileSync('e2e/fixtures/results-real.csv', 'utf8');
  const [header, ...records] = parseCsv(csv).filter((r) => r.length > 1);
  const col = (name: string) => header!.indexOf(name);
  const items = new Map<string, number>();
  const people = new Map<number, [number, number]>();
  for (const f of records) {
    const k = Number(f[col('k')]);
    items.set(f[col('puzzle_id')]!, k);
    const [n, c] = people.get(k) ?? [0, 0];
    people.set(k, [n + 1, c + (f[col('correct')] === 'true' ? 1 : 0)]);
  }
  return { csv, items: [...items].map(([id, k]) => ({ id, k })), people };
}

test.describe('results dashboard: the models on the same items', () => {
  test.setTimeout(120_000);

  test('answers the items of a results file beside people, by k; simulated items are named, not asked', async ({
    page,
  }) => {
    const modelRequests: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/models/')) modelRequests.push(r.url());
    });
    const { csv, items, people } = realResults();
    await page.goto('/#/results');
    await page.getByTestId('results-drop').setInputFiles([
      { name: 'real.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) },
      // The simulated study: its rows' seeds do not make the puzzles they name.
      {
        name: 'results-a.csv',
        mimeType: 'text/csv',
        buffer: readFileSync('e2e/fixtures/results-a.csv'),
      },
    ]);
    const section = page.getByTestId('results-models');
    await expect(section).toBeVisible();
    // Nothing of the models loads on a visit: only on the button.
    expect(modelRequests).toEqual([]);
    await page.getByTestId('results-models-run').click();
    await expect(section).toHaveAttribute('data-status', 'done', { timeout: 100_000 });
    expect(modelRequests.some((u) => u.endsWith('/models/index.json'))).toBe(true);

    const table = page.getByTestId('results-models-table');
    await expect(table).toBeVisible();
    // What each model asked is, beside its figures: reads, supervision, training data, paper model.
    const facts = page.getByTestId('results-models-facts').locator('li');
    await expect(facts).toHaveCount(MAIN.length);
    for (const m of MAIN) {
      const li = page.locator(`[data-testid="results-models-facts"] li[data-model="${m.model}"]`);
      await expect(li.locator('dt')).toHaveText(['Reads', 'Supervised by', 'Trained on', 'Paper model']);
      if (m.supervision === 'answer+rule-pairs') await expect(li).toContainText('unsound rules included');
    }
    // The fixture's 50 simulated items are listed as not rebuilt (their seed makes another puzzle).
    await expect(page.getByTestId('results-models-refused')).toHaveAttribute('data-count', '50');
    await expect(page.getByTestId('results-models-refused')).toContainText('makes a puzzle about');
    // The real items were rebuilt word for word: no story needed re-marking.
    await expect(section).not.toContainText('did not come out word for word');

    for (const m of MAIN) {
      const answers = page.locator(`[data-testid="results-models-answer-${m.model}"]`);
      for (const k of [2, 3, 4]) {
        const ids = items.filter((i) => i.k === k).map((i) => i.id);
        let right = 0;
        for (const id of ids) {
          const cell = page
            .locator(`[data-testid="results-models-item"][data-puzzle="${id}"]`)
            .getByTestId(`results-models-answer-${m.model}`);
          await expect(cell).toHaveAttribute('data-word', /^[a-z-]+$/);
          if ((await cell.getAttribute('data-correct')) === 'true') right++;
        }
        const acc = page.getByTestId(`results-models-acc-${m.model}-${k}`);
        await expect(acc).toHaveAttribute('data-n', String(ids.length));
        expect(Number(await acc.getAttribute('data-value'))).toBeCloseTo(right / ids.length, 10);
      }
      expect(await answers.count()).toBeGreaterThanOrEqual(items.length);
    }
    // People on the items the models were asked: exactly the real file's answers.
    for (const k of [2, 3, 4]) {
      const [n, c] = people.get(k)!;
      const cell = page.getByTestId(`results-models-people-asked-${k}`);
      await expect(cell).toHaveAttribute('data-n', String(n));
      expect(Number(await cell.getAttribute('data-value'))).toBeCloseTo(c / n, 10);
      // All items: the fixture's simulated people too.
      expect(Number(await page.getByTestId(`results-models-people-${k}`).getAttribute('data-n'))).toBeGreaterThan(n);
    }
    await page.locator('.results__models-items summary').click();
    await section.scrollIntoViewIfNeeded();
    await section.screenshot({ path: `${ARTIFACTS}/models-report-results.png` });
  });
});
