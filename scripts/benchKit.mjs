// What the measuring scripts (bench-ui, bench-study, bench-results) share: their command-line
// options, the Chromium they launch, the build they need, the median they report and the
// in-page wait from a click to the frame that shows its result.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const args = process.argv.slice(2);

/** The value after `--<name>` on the command line, else `def`. */
export const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : def;
};

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Headless Chromium as bench-ui and bench-study run it (the system one when present). */
export const launchChromium = () =>
  chromium.launch({
    executablePath: existsSync(CHROMIUM) ? CHROMIUM : undefined,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  });

/** Exits with `<dist>/index.html is missing: <how>` when the build is not there. */
export function requireBuild(dist, how) {
  if (!existsSync(join(dist, 'index.html'))) {
    console.error(`${dist}/index.html is missing: ${how}`);
    process.exit(1);
  }
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * In the page (sent as source by evaluateWith, so it uses nothing from here): `watch()` notes the
 * page as it is and returns the check that the click's result is on screen; then clicks
 * `selector`, waits for DOM changes (`observe`: MutationObserver options) until the check holds
 * and for the frame that shows it, and resolves with the ms since the click.
 */
export async function clickUntilPainted(selector, watch, observe) {
  const settled = watch();
  const t0 = performance.now();
  document.querySelector(selector).click();
  await new Promise((resolve) => {
    if (settled()) return resolve();
    const mo = new MutationObserver(() => {
      if (settled()) {
        mo.disconnect();
        resolve();
      }
    });
    mo.observe(document.body, observe);
  });
  // The frame that shows it.
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  return performance.now() - t0;
}

/**
 * `fn(...fnArgs)` evaluated in `page`: Playwright passes a page function one serialisable
 * argument, so functions among `fnArgs` go as their source (they must not close over anything).
 */
export function evaluateWith(page, fn, ...fnArgs) {
  const sources = fnArgs.map((a) => (typeof a === 'function' ? String(a) : JSON.stringify(a)));
  return page.evaluate(`(${String(fn)})(${sources.join(', ')})`);
}
