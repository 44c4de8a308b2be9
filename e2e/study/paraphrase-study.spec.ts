import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { seriousViolations } from '../fixtures/axe';
import { Collector } from '../fixtures/collect';
import { cliLink, definitionOf, Participant, PHONE, readResultsCsv, type CsvRow } from '../fixtures/study';

/**
 * Issue 24, one participant at a time, without the results server (H24c's spec runs the whole
 * pipeline through it): a paraphrase study made by `study link --kind paraphrase` on a phone, with
 * one story refused by the live checks and then fixed, a reload that keeps the draft and the rows
 * already committed, Ctrl+Enter from the text box; then a review study made by `study link --kind
 * review --stories` from that participant's downloaded file, one story marked bad with a reason
 * and two good (one by keyboard). Screenshots at 390 px and 1280 px go to SHOTS.
 */
const SHOTS = process.env.E2E_SHOTS ?? 'e2e/artifacts';
const DESKTOP = { width: 1280, height: 800 } as const;
const SEND = 'Send the file to lab@example.org.';

test.use({ viewport: PHONE });

test.describe.serial('collection studies, one participant', () => {
  /** The paraphrase participant's downloaded results, for the review study. */
  let writtenCsv = '';
  let written: CsvRow[] = [];

  test('a paraphrase study on a phone: a refused story fixed, a reload keeps the draft and the rows', async ({
    page,
  }, info) => {
    const link = cliLink([
      ...['--kind', 'paraphrase', '--study-id', 'para-e2e', '--seed', '11'],
      ...['--sink', 'download', '--send-instructions', SEND],
    ]);
    await page.goto(`/${link}&PROLIFIC_PID=writer-1&STUDY_ID=prolific-study&SESSION_ID=prolific-session`);
    const p = new Participant(page);
    const c = new Collector(page);
    await p.consentAccept.click();
    await expect(page.getByTestId('instructions-examples')).toBeVisible();
    await page.screenshot({ path: `${SHOTS}/h24b-paraphrase-instructions-390.png`, fullPage: true });
    await p.continueButton.click();

    // The first clause: facts one per line, the implied fact kept back, Submit off until the checks pass.
    const facts1 = await c.factLines();
    expect(facts1.length).toBeGreaterThanOrEqual(1);
    for (const f of facts1) expect(f).toMatch(/^[A-Z][a-z]+ is the [a-z-]+ of [A-Z][a-z]+\.$/);
    await expect(c.implied).toBeVisible();
    await expect(c.submitParaphrase).toBeDisabled();
    await c.text.fill('They spent a lovely day at the beach together.');
    expect(await c.problemCodes()).toContain('missing-person');
    await expect(c.submitParaphrase).toBeDisabled();
    expect(await p.horizontalOverflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/h24b-paraphrase-refused-390.png`, fullPage: true });
    // Readable in both themes: no serious axe violation (colour contrast included).
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/h24b-paraphrase-refused-390-dark.png`, fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    // Clicking a disabled Submit records nothing.
    await c.submitParaphrase.click({ force: true });
    expect(await c.storedKeys('row/')).toEqual([]);

    const story1 = facts1.join(' ');
    await c.text.fill(story1);
    await expect(c.problems).toHaveAttribute('data-count', '0');
    await expect(c.submitParaphrase).toBeEnabled();
    await page.screenshot({ path: `${SHOTS}/h24b-paraphrase-passing-390.png`, fullPage: true });
    await c.submitParaphrase.click();
    await expect.poll(() => c.done()).toBe(1);

    // The second clause: typed, kept as a draft once typing pauses, and still there after a reload.
    const facts2 = await c.factLines();
    expect(facts2).not.toEqual(facts1);
    const story2 = `${facts2.join(' ')} It rained all afternoon.`;
    await c.text.fill(story2);
    await expect
      .poll(async () => (await c.stored()).find(([k]) => k.startsWith('draft/'))?.[1], { timeout: 5000 })
      .toMatchObject({ text: story2 });
    expect(await c.storedKeys('row/')).toHaveLength(1);
    await page.reload();
    await expect(c.text).toHaveValue(story2);
    expect(await c.factLines()).toEqual(facts2);
    await expect.poll(() => c.done()).toBe(1);
    expect(await c.storedKeys('row/')).toHaveLength(1);
    await expect(c.problems).toHaveAttribute('data-count', '0');
    await page.screenshot({ path: `${SHOTS}/h24b-paraphrase-reloaded-390.png`, fullPage: true });

    // Ctrl+Enter in the text box submits; the committed row replaces the draft.
    await c.text.focus();
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => c.done()).toBe(2);
    expect(await c.storedKeys('draft/')).toEqual([]);

    const facts3 = await c.factLines();
    await page.setViewportSize(DESKTOP);
    await page.screenshot({ path: `${SHOTS}/h24b-paraphrase-trial-1280.png`, fullPage: true });
    await page.setViewportSize(PHONE);
    const story3 = facts3.join(' ');
    await c.text.fill(story3);
    await c.submitParaphrase.click();
    await expect(p.completion).toBeVisible();

    const download = await p.downloadText();
    writtenCsv = download.text;
    written = readResultsCsv(writtenCsv).rows;
    expect(written.map((r) => [r.trial_index, r.story])).toEqual([
      ['0', story1],
      ['1', story2],
      ['2', story3],
    ]);
    for (const r of written) {
      expect(r).toMatchObject({
        study_id: 'para-e2e',
        participant_id: 'writer-1',
        prolific_study_id: 'prolific-study',
        prolific_session_id: 'prolific-session',
        phase: 'main',
        response: '',
        correct: 'true',
        ended_on: 'response',
        difficulty: '',
      });
      expect(r.puzzle_id).toMatch(/^c1\.[a-z-]+\.[a-z-]+$/);
      // The query is the implied fact's pair (the one fact's for k = 1): both are people of the story.
      expect(r.story).toContain(r.query_a);
      expect(r.story).toContain(r.query_b);
    }
    expect(written.map((r) => r.resumed)).toEqual(['false', 'true', 'false']);
    mkdirSync(info.outputDir, { recursive: true });
  });

  test('a review study of those stories, embedded in its link: bad with a reason, and good by keyboard', async ({
    page,
  }, info) => {
    expect(written).toHaveLength(3);
    const file = path.join(info.outputDir, 'para-e2e.csv');
    mkdirSync(info.outputDir, { recursive: true });
    writeFileSync(file, writtenCsv);
    const link = cliLink([
      ...['--kind', 'review', '--study-id', 'review-e2e', '--stories', file],
      ...['--sink', 'download', '--send-instructions', SEND],
    ]);
    await page.goto(`/${link}&PROLIFIC_PID=reviewer-1&participant=0`);
    const p = new Participant(page);
    const c = new Collector(page);
    await p.consentAccept.click();
    await expect(page.getByTestId('instructions-examples')).toBeVisible();
    await p.continueButton.click();

    const byStory = new Map(written.map((r) => [r.story, r]));
    const seen: string[] = [];
    // The first story: bad needs a reason before Submit works.
    await expect(c.reviewStory).toBeVisible();
    seen.push((await c.reviewStory.textContent())!);
    expect(byStory.has(seen[0]!)).toBe(true);
    expect((await c.reviewFacts.locator('li').allTextContents()).length).toBe(Number(byStory.get(seen[0]!)!.k));
    await expect(c.submitReview).toBeDisabled();
    await c.verdict('bad').click();
    await expect(c.verdict('bad')).toHaveAttribute('aria-pressed', 'true');
    await expect(c.submitReview).toBeDisabled();
    await c.reason('missing-fact').check();
    await expect(c.submitReview).toBeEnabled();
    expect(await p.horizontalOverflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/h24b-review-bad-390.png`, fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/h24b-review-bad-390-dark.png`, fullPage: true });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(DESKTOP);
    await page.screenshot({ path: `${SHOTS}/h24b-review-bad-1280.png`, fullPage: true });
    await page.setViewportSize(PHONE);
    await c.submitReview.click();
    await expect.poll(() => c.done()).toBe(1);

    // The second by keyboard alone: G for good, Enter to submit.
    seen.push((await c.reviewStory.textContent())!);
    await page.keyboard.press('g');
    await expect(c.verdict('good')).toHaveAttribute('aria-pressed', 'true');
    await page.keyboard.press('Enter');
    await expect.poll(() => c.done()).toBe(2);

    seen.push((await c.reviewStory.textContent())!);
    await c.verdict('good').click();
    await c.submitReview.click();
    await expect(p.completion).toBeVisible();
    expect(new Set(seen)).toEqual(new Set(written.map((r) => r.story)));

    const rows = readResultsCsv((await p.downloadText()).text).rows;
    expect(rows.map((r) => [r.response, r.correct])).toEqual([
      ['bad:missing-fact', 'false'],
      ['good', 'true'],
      ['good', 'true'],
    ]);
    for (const [i, r] of rows.entries()) {
      const source = byStory.get(seen[i]!)!;
      expect(r).toMatchObject({
        study_id: 'review-e2e',
        participant_id: 'reviewer-1',
        puzzle_id: `${source.session_id}/${source.trial_index}`,
        seed: source.seed,
        k: source.k,
        query_a: source.query_a,
        query_b: source.query_b,
        gold: source.gold,
        story: source.story,
        difficulty: '',
      });
    }
  });
  test('the designer: the kind first, its settings, and the link and command line of that kind', async ({
    page,
  }, info) => {
    await page.setViewportSize(DESKTOP);
    await page.goto('/#/study');
    await page.evaluate(() => localStorage.removeItem('clutrr-lab:study-designer'));
    await page.reload();
    const field = (name: string) => page.locator(`[name="${name}"]`);
    const cli = page.getByTestId('study-cli');
    await page.locator('[data-testid="study-kind-option"][value="paraphrase"]').check();
    await expect(field('k')).toHaveCount(0);
    await expect(page.getByTestId('study-drawing-note')).toHaveCount(0);
    await field('clausesPerParticipant').fill('2');
    await field('download').check();
    await field('sendInstructions').fill('Mail it to lab@example.org.');
    await expect(cli).toContainText('--kind paraphrase');
    await expect(cli).toContainText('--clauses-per-participant 2');
    const paraLink = (await page.getByTestId('study-link').textContent())!;
    expect(definitionOf(paraLink.slice(paraLink.indexOf('?')))).toMatchObject({
      kind: 'paraphrase',
      clausesPerParticipant: 2,
    });
    await expect(page.getByTestId('study-summary-counts')).toHaveText(
      'Each participant writes a story for 2 clauses of 1, 2, 3 facts (genders any), 5 to 120 words each.',
    );
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SHOTS}/h24b-designer-paraphrase-1280.png`, fullPage: true });

    // A review study asks for its stories, then embeds those of the paraphrase participant's file.
    await page.locator('[data-testid="study-kind-option"][value="review"]').check();
    await expect(page.locator('[data-testid="study-field-error"][data-field="reviewStories"]')).toContainText(
      'a review study needs stories to review',
    );
    const file = path.join(info.outputDir, 'designer-stories.csv');
    mkdirSync(info.outputDir, { recursive: true });
    writeFileSync(file, writtenCsv);
    await page.getByTestId('study-stories-load').setInputFiles(file);
    await expect(page.getByTestId('study-stories-count')).toHaveText(
      '3 stories embedded (paraphrases that passed the live checks).',
    );
    await expect(cli).toContainText('--kind review');
    await expect(cli).toContainText('--stories study.stories.json');
    const reviewLink = (await page.getByTestId('study-link').textContent())!;
    const review = definitionOf(reviewLink.slice(reviewLink.indexOf('?')));
    expect(review.kind).toBe('review');
    expect(review.reviewStories.map((s) => s.story)).toEqual(written.map((r) => r.story));
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: `${SHOTS}/h24b-designer-review-1280.png`, fullPage: true });
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: `${SHOTS}/h24b-designer-review-390.png`, fullPage: true });
  });
});
