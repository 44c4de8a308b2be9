import { describe, expect, it } from 'vitest';
import { parseCsv, writeCsv } from '../../core/formats/csv';
import { datasetDescription } from './psychDs';
import { NO_ESTIMATE, RESULT_FIELDS, storedAs } from './resultFields';
import { RESULT_COLUMNS, rowsToCsv, rowsToJson, type ResultRow } from './results';
import { readResultsFile } from './resultsFile';

// The export order analysis scripts depend on, as it was before the column table existed.
const RELEASED_ORDER = [
  'study_id',
  'session_id',
  'participant_id',
  'condition',
  'trial_index',
  'phase',
  'puzzle_id',
  'seed',
  'k',
  'task',
  'strict',
  'query_a',
  'query_b',
  'gold',
  'response',
  'correct',
  'difficulty',
  'rt_ms',
  'ended_on',
  'time_limit_s',
  'answer_changes',
  'hidden_ms',
  'resumed',
  'started_at',
  'answered_at',
  'story',
  'prolific_study_id',
  'prolific_session_id',
];

// The columns added since, after the released ones (issue 32: the adaptive estimate).
const ADDED = ['threshold_k', 'threshold_low', 'threshold_high', 'adaptive_procedure', 'adaptive_stop'];

// How the results server stored each column before the kinds were derived (server/store.ts).
const RELEASED_STORAGE = {
  text: [
    'study_id',
    'session_id',
    'participant_id',
    'condition',
    'phase',
    'puzzle_id',
    'query_a',
    'query_b',
    'gold',
    'response',
    'ended_on',
    'started_at',
    'answered_at',
    'story',
    'prolific_study_id',
    'prolific_session_id',
  ],
  integer: ['trial_index', 'seed', 'k', 'task', 'rt_ms', 'answer_changes', 'hidden_ms'],
  boolean: ['strict', 'correct', 'resumed'],
  'integer?': ['difficulty', 'time_limit_s'],
};

const row: ResultRow = {
  study_id: 'lab',
  session_id: 's',
  participant_id: '',
  condition: 'untimed',
  trial_index: 1,
  phase: 'main',
  puzzle_id: 'p',
  seed: 7,
  k: 2,
  task: 1,
  strict: true,
  query_a: 'Anna',
  query_b: 'Ben',
  gold: 'son',
  response: 'son',
  correct: true,
  difficulty: 3,
  rt_ms: 1200,
  ended_on: 'response',
  time_limit_s: null,
  answer_changes: 0,
  hidden_ms: 0,
  resumed: false,
  started_at: '2026-01-01T00:00:00.000Z',
  answered_at: '2026-01-01T00:00:01.200Z',
  story: 'Anna has a son, Ben.',
  prolific_study_id: '',
  prolific_session_id: '',
  ...NO_ESTIMATE,
};

/** The reader's message for a JSON file whose one row has `over`. */
function refusal(over: Record<string, unknown>): string {
  const text = rowsToJson([{ ...row, ...over } as unknown as ResultRow]);
  try {
    readResultsFile('f.json', text);
    return 'read';
  } catch (e) {
    return (e as Error).message;
  }
}

