import { expect, type Page, test } from '@playwright/test';
import { deflateSync, strToU8 } from 'fflate';
import { crc32, decodeStudyLink } from '../../src/study/definition/link';
import {
  cliLink,
  CONTRACT_COLUMNS,
  countBy,
  definitionOf,
  mainPuzzleIds,
  normalise,
  Participant,
  PHONE,
  tokenOf,
  trialCount,
} from '../fixtures/study';

/**
 * The participant's run end to end (issue 9), on a phone-sized screen, from links made by the
 * CLI (`study link`): every screen, resuming after a reload and after a closed tab, the CSV the
 * participant downloads, timeouts, refused links, Prolific ids and a second tab.
 */
test.use({ viewport: PHONE });

/** Tabs until the focused element is a `testid` (wrapping round the page if need be). */
async function tabTo(page: Page, testid: string): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? '');
    if (focused === testid) return;
  }
  throw new Error(`Tab never reached a ${testid}`);
}

test('a whole study on a phone: practice, breaks, a reload and a closed tab mid-trial; the CSV has every trial once', async ({
  page,
  context,
}) => {
  const path = cliLink(['--k', '2,3', '--per-k', '2', '--seed', '5', '--practice', '1', '--break-every', '2']);
  const def = definitionOf(path);
  const trials = trialCount(def); // 1 practice + 4 main + 1 attention check (the default)
  const p = new Participant(page);
  const noSideScroll = async () => expect(await p.horizontalOverflow()).toBeLessThanOrEqual(0);
  await page.goto(`/${path}`);

  expect(await p.screen()).toBe('consent');
  await expect(p.story).toHaveCount(0);
  await noSideScroll();
  await p.consentAccept.click();

  // Instructions, then the practice trial and its feedback (which names the right answer).
  await p.runUntil('trial', async (s) => {
    expect(['consent', 'continue', 'trial']).toContain(s);
    await noSideScroll();
  });
  await expect(p.question).toBeVisible();
  await expect(p.options).toHaveCount(20);
  await expect(p.submit).toBeDisabled();
  await noSideScroll();
  await p.answer('aunt');
  expect(await p.screen()).toBe('feedback');
  await expect(p.feedback).toContainText(/\S/);
  await noSideScroll();
  await p.next();

  // The first main trial, by keyboard alone.
  expect(await p.screen()).toBe('trial');
  await expect(p.progress).toHaveAttribute('aria-valuenow', '0');
  await expect(p.progress).toHaveAttribute('aria-valuemax', String(trials - def.practice));
  const keyboardStory = await p.storyText();
  await tabTo(page, 'answer-option');
  await page.keyboard.press('Space');
  await expect(page.locator('[data-testid="answer-option"][aria-pressed="true"]')).toHaveCount(1);
  await tabTo(page, 'difficulty-option');
  await page.keyboard.press('Space');
  await tabTo(page, 'submit-answer');
  await expect(p.submit).toBeEnabled();
  const beforeKeyboard = await p.signature();
  await page.keyboard.press('Enter');
  await p.leaves(beforeKeyboard);

  // The second: an answer picked, then the page reloaded before it is submitted.
  expect(await p.screen()).toBe('trial');
  await expect(p.progress).toHaveAttribute('aria-valuenow', '1');
  const reloadedStory = await p.storyText();
  await p.pick('son', 4);
  await page.reload();
  await p.runUntil('trial');
  expect(await p.storyText()).toBe(reloadedStory);
  await expect(p.submit).toBeDisabled();
  await p.answer('daughter', 2);

  // A break (with the progress bar) after two main trials.
  expect(await p.screen()).toBe('continue');
  await expect(p.progress).toBeVisible();
  await expect(p.progress).toHaveAttribute('aria-valuenow', '2');
  await noSideScroll();
  await p.next();

  // The third: the tab is closed while it shows; the same link in a new tab carries on with it.
  expect(await p.screen()).toBe('trial');
  const closedStory = await p.storyText();
  await page.close();
  const again = await context.newPage();
  const q = new Participant(again);
  await again.goto(`/${path}`);
  await q.runUntil('trial');
  expect(await q.storyText()).toBe(closedStory);
  await q.runUntil('completion', async () => expect(await q.horizontalOverflow()).toBeLessThanOrEqual(0));

  await expect(q.completion).toBeVisible();
  const { header, rows } = await q.results();
  expect(header.slice(0, CONTRACT_COLUMNS.length)).toEqual([...CONTRACT_COLUMNS]);
  expect(header.slice(CONTRACT_COLUMNS.length)).toEqual([
    'prolific_study_id',
    'prolific_session_id',
    'threshold_k',
    'threshold_low',
    'threshold_high',
    'adaptive_procedure',
    'adaptive_stop',
    'user_agent',
    'screen',
  ]);
  expect(rows).toHaveLength(trials);
  expect([...countBy(rows, (r) => r.trial_index).values()].every((n) => n === 1)).toBe(true);
  const main = rows.filter((r) => r.phase === 'main');
  expect(main.map((r) => r.puzzle_id).sort()).toEqual(mainPuzzleIds(def).sort());
  expect(rows.filter((r) => r.phase === 'practice')).toHaveLength(def.practice);
  expect(new Set(rows.map((r) => r.session_id)).size).toBe(1);
  expect(rows.every((r) => r.study_id === def.studyId && r.participant_id === '')).toBe(true);

  const byStory = (story: string) => {
    const found = rows.filter((r) => normalise(r.story) === story);
    expect(found, `one row with the story "${story}"`).toHaveLength(1);
    return found[0]!;
  };
  // The interrupted trials (reload, closed tab) are marked resumed; no other row is.
  const interrupted = [byStory(reloadedStory), byStory(closedStory)];
  expect(interrupted.map((r) => r.resumed)).toEqual(['true', 'true']);
  expect(interrupted[0]!.response).toBe('daughter');
  expect(interrupted[0]!.difficulty).toBe('2');
  expect(rows.filter((r) => r.resumed === 'true')).toHaveLength(2);
  const keyboard = byStory(keyboardStory);
  expect(keyboard.ended_on).toBe('response');
  expect(keyboard.response).not.toBe('');
  expect(keyboard.difficulty).not.toBe('');
  expect(rows.every((r) => r.ended_on === 'response' && r.time_limit_s === '')).toBe(true);
  for (const r of rows) {
    expect(r.correct, `trial ${r.trial_index}`).toBe(String(r.response === r.gold));
    expect(
      [r.gold, r.query_a, r.query_b, r.story].every((v) => v !== ''),
      `trial ${r.trial_index}`,
    ).toBe(true);
    expect(Number(r.rt_ms), `trial ${r.trial_index}`).toBeGreaterThan(0);
    expect(Date.parse(r.answered_at!)).toBeGreaterThanOrEqual(Date.parse(r.started_at!));
  }

  // Reloading the completion shows it again, with the same file.
  await again.reload();
  expect(await q.screen()).toBe('completion');
  expect((await q.results()).rows).toEqual(rows);
});

