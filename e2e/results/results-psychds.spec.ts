import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';
import { withDefaults } from '../../src/study/definition/definition';
import { encodeStudyLink } from '../../src/study/definition/link';

/**
 * Issue 25: the results dashboard's "Download psych-DS dataset (.zip)" builds the CLI's psych-DS
 * folder from a results server's studies and CSV exports. The server is mocked with `page.route`
 * (its endpoints are tested in server/); this checks the button, the token header, the ZIP's
 * files and a refusal.
 */
const STUDY = withDefaults({ studyId: 'pilot-2', seed: 5, k: [2, 3] });
const CSV = 'study_id,session_id\r\npilot-2,s-1\r\n';

test('the psych-DS button downloads a ZIP with the description, the data and the definition', async ({ page }) => {
  const auth: string[] = [];
  await page.route('**/api/studies', async (route) => {
    auth.push(route.request().headers().authorization ?? '');
    await route.fulfill({
      json: { studies: [{ study_id: 'pilot-2', token: encodeStudyLink(STUDY), sessions: 1, rows: 1 }] },
    });
  });
  await page.route('**/api/results.csv*', async (route) => {
    auth.push(route.request().headers().authorization ?? '');
    expect(new URL(route.request().url()).searchParams.get('study')).toBe('pilot-2');
    await route.fulfill({ body: CSV, contentType: 'text/csv' });
  });
  await page.goto('/#/results');
  await page.getByTestId('results-server').locator('summary').click();
  await page.getByTestId('results-server-token').fill('secret-token');
  const downloading = page.waitForEvent('download');
  await page.getByTestId('results-psychds').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('clutrr-psychds-all.zip');
  await expect(page.getByTestId('results-psychds-status')).toHaveText('Built clutrr-psychds-all.zip: 1 study');
  expect(auth).toEqual(['Bearer secret-token', 'Bearer secret-token']);
  await page
    .getByTestId('results-server')
    .screenshot({ path: path.join(process.env.E2E_SHOTS ?? 'e2e/artifacts', 'results-psychds.png') });

  const files = unzipSync(new Uint8Array(readFileSync(await download.path())));
  expect(Object.keys(files).sort()).toEqual([
    'clutrr-psychds-all/data/study-pilot2_data.csv',
    'clutrr-psychds-all/dataset_description.json',
    'clutrr-psychds-all/materials/study-pilot2_definition.json',
  ]);
  expect(strFromU8(files['clutrr-psychds-all/data/study-pilot2_data.csv']!)).toBe(CSV);
  const description = JSON.parse(strFromU8(files['clutrr-psychds-all/dataset_description.json']!)) as Record<
    string,
    unknown
  >;
  expect(description).toMatchObject({
    '@context': 'https://schema.org',
    '@type': 'Dataset',
    name: 'CLUTRR Lab study pilot-2',
  });
  expect(JSON.parse(strFromU8(files['clutrr-psychds-all/materials/study-pilot2_definition.json']!))).toEqual(STUDY);
});

test('a refused token is said, and nothing is downloaded', async ({ page }) => {
  await page.route('**/api/studies', (route) =>
    route.fulfill({ status: 401, json: { error: 'a researcher token is needed' } }),
  );
  let downloads = 0;
  page.on('download', () => downloads++);
  await page.goto('/#/results');
  await page.getByTestId('results-server').locator('summary').click();
  await page.getByTestId('results-server-token').fill('wrong');
  await page.getByTestId('results-psychds').click();
  await expect(page.getByTestId('results-psychds-status')).toContainText('answered 401: a researcher token is needed');
  await expect(page.getByTestId('results-psychds-status')).toHaveAttribute('role', 'alert');
  expect(downloads).toBe(0);
});
