import { expect, test } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';

/**
 * The Train panel of #/models on the production build (Chromium runs with --disable-gpu, so
 * training is on WebAssembly): a 2,000-row CLUTRR CSV made by our own `generate` trains the GAT
 * for 3 epochs with its curves moving, a test file gives accuracy by k beside the paper's
 * figure, the model folder downloads, loads back for the session (listed in the report) and
 * answers a test file's rows exactly as `cli eval --model-dir` answers them with the same folder.
 */

const ARTIFACTS = 'e2e/artifacts';
mkdirSync(ARTIFACTS, { recursive: true });

const work = mkdtempSync(path.join(tmpdir(), 'train-panel-'));
const data = path.join(work, 'data');
const TRAIN = path.join(data, '1.2,1.3_train.csv');
const TEST = path.join(data, '1.2_test.csv');

/** `node scripts/cli.mjs …`: stdout (throws with stderr on a failure). */
const cli = (args: readonly string[]) =>
  execFileSync(process.execPath, ['scripts/cli.mjs', ...args], {
    encoding: 'utf8',
    timeout: 180_000,
    stdio: ['ignore', 'pipe', 'pipe'],
  });

test.beforeAll(() => {
  // 1,000 rows each of k = 2 and 3: a 2,000-row training file; 50 test rows of k = 2.
  cli([
    'generate',
    '--train-tasks',
    '1.2,1.3',
    '--test-tasks',
    '1.2',
    '--train-rows',
    '1000',
    '--test-rows',
    '50',
    '--seed',
    '31',
    '--out',
    data,
  ]);
});
test.afterAll(() => rmSync(work, { recursive: true, force: true }));