test('a timed study records a trial that runs out as a timeout and moves on', async ({ page }) => {
  const path = cliLink(
    ['--k', '2', '--per-k', '2', '--seed', '11', '--practice', '0', '--attention-checks', '0'].concat([
      '--time-limit',
      '4',
    ]),
  );
  const p = new Participant(page);
  await page.goto(`/${path}`);
  // The instructions state the limit (the researcher's default text says nothing of time).
  await p.runUntil('continue');
  await expect(page.getByTestId('time-limits')).toContainText('You have 4 seconds for each puzzle.');
  await p.runUntil('trial');
  await expect(page.getByTestId('time-up')).toHaveCount(0);

  await expect(p.countdown).toBeVisible();
  const left = Number((await p.countdown.textContent())?.match(/\d+/)?.[0]);
  expect(left).toBeGreaterThan(0);
  expect(left).toBeLessThanOrEqual(4);
  const timedOut = await p.storyText();
  // An answer picked but never rated or submitted: the timeout still records no response.
  await p.options.first().click();
  await p.leaves(await p.signature(), 15_000);

  expect(await p.screen()).toBe('trial');
  expect(await p.storyText()).not.toBe(timedOut);
  // Said on the next trial, with nothing to click.
  await expect(page.getByTestId('time-up')).toHaveText(/^Time is up for the last puzzle/);
  await expect(p.countdown).toBeVisible();
  await p.answer('mother', 5);
  expect(await p.screen()).toBe('completion');

  const { rows } = await p.results();
  expect(rows).toHaveLength(2);
  const out = rows.find((r) => normalise(r.story) === timedOut)!;
  expect(out).toBeDefined();
  expect(out).toMatchObject({
    ended_on: 'timeout',
    response: '',
    difficulty: '',
    correct: 'false',
    time_limit_s: '4',
    condition: 'timed',
  });
  const answered = rows.find((r) => r !== out)!;
  expect(answered).toMatchObject({ ended_on: 'response', response: 'mother', difficulty: '5', time_limit_s: '4' });
});

