#!/usr/bin/env node
// The participant run's timing figures, measured in headless Chromium on a phone-sized
// screen from the production build, as the app itself records them:
//   - study:put             committing a trial's row to IndexedDB (the outbox's put),
//   - study:answer-to-next  from the submit click to the next trial's story on screen.
// Both are performance.measure entries the run makes; this script answers every trial of a
// study made by the CLI (`study link`, 20 main trials by default) in fresh browser contexts and
// reads them with performance.getEntriesByName. A third row measures the answer-to-next span
// from outside the app (the click to the next story in the DOM, plus the frame that shows it) as
// a check on the app's own figure, which ends when React has committed the story. Prints a
// table; asserts nothing (timings belong here, not in tests).
//
//   npx vite build && node scripts/bench-study.mjs [--dist dist] [--port 4181] [--runs 3]
//     [--k 2,3,4,5] [--per-k 5]
import { execFileSync } from 'node:child_process';
import { clickUntilPainted, evaluateWith, launchChromium, opt, requireBuild } from './benchKit.mjs';
import { startPreview, stopPreview } from './preview.mjs';

const DIST = opt('dist', 'dist');
const PORT = Number(opt('port', '4181'));
const RUNS = Number(opt('runs', '3'));
const K = opt('k', '2,3,4,5');
const PER_K = opt('per-k', '5');
const BASE = `http://127.0.0.1:${PORT}`;

requireBuild(DIST, 'run `npx vite build` first (or pass --dist).');

// The link as a researcher makes it: main trials only, so every answer is followed by a trial.
const cli = execFileSync(
  process.execPath,
  ['scripts/cli.mjs', 'study', 'link', '--k', K, '--per-k', PER_K, '--seed', '1'].concat([
    '--practice',
    '0',
    '--attention-checks',
    '0',
    '--study-id',
    'bench',
  ]),
  { encoding: 'utf8' },
);
const link = cli.trimEnd().split('\n').at(-1);
if (!link?.startsWith('?study=')) throw new Error(`study link printed no participant path:\n${cli}`);

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(q * s.length) - 1)];
};
const fmt = (x) => `${x.toFixed(x < 10 ? 1 : 0)} ms`;

/** The cross-check, measured by this script rather than by the app. */
const OUTSIDE = 'submit → next story painted (script)';

/**
 * In the page, before submit: the check that another story (or the completion) is in the DOM.
 * clickUntilPainted with it times the same span as study:answer-to-next, seen from outside the app.
 */
const STORY_MOVED = () => {
  const story = () => document.querySelector('[data-testid="trial-story"]')?.textContent ?? null;
  const before = story();
  return () =>
    document.querySelector('[data-testid="completion"]') !== null || (story() !== null && story() !== before);
};

/** One participant: consent, instructions, every trial answered at once; the run's measures. */
async function runOnce(browser) {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await ctx.newPage();
  await page.goto(`${BASE}/${link}`);
  const id = (t) => page.getByTestId(t);
  await id('consent-accept').click();
  await id('continue').click();
  let trials = 0;
  const outside = [];
  for (;;) {
    await id('trial-story').or(id('completion')).first().waitFor();
    if (await id('completion').isVisible()) break;
    await id('answer-option').first().click();
    await page.locator('[data-testid="difficulty-option"][data-value="3"]').click();
    const ms = await evaluateWith(page, clickUntilPainted, '[data-testid="submit-answer"]', STORY_MOVED, {
      childList: true,
      subtree: true,
      characterData: true,
    });
    const end = await page.evaluate(() => document.querySelector('[data-testid="completion"]') !== null);
    trials++;
    if (!end) outside.push(ms);
  }
  const entries = await page.evaluate(() =>
    Object.fromEntries(
      ['study:put', 'study:answer-to-next'].map((n) => [n, performance.getEntriesByName(n).map((e) => e.duration)]),
    ),
  );
  await ctx.close();
  return { trials, entries: { ...entries, [OUTSIDE]: outside } };
}

const preview = await startPreview({ port: PORT, dist: DIST, base: BASE });
const browser = await launchChromium();
const all = { 'study:put': [], 'study:answer-to-next': [], [OUTSIDE]: [] };
let trials = 0;
try {
  for (let run = 0; run < RUNS; run++) {
    const r = await runOnce(browser);
    trials += r.trials;
    for (const name of Object.keys(all)) all[name].push(...r.entries[name]);
  }
} finally {
  await browser.close();
  stopPreview(preview);
}

const rows = Object.entries(all).map(([name, xs]) =>
  xs.length === 0
    ? [name, 'no entries', '', '', '']
    : [
        name,
        `median ${fmt(quantile(xs, 0.5))}`,
        `p95 ${fmt(quantile(xs, 0.95))}`,
        `max ${fmt(Math.max(...xs))}`,
        `${xs.length} entries`,
      ],
);
console.log(`${RUNS} participants × ${trials / RUNS} trials (k ${K}, ${PER_K} per k), 390×844, ${DIST}`);
const widths = [0, 1, 2, 3, 4].map((c) =>
  Math.max(...rows.map((r) => r[c].length), ['measure', 'value', '', '', 'notes'][c].length),
);
const line = (r) => r.map((c, i) => c.padEnd(widths[i])).join('  ');
console.log(line(['measure', 'value', '', '', 'notes']));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const r of rows) console.log(line(r));