test.describe('Train panel', () => {
  test.setTimeout(600_000);

  test('trains on a 2,000-row file on wasm, tests by k, downloads and loads the folder back', async ({ page }) => {
    expect(readFileSync(TRAIN, 'utf8').trimEnd().split('\n').length).toBeGreaterThan(2000);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto('/#/models');
    const panel = page.getByTestId('train-panel');
    await expect(panel).toBeVisible();
    await expect(page.getByTestId('train-model')).toHaveValue('gat');
    // Every model the training script trains is offered.
    const offered = await page
      .getByTestId('train-model')
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(offered).toEqual(expect.arrayContaining(['gat', 'gat-improved', 'lstm', 'lstm-mean', 'rn', 'mac']));

    // A malformed file is refused with its name and row.
    const bad = path.join(work, 'broken.csv');
    writeFileSync(bad, readFileSync(TEST, 'utf8').split('\n').slice(0, 4).join('\n') + '\n1,"unclosed\n');
    await page.getByTestId('train-file').setInputFiles(bad);
    await page.getByTestId('train-epochs').fill('1');
    await page.getByTestId('train-start').click();
    await expect(page.getByTestId('train-error')).toContainText('broken.csv');

    await page.getByTestId('train-file').setInputFiles(TRAIN);
    await expect(page.getByTestId('train-files')).toHaveText('1.2,1.3_train.csv');
    await page.getByTestId('train-epochs').fill('3');
    await page.getByTestId('train-start').click();
    await expect(page.getByTestId('train-backend')).toHaveAttribute('data-backend', 'wasm');
    await expect(page.getByTestId('train-done')).toBeVisible({ timeout: 540_000 });
    await expect(page.getByTestId('train-done')).toHaveAttribute('data-end', 'done');

    // The curves moved: three epochs, each with its own loss and a validation figure.
    const epochs = page.getByTestId('train-epoch');
    await expect(epochs).toHaveCount(3);
    const losses = await epochs.evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-loss'))));
    const vals = await epochs.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-val')));
    expect(new Set(losses).size).toBe(3);
    expect(losses[2]).toBeLessThan(losses[0]!);
    expect(vals.every((v) => v !== '' && Number(v) >= 0 && Number(v) <= 1)).toBe(true);
    await expect(page.getByTestId('train-progress')).toHaveAttribute('data-epochs', '3');
    await expect(page.locator('[data-testid="train-progress"] circle')).toHaveCount(3);
    await expect(page.getByTestId('train-seconds')).toContainText('s per epoch');

    // A test file: accuracy by k beside the paper's figure (the paper GAT: 1.00 ± 0.00 at k = 2, 3).
    await page.getByTestId('train-test-file').setInputFiles(TEST);
    await expect(page.getByTestId('train-accuracy-k2')).toHaveText(/^\d\.\d{3}$/);
    await expect(page.getByTestId('train-accuracy-k2')).toHaveAttribute('data-rows', '50');
    await expect(page.getByTestId('train-paper-k2')).toHaveText('1.00 ± 0.00');
    await panel.scrollIntoViewIfNeeded();
    await panel.screenshot({ path: `${ARTIFACTS}/models-train-1280.png` });

    // The folder downloads as one zip of the three files.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('train-download').click()]);
    expect(download.suggestedFilename()).toBe('gat-browser.zip');
    const zip = path.join(work, 'gat-browser.zip');
    await download.saveAs(zip);
    const entries = unzipSync(new Uint8Array(readFileSync(zip)));
    expect(Object.keys(entries).sort()).toEqual([
      'gat-browser/metadata.json',
      'gat-browser/model.json',
      'gat-browser/weights.bin',
    ]);
    const folder = path.join(work, 'folder');
    mkdirSync(folder);
    for (const [name, bytes] of Object.entries(entries)) writeFileSync(path.join(folder, path.basename(name)), bytes);
    const metadata = JSON.parse(readFileSync(path.join(folder, 'metadata.json'), 'utf8'));
    expect(metadata.training).toMatchObject({ source: 'files', rows: 1800, validationRows: 200, epochs: 3 });
    expect(metadata.training.files[0]).toMatchObject({ name: '1.2,1.3_train.csv', rows: 2000, used: 2000 });
    expect(metadata.test.files[0]).toMatchObject({ name: '1.2_test.csv', rows: 50 });

    // A folder that is not a model is refused, saying so.
    await page.getByTestId('train-load-folder').setInputFiles(TEST);
    await expect(page.getByTestId('train-load-error')).toContainText('is not a model folder');

    // Loaded back: registered for the session, listed in the report, answering the test rows.
    await page.getByTestId('train-load-folder').setInputFiles(zip);
    const loaded = page.getByTestId('train-loaded');
    await expect(loaded).toHaveAttribute('data-id', 'gat/loaded1');
    await expect(page.locator('[data-testid="models-entry"][data-id="gat/loaded1"]')).toBeVisible();
    const answers = (await loaded.getAttribute('data-answers'))!.split(',');
    const probs = (await loaded.getAttribute('data-probs'))!.split(',').map(Number);
    expect(answers).toHaveLength(50);

    // Node, the same folder: `cli eval --model-dir` on wasm, one JSON line per row.
    const rowsOut = path.join(work, 'rows.jsonl');
    const out = cli(['eval', '--model-dir', folder, '--rows', rowsOut, TEST]);
    expect(out.trimEnd().split('\n').at(-1)).toMatch(/^rows=50 correct=\d+ accuracy=/);
    const node = readFileSync(rowsOut, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { predicted: string; top5: { answer: string; p: number }[] });
    expect(answers).toEqual(node.map((r) => r.predicted));
    node.forEach((r, i) => expect(Math.abs(r.top5[0]!.p - probs[i]!)).toBeLessThanOrEqual(2e-4));
    const correct = Number(await page.getByTestId('train-accuracy-k2').getAttribute('data-correct'));
    expect(out).toContain(`correct=${correct} `);

    // "Ask the models" in the puzzle view lists it too (the same page: the session holds it).
    await page.evaluate(() => (location.hash = ''));
    await page.getByTestId('model-load').click();
    await page.getByTestId('model-show').click();
    const asked = page.getByTestId('model-entry').filter({ hasText: '(loaded: gat-browser)' });
    await expect(asked).toHaveCount(1);
    await expect(asked.getByTestId('model-answer-gat')).toBeVisible();
    await page.evaluate(() => (location.hash = '#/models'));
    await expect(panel).toBeVisible();
    await expect(page.getByTestId('train-loaded')).toHaveAttribute('data-id', 'gat/loaded1');

    await page.setViewportSize({ width: 390, height: 844 });
    await panel.scrollIntoViewIfNeeded();
    // Chart text stays legible on a phone: at least 11 px as drawn.
    const sizes = await page
      .locator('[data-testid="train-progress"] svg text')
      .evaluateAll((ts) => ts.map((t) => (t as SVGTextElement).getBoundingClientRect().height));
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(11);
    // Nothing of the panel sticks out of a phone's width (tables scroll inside their own box).
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll('[data-testid="train-panel"], [data-testid="train-panel"] *')]
        .filter((e) => !e.closest('.train-panel__scroll') && e.getBoundingClientRect().right > 390.5)
        .map((e) => `${e.tagName}.${e.className}`),
    );
    expect(wide).toEqual([]);
    const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(scroll).toBeLessThanOrEqual(390);
    await panel.screenshot({ path: `${ARTIFACTS}/models-train-390.png` });
  });

  test('cancel stops between two steps and keeps the model learned so far', async ({ page }) => {
    await page.goto('/#/models');
    await page.getByTestId('train-file').setInputFiles(TRAIN);
    await page.getByTestId('train-epochs').fill('50');
    await page.getByTestId('train-start').click();
    await expect(page.getByTestId('train-epoch')).toHaveCount(1, { timeout: 120_000 });
    await page.getByTestId('train-cancel').click();
    await expect(page.getByTestId('train-status')).toHaveAttribute('data-status', 'stopped', { timeout: 60_000 });
    await expect(page.getByTestId('train-done')).toHaveAttribute('data-end', 'stopped');
    await expect(page.getByTestId('train-start')).toBeEnabled();
    expect(await page.getByTestId('train-epoch').count()).toBeLessThan(50);
  });
});
