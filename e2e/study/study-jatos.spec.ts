import { existsSync, statSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { type BrowserContext, expect, test } from '@playwright/test';
import { cliLink, countBy, definitionOf, Participant, PHONE, tokenOf, trialCount } from '../fixtures/study';

/**
 * The run inside JATOS (issue 9): the built app served under `/publix/…/` as JATOS serves a
 * component's files, with `jatos.js` replaced by a stand-in (e2e/fixtures/jatos-standin.js) that
 * has the real API's names and records every call. The study token comes from the component's
 * JSON input, rows go out one `appendResultData` each, and the study ends exactly once.
 */
test.use({ viewport: PHONE });

const DIST = resolve(process.env.E2E_DIST ?? 'dist');
const STANDIN = resolve('e2e/fixtures/jatos-standin.js');
/** A component's folder as JATOS names it: study result, then component. */
const PUBLIX = '/publix/sr-5f2a9c/comp-81d3e0/';

interface Call {
  name: string;
  args: unknown[];
}

/** Serves the build under PUBLIX, the stand-in as its jatos.js, and JATOS's end page; records jatos calls. */
async function serveAsJatos(context: BrowserContext, config: Record<string, unknown>): Promise<Call[]> {
  const calls: Call[] = [];
  await context.exposeFunction('__jatosRecord', (name: string, args: unknown[]) => calls.push({ name, args }));
  await context.addInitScript((c) => {
    (window as unknown as { __jatosConfig: unknown }).__jatosConfig = c;
  }, config);
  await context.route('**/publix/**', async (route) => {
    const { pathname } = new URL(route.request().url());
    if (/\/end$/.test(pathname)) {
      return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>JATOS</title><p>Study ended</p>' });
    }
    if (!pathname.startsWith(PUBLIX)) return route.fulfill({ status: 404, body: 'not here' });
    const file = join(DIST, decodeURIComponent(pathname.slice(PUBLIX.length)) || 'index.html');
    if (!file.startsWith(DIST + sep) || !existsSync(file) || !statSync(file).isFile()) {
      return route.fulfill({ status: 404, body: 'not here' });
    }
    return route.fulfill({ path: file });
  });
  // Registered last, so it wins over the build files for jatos.js.
  await context.route('**/publix/**/jatos.js', (route) =>
    route.fulfill({ path: STANDIN, contentType: 'text/javascript' }),
  );
  return calls;
}

/** The rows the app appended, one JSON object per line of each appendResultData (successful calls only). */
function appendedRows(calls: readonly Call[]): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  calls.forEach((c, i) => {
    if (c.name !== 'appendResultData') return;
    const answer = calls.slice(i + 1).find((a) => a.name === 'appendResultData:answered' && a.args[1] === c.args[0]);
    if (answer?.args[0] !== true) return;
    for (const line of String(c.args[0]).split('\n')) if (line.trim()) rows.push(JSON.parse(line));
  });
  return rows;
}

const ends = (calls: readonly Call[]) => calls.filter((c) => c.name === 'endStudy' || c.name === 'endStudyAndRedirect');

test('inside JATOS: one appended row per trial, ids from JATOS, then endStudy once', async ({ page, context }) => {
  const path = cliLink(['--k', '2', '--per-k', '2', '--seed', '21', '--practice', '1', '--jatos']);
  const def = definitionOf(path);
  const calls = await serveAsJatos(context, {
    componentJsonInput: { clutrrStudy: tokenOf(path) },
    workerId: '42',
    studyResultId: '9001',
    urlQueryParameters: { STUDY_ID: 'js1', SESSION_ID: 'jse1' },
  });
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('jatos.js')) scripts.push(new URL(r.url()).pathname);
  });
  const p = new Participant(page);
  await page.goto(PUBLIX);
  await p.answerAll(trialCount(def));
  await page.waitForURL(/\/publix\/sr-5f2a9c\/end/);
  // jatos.js comes from beside the component's page, once.
  expect(scripts).toEqual([`${PUBLIX}jatos.js`]);

  const rows = appendedRows(calls);
  expect(rows).toHaveLength(trialCount(def));
  expect([...countBy(rows, (r) => String(r.trial_index)).values()].every((n) => n === 1)).toBe(true);
  for (const r of rows) {
    expect(r).toMatchObject({ participant_id: '42', prolific_study_id: 'js1', prolific_session_id: 'jse1' });
  }
  expect(ends(calls).map((c) => [c.name, c.args[0]])).toEqual([['endStudy', true]]);
  // The end came after JATOS had answered every append.
  const endAt = calls.indexOf(ends(calls)[0]!);
  const lastAnswer = calls.map((c) => c.name).lastIndexOf('appendResultData:answered');
  expect(endAt).toBeGreaterThan(lastAnswer);
  expect(calls.filter((c) => c.name === 'appendResultData').length).toBe(rows.length);
});

test('inside JATOS, a decline aborts the run once and sends nothing', async ({ page, context }) => {
  const path = cliLink(['--k', '2', '--per-k', '1', '--seed', '22', '--practice', '0', '--jatos']);
  const calls = await serveAsJatos(context, {
    componentJsonInput: { clutrrStudy: tokenOf(path) },
    workerId: '43',
    studyResultId: '9002',
  });
  await page.goto(PUBLIX);
  await page.getByTestId('consent-decline').click();
  await expect(page.getByTestId('declined')).toBeVisible();
  await expect(page.getByTestId('declined-jatos')).toBeVisible();
  await expect(page.getByTestId('declined-reconsider')).toHaveCount(0);
  await page.waitForURL(/\/publix\/sr-5f2a9c\/end\?aborted=true/);
  expect(calls.filter((c) => c.name === 'abortStudy').map((c) => c.args[0])).toEqual(['participant declined consent']);
  expect(calls.filter((c) => c.name.startsWith('appendResultData'))).toEqual([]);
  expect(ends(calls)).toEqual([]);
});

test('inside JATOS with a redirect: failed appends are sent again, then endStudyAndRedirect once', async ({
  page,
  context,
  baseURL,
}) => {
  const thanks = `${baseURL}/thanks-jatos`;
  const path = cliLink([
    '--k',
    '2',
    '--per-k',
    '2',
    '--seed',
    '22',
    '--practice',
    '0',
    '--jatos',
    '--redirect',
    thanks,
  ]);
  const def = definitionOf(path);
  const calls = await serveAsJatos(context, {
    componentJsonInput: { clutrrStudy: tokenOf(path) },
    workerId: '43',
    failAppends: 2,
  });
  await context.route('**/thanks-jatos', (route) =>
    route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>Thanks</title><p>Thanks</p>' }),
  );
  const p = new Participant(page);
  await page.goto(PUBLIX);
  await p.answerAll(trialCount(def));
  await page.waitForURL(thanks, { timeout: 30_000 });

  const rows = appendedRows(calls);
  expect(rows).toHaveLength(trialCount(def));
  expect([...countBy(rows, (r) => String(r.trial_index)).values()].every((n) => n === 1)).toBe(true);
  expect(rows.every((r) => r.participant_id === '43')).toBe(true);
  expect(calls.filter((c) => c.name === 'appendResultData:answered' && c.args[0] === false)).toHaveLength(2);
  expect(ends(calls).map((c) => [c.name, c.args[0], c.args[1]])).toEqual([['endStudyAndRedirect', thanks, true]]);
  expect(calls.indexOf(ends(calls)[0]!)).toBeGreaterThan(
    calls.map((c) => c.name).lastIndexOf('appendResultData:answered'),
  );
});
