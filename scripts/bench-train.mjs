#!/usr/bin/env node
// Memory of the Train panel (#/models) in a phone-sized tab: a 10,000-row CLUTRR file made by our
// own `generate` (5,000 rows each of k = 2 and 3) is dropped at 390×844, each model trains for
// --epochs epochs on WebAssembly (this Chromium runs without a GPU), and the tab's processes are
// sampled every 200 ms: the renderer processes' proportional resident memory (PSS) (the page and its workers live
// there; WebAssembly memory only grows, so its peak is the peak) and the page's JS heap (CDP).
// Prints one line per model; asserts nothing (measurements belong here, not in tests).
//
//   npx vite build --outDir dist && node scripts/bench-train.mjs [--dist dist] [--port 4193] [--rows 10000] [--models gat,lstm-mean] [--epochs 1]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, opt, requireBuild } from './benchKit.mjs';
import { startPreview, stopPreview } from './preview.mjs';

const DIST = opt('dist', 'dist');
const PORT = Number(opt('port', 4193));
const ROWS = Number(opt('rows', 10000));
const MODELS = opt('models', 'gat,lstm-mean').split(',');
const EPOCHS = Number(opt('epochs', 1));
/** Print the renderers' PSS every this many seconds while a model trains (0: only the peak). */
const TIMELINE = Number(opt('timeline', 0));
const BASE = `http://127.0.0.1:${PORT}`;

requireBuild(DIST, `build first (npx vite build --outDir ${DIST}).`);

const work = mkdtempSync(join(tmpdir(), 'bench-train-'));
const data = join(work, 'data');
execFileSync(
  process.execPath,
  [
    'scripts/cli.mjs',
    'generate',
    '--train-tasks',
    '1.2,1.3',
    '--test-tasks',
    '1.2',
    '--train-rows',
    String(ROWS / 2),
    '--test-rows',
    '10',
    '--seed',
    'bench-train',
    '--out',
    data,
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
const TRAIN = join(data, '1.2,1.3_train.csv');
const fileRows = readFileSync(TRAIN, 'utf8').trimEnd().split('\n').length - 1;

/**
 * Proportional resident memory (MB, PSS: shared pages split among the processes sharing them, so
 * the sum does not count Chromium's libraries once per process) of this profile's renderer processes.
 */
function rendererRssMb(profileDir) {
  let kb = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let cmd;
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmd.includes('--type=renderer') || !cmd.includes(profileDir)) continue;
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch {
      // the process ended between the listing and the read
    }
  }
  return kb / 1024;
}

const preview = await startPreview({ port: PORT, dist: DIST, base: BASE });
const profile = join(work, 'profile');
// A profile of our own so that the renderers can be told from other Chromiums on the machine.
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
  viewport: { width: 390, height: 844 },
  acceptDownloads: false,
});
const lines = [];
try {
  for (const model of MODELS) {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.goto(`${BASE}/#/models`);
    await page.getByTestId('train-panel').waitFor();
    const before = rendererRssMb(profile);
    let peakRss = before;
    let peakHeap = 0;
    const sample = async () => {
      peakRss = Math.max(peakRss, rendererRssMb(profile));
      try {
        const { metrics } = await cdp.send('Performance.getMetrics');
        const heap = metrics.find((m) => m.name === 'JSHeapUsedSize');
        if (heap) peakHeap = Math.max(peakHeap, heap.value / 2 ** 20);
      } catch {
        // the page is busy closing
      }
    };
    const timer = setInterval(() => void sample(), 200);
    const t00 = Date.now();
    const timeline =
      TIMELINE > 0
        ? setInterval(
            () =>
              console.error(
                `  ${model} ${((Date.now() - t00) / 1000).toFixed(0)} s: PSS ${rendererRssMb(profile).toFixed(0)} MB`,
              ),
            TIMELINE * 1000,
          )
        : undefined;
    const t0 = Date.now();
    await page.getByTestId('train-file').setInputFiles(TRAIN);
    await page.getByTestId('train-model').selectOption(model);
    await page.getByTestId('train-epochs').fill(String(EPOCHS));
    await page.getByTestId('train-start').click();
    const backend = await page.getByTestId('train-backend').getAttribute('data-backend', { timeout: 120_000 });
    await page.getByTestId('train-done').waitFor({ timeout: 3_600_000 });
    const end = await page.getByTestId('train-done').getAttribute('data-end');
    clearInterval(timer);
    clearInterval(timeline);
    await sample();
    const seconds = (Date.now() - t0) / 1000;
    lines.push(
      `${model}: ${fileRows} rows, ${EPOCHS} epoch(s) on ${backend}, ${end} in ${seconds.toFixed(0)} s; renderer PSS ${before.toFixed(0)} MB before, peak ${peakRss.toFixed(0)} MB (+${(peakRss - before).toFixed(0)} MB); page JS heap peak ${peakHeap.toFixed(0)} MB`,
    );
    console.log(lines.at(-1));
    await page.close();
  }
} finally {
  await context.close();
  stopPreview(preview);
  rmSync(work, { recursive: true, force: true });
}
console.log(
  `machine: ${cpus().length} cores, ${cpus()[0]?.model ?? '?'}; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
