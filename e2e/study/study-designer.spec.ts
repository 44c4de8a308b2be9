import { readFileSync } from 'node:fs';
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, test } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';
import { cliLink, definitionOf, tokenOf } from '../fixtures/study';

/**
 * The study designer (#/study): no link until the researcher chooses where results go, field
 * errors from checkStudyDefinition beside their inputs, the participant link (the same as `study
 * link` prints for the same settings), the preview, the JATOS archive and the definition file.
 */

const field = (page: Page, name: string) => page.locator(`[name="${name}"]`);
const errorOf = (page: Page, name: string) => page.locator(`[data-testid="study-field-error"][data-field="${name}"]`);

async function openDesigner(page: Page) {
  await page.goto('/#/study');
  await page.evaluate(() => localStorage.removeItem('clutrr-lab:study-designer'));
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Study designer' })).toBeVisible();
}

/** Screenshots looked at by hand while working on the designer (not compared by the tests). */
const SHOTS = process.env.E2E_SHOTS;

/** A whole-page screenshot from the top (the link panel is sticky beside the form). */
async function shoot(page: Page, name: string) {
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  await page.screenshot({ path: `e2e/artifacts/${name}.png`, fullPage: true });
}

/** Splits the designer's command line into arguments as a POSIX shell would (words, '…' quotes). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (ch === '\\') {
      word = (word ?? '') + line[++i];
    } else if (ch === ' ') {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + ch;
  }
  if (word !== null) words.push(word);
  return words;
}

test('designer: field errors, then the same link as the CLI, the preview, the .jzip and the JSON', async ({
  page,
  context,
  baseURL,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  await openDesigner(page);
  // Where results go is not chosen for the researcher: no link, archive or command line until it is.
  await expect(page.getByTestId('study-no-destination')).toBeVisible();
  await expect(page.getByTestId('study-link')).toHaveCount(0);
  const how = 'E-mail the file to lab@example.org with the subject "CLUTRR".';
  await field(page, 'download').check();
  await field(page, 'sendInstructions').fill(how);
  await expect(page.getByTestId('study-link')).toContainText('?study=s1.');
  await expect(page.getByTestId('study-no-destination')).toHaveCount(0);

  // Bad input: each problem beside its field, no link.
  await field(page, 'k').fill('2, 11');
  await field(page, 'consentText').fill('');
  await expect(errorOf(page, 'k')).toHaveText('k must be whole numbers from 1 to 10 (at least one)');
  await expect(field(page, 'k')).toHaveAttribute('aria-invalid', 'true');
  const describedBy = (await field(page, 'k').getAttribute('aria-describedby')) ?? '';
  const errorId = await errorOf(page, 'k').getAttribute('id');
  expect(describedBy.split(' ')).toContain(errorId);
  await expect(errorOf(page, 'consentText')).toHaveText('the consent text must not be empty');
  await expect(field(page, 'consentText')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByTestId('study-problems')).toContainText('No link while the study has 2 problems');
  await expect(page.getByTestId('study-link')).toHaveCount(0);
  await expect(page.getByTestId('study-jzip')).toHaveCount(0);
  await shoot(page, 'designer-errors');

  // A study the CLI can make too: k 2,3, 2 per k, seed 5, one 60-second condition, no practice.
  const consent = "You agree to take part. It's voluntary.";
  await field(page, 'k').fill('2,3');
  await field(page, 'consentText').fill(consent);
  await field(page, 'itemsPerK').fill('2');
  await field(page, 'seed').fill('5');
  await field(page, 'practice').fill('0');
  await field(page, 'conditions.0.id').fill('timed');
  await field(page, 'conditions.0.perPuzzleLimitS').fill('60');
  await expect(page.getByTestId('study-field-error')).toHaveCount(0);
  await expect(page.getByTestId('study-problems')).toHaveCount(0);

  const cli = cliLink([
    '--sink',
    'download',
    '--send-instructions',
    how,
    '--k',
    '2,3',
    '--per-k',
    '2',
    '--seed',
    '5',
    '--time-limit',
    '60',
    '--practice',
    '0',
    '--consent',
    consent,
  ]);
  const link = (await page.getByTestId('study-link').textContent())!;
  expect(link).toBe(`${baseURL}/${cli}`);
  expect(definitionOf(cli)).toMatchObject({
    k: [2, 3],
    itemsPerK: 2,
    seed: 5,
    practice: 0,
    consentText: consent,
    sinks: [{ kind: 'download', instructions: how }],
  });
  await expect(page.getByTestId('study-summary-counts')).toContainText(
    '4 main, 0 practice, 1 attention check: 5 trials',
  );
  // The command line the designer shows makes the very same link.
  const shown = (await page.getByTestId('study-cli').textContent())!;
  expect(shown.startsWith('npm run cli -- study link ')).toBe(true);
  expect(cliLink(shellWords(shown).slice(6))).toBe(cli);
  await shoot(page, 'designer-desktop');

  // The preview opens the participant page in a new tab, as a preview.
  const [preview] = await Promise.all([context.waitForEvent('page'), page.getByTestId('study-preview').click()]);
  await preview.waitForLoadState('load');
  expect(new URL(preview.url()).searchParams.get('preview')).toBe('1');
  expect(new URL(preview.url()).searchParams.get('study')).toBe(tokenOf(cli));
  await expect(preview.getByTestId('consent-accept').or(preview.getByTestId('study-error'))).toBeVisible();
  await expect(preview.getByTestId('study-error')).toHaveCount(0);
  await preview.close();

  // The JATOS archive: a .jas whose one component has the token as its input, the build beside it.
  const [jzip] = await Promise.all([page.waitForEvent('download'), page.getByTestId('study-jzip').click()]);
  expect(jzip.suggestedFilename()).toBe('study.jzip');
  const files = unzipSync(new Uint8Array(readFileSync((await jzip.path())!)));
  const jas = JSON.parse(strFromU8(files['clutrr_study.jas']!));
  expect(jas.version).toBe('3');
  expect(jas.data.dirName).toBe('clutrr_study');
  expect(jas.data.componentList).toHaveLength(1);
  expect(jas.data.componentList[0].htmlFilePath).toBe('index.html');
  expect(JSON.parse(jas.data.componentList[0].jsonData)).toEqual({ clutrrStudy: tokenOf(cli) });
  const names = Object.keys(files);
  expect(names).toContain('clutrr_study/index.html');
  expect(names.some((n) => /^clutrr_study\/assets\/.+\.js$/.test(n))).toBe(true);
  expect(names.filter((n) => n !== 'clutrr_study.jas').every((n) => n.startsWith('clutrr_study/'))).toBe(true);
  expect(names.some((n) => n.endsWith('.map'))).toBe(false);

  // The definition file, and loading it back (after a reset) restores the same link.
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('study-json').click()]);
  const saved = readFileSync((await json.path())!, 'utf8');
  expect(JSON.parse(saved)).toEqual(definitionOf(cli));
  await page.getByTestId('study-reset').click();
  await expect(page.getByTestId('study-link')).toHaveCount(0);
  await expect(page.getByTestId('study-no-destination')).toBeVisible();
  await page
    .getByTestId('study-json-load')
    .setInputFiles({ name: 'study.json', mimeType: 'application/json', buffer: Buffer.from(saved) });
  await expect(page.getByTestId('study-link')).toHaveText(link);
  // A file that is no study is refused with a message, and the form stays as it was.
  await page
    .getByTestId('study-json-load')
    .setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"k": [0]}') });
  await expect(page.getByTestId('study-json-error')).toContainText('bad.json: This study cannot run: k: ');
  await expect(page.getByTestId('study-link')).toHaveText(link);

  // The form survives a reload (localStorage).
  await page.reload();
  await expect(page.getByTestId('study-link')).toHaveText(link);
});

test('designer: conditions and sinks, on a phone', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openDesigner(page);
  await page.getByTestId('study-add-condition').click();
  await expect(page.getByTestId('study-condition')).toHaveCount(2);
  await field(page, 'conditions.1.id').fill('untimed');
  await expect(errorOf(page, 'conditions.1.id')).toContainText('used twice');
  await field(page, 'conditions.1.id').fill('drawn');
  await page.locator('[name="conditions.1.display"]').selectOption('text+drawing');
  await expect(page.getByTestId('study-drawing-note')).toContainText('does not follow generations');
  await field(page, 'http').check();
  await field(page, 'httpSinks.0').fill('not an address');
  await expect(errorOf(page, 'httpSinks.0')).toHaveText('an HTTP sink needs an http(s) address');
  await field(page, 'httpSinks.0').fill('https://results.example/rows');
  await page.locator('[name="jatos"]').check();
  await expect(page.getByTestId('study-field-error')).toHaveCount(0);
  const link = (await page.getByTestId('study-link').textContent())!;
  const def = definitionOf(link);
  expect(def.conditions.map((c) => [c.id, c.display])).toEqual([
    ['untimed', 'text'],
    ['drawn', 'text+drawing'],
  ]);
  expect(def.sinks).toEqual([{ kind: 'jatos' }, { kind: 'http', url: 'https://results.example/rows' }]);
  const shown = (await page.getByTestId('study-cli').textContent())!;
  expect(cliLink(shellWords(shown).slice(6))).toBe(link.slice(link.indexOf('?')));
  // Nothing wider than the phone's screen.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  // The page is long on a phone: the conditions, then the link and summary, each a screen.
  await page.getByTestId('study-condition').nth(1).scrollIntoViewIfNeeded();
  await page.screenshot({ path: 'e2e/artifacts/designer-phone.png' });
  await page.getByRole('heading', { name: 'Participant link' }).evaluate((h) => h.scrollIntoView());
  await page.screenshot({ path: 'e2e/artifacts/designer-phone-link.png' });
});

test('designer: no serious or critical accessibility violation, with and without problems', async ({ page }) => {
  const serious = async () =>
    (await new AxeBuilder({ page }).include('.sd').analyze()).violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  await openDesigner(page);
  expect(await serious()).toEqual([]);
  await field(page, 'http').check();
  await field(page, 'httpSinks.0').fill('https://results.example/rows');
  expect(await serious()).toEqual([]);
  await field(page, 'k').fill('0');
  await field(page, 'httpSinks.0').fill('nowhere');
  await expect(page.getByTestId('study-problems')).toBeVisible();
  expect(await serious()).toEqual([]);
  // A problem in the list takes the keyboard to its field.
  await page
    .getByTestId('study-problems')
    .getByRole('button', { name: /http\(s\) address/ })
    .click();
  await expect(field(page, 'httpSinks.0')).toBeFocused();
});

test('designer: no link before a destination is chosen; "participants send me the file" makes a download study', async ({
  page,
}) => {
  for (const [width, height, name] of [
    [1280, 800, 'desktop'],
    [390, 844, 'phone'],
  ] as const) {
    await page.setViewportSize({ width, height });
    await openDesigner(page);
    // Nothing chosen: said where the link would be, and nothing to copy, pack, register or run.
    await expect(page.getByTestId('study-no-destination')).toContainText('Choose where results go');
    await expect(page.getByTestId('study-problems')).toContainText('choose where results go');
    for (const id of ['study-link', 'study-jzip', 'study-register', 'study-cli', 'study-preview']) {
      await expect(page.getByTestId(id)).toHaveCount(0);
    }
    for (const kind of ['server', 'jatos', 'http', 'download']) await expect(field(page, kind)).not.toBeChecked();
    if (SHOTS) {
      await page.getByTestId('study-destinations').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/designer-${name}-no-destination.png` });
    }

    // Ticking the box without instructions is not enough: participants must know where to send it.
    await field(page, 'download').check();
    await expect(errorOf(page, 'sendInstructions')).toHaveText(
      'say how participants send you the file (for example an e-mail address)',
    );
    await expect(page.getByTestId('study-link')).toHaveCount(0);
    const how = 'Upload the file to the course page, folder "CLUTRR".';
    await field(page, 'sendInstructions').fill(how);
    const link = (await page.getByTestId('study-link').textContent())!;
    expect(definitionOf(link).sinks).toEqual([{ kind: 'download', instructions: how }]);
    await expect(page.getByTestId('study-cli')).toContainText(`--sink download --send-instructions`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    if (SHOTS) {
      await page.getByTestId('study-destinations').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/designer-${name}-download.png` });
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: `${SHOTS}/designer-${name}-top.png`, fullPage: name === 'desktop' });
    }
  }

  // A definition file without sinks loads with nothing chosen, so again no link.
  await page
    .getByTestId('study-json-load')
    .setInputFiles({ name: 'old.json', mimeType: 'application/json', buffer: Buffer.from('{"seed": 3, "sinks": []}') });
  await expect(page.getByTestId('study-json-error')).toHaveCount(0);
  await expect(page.getByTestId('study-no-destination')).toBeVisible();
  await expect(field(page, 'download')).not.toBeChecked();
  await expect(page.getByTestId('study-link')).toHaveCount(0);
});
