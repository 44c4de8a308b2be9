#!/usr/bin/env node
// Latency of the shipped models in headless Chromium without a GPU (the target after
// warm-up: a median under 30 ms per puzzle at k = 10 on wasm, for every model), measured in the
// app's own models worker: every model folder of models/index.json (or those --only names, by
// id `gat/1` or model `gat`) is loaded and warmed up, answers a few puzzles more as a second
// warm-up, then answers --rows clean test puzzles of each k = 2..10 one at a time; the worker
// times each call. Prints weight sizes, load and warm-up times, the median and p95 ms per puzzle
// over all k, the median by k and the median at k = 10. Asserts nothing (timings belong here,
// not in tests).
//
//   npm run bench:models -- [--dist DIR] [--build] [--models DIR] [--only ID,...] [--rows 20]
//                           [--backends auto,wasm,cpu] [--port 4181]
//
// Builds into --dist (default dist) when it has no index.html or with --build. --models DIR copies
// a models folder (with its index.json) into the build first, e.g. tiny dev models before the real
// weights are shipped in public/models.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM, median } from './benchKit.mjs';
import { startPreview } from './preview.mjs';

const { values } = parseArgs({
  options: {
    dist: { type: 'string', default: 'dist' },
    build: { type: 'boolean', default: false },
    models: { type: 'string' },
    rows: { type: 'string', default: '20' },
    only: { type: 'string' },
    backends: { type: 'string', default: 'auto' },
    port: { type: 'string', default: '4181' },
    seed: { type: 'string', default: 'bench' },
  },
});
const DIST = resolve(values.dist);
const ROWS = Number(values.rows);
const KS = [2, 3, 4, 5, 6, 7, 8, 9, 10];
const PORT = Number(values.port);
const BASE = `http://127.0.0.1:${PORT}/`;

if (values.build || !existsSync(join(DIST, 'index.html'))) {
  console.error(`building into ${DIST}…`);
  execFileSync('npx', ['vite', 'build', '--outDir', DIST, '--emptyOutDir'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
if (values.models) cpSync(resolve(values.models), join(DIST, 'models'), { recursive: true });
const indexFile = join(DIST, 'models', 'index.json');
if (!existsSync(indexFile)) {
  console.error(`${indexFile} is missing: no models in this build (ship them in public/models, or pass --models DIR)`);
  process.exit(1);
}
const only = values.only?.split(',').map((s) => s.trim());
const models = JSON.parse(readFileSync(indexFile, 'utf8')).models.filter(
  (m) => !only || only.includes(m.id) || only.includes(m.model),
);
if (models.length === 0) {
  console.error(`no model folder in ${indexFile} matches --only ${values.only}`);
  process.exit(1);
}
const workerFile = readdirSync(join(DIST, 'assets')).find((f) => /^models\.worker-[\w-]+\.js$/.test(f));
if (!workerFile) {
  console.error('no models.worker-*.js in the build');
  process.exit(1);
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const p95 = (xs) => sorted(xs)[Math.max(0, Math.ceil(0.95 * xs.length) - 1)];
const ms = (x) => x.toFixed(x < 10 ? 2 : 1);
const kib = (b) => `${(b / 1024).toFixed(0)} KiB`;

const preview = await startPreview({ port: PORT, dist: DIST, base: BASE });
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  const page = await browser.newPage();
  // Any page of the build's origin will do: the worker is started by hand and spoken to in the
  // rpc protocol (src/worker/rpc.ts), as the app's modelsClient does.
  await page.goto(`${BASE}models/index.json`);
  const runs = await page.evaluate(
    async ({ workerUrl, baseUrl, ids, ks, rows, seed, backends }) => {
      const worker = new Worker(workerUrl, { type: 'module' });
      let next = 1;
      const ask = (command, body) =>
        new Promise((resolve, reject) => {
          const id = next++;
          const on = (e) => {
            if (e.data.id !== id) return;
            if (e.data.type === 'result') resolve(e.data.result);
            else if (e.data.type === 'error') reject(new Error(`${command}: ${e.data.error.message}`));
            else return;
            worker.removeEventListener('message', on);
          };
          worker.addEventListener('message', on);
          worker.postMessage({ id, command, body });
        });
      const out = { available: null, runs: [] };
      for (const want of backends) {
        const b = want === 'auto' ? await ask('backend', {}) : await ask('backend', { name: want });
        out.available = b.available;
        for (const id of ids) {
          const load = await ask('load', { id, baseUrl });
          await ask('bench', { id, ks, rows: 2, seed: `${seed}-warm` });
          const bench = await ask('bench', { id, ks, rows, seed });
          const memory = await ask('memory', {});
          out.runs.push({ id, backend: bench.backend, load, times: bench.ms, memory });
        }
      }
      worker.terminate();
      return out;
    },
    {
      workerUrl: `${BASE}assets/${workerFile}`,
      baseUrl: BASE,
      ids: models.map((m) => m.id),
      ks: KS,
      rows: ROWS,
      seed: values.seed,
      backends: values.backends.split(','),
    },
  );

  console.log(`headless Chromium (${CHROMIUM}, --disable-gpu); ${ROWS} puzzles per k = ${KS.join(', ')}`);
  console.log(
    `backends: ${Object.entries(runs.available)
      .map(([n, v]) => `${n} ${v === true ? 'yes' : `no (${v})`}`)
      .join('; ')}`,
  );
  console.log('');
  const head = [
    'model',
    'backend',
    'weights',
    'load ms',
    'warm-up ms',
    'puzzles',
    'median ms',
    'p95 ms',
    `median by k = ${KS.join(', ')}`,
    'median k = 10',
    'tensors',
  ];
  const rowsOut = runs.runs.map((r) => [
    r.id,
    r.backend,
    kib(r.load.weightBytes),
    ms(r.load.loadMs),
    ms(r.load.warmupMs),
    String(r.times.length),
    ms(median(r.times)),
    ms(p95(r.times)),
    KS.map((_, i) => ms(median(r.times.slice(i * ROWS, (i + 1) * ROWS)))).join(' / '),
    ms(median(r.times.slice(KS.indexOf(10) * ROWS, (KS.indexOf(10) + 1) * ROWS))),
    String(r.memory.numTensors),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rowsOut.map((r) => r[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rowsOut) console.log(line(r));
} finally {
  await browser.close();
  process.kill(-preview.pid);
}
