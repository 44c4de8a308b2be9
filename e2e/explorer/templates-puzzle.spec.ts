import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';

/**
 * A template file in the original CLUTRR JSON shape, loaded in the puzzle view: the story is
 * written with the file's paraphrases, links do not carry it (a note says so), and "Use our
 * bank" goes back to the built-in bank.
 */

const ARTIFACTS = 'e2e/artifacts';
mkdirSync(ARTIFACTS, { recursive: true });
const MINI = 'e2e/fixtures/templates-mini.json';
const FILE = JSON.parse(readFileSync(MINI, 'utf8')) as Record<string, Record<string, string[]>>;
const KEY: Record<string, string> = { son: 'son', daughter: 'daughter', niece: 'neice' };

interface OneFact {
  target: string;
  from: { name: string; gender: string };
  to: { name: string; gender: string };
}

/** Loads k = 1 puzzles through the test hook until the relation is one of the file's keys. */
async function loadMiniPuzzle(page: Page): Promise<OneFact> {
  return page.evaluate(async (words) => {
    const hook = window.__clutrr!;
    for (let seed = 1; seed < 300; seed++) {
      const p = await hook.loadPuzzle(seed, 1, 1);
      if (p && words.includes(p.target.word)) {
        const f = p.facts.find((x) => x.kind === 'path')!;
        const person = (i: number) => ({ name: p.entities[i]!.name, gender: p.entities[i]!.gender });
        return { target: p.target.word, from: person(f.from), to: person(f.to) };
      }
    }
    throw new Error('no k = 1 puzzle with a son, daughter or niece');
  }, Object.keys(KEY));
}

/** The file's templates for the fact, with the two names filled in. */
function filled(fact: OneFact): string[] {
  const templates = FILE[KEY[fact.target]!]![`${fact.from.gender}-${fact.to.gender}`] ?? [];
  return templates.map((t) =>
    t.replace(/ENT_0_(male|female)/g, fact.from.name).replace(/ENT_1_(male|female)/g, fact.to.name),
  );
}

test('a template file writes the puzzle view story; "Use our bank" goes back', async ({ page }) => {
  await page.goto('/?seed=1&k=1&task=1');
  await expect(page.getByTestId('story')).toBeVisible();
  const fact = await loadMiniPuzzle(page);
  const sentence = page.getByTestId('story-sentence');
  await expect(sentence).toHaveCount(1);
  const ours = await sentence.innerText();
  const url = page.url();
  expect(filled(fact)).not.toContain(ours);
  await expect(page.getByTestId('template-link-note')).toHaveCount(0);

  await page.getByText('Family and text settings').click();
  await page.getByTestId('template-file').setInputFiles(MINI);
  await expect(page.getByTestId('template-summary')).toContainText('templates-mini.json: 3 keys, 6 paraphrases');
  await expect(page.getByTestId('template-link-note')).toContainText('carry the template file');
  await expect(sentence).toHaveText(/lighthouse/);
  expect(filled(fact)).toContain(await sentence.innerText());
  // The file is not a setting: the URL stays the same.
  expect(page.url()).toBe(url);
  await page.screenshot({ path: `${ARTIFACTS}/puzzle-templates.png`, fullPage: true });
  const result = await new AxeBuilder({ page }).include('.controls').analyze();
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);

  // Halves of the seeded split still draw from the file; plain sentences take no file.
  await page.getByTestId('mode-select').selectOption('train');
  await expect(sentence).toHaveText(/lighthouse/);
  await page.getByTestId('mode-select').selectOption('synthetic');
  await expect(page.getByTestId('template-file')).toBeDisabled();
  await expect(sentence).not.toHaveText(/lighthouse/);
  await page.getByTestId('mode-select').selectOption('paraphrase');
  await expect(sentence).toHaveText(/lighthouse/);

  await page.getByTestId('template-reset').click();
  await expect(page.getByTestId('template-summary')).toContainText('Using our bank');
  await expect(page.getByTestId('template-link-note')).toHaveCount(0);
  await expect(sentence).toHaveText(ours);
});