test('tampered, truncated, future and invalid links and an unknown condition show study-error and nothing else', async ({
  page,
}) => {
  const path = cliLink(['--k', '2', '--per-k', '1', '--seed', '3']);
  const token = tokenOf(path);
  const mid = Math.floor(token.length / 2);
  const tampered = token.slice(0, mid) + (token[mid] === 'A' ? 'B' : 'A') + token.slice(mid + 1);
  const truncated = token.slice(0, token.length - 11);
  // Well-formed tokens with a right checksum: a format version from the future, a study that cannot run.
  const signed = (body: string) => `${body}.${crc32(body).toString(16).padStart(8, '0')}`;
  const future = signed(`s2.${token.split('.')[1]}`);
  const invalid = signed(`s1.${Buffer.from(deflateSync(strToU8('{"k":[99]}'))).toString('base64url')}`);
  const p = new Participant(page);
  for (const [bad, kind] of [
    [tampered, 'tampered'],
    [truncated, 'truncated'],
    [future, 'unknown-version'],
    [invalid, 'invalid-study'],
  ] as const) {
    const decoded = decodeStudyLink(bad);
    expect(decoded.ok ? 'ok' : decoded.error.kind).toBe(kind);
    await page.goto(`/?study=${bad}`);
    expect(await p.screen()).toBe('error');
    if (!decoded.ok) await expect(p.error).toContainText(decoded.error.message);
    await expect(p.consentAccept).toHaveCount(0);
    await expect(p.story).toHaveCount(0);
  }
  await page.goto(`/${path}&condition=nope`);
  expect(await p.screen()).toBe('error');
  await expect(p.error).toContainText('nope');
  await expect(p.consentAccept).toHaveCount(0);
});

test("Prolific's ids from the link are on every row", async ({ page }) => {
  const path = cliLink(['--k', '2', '--per-k', '2', '--seed', '8', '--practice', '1', '--study-id', 'prolific-e2e']);
  const p = new Participant(page);
  const fetched: string[] = [];
  page.on('request', (r) => fetched.push(r.url()));
  await page.goto(`/${path}&PROLIFIC_PID=pp1&STUDY_ID=st1&SESSION_ID=se1`);
  await p.runUntil('completion');
  // Outside JATOS no jatos.js is loaded, and nothing comes from another origin.
  expect(fetched.filter((u) => u.includes('jatos'))).toEqual([]);
  expect(fetched.filter((u) => !u.startsWith(new URL(page.url()).origin) && !u.startsWith('data:'))).toEqual([]);
  const { rows } = await p.results();
  expect(rows).toHaveLength(trialCount(definitionOf(path)));
  // The JSON download has the same rows, values as recorded.
  const json = JSON.parse((await p.downloadText(p.downloadJson)).text) as { format: string; rows: unknown[] };
  expect(json.format).toBe('clutrr-lab-study-results/1');
  expect(json.rows).toHaveLength(rows.length);
  expect(json.rows[0]).toMatchObject({ participant_id: 'pp1', trial_index: 0, strict: true });
  for (const r of rows) {
    expect(r).toMatchObject({
      study_id: 'prolific-e2e',
      participant_id: 'pp1',
      prolific_study_id: 'st1',
      prolific_session_id: 'se1',
    });
  }
});

test('a second tab of the same session is blocked; the first carries on', async ({ page, context }) => {
  const path = cliLink(['--k', '2', '--per-k', '2', '--seed', '9', '--practice', '0']);
  const first = new Participant(page);
  await page.goto(`/${path}`);
  await first.runUntil('trial');

  const other = await context.newPage();
  const second = new Participant(other);
  await other.goto(`/${path}`);
  expect(await second.screen()).toBe('blocked');
  await expect(second.blocked).toContainText(/\S/);
  await expect(second.consentAccept).toHaveCount(0);
  await expect(second.story).toHaveCount(0);

  // Another Prolific participant in the same browser is another session: not blocked.
  const third = new Participant(await context.newPage());
  await third.page.goto(`/${path}&PROLIFIC_PID=someone-else`);
  expect(await third.screen()).toBe('consent');
  await third.page.close();

  // Back in the first tab (a tab in the background is throttled).
  await page.bringToFront();
  await first.runUntil('completion');
  const { rows } = await first.results();
  expect(rows).toHaveLength(trialCount(definitionOf(path)));
});

test('a session refused by its resume policy, or past its maximum age, shows study-blocked', async ({
  page,
  context,
}) => {
  const p = new Participant(page);
  // Refuse: a reopened session is not taken again.
  const refusing = cliLink(['--k', '2', '--per-k', '2', '--seed', '61', '--practice', '0', '--resume', 'refuse']);
  await page.goto(`/${refusing}`);
  await p.runUntil('trial');
  await p.answer();
  await page.reload();
  expect(await p.screen()).toBe('blocked');
  await expect(p.blocked).toContainText(/\S/);
  await expect(p.story).toHaveCount(0);

  // Expired: reopened more than --max-age minutes after its start (the browser's clock moved on).
  await context.clock.install({ time: new Date('2026-03-02T09:00:00Z') });
  const ageing = cliLink(['--k', '2', '--per-k', '2', '--seed', '62', '--practice', '0', '--max-age', '30']);
  await page.goto(`/${ageing}`);
  await p.runUntil('trial');
  await p.answer();
  await context.clock.setSystemTime(new Date('2026-03-02T09:29:00Z'));
  await page.reload();
  expect(await p.screen()).toBe('trial');
  await context.clock.setSystemTime(new Date('2026-03-02T09:31:00Z'));
  await page.reload();
  expect(await p.screen()).toBe('blocked');
  await expect(p.blocked).toContainText(/30\s*min/);
  await expect(p.story).toHaveCount(0);
});
