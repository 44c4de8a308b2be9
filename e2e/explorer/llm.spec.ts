import { expect, type Page, test } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseCsv } from '../../src/core/formats/csv';
import { Explorer } from '../fixtures/explorer';

/**
 * "Ask a language model" (issue 35) against a chat-completions stub on loopback, started here
 * (node:http, a free port, CORS headers for any origin; it closes itself after five minutes):
 * the explorer's ask panel answers a puzzle (its answer behind "Show their answers" until the
 * reader answers, issue 33), an endpoint without CORS gets the message naming the server setting,
 * and the results dashboard sets the stub's accuracy by k beside people's.
 */

const ARTIFACTS = 'e2e/artifacts';
mkdirSync(ARTIFACTS, { recursive: true });
const KEY = 'sk-e2e-NEVER-SHOWN-5150';

interface Seen {
  auth: string | undefined;
  origin: string | undefined;
  body: { model: string; messages: { content: string }[]; temperature?: number; max_tokens?: number };
}

/** A chat-completions stub; `answer` words each reply from the prompt; `cors` sends the headers. */
function startStub(cors: boolean, answer: (prompt: string) => string) {
  const seen: Seen[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const headers: Record<string, string> = cors
      ? {
          'Access-Control-Allow-Origin': req.headers.origin ?? '*',
          'Access-Control-Allow-Methods': 'POST, OPTIONS',
          'Access-Control-Allow-Headers': 'content-type, authorization',
        }
      : {};
    if (req.method === 'OPTIONS') {
      res.writeHead(204, headers).end();
      return;
    }
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, headers).end();
        return;
      }
      const body = JSON.parse(text) as Seen['body'];
      seen.push({ auth: req.headers.authorization, origin: req.headers.origin, body });
      const content = answer(body.messages[0]!.content);
      res.writeHead(200, { ...headers, 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content } }],
          usage: { prompt_tokens: 120, completion_tokens: 9, total_tokens: 129 },
        }),
      );
    });
  });
  const ready = new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
  setTimeout(() => server.close(), 300_000).unref();
  return { server, seen, ready };
}

/** What the explorer stub answers: set by the test from the puzzle in view. */
let explorerAnswer = 'aunt';
const explorerStub = startStub(true, () => `Let me follow the family step by step.\nAnswer: ${explorerAnswer}`);
const refusing = startStub(false, () => 'aunt');

/** The real study file's items (e2e/fixtures/results-real.csv): story, names, gold, k; people by k. */
function realItems() {
  const [header, ...records] = parseCsv(readFileSync('e2e/fixtures/results-real.csv', 'utf8')).filter(
    (r) => r.length > 1,
  );
  const col = (n: string) => header!.indexOf(n);
  const items = new Map<string, { story: string; a: string; b: string; gold: string; k: number }>();
  const people = new Map<number, [number, number]>();
  for (const f of records) {
    const k = Number(f[col('k')]);
    items.set(f[col('puzzle_id')]!, {
      story: f[col('story')]!,
      a: f[col('query_a')]!,
      b: f[col('query_b')]!,
      gold: f[col('gold')]!,
      k,
    });
    const [n, c] = people.get(k) ?? [0, 0];
    people.set(k, [n + 1, c + (f[col('correct')] === 'true' ? 1 : 0)]);
  }
  return { items: [...items.values()], people };
}
const real = realItems();
/** The dashboard stub: right on k = 2, a wrong word on k = 3, a refusal (unparseable) on k = 4. */
const dashboardStub = startStub(true, (prompt) => {
  const item = real.items.find((i) => prompt.includes(i.story) && prompt.includes(`How is ${i.b} related to ${i.a}?`));
  if (!item) return 'I do not know this story.';
  if (item.k === 2) return `${item.a} and ${item.b}: so the answer is ${item.gold}.`;
  if (item.k === 3) return item.gold === 'son-in-law' ? 'daughter-in-law' : 'son-in-law';
  return 'I am sorry, I cannot work out how they are related.';
});

test.afterAll(() => {
  for (const s of [explorerStub, refusing, dashboardStub]) s.server.close();
});

async function fillEndpoint(page: Page, url: string, prompt: string) {
  await page.getByTestId('llm-url').fill(url);
  await page.getByTestId('llm-model').fill('stub-7b');
  await page.getByTestId('llm-key').fill(KEY);
  await page.getByTestId('llm-prompt').selectOption(prompt);
}