describe('RESULT_FIELDS', () => {
  it('gives the columns in the released order', () => {
    expect(RESULT_COLUMNS).toEqual([...RELEASED_ORDER, ...ADDED]);
    expect(Object.keys(RESULT_FIELDS)).toEqual([...RELEASED_ORDER, ...ADDED]);
  });

  it('stores every column as before, and the estimate as REAL and text', () => {
    const byKind: Record<string, string[]> = {};
    for (const c of RESULT_COLUMNS) (byKind[storedAs(c)] ??= []).push(c);
    expect(byKind).toEqual({
      ...RELEASED_STORAGE,
      text: [...RELEASED_STORAGE.text, 'adaptive_procedure', 'adaptive_stop'],
      'real?': ['threshold_k', 'threshold_low', 'threshold_high'],
    });
  });

  it('reads a file written before the estimate columns as empty ones, and refuses bad estimates', () => {
    // The CSV as it was written before: the released columns, then the session's.
    const records = parseCsv(rowsToCsv([row])).map((r) => [
      ...r.slice(0, RELEASED_ORDER.length),
      ...r.slice(RELEASED_ORDER.length + ADDED.length),
    ]);
    const oldCsv = writeCsv(records, { lineEnding: '\r\n' });
    expect(oldCsv.split('\r\n')[0]).toBe([...RELEASED_ORDER, 'user_agent', 'screen'].join(','));
    expect(readResultsFile('old.csv', oldCsv).rows).toEqual([row]);
    const json = JSON.parse(rowsToJson([row])) as { rows: Record<string, unknown>[] };
    for (const c of ADDED) delete json.rows[0]![c];
    expect(readResultsFile('old.json', JSON.stringify(json)).rows).toEqual([row]);
    const est = {
      ...row,
      threshold_k: 4.25,
      threshold_low: 3.5,
      threshold_high: 5,
      adaptive_procedure: 'quest',
    } as const;
    expect(readResultsFile('new.csv', rowsToCsv([est])).rows).toEqual([est]);
    expect(refusal({ threshold_k: 'four' })).toBe(
      'f.json (row 1, field threshold_k): "four" is not a threshold k (or empty)',
    );
    expect(refusal({ adaptive_stop: 'tired' })).toBe(
      'f.json (row 1, field adaptive_stop): "tired" is not one of (empty), trials, interval',
    );
  });

  it("gives the file reader each kind's message", () => {
    const at = (field: string, detail: string) => `f.json (row 1, field ${field}): ${detail}`;
    expect(refusal({ query_a: 3 })).toBe(at('query_a', '3 is a number, not text'));
    expect(refusal({ session_id: 3 })).toBe(at('session_id', '3 is a number, not a session id (text)'));
    expect(refusal({ session_id: '' })).toBe(at('session_id', 'the session id is empty'));
    expect(refusal({ seed: -1 })).toBe(at('seed', '-1 is not a whole number ≥ 0'));
    expect(refusal({ k: 0 })).toBe(at('k', '0 is not a k ≥ 1'));
    expect(refusal({ task: 8 })).toBe(at('task', '8 is not a task 1–7'));
    expect(refusal({ resumed: 'no' })).toBe(at('resumed', '"no" is not true or false'));
    expect(refusal({ difficulty: 6 })).toBe(at('difficulty', '6 is not a rating 1–5 (or empty)'));
    expect(refusal({ time_limit_s: 0 })).toBe(at('time_limit_s', '0 is not a time limit in seconds (or empty)'));
    expect(refusal({ phase: 'warmup' })).toBe(at('phase', '"warmup" is not one of practice, main, check'));
    // The reader is looser than the server: values above the server's bounds, fractional seconds.
    expect(refusal({ k: 99, seed: 2 ** 40, time_limit_s: 0.5 })).toBe('read');
  });

  it("gives psych-DS each column's description and unit", () => {
    const measured = datasetDescription([], new Date(0)).variableMeasured;
    expect(measured.map((v) => v.name)).toEqual([...RELEASED_ORDER, ...ADDED, 'user_agent', 'screen']);
    expect(measured.find((v) => v.name === 'threshold_k')).toMatchObject({ unitText: 'hops' });
    expect(measured.find((v) => v.name === 'rt_ms')).toEqual({
      '@type': 'PropertyValue',
      name: 'rt_ms',
      description: 'Time from the story being shown to the answer being submitted.',
      unitText: 'ms',
    });
    expect(measured.find((v) => v.name === 'study_id')).toEqual({
      '@type': 'PropertyValue',
      name: 'study_id',
      description: 'The study id of the CLUTRR Lab study definition (materials/).',
    });
  });
});
