import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowsToCsv, rowsToJson, type ResultRow } from './results';
import { mergeResults, readResultsFile, ResultsFileError, ResultsFileReader, unescapeCell } from './resultsFile';
import { FIXTURE_ROLES, makeResultsFixture, resultsFixtureFiles } from '../../../e2e/fixtures/resultsFixture';

const small = makeResultsFixture({ seed: 'unit', participants: 3, ks: [2, 3], tasks: [1], itemsPerK: 2 });

/** The error a read throws (fails the test when it does not throw one). */
function errorOf(name: string, text: string): ResultsFileError {
  try {
    readResultsFile(name, text);
  } catch (e) {
    if (e instanceof ResultsFileError) return e;
    throw e;
  }
  throw new Error(`${name} was read without an error`);
}

describe('readResultsFile', () => {
  it('reads rowsToCsv output back to the same rows, formula escapes undone', () => {
    const rows: ResultRow[] = small.rows.map((r, i) =>
      i === 0 ? { ...r, participant_id: '@evil', story: '=HYPERLINK("x")', response: '-1' } : r,
    );
    const csv = rowsToCsv(rows, small.sessions);
    expect(csv).toContain("'@evil");
    const file = readResultsFile('a.csv', csv);
    expect(file.format).toBe('csv');
    expect(file.rows).toEqual(rows);
    expect(file.sessions.map((s) => s.screen)).toEqual(small.sessions.map((s) => s.screen));
  });

  it('reads rowsToJson output back to the same rows and sessions', () => {
    const file = readResultsFile('a.json', rowsToJson(small.rows, small.sessions));
    expect(file.format).toBe('json');
    expect(file.rows).toEqual(small.rows);
    expect(file.sessions).toEqual(small.sessions);
  });

  it('keeps empty difficulty and time limit as null (timeouts, untimed)', () => {
    const timeout: ResultRow = { ...small.rows[0]!, difficulty: null, time_limit_s: null, ended_on: 'timeout' };
    const [back] = readResultsFile('t.csv', rowsToCsv([timeout])).rows;
    expect(back!.difficulty).toBeNull();
    expect(back!.time_limit_s).toBeNull();
  });

  it('names file, row and column of a bad CSV value', () => {
    const lines = rowsToCsv(small.rows.slice(0, 3)).split('\r\n');
    lines[3] = lines[3]!.replace(/,response,/, ',answered,');
    const e = errorOf('bad.csv', lines.join('\r\n'));
    expect(e.file).toBe('bad.csv');
    expect(e.row).toBe(3);
    expect(e.column).toBe('ended_on');
    expect(e.line).toBe(4);
    expect(e.message).toBe(
      'bad.csv (row 3, line 4, column ended_on): "answered" is not one of response, timeout, skipped',
    );
  });

  it('refuses numbers that are not whole, ratings outside 1–5, bad booleans', () => {
    const row = small.rows[1]!;
    const cases: [Partial<Record<keyof ResultRow, unknown>>, string, RegExp][] = [
      [{ rt_ms: 1.5 }, 'rt_ms', /1\.5 is not a whole number/],
      [{ difficulty: 7 }, 'difficulty', /7 is not a rating 1–5/],
      [{ correct: 'yes' }, 'correct', /"yes" is not true or false/],
      [{ task: 9 }, 'task', /9 is not a task 1–7/],
      [{ session_id: '' }, 'session_id', /the session id is empty/],
    ];
    for (const [change, column, message] of cases) {
      const bad = { ...row, ...change } as unknown as ResultRow;
      const csvError = errorOf('x.csv', rowsToCsv([bad]));
      expect([csvError.row, csvError.column]).toEqual([1, column]);
      expect(csvError.detail).toMatch(message);
      const jsonError = errorOf('x.json', rowsToJson([row, bad]));
      expect([jsonError.row, jsonError.column]).toEqual([2, column]);
      expect(jsonError.detail).toMatch(message);
    }
  });

  it('refuses files that are not results: other CSVs, other JSON, broken syntax, empty', () => {
    expect(errorOf('d.csv', 'story,query,target\na,b,c\n').message).toMatch(
      /^d\.csv \(row 0, line 1, column study_id\): the header lacks the columns study_id, session_id/,
    );
    expect(errorOf('e.json', '{"rows": []}').message).toMatch(
      /"format" is null, expected "clutrr-lab-study-results\/1"/,
    );
    expect(errorOf('f.json', '{"format": "clutrr-lab-study-results/1", "rows": [').message).toMatch(
      /^f\.json: not valid JSON/,
    );
    expect(errorOf('g.csv', '').message).toBe('g.csv: the file is empty');
    const csv = rowsToCsv(small.rows.slice(0, 2));
    expect(errorOf('h.csv', `${csv}"unterminated`).detail).toMatch(/^not valid CSV: unterminated quoted field/);
    const short = csv.split('\r\n');
    short[2] = short[2]!.split(',').slice(0, 5).join(',');
    expect(errorOf('i.csv', short.join('\r\n')).message).toMatch(
      /^i\.csv \(row 2, line 3\): the row has 5 fields, the header has 35/,
    );
    expect(errorOf('j.json', rowsToJson([]).replace('"rows": []', '"rows": [{"study_id": "s"}]')).message).toBe(
      'j.json (row 1, field session_id): the row has no such field',
    );
  });

  it('undoes only the escape rowsToCsv adds', () => {
    expect(unescapeCell("'=1+1")).toBe('=1+1');
    expect(unescapeCell("'-3")).toBe('-3');
    expect(unescapeCell("'quoted'")).toBe("'quoted'");
    expect(unescapeCell("'")).toBe("'");
  });
});

