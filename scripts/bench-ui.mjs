#!/usr/bin/env node
// UI performance of the production build, measured in headless Chromium:
//   - cold load → first story on screen (ms, median of several fresh browser contexts),
//   - click "New puzzle" → graph redrawn and painted (ms, median of 20 clicks),
//   - long tasks (> 50 ms) on the main thread during use,
//   - initial JavaScript: gzip size of the entry chunk(s) that index.html loads, and of all the
//     main-thread JavaScript fetched before the first story is on screen (the app's code is
//     loaded by the small entry right after it starts the generator worker).
// Run `npx vite build` first. Prints a table; asserts nothing (timings belong here, not in tests).
//
//   node scripts/bench-ui.mjs [--port 4180] [--runs 5] [--clicks 20] [--dist dist]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { clickUntilPainted, evaluateWith, launchChromium, median, opt, requireBuild } from './benchKit.mjs';
import { startPreview, stopPreview } from './preview.mjs';

const PORT = Number(opt('port', 4180));
const RUNS = Number(opt('runs', 5));
const CLICKS = Number(opt('clicks', 20));
const TEN_K_RUNS = Number(opt('ten-k-runs', 3));
const tenK = [];
const BASE = `http://127.0.0.1:${PORT}`;
// --dist: another build folder, so several builds can be measured side by side.
const DIST = opt('dist', 'dist');

requireBuild(DIST, `run \`npx vite build --outDir ${DIST}\` first.`);
const fmt = (x, unit = 'ms') => `${x.toFixed(x < 10 ? 1 : 0)} ${unit}`;

/** Entry chunks: what index.html loads before anything runs (module script + modulepreloads). */
function initialJs() {
  const html = readFileSync(join(DIST, 'index.html'), 'utf8');
  const files = [
    ...html.matchAll(/<script[^>]+type="module"[^>]+src="([^"]+)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g),
  ].map((m) => m[1].replace(/^\//, ''));
  const sizes = [...new Set(files)].map((f) => {
    const buf = readFileSync(join(DIST, f));
    return { file: f, raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length };
  });
  return sizes;
}

/** Worker chunks: loaded at start, but off the main thread. */
function workerJs() {
  const dir = join(DIST, 'assets');
  return readdirSync(dir)
    .filter((f) => /generator\.worker-.*\.js$/.test(f))
    .map((f) => {
      const buf = readFileSync(join(dir, f));
      return { file: `assets/${f}`, raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length };
    });
}

/** Records, from the first script on, when the story and the graph first appear, and long tasks. */
const INIT = () => {
  window.__bench = { story: null, graph: null, longTasks: [] };
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__bench.longTasks.push({ start: e.startTime, duration: e.duration });
    }).observe({ type: 'longtask', buffered: true });
  } catch {
    // longtask not supported
  }
  const mo = new MutationObserver(() => {
    const b = window.__bench;
    if (b.story === null && document.querySelector('[data-testid="story-sentence"]')) b.story = performance.now();
    if (b.graph === null && document.querySelector('[data-testid="graph-edge"]')) b.graph = performance.now();
    if (b.story !== null && b.graph !== null) mo.disconnect();
  });
  mo.observe(document, { childList: true, subtree: true });
};

/** In the page, before New puzzle is clicked: the check that a new puzzle's graph is in the DOM. */
const GRAPH_REDRAWN = () => {
  const before = window.__clutrr.getPuzzle();
  return () => {
    const p = window.__clutrr.getPuzzle();
    if (!p || p === before) return false;
    const names = [...document.querySelectorAll('[data-testid="graph-node"]')].map((n) => n.getAttribute('data-name'));
    const edges = document.querySelectorAll('[data-testid="graph-edge"]').length;
    return (
      edges === p.facts.length && names.length === p.entities.length && p.entities.every((e) => names.includes(e.name))
    );
  };
};

/** Click New puzzle, resolve after the new puzzle's graph is in the DOM and painted: the ms taken. */
const clickOnce = (page) =>
  evaluateWith(page, clickUntilPainted, '[data-testid="new-puzzle"]', GRAPH_REDRAWN, {
    childList: true,
    subtree: true,
    attributes: true,
  });

