import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FORMULA_START, rowsToCsv, rowsToJson, spreadsheetSafe, type ResultRow } from './results';
import { readResultsFile, unescapeCell } from './resultsFile';
import { NO_ESTIMATE } from './resultFields';

/** A row of the export with the text columns given. */
const row = (text: { participant_id: string; response: string; story: string }): ResultRow => ({
  study_id: 'lab',
  session_id: 's1',
  condition: 'untimed',
  trial_index: 0,
  phase: 'main',
  puzzle_id: 'p',
  seed: 1,
  k: 2,
  task: 1,
  strict: true,
  query_a: 'Anna',
  query_b: 'Ben',
  gold: 'uncle',
  correct: false,
  difficulty: null,
  rt_ms: 1000,
  ended_on: 'response',
  time_limit_s: null,
  answer_changes: 0,
  hidden_ms: 0,
  resumed: false,
  started_at: '2026-11-27T00:00:00.000Z',
  answered_at: '2026-11-27T00:00:01.000Z',
  prolific_study_id: '',
  prolific_session_id: '',
  ...NO_ESTIMATE,
  ...text,
});

/** Strings built from the characters that matter here, and any others. */
const tricky = fc.oneof(
  fc.string({
    unit: fc.constantFrom(
      "'",
      '=',
      '+',
      '-',
      '@',
      '\t',
      '\r',
      '\n',
      '\u00a0',
      '\u200b',
      '\ufeff',
      '＝',
      '＋',
      '－',
      '＠',
      ',',
      '"',
      'a',
      ' ',
    ),
  }),
  fc.string({ unit: 'grapheme' }),
  fc.string(),
);

describe('the CSV escape and its undoing', () => {
  it('escapes every cell a spreadsheet could run, including the ones some skip a character before', () => {
    for (const bad of [
      '=1',
      '+1',
      '-1',
      '@x',
      '\t=1',
      '\r=1',
      '\n=1',
      '\u00a0=1',
      '\u200b=1',
      '\ufeff=1',
      '＝1',
      '＋1',
      '－1',
      '＠x',
      "'=1",
      "''+1",
    ]) {
      expect(spreadsheetSafe(bad), JSON.stringify(bad)).toBe(`'${bad}`);
    }
    for (const fine of ['uncle', '', '12', "'quoted'", "'", ' =1', 'a=1']) expect(spreadsheetSafe(fine)).toBe(fine);
  });

  it('undoes exactly what it added, for any string', () => {
    fc.assert(
      fc.property(tricky, (s) => {
        expect(unescapeCell(spreadsheetSafe(s))).toBe(s);
        // What spreadsheetSafe writes never starts like a formula without the protecting quote.
        const out = spreadsheetSafe(s);
        if (FORMULA_START.test(s)) expect(out.startsWith("'")).toBe(true);
      }),
      { numRuns: 2000, seed: 20 },
    );
  });

  it('reads back from the CSV what it reads back from the JSON of the same rows', () => {
    fc.assert(
      fc.property(tricky, tricky, tricky, (participant_id, response, story) => {
        const rows = [row({ participant_id, response, story })];
        const csv = readResultsFile('r.csv', rowsToCsv(rows)).rows;
        const json = readResultsFile('r.json', rowsToJson(rows)).rows;
        expect(csv).toEqual(json);
        expect(json[0]).toMatchObject({ participant_id, response, story });
      }),
      { numRuns: 500, seed: 20 },
    );
  });
});
