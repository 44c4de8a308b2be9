import AxeBuilder from '@axe-core/playwright';
import { type BrowserContext, expect, type Locator, type Page, test } from '@playwright/test';
import type { StudyCondition, StudyDefinition } from '../../src/study/definition/definition';
import { encodedLink, normalise, Participant, PHONE } from '../fixtures/study';

/**
 * Issue 19, the participant's side: a timed two-condition study (text; text+drawing) on a phone,
 * where every main trial keeps Submit and the countdown on screen at scroll 0 and one trial is
 * done with the keyboard alone; consent that lists where answers go and can be declined without
 * anything being stored or sent; a download-only study whose code waits for the download; and
 * each condition at phone and desktop sizes. Screenshots go to SHOTS for people to look at.
 */
const SHOTS = process.env.E2E_SHOTS ?? 'e2e/artifacts';
const DESKTOP = { width: 1280, height: 800 } as const;

/** An HTTP sink on a host the tests intercept (nothing leaves the machine). */
const SINK_HOST = 'results.example.org';
const SINK_URL = `https://${SINK_HOST}/clutrr/rows`;

const condition = (id: string, c: Partial<StudyCondition>): StudyCondition => ({
  id,
  perPuzzleLimitS: null,
  overallLimitS: null,
  display: 'text',
  scratchpad: false,
  ...c,
});

const TIMED: Partial<StudyDefinition> = {
  studyId: 'phone-e2e',
  seed: 23,
  k: [2, 4],
  itemsPerK: 1,
  practice: 1,
  attentionChecks: 0,
  completionCode: 'PHONE-23',
  sinks: [{ kind: 'http', url: SINK_URL }],
  conditions: [
    condition('text', { perPuzzleLimitS: 120 }),
    condition('drawing', { perPuzzleLimitS: 120, display: 'text+drawing' }),
  ],
};

/** Answers every request to the sink host with 200 and counts them (CORS headers for the page's origin). */
async function interceptSink(context: BrowserContext): Promise<{ count: () => number; bodies: string[] }> {
  const bodies: string[] = [];
  await context.route(`https://${SINK_HOST}/**`, async (route) => {
    bodies.push(route.request().postData() ?? '');
    await route.fulfill({
      status: 200,
      headers: { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'content-type' },
      body: '{}',
    });
  });
  return { count: () => bodies.length, bodies };
}

/** Whether the element lies wholly inside the viewport, the page not scrolled. */
async function onScreenAtTop(page: Page, locator: Locator): Promise<string> {
  const scrollY = await page.evaluate(() => window.scrollY);
  const box = await locator.boundingBox();
  const view = page.viewportSize()!;
  if (box === null) return 'not drawn';
  const inside = box.x >= 0 && box.y >= 0 && box.x + box.width <= view.width && box.y + box.height <= view.height;
  return scrollY === 0 && inside
    ? 'on screen'
    : `scrollY ${scrollY}, box ${JSON.stringify(box)} in ${view.width}×${view.height}`;
}

/**
 * Whether the element shows whole at scroll 0 above the sticky bar (the bar covers what lies
 * under it): what a participant can click without scrolling.
 */
async function clearOfBar(page: Page, locator: Locator): Promise<string> {
  const where = await onScreenAtTop(page, locator);
  if (where !== 'on screen') return where;
  const box = (await locator.boundingBox())!;
  const bar = (await page.getByTestId('trial-bar').boundingBox())!;
  return box.y + box.height <= bar.y ? 'on screen' : `bottom ${box.y + box.height} under the bar at ${bar.y}`;
}

/** What axe finds wrong on the page (nothing, we hope). */
const axeViolations = async (page: Page) =>
  (await new AxeBuilder({ page }).analyze()).violations.map((v) => `${v.id}: ${v.help}`);

