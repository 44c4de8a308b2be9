import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { spawnServer, type SpawnedServer } from '../../server/spawnServer';

/**
 * The production build works under the results server's Content-Security-Policy (issue 20): every
 * view served by the real server (`node scripts/serve.mjs --dist`), the models panel running tfjs
 * on its wasm backend in a worker, and a file download made from a blob, with no CSP violation
 * reported by Chromium (neither a `securitypolicyviolation` event nor a console message).
 */

const DIST = path.resolve(process.env.E2E_DIST ?? 'dist');
let server: SpawnedServer | undefined;
let data: string;

test.beforeAll(async () => {
  data = mkdtempSync(path.join(tmpdir(), 'clutrr-server-csp-'));
  server = await spawnServer({ data: path.join(data, 'data'), args: ['--dist', DIST], timeoutMs: 90_000 });
});

test.afterAll(async () => {
  await server?.stop();
  rmSync(data, { recursive: true, force: true });
});

test('every view, the wasm models and a download run under the CSP with no violation', async ({ page }) => {
  test.setTimeout(180_000);
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(`console: ${m.text()}`);
  });
  await page.exposeFunction('reportCspViolation', (text: string) => violations.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { reportCspViolation(t: string): void }).reportCspViolation(
        `${e.violatedDirective} blocked ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`,
      ),
    );
  });

  const response = await page.goto(`${server!.url}/?seed=42&k=3&task=1`);
  expect(response!.headers()['content-security-policy']).toContain("frame-ancestors 'self'");
  await expect(page.getByTestId('story')).toBeVisible();

  // The models run in their worker on the wasm backend (no GPU here).
  const wasm: string[] = [];
  page.on('response', (r) => {
    if (/\.wasm$/.test(r.url()) && r.ok()) wasm.push(r.url());
  });
  await page.getByTestId('model-load').click();
  await page.getByTestId('model-show').click();
  await expect(page.locator('[data-testid^="model-answer-"]').first()).toHaveAttribute('data-relation', /\w/, {
    timeout: 120_000,
  });
  await expect(page.getByTestId('model-backend')).toHaveValue('wasm');
  expect(wasm.length).toBeGreaterThan(0);

  for (const route of ['classroom', 'dataset', 'audit', 'study', 'results', 'models']) {
    await page.goto(`${server!.url}/?seed=2&k=3&task=5#/${route}`);
    await page.waitForLoadState('networkidle');
    await expect(page.locator('main, [role="main"], #root').first()).toBeVisible();
  }

  // A dataset made in the page (its worker) and downloaded from a blob URL.
  await page.goto(`${server!.url}/#/dataset`);
  await page.getByTestId('dataset-generate').click();
  await expect(page.getByTestId('dataset-status')).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('dataset-download-csv').click()]);
  expect(file.suggestedFilename()).toMatch(/\.csv$/);

  await page.screenshot({ path: test.info().outputPath('server-csp.png') });
  expect(violations).toEqual([]);
});