test('the ask panel asks a stub on loopback; its answer waits until the reader answers', async ({ page }) => {
  const base = await explorerStub.ready;
  await page.goto('/?seed=42&k=3&task=1');
  const explorer = new Explorer(page);
  await explorer.ready();
  const puzzle = await explorer.puzzle();
  explorerAnswer = puzzle.target.word;
  const a = puzzle.entities[puzzle.query[0]]!.name;
  const b = puzzle.entities[puzzle.query[1]]!.name;

  const panel = page.getByTestId('llm-panel');
  await expect(panel).toBeVisible();
  // Nothing is sent before an endpoint is given and the button pressed.
  await expect(page.getByTestId('llm-ask')).toBeDisabled();
  expect(explorerStub.seen).toHaveLength(0);
  await fillEndpoint(page, `${base}/v1`, 'cot');
  await page.getByTestId('llm-ask').click();

  const answer = page.getByTestId('llm-answer');
  await expect(answer).toContainText('answered (hidden until you answer or reveal the proof');
  await expect(answer).not.toHaveAttribute('data-relation');
  await expect(page.getByTestId('llm-reply')).toHaveCount(0);
  expect(explorerStub.seen).toHaveLength(1);
  const sent = explorerStub.seen[0]!;
  expect(sent.auth).toBe(`Bearer ${KEY}`);
  expect(sent.body).toMatchObject({ model: 'stub-7b', temperature: 0, max_tokens: 768 });
  expect(sent.body.messages[0]!.content).toContain(`How is ${b} related to ${a}?`);
  expect(sent.body.messages[0]!.content).toContain('Answer: <word>');
  // The prompt shown is the text sent, word for word.
  await page.getByText('The prompt sent').click();
  expect(await page.getByTestId('llm-prompt-text').textContent()).toBe(sent.body.messages[0]!.content);
  await page.getByTestId('model-panel').screenshot({ path: `${ARTIFACTS}/llm-explorer-hidden.png` });

  // The reader answers: the model's answer shows, then Reveal marks it right.
  await page.locator(`[data-testid="answer-option"][data-relation="${puzzle.target.word}"]`).click();
  await expect(answer).toHaveAttribute('data-relation', puzzle.target.word);
  await expect(answer).toHaveAttribute('data-outcome', 'answer');
  await expect(page.getByTestId('llm-meta')).toContainText('Chain of thought prompt');
  await expect(page.getByTestId('llm-meta')).toContainText('120 + 9 tokens');
  await page.getByText('Its reply, word for word').click();
  await expect(page.getByTestId('llm-reply')).toHaveText(
    `Let me follow the family step by step.\nAnswer: ${explorerAnswer}`,
  );
  const reveal = page.getByTestId('reveal-answer');
  if (await reveal.isEnabled()) await reveal.click();
  await expect(answer).toContainText('✓ right');
  await page.getByTestId('model-panel').screenshot({ path: `${ARTIFACTS}/llm-explorer.png` });

  // A new puzzle: the old answer is not shown for it; asking again, it waits behind the step.
  await page.getByTestId('new-puzzle').click();
  await expect(page.getByTestId('llm-answer')).toHaveCount(0);
  const next = await explorer.puzzle();
  explorerAnswer = next.target.word;
  await page.getByTestId('llm-ask').click();
  await expect(page.getByTestId('llm-show')).toHaveText('Show their answers');
  await page.getByTestId('llm-show').click();
  await expect(page.getByTestId('llm-answer')).toHaveAttribute('data-relation', next.target.word);

  // The key is in no link, no storage; "remember on this device" stores it, unticking removes it.
  expect(page.url()).not.toContain(KEY);
  const stored = () => page.evaluate(() => JSON.stringify(localStorage) + JSON.stringify(sessionStorage));
  expect(await stored()).not.toContain(KEY);
  await page.getByTestId('llm-remember').check();
  expect(await stored()).toContain(KEY);
  await page.getByTestId('llm-remember').uncheck();
  expect(await stored()).not.toContain(KEY);
  await expect(page.locator('body')).not.toContainText(KEY);
});

test('an endpoint that refuses the page’s origin gets the one-line setting that allows it', async ({ page }) => {
  const base = await refusing.ready;
  // On a phone: the form and the long message stay inside the page.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/?seed=7&k=2&task=1');
  await new Explorer(page).ready();
  await fillEndpoint(page, base, 'zero-shot');
  await page.getByTestId('llm-ask').click();
  const error = page.getByTestId('llm-error');
  const origin = new URL(page.url()).origin;
  await expect(error).toContainText(`refuses this page's origin (${origin}: CORS)`);
  await expect(error).toContainText(`OLLAMA_ORIGINS=${origin} ollama serve`);
  await expect(error).toContainText(`--cors-origins ${origin}`);
  await expect(error).toContainText(`npm run serve -- --llm-origin ${base}`);
  await expect(error).not.toContainText(KEY);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.getByTestId('llm-panel').screenshot({ path: `${ARTIFACTS}/llm-cors.png` });
});