const preview = await startPreview({ port: PORT, dist: DIST, base: BASE });
const browser = await launchChromium();
const rows = [];
let firstStoryScripts = [];
try {
  // Cold loads: a fresh context each time (empty cache).
  const cold = [];
  const coldGraph = [];
  for (let i = 0; i < RUNS; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    await page.addInitScript(INIT);
    await page.goto(`${BASE}/?seed=${1000 + i}&k=3&task=5`);
    await page.waitForFunction(() => window.__bench.story !== null && window.__bench.graph !== null, null, {
      timeout: 15000,
    });
    const b = await page.evaluate(() => window.__bench);
    if (i === 0) {
      firstStoryScripts = await page.evaluate(
        (t) =>
          performance
            .getEntriesByType('resource')
            .filter((r) => r.startTime <= t && /\.js$/.test(new URL(r.name).pathname))
            .map((r) => new URL(r.name).pathname.replace(/^\//, '')),
        b.story,
      );
    }
    cold.push(b.story);
    coldGraph.push(b.graph);
    await ctx.close();
  }
  rows.push([
    'cold load → first story on screen',
    `median ${fmt(median(cold))}`,
    `max ${fmt(Math.max(...cold))}`,
    `${RUNS} runs`,
  ]);
  rows.push([
    'cold load → graph drawn',
    `median ${fmt(median(coldGraph))}`,
    `max ${fmt(Math.max(...coldGraph))}`,
    `${RUNS} runs`,
  ]);

  // Use: new puzzles at two sizes, hover, hidden family, classroom; long tasks throughout.
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await ctx.newPage();
  await page.addInitScript(INIT);
  for (const [k, task] of [
    [3, 5],
    [10, 5],
  ]) {
    await page.goto(`${BASE}/?seed=1&k=${k}&task=${task}`);
    await page.waitForFunction(() => window.__bench.graph !== null);
    const times = [];
    for (let i = 0; i < CLICKS; i++) times.push(await clickOnce(page));
    rows.push([
      `new puzzle → graph drawn (k=${k}, task ${task})`,
      `median ${fmt(median(times))}`,
      `max ${fmt(Math.max(...times))}`,
      `${CLICKS} clicks`,
    ]);
  }
  const sentences = page.getByTestId('story-sentence');
  for (let i = 0; i < Math.min(8, await sentences.count()); i++) await sentences.nth(i).hover();
  // The proof and the hidden family open only on request (no spoilers before the answer).
  await page.getByTestId('show-proof').click();
  await page.getByTestId('toggle-hidden').check();
  await page.getByTestId('toggle-hidden').uncheck();
  await page.getByTestId('proof-next').click();
  await page.getByTestId('open-classroom').click();
  await page.getByTestId('classroom').waitFor();
  for (let i = 0; i < 12; i++) await page.keyboard.press('ArrowRight');
  const longTasks = await page.evaluate(() => window.__bench.longTasks.map((t) => t.duration));
  rows.push([
    'long tasks (> 50 ms) during use',
    `${longTasks.length}`,
    longTasks.length ? `max ${fmt(Math.max(...longTasks))}` : '—',
    'PerformanceObserver longtask',
  ]);
  await ctx.close();

  // The dataset builder: main-thread long tasks while 10,000 rows are generated (in workers).
  for (let run = 0; run < TEN_K_RUNS; run++) {
    const dctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const dpage = await dctx.newPage();
    await dpage.addInitScript(INIT);
    await dpage.goto(`${BASE}/#/dataset`);
    const form = dpage.getByTestId('dataset-form');
    await form.waitFor();
    for (const [name, v] of Object.entries({
      trainTasks: '1.2,1.3',
      trainRows: '5000',
      testTasks: '1.4',
      testRows: '0',
      seed: `bench-${run}`,
    }))
      await form.locator(`[name="${name}"]`).fill(v);
    const t0 = await dpage.evaluate(() => performance.now());
    await dpage.getByTestId('dataset-generate').click();
    await dpage.waitForFunction(
      () => document.querySelector('[data-testid=dataset-status]')?.getAttribute('data-status') === 'done',
      null,
      { polling: 250, timeout: 120_000 },
    );
    const t1 = await dpage.evaluate(() => performance.now());
    const during = await dpage.evaluate(
      ([from, to]) =>
        window.__bench.longTasks.filter((t) => t.start + t.duration >= from && t.start <= to).map((t) => t.duration),
      [t0, t1],
    );
    tenK.push({ seconds: (t1 - t0) / 1000, long: during });
    await dctx.close();
  }
  const allLong = tenK.flatMap((r) => r.long);
  rows.push([
    '10,000-row dataset: main-thread tasks > 50 ms',
    `${tenK.map((r) => r.long.length).join(', ')} per run`,
    allLong.length ? `max ${fmt(Math.max(...allLong))}` : '—',
    `${TEN_K_RUNS} runs, median ${fmt(median(tenK.map((r) => r.seconds)), 's')} each`,
  ]);
} finally {
  await browser.close();
  stopPreview(preview);
}

const sizeOf = (file) => {
  const buf = readFileSync(join(DIST, file));
  return { file, raw: buf.length, gzip: gzipSync(buf, { level: 9 }).length };
};
const kb = (files, key) => fmt(files.reduce((s, f) => s + f[key], 0) / 1024, 'KB');
const js = initialJs();
rows.push([
  'initial JS: entry chunk(s), gzip',
  kb(js, 'gzip'),
  `raw ${kb(js, 'raw')}`,
  js.map((f) => f.file).join(', '),
]);
const workers = workerJs();
const isWorker = (f) => workers.some((w) => w.file === f);
const mainBeforeStory = firstStoryScripts.filter((f) => existsSync(join(DIST, f)) && !isWorker(f)).map(sizeOf);
rows.push([
  'main-thread JS before the first story, gzip',
  kb(mainBeforeStory, 'gzip'),
  `raw ${kb(mainBeforeStory, 'raw')}`,
  mainBeforeStory.map((f) => f.file.replace('assets/', '')).join(', '),
]);
for (const w of workers)
  rows.push([
    'generator worker (off main thread), gzip',
    fmt(w.gzip / 1024, 'KB'),
    `raw ${fmt(w.raw / 1024, 'KB')}`,
    w.file,
  ]);

const widths = [0, 1, 2, 3].map((c) =>
  Math.max(...rows.map((r) => String(r[c]).length), ['measure', 'value', '', 'notes'][c].length),
);
const line = (r) => r.map((c, i) => String(c).padEnd(widths[i])).join('  ');
console.log(line(['measure', 'value', '', 'notes']));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const r of rows) console.log(line(r));
