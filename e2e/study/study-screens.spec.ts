import { expect, test } from '@playwright/test';
import { cliLink, Participant, PHONE, type Screen, tokenOf } from '../fixtures/study';

/**
 * Screenshots of every participant screen on a phone (390×844), in e2e/artifacts/participant-*.png,
 * for people to look at. Pixels are not compared; each shot is taken only once its screen is
 * really there, with nothing running off the right edge.
 */
test.use({ viewport: PHONE });

test('participant screens at 390×844', async ({ page }) => {
  // One main item (and one attention check before it, for a break): the same screens every run.
  const path = cliLink(
    ['--k', '2', '--per-k', '1', '--seed', '41', '--practice', '1', '--attention-checks', '1'].concat([
      '--break-every',
      '1',
      '--completion-code',
      'C0DE-41',
    ]),
  );
  const p = new Participant(page);
  const shot = async (name: string) => {
    expect(await p.horizontalOverflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `e2e/artifacts/participant-${name}.png`, animations: 'disabled' });
  };
  const taken = new Set<string>();
  const once = async (name: string) => {
    if (taken.has(name)) return;
    taken.add(name);
    await shot(name);
  };
  let trials = 0;
  await page.goto(`/${path}`);
  await p.runUntil('completion', async (s: Screen) => {
    if (s === 'consent') return once('consent');
    if (s === 'continue') {
      // The instructions have no progress bar; a break has one.
      return once((await p.progress.count()) > 0 ? 'break' : 'instructions');
    }
    if (s === 'feedback') return once('practice-feedback');
    if (s === 'trial') {
      trials++;
      // Practice, the attention check, then the main trial.
      if (trials === 3) {
        await p.options.nth(2).click();
        await page.locator('[data-testid="difficulty-option"][data-value="2"]').click();
        await once('trial');
      }
    }
  });
  // No sink: download-only, so the code shows once the file was downloaded (issue 19).
  await expect(page.getByTestId('download-only-notice')).toBeVisible();
  await shot('completion-before-download');
  await p.downloadText();
  await expect(p.completionCode).toContainText('C0DE-41');
  await shot('completion');
  expect([...taken].sort()).toEqual(['break', 'consent', 'instructions', 'practice-feedback', 'trial']);

  const token = tokenOf(path);
  await page.goto(`/?study=${token.slice(0, -3)}`);
  expect(await p.screen()).toBe('error');
  await shot('error');
});
