import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../core/formats/csv';
import {
  RESULT_COLUMNS,
  rowsToCsv,
  rowsToJson,
  sortRows,
  spreadsheetSafe,
  type ResultRow,
  type SessionInfo,
} from './results';
import { NO_ESTIMATE } from './resultFields';

/** A row as a trial would record it; `over` changes fields. */
function sampleRow(over: Partial<ResultRow> = {}): ResultRow {
  return {
    study_id: 'study',
    session_id: 'sess-1',
    participant_id: '5f1a2b',
    condition: 'timed',
    trial_index: 0,
    phase: 'main',
    puzzle_id: 'main-k2-t1-0',
    seed: 123456,
    k: 2,
    task: 1,
    strict: true,
    query_a: 'Megan',
    query_b: 'Bernard',
    gold: 'uncle',
    response: 'uncle',
    correct: true,
    difficulty: 2,
    rt_ms: 41230,
    ended_on: 'response',
    time_limit_s: 90,
    answer_changes: 1,
    hidden_ms: 0,
    resumed: false,
    started_at: '2026-01-02T10:00:00.000Z',
    answered_at: '2026-01-02T10:00:41.230Z',
    story: 'Megan went to see her father, Tom. Tom\'s brother, Bernard, came too, and said "hi",\nthen left.',
    prolific_study_id: '',
    prolific_session_id: '',
    ...NO_ESTIMATE,
    ...over,
  };
}

const SESSION: SessionInfo = {
  study_id: 'study',
  session_id: 'sess-1',
  participant_id: '5f1a2b',
  condition: 'timed',
  user_agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)',
  screen: '390x844@3',
  started_at: '2026-01-02T09:58:00.000Z',
};

const ISSUE_COLUMNS =
  'study_id, session_id, participant_id, condition, trial_index, phase, puzzle_id, seed, k, task, strict, query_a, query_b, gold, response, correct, difficulty, rt_ms, ended_on, time_limit_s, answer_changes, hidden_ms, resumed, started_at, answered_at, story'.split(
    ', ',
  );

describe('result columns', () => {
  it('are the issue names, in its order, then the Prolific ids, then the adaptive estimate', () => {
    expect(RESULT_COLUMNS.slice(0, ISSUE_COLUMNS.length)).toEqual(ISSUE_COLUMNS);
    expect(RESULT_COLUMNS.slice(ISSUE_COLUMNS.length)).toEqual([
      'prolific_study_id',
      'prolific_session_id',
      'threshold_k',
      'threshold_low',
      'threshold_high',
      'adaptive_procedure',
      'adaptive_stop',
    ]);
  });
});

describe('CSV export', () => {
  it('writes RFC 4180 with CRLF, a header and session columns, and reads back', () => {
    const rows = [
      sampleRow(),
      sampleRow({ trial_index: 1, ended_on: 'timeout', response: '', difficulty: null, correct: false }),
    ];
    const csv = rowsToCsv(rows, [SESSION]);
    expect(csv.endsWith('\r\n')).toBe(true);
    const records = parseCsv(csv);
    expect(records[0]).toEqual([...RESULT_COLUMNS, 'user_agent', 'screen']);
    expect(records).toHaveLength(3);
    const row = Object.fromEntries(records[1]!.map((v, i) => [records[0]![i], v]));
    expect(row.story).toBe(sampleRow().story);
    expect(row.strict).toBe('true');
    expect(row.screen).toBe('390x844@3');
    const timeout = Object.fromEntries(records[2]!.map((v, i) => [records[0]![i], v]));
    expect([timeout.ended_on, timeout.response, timeout.difficulty, timeout.correct]).toEqual([
      'timeout',
      '',
      '',
      'false',
    ]);
    // A session that is not given leaves its columns empty.
    expect(parseCsv(rowsToCsv(rows))[1]!.slice(-2)).toEqual(['', '']);
  });

  it('escapes cells a spreadsheet would run as formulas', () => {
    for (const bad of ['=HYPERLINK("http://x","y")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1']) {
      expect(spreadsheetSafe(bad)).toBe(`'${bad}`);
    }
    // A value that really starts with '= is escaped too, so that it reads back with its quote.
    expect(spreadsheetSafe("'=already quoted")).toBe("''=already quoted");
    for (const fine of ['uncle', '', '12', "'quoted'", ' =1']) expect(spreadsheetSafe(fine)).toBe(fine);
    const csv = rowsToCsv([
      sampleRow({ participant_id: '=cmd|"/c calc"!A1', response: '@x', story: '-story, with a comma' }),
    ]);
    const [header, row] = parseCsv(csv);
    const get = (c: string) => row![header!.indexOf(c)];
    expect(get('participant_id')).toBe(`'=cmd|"/c calc"!A1`);
    expect(get('response')).toBe("'@x");
    expect(get('story')).toBe("'-story, with a comma");
    // No cell of the file starts with a formula character.
    expect(
      parseCsv(csv)
        .flat()
        .some((cell) => /^[=+\-@]/.test(cell)),
    ).toBe(false);
  });
});

describe('JSON export', () => {
  it('keeps values as recorded, typed, with the sessions', () => {
    const rows = [sampleRow({ response: '=1' })];
    const doc = JSON.parse(rowsToJson(rows, [SESSION]));
    expect(doc.format).toBe('clutrr-lab-study-results/1');
    expect(doc.sessions).toEqual([SESSION]);
    expect(doc.rows).toEqual(rows);
    expect(Object.keys(doc.rows[0])).toEqual([...RESULT_COLUMNS]);
    expect(doc.rows[0].response).toBe('=1');
    expect(doc.rows[0].difficulty).toBe(2);
  });
});

describe('sortRows', () => {
  it('orders by session, then trial index', () => {
    const rows = [
      sampleRow({ session_id: 'b', trial_index: 0 }),
      sampleRow({ session_id: 'a', trial_index: 10 }),
      sampleRow({ session_id: 'a', trial_index: 2 }),
    ];
    expect(sortRows(rows).map((r) => `${r.session_id}${r.trial_index}`)).toEqual(['a2', 'a10', 'b0']);
  });
});
