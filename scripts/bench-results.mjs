#!/usr/bin/env node
// Main-thread blocking while the results dashboard (#/results) loads a large result file, in
// headless Chromium on a production build: long tasks (> 50 ms) from choosing the file until the
// table is on screen, their total blocking time (the part of each over 50 ms) and the longest.
// The file: e2e/fixtures/results-a.csv (30 participants × 55 trials) copied --copies times with
// the session ids made unique (17 copies: 510 participants, about 9.6 MB). Prints a table;
// asserts nothing (timings belong here, not in tests).
//
//   npx vite build --outDir dist && node scripts/bench-results.mjs [--dist dist] [--port 4192] [--copies 17] [--runs 3]
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, median, opt, requireBuild } from './benchKit.mjs';
import { startPreview } from './preview.mjs';

const DIST = opt('dist', 'dist');
// Not 4190: fetch refuses it (the Fetch standard's "bad ports" list, for ManageSieve), so the preview never answered.
const PORT = Number(opt('port', 4192));
const COPIES = Number(opt('copies', 17));
const RUNS = Number(opt('runs', 3));
const BASE = `http://127.0.0.1:${PORT}`;

requireBuild(DIST, `build first (npx vite build --outDir ${DIST}).`);

/** The fixture CSV copied with unique session ids (its rows hold no line breaks; session_id is the 2nd column). */
function bigCsv() {
  const [header, ...lines] = readFileSync('e2e/fixtures/results-a.csv', 'utf8')
    .split('\r\n')
    .filter((l) => l !== '');
  if (!header.startsWith('study_id,session_id,')) throw new Error('unexpected fixture header');
  const out = [header];
  for (let c = 0; c < COPIES; c++)
    for (const line of lines) {
      const a = line.indexOf(',');
      const b = line.indexOf(',', a + 1);
      out.push(`${line.slice(0, b)}-c${c}${line.slice(b)}`);
    }
  return { text: `${out.join('\r\n')}\r\n`, sessions: 30 * COPIES, rows: lines.length * COPIES };
}

const INIT = () => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
};

const file = bigCsv();
// From disk: a buffer given to setInputFiles is decoded from base64 by script in the page, which
// itself blocks the main thread for a second or more at this size and would be counted here.
const dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
const path = join(dir, 'big.csv');
writeFileSync(path, file.text);
const preview = await startPreview({ port: PORT, dist: DIST, base: BASE });
const browser = await chromium.launch({ executablePath: CHROMIUM });
const results = [];
try {
  for (let run = 0; run < RUNS; run++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript(INIT);
    await page.goto(`${BASE}/#/results`);
    await page.getByTestId('results-view').waitFor();
    await page.waitForTimeout(500);
    const t0 = await page.evaluate(() => performance.now());
    await page.getByTestId('results-drop').setInputFiles(path);
    await page.waitForSelector(`[data-testid=results-summary][data-sessions="${file.sessions}"]`, { timeout: 120_000 });
    await page.getByTestId('results-table').waitFor({ timeout: 120_000 });
    const t1 = await page.evaluate(() => performance.now());
    await page.waitForTimeout(1000); // let the last long task end and be reported
    const tasks = (await page.evaluate(() => window.__longTasks)).filter((t) => t.start >= t0 - 1);
    results.push({
      wall: t1 - t0,
      count: tasks.length,
      longest: Math.max(0, ...tasks.map((t) => t.duration)),
      sum: tasks.reduce((s, t) => s + t.duration, 0),
      blocking: tasks.reduce((s, t) => s + Math.max(0, t.duration - 50), 0),
    });
    await page.close();
  }
} finally {
  await browser.close();
  process.kill(-preview.pid);
  rmSync(dir, { recursive: true, force: true });
}

const ms = (x) => `${Math.round(x)} ms`;
console.log(
  `${DIST}: ${file.sessions} participants, ${file.rows} rows, ${(file.text.length / 2 ** 20).toFixed(1)} MB CSV; ${RUNS} runs, medians`,
);
console.log(`  file chosen → table on screen       ${ms(median(results.map((r) => r.wall)))}`);
console.log(`  long tasks (> 50 ms)                ${median(results.map((r) => r.count))}`);
console.log(`  longest task                        ${ms(median(results.map((r) => r.longest)))}`);
console.log(`  long tasks, total                   ${ms(median(results.map((r) => r.sum)))}`);
console.log(`  total blocking time (over 50 ms)    ${ms(median(results.map((r) => r.blocking)))}`);
