import { execFileSync } from 'node:child_process';
import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { encodedLink, Participant, PHONE, tokenOf } from '../fixtures/study';

/**
 * Every item's story, gold word and query names computed in Node by the generator worker's
 * recipe (core generatePuzzle, datasetRenderer with the template split seeded by '1', the story's
 * randomness from the puzzle seed), by puzzle id. In a child process with tsx, because the
 * paraphrase bank is JSON that Playwright's loader does not import.
 */
function nodeTrials(token: string): Map<string, { story: string; gold: string; queryA: string; queryB: string }> {
  const script = `
    import { generatePuzzle } from './src/core/puzzle/puzzle.ts';
    import { createRng } from './src/core/random/rng.ts';
    import { datasetRenderer } from './src/core/text/datasetText.ts';
    import { decodeStudyLink } from './src/study/definition/link.ts';
    import { studyItems } from './src/study/schedule/schedule.ts';
    import { storyRequest, trialContent } from './src/study/schedule/trialContent.ts';
    const decoded = decodeStudyLink(${JSON.stringify(token)});
    const def = decoded.definition;
    const items = studyItems(def);
    const out = [...items.practice, ...items.main, ...items.checks].map((item) => {
      const body = storyRequest(def, item);
      const puzzle = generatePuzzle({ seed: body.seed, k: body.k, task: body.task, strict: body.strict });
      const story = datasetRenderer(body.text, '1').render(puzzle, body.text.half, createRng(puzzle.seed, 'text'));
      return [item.puzzleId, trialContent(puzzle, story, item)];
    });
    console.log(JSON.stringify(out));`;
  const json = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return new Map(JSON.parse(json));
}

/**
 * The participant page's own smoke check (the contract's specs are study-*.spec.ts): a run in the
 * drawing-and-scratchpad condition on a phone, and a timed preview. It saves screenshots of the
 * screens the other specs do not shoot, and logs the medians of the `study:put` and
 * `study:answer-to-next` measures (figures, not assertions: timings are not tested).
 */
test.use({ viewport: PHONE });

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