/** Every record in every IndexedDB database of the page's origin, by database. */
function indexedDbRecords(page: Page): Promise<Record<string, string[]>> {
  return page.evaluate(async () => {
    const out: Record<string, string[]> = {};
    for (const { name } of await indexedDB.databases()) {
      if (!name) continue;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open(name);
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const keys: string[] = [];
      for (const store of Array.from(db.objectStoreNames)) {
        const all = await new Promise<IDBValidKey[]>((resolve, reject) => {
          const q = db.transaction(store).objectStore(store).getAllKeys();
          q.onsuccess = () => resolve(q.result);
          q.onerror = () => reject(q.error);
        });
        keys.push(...all.map((k) => `${store}:${String(k)}`));
      }
      db.close();
      out[name] = keys;
    }
    return out;
  });
}

test.describe('on a phone', () => {
  test.use({ viewport: PHONE });
  /** The trial answered by keyboard alone (its story and the word picked). */
  let keyboardTrial: { story: string; picked: string } | null = null;

  test('a timed two-condition study: Submit and the countdown on screen on every main trial; one trial by keyboard ending in Enter', async ({
    page,
    context,
  }) => {
    const sink = await interceptSink(context);
    const p = new Participant(page);
    let mainTrials = 0;
    for (const cond of ['text', 'drawing'] as const) {
      await page.goto(`/${encodedLink(TIMED, { condition: cond, PROLIFIC_PID: `phone-${cond}` })}`);
      expect(await p.screen()).toBe('consent');
      // The destinations are listed before agreeing, the HTTP sink by its host.
      await expect(page.getByTestId('consent-destinations').locator('li')).toHaveText([SINK_HOST]);
      if (cond === 'text') {
        await page.screenshot({ path: `${SHOTS}/phone-consent.png`, fullPage: true });
        expect(await axeViolations(page)).toEqual([]);
      }
      let main = 0;
      for (;;) {
        const seen = await p.runUntil((s) => s === 'trial' || s === 'completion');
        if (seen.at(-1) === 'completion') break;
        const practice = (await page.locator('#trial-heading').textContent()) === 'Practice puzzle';
        expect(await onScreenAtTop(page, p.submit), 'submit-answer').toBe('on screen');
        expect(await onScreenAtTop(page, p.countdown), 'countdown').toBe('on screen');
        expect(Number(await p.countdown.textContent())).toBeGreaterThan(100);
        if (cond === 'drawing') await expect(page.getByTestId('facts-drawing')).toBeVisible();
        if (practice) {
          await p.answer();
          // The practice feedback: Enter continues (the focus is on its heading, not the button).
          expect(await p.screen()).toBe('feedback');
          const feedback = await p.signature();
          await page.keyboard.press('Enter');
          await p.leaves(feedback);
          continue;
        }
        main++;
        mainTrials++;
        await page.screenshot({ path: `${SHOTS}/phone-${cond}-trial-${main}.png` });
        if (cond !== 'text' || main !== 1) {
          await p.answer();
          continue;
        }
        // The keyboard alone: Tab to the words, an arrow and Space pick one, 4 rates, Enter submits
        // (the focus still on the word, where Enter used to pick the word again).
        const story = await p.storyText();
        for (let i = 0; i < 40; i++) {
          await page.keyboard.press('Tab');
          if ((await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))) === 'answer-option')
            break;
        }
        await page.keyboard.press('ArrowRight');
        await page.keyboard.press('Space');
        const picked = await page.evaluate(() => document.activeElement?.getAttribute('data-relation') ?? '');
        await expect(page.locator('[data-testid="answer-option"][aria-pressed="true"]')).toHaveAttribute(
          'data-relation',
          picked,
        );
        await page.keyboard.press('4');
        await expect(page.getByTestId('submit-hint')).toContainText('Enter');
        const before = await p.signature();
        await page.keyboard.press('Enter');
        await p.leaves(before);
        keyboardTrial = { story, picked };
      }
      expect(main).toBe(2);
      await expect(p.sinkStatus).toHaveAttribute('data-state', 'sent', { timeout: 15_000 });
      await expect(p.completionCode).toHaveText('PHONE-23');
      if (cond === 'text') {
        const { rows } = await p.results();
        const row = rows.find((r) => normalise(r.story) === keyboardTrial!.story)!;
        expect(row).toMatchObject({ response: keyboardTrial!.picked, difficulty: '4', ended_on: 'response' });
      }
    }
    expect(mainTrials).toBe(4);
    // The sink really received the rows (so the decline test's "no request" can fail).
    expect(sink.count()).toBeGreaterThan(0);
    expect(sink.bodies.join('\n')).toContain('"condition":"drawing"');
  });

  test('declining consent stores nothing in IndexedDB and sends nothing; a reload stays declined; Prolific gets its return path', async ({
    page,
    context,
  }) => {
    const sink = await interceptSink(context);
    const p = new Participant(page);
    await page.goto(`/${encodedLink(TIMED, { PROLIFIC_PID: 'decliner', STUDY_ID: 's', SESSION_ID: 'x' })}`);
    expect(await p.screen()).toBe('consent');
    await expect(page.getByTestId('consent-destinations')).toContainText(SINK_HOST);
    await page.getByTestId('consent-decline').click();
    const declined = page.getByTestId('declined');
    await expect(declined).toBeVisible();
    await expect(page.getByTestId('declined-prolific')).toContainText('Cancel participation');
    await expect(declined).not.toContainText(/completion code:/i);
    await expect(p.completionCode).toHaveCount(0);
    await page.screenshot({ path: `${SHOTS}/phone-declined.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    const records = await indexedDbRecords(page);
    // The study's database was opened (so this check can see into it), and holds nothing.
    expect(Object.keys(records)).toContain('clutrr-lab-study');
    expect(Object.values(records).flat()).toEqual([]);

    await page.reload();
    await expect(declined).toBeVisible();
    await expect(p.consentAccept).toHaveCount(0);
    await expect(p.story).toHaveCount(0);
    expect(Object.values(await indexedDbRecords(page)).flat()).toEqual([]);
    // Changing one's mind: the consent again, and still nothing stored until it is given.
    await page.getByTestId('declined-reconsider').click();
    expect(await p.screen()).toBe('consent');
    expect(Object.values(await indexedDbRecords(page)).flat()).toEqual([]);
    // Leaving the page (pagehide hands pending rows to sendBeacon) sends nothing either.
    await page.goto('about:blank');
    expect(sink.count()).toBe(0);
  });

  test('a destination that refuses an answer for good: the participant is told at once, while the study goes on', async ({
    page,
    context,
  }) => {
    // The sink stores every row but trial 1's, which it refuses for good (a 400 no retry can fix).
    const stored = new Set<number>();
    await context.route(`https://${SINK_HOST}/**`, async (route) => {
      const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'content-type' };
      const body = JSON.parse(route.request().postData() ?? '{}') as { rows?: { trial_index: number }[] };
      const rows = body.rows ?? [];
      if (rows.some((r) => r.trial_index === 1)) {
        return route.fulfill({
          status: 400,
          headers: cors,
          contentType: 'application/json',
          body: '{"error":"rows.0.rt_ms: longer than the trial was shown"}',
        });
      }
      for (const r of rows) stored.add(r.trial_index);
      return route.fulfill({ status: 200, headers: cors, body: '{}' });
    });
    const p = new Participant(page);
    await page.goto(
      `/${encodedLink({ ...TIMED, practice: 0, k: [2, 3, 4], conditions: [condition('untimed', {})] }, { PROLIFIC_PID: 'refused-1' })}`,
    );
    await p.runUntil('trial');
    const notice = page.getByTestId('refusal-notice');
    await p.answer();
    await p.answer();
    // On the next trial, without waiting for the end.
    expect(await p.screen()).toBe('trial');
    await expect(notice).toBeVisible({ timeout: 15_000 });
    await expect(notice).toHaveAttribute('role', 'alert');
    await expect(notice).toContainText(`The results address ${SINK_HOST} did not accept one of your answers.`);
    await expect(notice).toContainText('download your answers');
    await expect(notice).toContainText('longer than the trial was shown');
    expect(await axeViolations(page)).toEqual([]);
    expect(await p.horizontalOverflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/phone-refusal-notice.png`, fullPage: true });
    // It stays through the run; the completion says which answer went where.
    await p.runUntil('completion');
    await expect(p.sinkStatus).toHaveAttribute('data-state', 'refused', { timeout: 15_000 });
    expect([...stored].sort()).toEqual([0, 2]);
  });

  test('a per-puzzle limit warns in its last 10 seconds, politely', async ({ page }) => {
    const p = new Participant(page);
    await page.goto(
      `/${encodedLink({ ...TIMED, sinks: [], practice: 0, conditions: [condition('quick', { perPuzzleLimitS: 13 })] })}`,
    );
    await p.runUntil('trial');
    const warning = page.getByTestId('time-warning');
    await expect(warning).toHaveCount(0);
    await expect(warning).toBeVisible({ timeout: 8_000 });
    await expect(warning).toContainText('10 seconds');
    expect(await warning.evaluate((el) => el.closest('[aria-live]')?.getAttribute('aria-live'))).toBe('polite');
    expect(Number(await p.countdown.textContent())).toBeLessThanOrEqual(10);
    expect(await onScreenAtTop(page, warning)).toBe('on screen');
    await page.screenshot({ path: `${SHOTS}/phone-warning.png` });
  });

  test('the scratchpad keeps its keys: Enter is a new line and digits are text; Ctrl+Enter submits from it', async ({
    page,
  }) => {
    const p = new Participant(page);
    await page.goto(
      `/${encodedLink({ ...TIMED, sinks: [], practice: 0, conditions: [condition('pad', { scratchpad: true })] })}`,
    );
    await p.runUntil('trial');
    await p.pick('aunt', 2);
    const pad = page.getByTestId('scratchpad');
    await pad.click();
    await page.keyboard.type('Ann 4');
    await page.keyboard.press('Enter');
    await page.keyboard.type('x');
    await expect(pad).toHaveValue('Ann 4\nx');
    // Still this trial, still rated 2 (the 4 was typed, not a rating).
    await expect(page.locator('[data-testid="difficulty-option"][aria-pressed="true"]')).toHaveAttribute(
      'data-value',
      '2',
    );
    const before = await p.signature();
    expect(before.startsWith('trial|')).toBe(true);
    await page.keyboard.press('Control+Enter');
    await p.leaves(before);
    await p.runUntil('completion');
    const { rows } = await p.results();
    expect(rows[0]).toMatchObject({ response: 'aunt', difficulty: '2', ended_on: 'response' });
  });

  test('download-only: the notice says how to send the file; the code shows only after a download, also after a reload', async ({
    page,
  }) => {
    const instructions = 'E-mail the file to lab@example.org with the subject “CLUTRR”.';
    const p = new Participant(page);
    await page.goto(
      `/${encodedLink({
        ...TIMED,
        studyId: 'dl-e2e',
        practice: 0,
        completionCode: 'DL-77',
        conditions: [condition('untimed', {})],
        sinks: [{ kind: 'download', instructions }],
      })}`,
    );
    expect(await p.screen()).toBe('consent');
    await expect(page.getByTestId('consent-destinations').locator('li')).toHaveCount(1);
    await expect(page.getByTestId('consent-destinations')).toContainText('your device only');
    await p.runUntil('completion');
    const notice = page.getByTestId('download-only-notice');
    await expect(notice).toContainText('not been sent');
    await expect(notice).toContainText(instructions);
    await expect(p.completionCode).toHaveCount(0);
    await expect(page.getByTestId('completion-code-pending')).toBeVisible();
    await expect(p.sinkStatus).toHaveCount(0);
    await page.screenshot({ path: `${SHOTS}/phone-download-only-before.png`, fullPage: true });
    const { rows } = await p.results();
    expect(rows).toHaveLength(2);
    await expect(p.completionCode).toHaveText('DL-77');
    await expect(notice).toBeVisible();
    await expect(p.download).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/phone-download-only-after.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.reload();
    expect(await p.screen()).toBe('completion');
    await expect(p.completionCode).toHaveText('DL-77');
  });
});

/** Each condition's first main trial at a size: Submit (and the countdown) on screen at scroll 0. */
async function eachCondition(page: Page, size: 'phone' | 'desktop'): Promise<void> {
  const def: Partial<StudyDefinition> = {
    ...TIMED,
    studyId: `sizes-${size}`,
    sinks: [],
    practice: 0,
    k: [6],
    conditions: [
      condition('text', { perPuzzleLimitS: 300 }),
      condition('drawing', { perPuzzleLimitS: 300, display: 'text+drawing' }),
      condition('scratchpad', { perPuzzleLimitS: 300, scratchpad: true }),
      condition('all', { perPuzzleLimitS: 300, overallLimitS: 900, display: 'text+drawing', scratchpad: true }),
    ],
  };
  const p = new Participant(page);
  for (const cond of ['text', 'drawing', 'scratchpad', 'all']) {
    await page.goto(`/${encodedLink(def, { condition: cond, PROLIFIC_PID: `${size}-${cond}` })}`);
    await p.runUntil('trial');
    expect(await onScreenAtTop(page, p.submit), `${cond}: submit-answer`).toBe('on screen');
    expect(await onScreenAtTop(page, p.countdown), `${cond}: countdown`).toBe('on screen');
    if (cond === 'all') expect(await onScreenAtTop(page, page.getByTestId('overall-countdown'))).toBe('on screen');
    if (size === 'desktop') {
      // At 1280×800 every word, every rating and Submit can be clicked without scrolling.
      for (const [what, l] of [
        ['the first word', p.options.first()],
        ['the last word', p.options.last()],
        ['rating 1', p.ratings.first()],
        ['rating 5', p.ratings.last()],
      ] as const) {
        expect(await clearOfBar(page, l), `${cond}: ${what}`).toBe('on screen');
      }
    }
    expect(await p.horizontalOverflow()).toBeLessThanOrEqual(0);
    const drawing = page.getByTestId('facts-drawing');
    if (cond === 'drawing' || cond === 'all') {
      await expect(drawing).toBeVisible();
      // The question's two people are marked, and only they.
      await expect(page.locator('[data-testid="facts-drawing-person"][data-query]')).toHaveCount(2);
      if (size === 'desktop') {
        // Side by side: the drawing starts to the right of the story, level with it.
        const story = (await p.story.boundingBox())!;
        const pic = (await drawing.boundingBox())!;
        expect(pic.x).toBeGreaterThanOrEqual(story.x + story.width);
        expect(Math.abs(pic.y - story.y)).toBeLessThan(60);
      }
    } else await expect(drawing).toHaveCount(0);
    await page.screenshot({ path: `${SHOTS}/${size}-${cond}.png` });
    await page.screenshot({ path: `${SHOTS}/${size}-${cond}-full.png`, fullPage: true });
  }
}

test.describe('each condition at each size', () => {
  test('phone 390×844', async ({ page }) => {
    await page.setViewportSize(PHONE);
    await eachCondition(page, 'phone');
  });
  test('desktop 1280×800', async ({ page }) => {
    await page.setViewportSize(DESKTOP);
    await eachCondition(page, 'desktop');
  });
});

test('at 1280×800: consent, declined and the download-only completion', async ({ page, context }) => {
  await page.setViewportSize(DESKTOP);
  const sink = await interceptSink(context);
  const p = new Participant(page);
  await page.goto(`/${encodedLink(TIMED, { PROLIFIC_PID: 'desk' })}`);
  expect(await p.screen()).toBe('consent');
  await expect(page.getByTestId('consent-destinations')).toContainText(SINK_HOST);
  await page.screenshot({ path: `${SHOTS}/desktop-consent.png` });
  await page.getByTestId('consent-decline').click();
  await expect(page.getByTestId('declined')).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/desktop-declined.png` });
  expect(sink.count()).toBe(0);

  await page.goto(
    `/${encodedLink({
      ...TIMED,
      studyId: 'dl-desk',
      practice: 0,
      completionCode: 'DL-DESK',
      conditions: [condition('untimed', {})],
      sinks: [{ kind: 'download', instructions: 'Upload the file at the address in the Prolific study description.' }],
    })}`,
  );
  await p.runUntil('completion');
  await expect(page.getByTestId('download-only-notice')).toBeVisible();
  await expect(p.completionCode).toHaveCount(0);
  await page.screenshot({ path: `${SHOTS}/desktop-download-only-before.png` });
  await p.downloadText(p.downloadJson);
  await expect(p.completionCode).toHaveText('DL-DESK');
  await page.screenshot({ path: `${SHOTS}/desktop-download-only-after.png` });
});
