import { defineConfig } from '@playwright/test';
import { existsSync } from 'node:fs';

/**
 * End-to-end tests run the production build (vite preview) in Chromium. Here, Playwright cannot
 * download its own browser, so Debian's /usr/bin/chromium is used when present (or CHROMIUM_PATH);
 * elsewhere Playwright's bundled Chromium is used.
 */
const systemChromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const executablePath = existsSync(systemChromium) ? systemChromium : undefined;

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  timeout: 60_000,
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: 'http://127.0.0.1:4173',
    headless: true,
    launchOptions: {
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: 'npx vite preview --host 127.0.0.1 --port 4173 --strictPort',
    url: 'http://127.0.0.1:4173',
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