test('drawing and scratchpad condition: the drawing shows the stated facts only; rows and measures', async ({
  page,
}) => {
  const path = encodedLink({
    studyId: 'smoke',
    seed: 17,
    k: [2, 3],
    itemsPerK: 3,
    practice: 1,
    attentionChecks: 1,
    breakEvery: 3,
    completionCode: 'SMOKE-1',
    conditions: [{ id: 'draw', perPuzzleLimitS: null, overallLimitS: null, display: 'text+drawing', scratchpad: true }],
  });
  const p = new Participant(page);
  await page.goto(`/${path}`);
  await p.runUntil('trial');
  const drawing = page.getByTestId('facts-drawing');
  await expect(drawing).toBeVisible();
  await expect(page.getByTestId('scratchpad')).toBeVisible();
  // One labelled arrow per stated fact: as many labels as edges, and no answer edge among them.
  const edges = await drawing.locator('path.study-drawing__edge').count();
  expect(edges).toBeGreaterThan(0);
  await expect(drawing.locator('text.study-drawing__label')).toHaveCount(edges);
  await page.getByTestId('scratchpad').fill('A is B’s mother');
  // No accessibility violations axe can find on a trial with every part shown.
  expect((await new AxeBuilder({ page }).analyze()).violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  expect(await p.horizontalOverflow()).toBeLessThanOrEqual(0);
  await page.screenshot({ path: 'e2e/artifacts/participant-drawing.png', fullPage: true });

  // The check trial says what to answer inside its question.
  let sawCheck = false;
  await p.runUntil('completion', async (s) => {
    expect(await p.horizontalOverflow()).toBeLessThanOrEqual(0);
    if (s === 'trial' && /answer “/.test((await p.question.textContent()) ?? '')) {
      sawCheck = true;
      await page.screenshot({ path: 'e2e/artifacts/participant-check.png', fullPage: true });
    }
  });
  expect(sawCheck).toBe(true);
  // No sink: the answers go nowhere but the file, so the code waits for a download (issue 19).
  await expect(page.getByTestId('download-only-notice')).toBeVisible();
  await expect(p.completionCode).toHaveCount(0);
  await expect(p.sinkStatus).toHaveCount(0);
  const { rows } = await p.results();
  await expect(p.completionCode).toHaveText('SMOKE-1');
  expect((await new AxeBuilder({ page }).analyze()).violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  expect(rows).toHaveLength(1 + 6 + 1);
  expect(rows.every((r) => r.condition === 'draw' && r.ended_on === 'response')).toBe(true);
  // The browser's puzzles (made by the generator worker) are the ones Node makes for the same seeds.
  const expected = nodeTrials(tokenOf(path));
  for (const r of rows) {
    const t = expected.get(r.puzzle_id ?? '')!;
    expect([r.story, r.gold, r.query_a, r.query_b]).toEqual([t.story, t.gold, t.queryA, t.queryB]);
  }

  const figures = await page.evaluate(() =>
    ['study:put', 'study:answer-to-next'].map((n) => performance.getEntriesByName(n).map((e) => e.duration)),
  );
  const [puts, nexts] = figures as [number[], number[]];
  expect(puts).toHaveLength(rows.length);
  expect(nexts.length).toBeGreaterThan(0);
  console.log(
    `study:put median ${median(puts).toFixed(1)} ms (n=${puts.length}); study:answer-to-next median ${median(nexts).toFixed(1)} ms (n=${nexts.length})`,
  );
});

test('a timed preview: banner, countdowns, nothing sent', async ({ page }) => {
  const path = encodedLink(
    {
      studyId: 'smoke-timed',
      seed: 3,
      k: [2],
      itemsPerK: 2,
      practice: 0,
      attentionChecks: 0,
      sinks: [{ kind: 'http', url: 'http://127.0.0.1:9/rows' }],
      conditions: [{ id: 'timed', perPuzzleLimitS: 30, overallLimitS: 600, display: 'text', scratchpad: false }],
    },
    { preview: '1' },
  );
  const p = new Participant(page);
  const posted: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST') posted.push(r.url());
  });
  await page.goto(`/${path}`);
  await expect(page.getByTestId('preview-banner')).toBeVisible();
  await p.runUntil('trial');
  await expect(p.countdown).toHaveText(/^(30|29|28)$/);
  await expect(page.getByTestId('overall-countdown')).toBeVisible();
  await page.screenshot({ path: 'e2e/artifacts/participant-timed.png', fullPage: true });
  await p.runUntil('completion');
  await expect(p.sinkStatus).toHaveCount(0);
  expect(posted).toEqual([]);
});

test('keyboard: arrow keys move by the columns shown, digits rate, Enter submits', async ({ page }) => {
  const path = encodedLink({ studyId: 'smoke-keys', seed: 4, k: [2], itemsPerK: 2, practice: 0, attentionChecks: 0 });
  const p = new Participant(page);
  await page.goto(`/${path}`);
  await p.runUntil('trial');
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-relation') ?? '');
  await page.locator('[data-testid="answer-option"][data-relation="son"]').focus();
  // Two columns on a phone: down from "son" is "father", right is "daughter".
  await page.keyboard.press('ArrowDown');
  expect(await focused()).toBe('father');
  await page.keyboard.press('ArrowRight');
  expect(await focused()).toBe('mother');
  await page.keyboard.press('Space');
  await page.keyboard.press('4');
  await expect(page.locator('[data-testid="difficulty-option"][data-value="4"]')).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  // Enter on a word picks it (the button's own action); Enter elsewhere submits.
  const before = await p.signature();
  await page.getByTestId('trial-story').click();
  await page.keyboard.press('Enter');
  await p.leaves(before);
  await p.runUntil('completion');
  const { rows } = await p.results();
  expect(rows[0]).toMatchObject({ response: 'mother', difficulty: '4', ended_on: 'response' });
});