test('the dashboard sets the stub’s accuracy by k beside people’s, with intervals', async ({ page }) => {
  const base = await dashboardStub.ready;
  await page.goto('/#/results');
  await page
    .getByTestId('results-drop')
    .setInputFiles([{ name: 'real.csv', mimeType: 'text/csv', buffer: readFileSync('e2e/fixtures/results-real.csv') }]);
  const section = page.getByTestId('results-models');
  await expect(section).toBeVisible();
  await page.getByTestId('results-llm').locator('summary').click();
  await fillEndpoint(page, `${base}/v1`, 'zero-shot');
  await page.getByTestId('results-llm-run').click();
  await expect(page.getByTestId('results-llm-status')).toHaveAttribute('data-status', 'done');
  const k4 = real.items.filter((i) => i.k === 4).length;
  await expect(page.getByTestId('results-llm-status')).toHaveText(
    `stub-7b answered ${real.items.length} items; unparseable=${k4}.`,
  );
  expect(dashboardStub.seen).toHaveLength(real.items.length);
  for (const [k, want] of [
    [2, 1],
    [3, 0],
    [4, 0],
  ] as const) {
    const n = real.items.filter((i) => i.k === k).length;
    const cell = page.getByTestId(`results-models-acc-llm-${k}`);
    await expect(cell).toHaveAttribute('data-n', String(n));
    expect(Number(await cell.getAttribute('data-value'))).toBe(want);
    await expect(cell).toContainText(`${want * n}/${n}`);
    const [pn, pc] = real.people.get(k)!;
    const people = page.getByTestId(`results-models-people-${k}`);
    await expect(people).toHaveAttribute('data-n', String(pn));
    expect(Number(await people.getAttribute('data-value'))).toBeCloseTo(pc / pn, 10);
    // The same Wilson interval on both sides.
    for (const c of [cell, people]) {
      const lo = Number(await c.getAttribute('data-lo'));
      const hi = Number(await c.getAttribute('data-hi'));
      expect(lo).toBeLessThanOrEqual(Number(await c.getAttribute('data-value')));
      expect(hi).toBeGreaterThanOrEqual(Number(await c.getAttribute('data-value')));
    }
  }
  await expect(page.getByTestId('results-llm-unparseable')).toContainText(String(k4));
  await section.scrollIntoViewIfNeeded();
  await section.screenshot({ path: `${ARTIFACTS}/llm-results.png` });
  expect(page.url()).not.toContain(KEY);
  await expect(page.locator('body')).not.toContainText(KEY);
});

test('the models view asks the stub fresh puzzles of each k and shows its accuracy by k', async ({ page }) => {
  // This stub never names a relation: every reply is unparseable, counted as wrong.
  const stub = startStub(true, () => 'I am not able to tell from this story.');
  const base = await stub.ready;
  await page.goto('/#/models');
  const section = page.getByTestId('models-llm');
  await section.scrollIntoViewIfNeeded();
  await section.getByTestId('llm-url').fill(`${base}/v1`);
  await section.getByTestId('llm-model').fill('stub-7b');
  await section.getByTestId('llm-prompt').selectOption('zero-shot');
  await page.getByTestId('models-llm-rows').fill('2');
  await page.getByTestId('models-llm-run').click();
  await expect(page.getByTestId('models-llm-status')).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  const rows = page.getByTestId('models-llm-k');
  const n = await rows.count();
  expect(n).toBeGreaterThanOrEqual(2);
  for (let i = 0; i < n; i++) {
    const row = rows.nth(i);
    await expect(row).toHaveAttribute('data-rows', '2');
    await expect(row).toHaveAttribute('data-unparseable', '2');
    await expect(row).toHaveAttribute('data-correct', '0');
  }
  // Every puzzle went to the stub once, each with its own story and question.
  expect(stub.seen).toHaveLength(2 * n);
  const prompts = new Set(stub.seen.map((s) => s.body.messages[0]!.content));
  expect(prompts.size).toBe(2 * n);
  for (const p of prompts) expect(p).toMatch(/How is \w+ related to \w+\?/);
  // The k curve draws it beside the shipped models (all wrong here: on the axis).
  await expect(page.locator('[data-testid="models-chart"] [data-series="llm"]')).toHaveCount(1);
  await section.screenshot({ path: `${ARTIFACTS}/llm-models.png` });
  stub.server.close();
});