describe('hostile values', () => {
  const json = rowsToJson(small.rows);
  const withRow = (i: number, field: string, value: unknown) => {
    const doc = JSON.parse(json) as { rows: Record<string, unknown>[] };
    doc.rows[i]![field] = value;
    return JSON.stringify(doc);
  };

  it('an object, a list or null where a session id belongs: file, row and field named', () => {
    for (const [value, word] of [
      [{ id: 'x' }, 'an object'],
      [{ toString: 1 }, 'an object'],
      [['a'], 'a list'],
      [null, 'null'],
      [7, 'a number'],
    ] as const) {
      const e = errorOf('h.json', withRow(2, 'session_id', value));
      expect([e.file, e.row, e.column]).toEqual(['h.json', 3, 'session_id']);
      expect(e.message).toBe(
        `h.json (row 3, field session_id): ${JSON.stringify(value)} is ${word}, not a session id (text)`,
      );
    }
  });

  it('a session entry whose id is an object is named, not a crash (String() of {toString: 1} throws)', () => {
    const doc = JSON.parse(rowsToJson(small.rows, small.sessions)) as { sessions: Record<string, unknown>[] };
    doc.sessions[1]!.session_id = { toString: 1 };
    const e = errorOf('s.json', JSON.stringify(doc));
    expect(e.message).toBe(
      's.json (field session_id): "sessions" entry 2: {"toString":1} is an object, not a session id (text)',
    );
  });

  it('a long object is quoted short', () => {
    const e = errorOf('l.json', withRow(0, 'participant_id', { a: 'x'.repeat(500) }));
    expect(e.detail.length).toBeLessThan(80);
    expect(e.detail).toMatch(/^\{"a":"x+… is an object, not text$/);
  });

  it('a row that is not an object', () => {
    const doc = JSON.parse(json) as { rows: unknown[] };
    doc.rows[0] = 'row';
    expect(errorOf('r.json', JSON.stringify(doc)).message).toBe('r.json (row 1): the row is a string, not an object');
  });
});

describe('ResultsFileReader (pieces of text, as a worker streams a file)', () => {
  const csv = rowsToCsv(small.rows);
  const json = rowsToJson(small.rows);

  it('property: any cut of a file into pieces reads as the whole file does (CSV and JSON, with a BOM)', () => {
    const whole = { csv: readResultsFile('a', csv), json: readResultsFile('a', json) };
    fc.assert(
      fc.property(
        fc.constantFrom('csv', 'json' as const),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 12 }),
        (format, bom, cuts) => {
          const text = (bom ? '\uFEFF' : '') + (format === 'csv' ? csv : json);
          const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const reader = new ResultsFileReader('a');
          let from = 0;
          for (const c of [...at, text.length]) {
            reader.push(text.slice(from, c));
            from = c;
          }
          expect(reader.end()).toEqual(whole[format]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('blank space only, pushed in pieces, is an empty file', () => {
    const reader = new ResultsFileReader('b.csv');
    reader.push('\uFEFF ');
    reader.push('\n\n');
    expect(() => reader.end()).toThrow(new ResultsFileError('b.csv', 'the file is empty'));
  });

  it('a JSON file longer than a string may be is refused with its size and the limit, not called empty', () => {
    const reader = new ResultsFileReader('big.json', { bytes: 585 * 2 ** 20, maxJsonChars: 1000 });
    let thrown: unknown = null;
    try {
      for (let i = 0; i < 100; i++) reader.push(json.slice(i * 100, (i + 1) * 100));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ResultsFileError);
    expect((thrown as Error).message).toMatch(
      /^big\.json: a JSON result file can be read up to 0\.0 MB .*this one is 585 MB\. Export the results as CSV/,
    );
    // The real limit stays under V8's longest string, 2^29 − 24 characters.
    expect(new ResultsFileReader('x').name).toBe('x');
  });

  it('a CSV of any length is read piece by piece (no whole-file string)', () => {
    const reader = new ResultsFileReader('many.csv', { maxJsonChars: 10 });
    const [header, ...lines] = csv.split('\r\n');
    reader.push(`${header}\r\n`);
    for (const line of lines) if (line) reader.push(`${line}\r\n`);
    expect(reader.end().rows).toEqual(readResultsFile('many.csv', csv).rows);
  });
});

describe('mergeResults', () => {
  it('keeps one row per (session, trial): duplicates counted, a changed row reported and the first kept', () => {
    const a = readResultsFile('a.csv', rowsToCsv(small.rows));
    const changed = small.rows.map((r, i) => (i === 4 ? { ...r, response: 'aunt', correct: !r.correct } : r));
    const b = readResultsFile('b.json', rowsToJson(changed.slice(0, 10)));
    const merged = mergeResults([a, b]);
    expect(merged.rows).toHaveLength(small.rows.length);
    expect(merged.rows[4]).toEqual(small.rows[4]);
    expect(merged.duplicates).toBe(9);
    expect(merged.conflicts).toEqual([
      {
        session_id: small.rows[4]!.session_id,
        trial_index: small.rows[4]!.trial_index,
        kept: 'a.csv',
        dropped: 'b.json',
        column: small.rows[4]!.response === 'aunt' ? 'correct' : 'response',
      },
    ]);
    expect(merged.sessions).toHaveLength(3);
  });
});

describe('the e2e fixture', () => {
  const files = resultsFixtureFiles();

  it('is what the generator makes (regenerate: npx vitest run src/study/results/resultsFile.test.ts --update)', async () => {
    await expect(files.csv).toMatchFileSnapshot('../../../e2e/fixtures/results-a.csv');
    await expect(files.json).toMatchFileSnapshot('../../../e2e/fixtures/results-b.json');
  });

  it('reads as 50 participants, 5 sessions in both files', () => {
    const merged = mergeResults([readResultsFile('a.csv', files.csv), readResultsFile('b.json', files.json)]);
    expect(new Set(merged.rows.map((r) => r.session_id)).size).toBe(50);
    expect(merged.duplicates).toBe(5 * 55);
    expect(merged.conflicts).toEqual([]);
    expect(merged.rows).toHaveLength(50 * 55);
    expect(merged.rows.some((r) => r.participant_id === `@p${FIXTURE_ROLES.formulaId}`)).toBe(true);
  });

  it('has accuracy falling with k', () => {
    const { rows } = makeResultsFixture({ seed: 'results-fixture', participants: 50 });
    const acc = [2, 3, 4, 5, 6].map((k) => {
      const at = rows.filter((r) => r.phase === 'main' && r.k === k);
      return at.filter((r) => r.correct).length / at.length;
    });
    expect(acc[0]).toBeGreaterThan(acc[2]!);
    expect(acc[1]).toBeGreaterThan(acc[4]!);
  });
});
