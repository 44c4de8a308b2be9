import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import miniCsv from './fixtures/mini-clutrr.csv?raw';
import { parseClutrrCsv, writeClutrrCsv } from './clutrrCsv';
import { CLUTRR_COLUMNS, CsvFormatError, type ClutrrColumn, type ClutrrRow } from './clutrrRow';
import { detectLineEnding, parseCsv, writeCsv, type LineEnding } from './csv';

/** CI checks the clone out beside the shared reference folder. */
const SAMPLE_PATH = fileURLToPath(new URL('../../../../shared/reference/clutrr-format-sample.csv', import.meta.url));

describe('parseClutrrCsv on the fixture', () => {
  const rows = parseClutrrCsv(miniCsv, 'mini-clutrr.csv');

  it('reads every row and its symbolic columns', () => {
    expect(rows.map((r) => r.index)).toEqual(['0', '1', '2', '3']);
    const [first] = rows;
    expect(first).toMatchObject({
      id: '0b9d3c1e-5a47-4f0e-9c61-2f8e7d4a1b01',
      query: ['Odile', 'Maren'],
      target: 'daughter',
      textTarget: ["[Maren] is [Odile]'s daughter."],
      fComb: 'son-sister',
      taskName: 'task_1.2',
      storyEdges: [
        [0, 1],
        [1, 2],
      ],
      edgeTypes: ['son', 'sister'],
      queryEdge: [0, 2],
      genders: [
        { name: 'Odile', gender: 'female' },
        { name: 'Bastien', gender: 'male' },
        { name: 'Maren', gender: 'female' },
      ],
      nodeMapping: [
        [4, 0],
        [9, 1],
        [10, 2],
      ],
      taskSplit: 'train',
      textQuery: '',
      synStory: '',
    });
  });

  it('keeps quoted text with commas, line breaks and both quote kinds', () => {
    expect(rows[1]?.story).toContain('husband, [Tomas], walked');
    expect(rows[1]?.story).toContain('[Gideon].\n[Gideon]');
    expect(rows[1]?.textTarget).toEqual([`Ines says "[Linus] is my uncle", and she's right.`]);
    expect(rows[2]?.query).toEqual(['Zoë', 'Edmund']);
    expect(rows[2]?.textQuery).toBe('Who is [Edmund] to [Zoë]?');
  });

  it('reads proof states outermost first', () => {
    expect(rows[1]?.proofState).toEqual([
      {
        head: ['Ines', 'uncle', 'Linus'],
        body: [
          ['Ines', 'husband', 'Tomas'],
          ['Tomas', 'uncle', 'Linus'],
        ],
      },
      {
        head: ['Tomas', 'uncle', 'Linus'],
        body: [
          ['Tomas', 'father', 'Gideon'],
          ['Gideon', 'brother', 'Linus'],
        ],
      },
    ]);
  });

  it('accepts noisy rows typing only the path edges, and people outside every edge', () => {
    expect(rows[2]?.storyEdges).toHaveLength(4);
    expect(rows[2]?.edgeTypes).toEqual(['mother', 'sister', 'father']);
    expect(rows[3]?.storyEdges).toHaveLength(3);
    expect(rows[3]?.genders).toHaveLength(5);
  });

  it('keeps node_mapping in the order the dict lists it', () => {
    expect(rows[1]?.nodeMapping).toEqual([
      [12, 0],
      [3, 1],
      [0, 2],
      [1, 3],
    ]);
  });
});

describe('writeClutrrCsv', () => {
  it('reproduces the fixture byte for byte', () => {
    expect(writeClutrrCsv(parseClutrrCsv(miniCsv))).toBe(miniCsv);
  });

  it('reproduces a CRLF file when given its line end', () => {
    // Only record ends change; the line break inside row 1's quoted story stays LF.
    const crlf = miniCsv.replace(/\n(?=\d,|$)/g, '\r\n');
    expect(detectLineEnding(crlf)).toBe('\r\n');
    expect(writeClutrrCsv(parseClutrrCsv(crlf), { lineEnding: detectLineEnding(crlf) })).toBe(crlf);
  });

  it('refuses a name the genders column cannot hold', () => {
    const [first, second] = parseClutrrCsv(miniCsv) as [ClutrrRow, ClutrrRow];
    const bad = { ...second, genders: [...second.genders.slice(0, 2), { name: 'Lin, us', gender: 'male' }] };
    expect(() => writeClutrrCsv([first, bad])).toThrow(
      'row 2, column genders: person 3 has a name genders cannot hold',
    );
  });

  it('reproduces the released format sample byte for byte', (context) => {
    context.skip(!existsSync(SAMPLE_PATH), `no format sample at ${SAMPLE_PATH} (CI provides ../shared/reference)`);
    const sample = readFileSync(SAMPLE_PATH, 'utf8');
    const rows = parseClutrrCsv(sample, 'clutrr-format-sample.csv');
    expect(rows).toHaveLength(54);
    expect(rows.some((r) => r.edgeTypes.length < r.storyEdges.length)).toBe(true);
    expect(writeClutrrCsv(rows, { lineEnding: detectLineEnding(sample) })).toBe(sample);
  });
});

describe('parseClutrrCsv column lookup', () => {
  it('finds columns by name in any order and defaults the optional ones', () => {
    const [header = [], ...data] = parseCsv(miniCsv);
    const keep: ClutrrColumn[] = ['genders', 'target', 'query_edge', 'edge_types', 'story_edges'];
    const picked = [keep, ...data].map((record, r) =>
      keep.map((column) => (r === 0 ? column : (record[header.indexOf(column)] as string))),
    );
    const [row] = parseClutrrCsv(writeCsv(picked));
    expect(row).toEqual({
      ...parseClutrrCsv(miniCsv)[0],
      index: '',
      id: '',
      story: '',
      query: ['', ''],
      textTarget: [],
      cleanStory: '',
      proofState: [],
      fComb: '',
      taskName: '',
      nodeMapping: [],
      taskSplit: '',
    });
  });

  it('skips blank lines but counts them in row numbers', () => {
    const records = parseCsv(miniCsv);
    const text = writeCsv([...records.slice(0, 2), [], ...records.slice(2)]);
    expect(parseClutrrCsv(text)).toHaveLength(4);
    const broken = writeCsv([...records.slice(0, 2), [], withCellIn(records[2] ?? [], 'genders', 'X')]);
    expect(() => parseClutrrCsv(broken)).toThrow(/row 3, column genders/);
  });
});

/** The fixture with one cell of one data row replaced (row is 1-based, as errors count). */
function fixtureWith(row: number, column: ClutrrColumn, value: string): string {
  const records = parseCsv(miniCsv);
  records[row] = withCellIn(records[row] ?? [], column, value);
  return writeCsv(records);
}

function withCellIn(record: readonly string[], column: ClutrrColumn, value: string): string[] {
  const copy = [...record];
  copy[CLUTRR_COLUMNS.indexOf(column)] = value;
  return copy;
}

function formatError(text: string): CsvFormatError {
  try {
    parseClutrrCsv(text, 'bad.csv');
  } catch (error) {
    if (error instanceof CsvFormatError) return error;
    throw error;
  }
  throw new Error('expected parseClutrrCsv to throw');
}

describe('parseClutrrCsv errors name the file, data row and column', () => {
  it.each<[string, number, ClutrrColumn, string, RegExp]>([
    ['story_edges not a literal', 2, 'story_edges', '[(0, 1), (1, 2]', /not a Python literal: expected ',' or '\)'/],
    ['story_edges item of three ints', 1, 'story_edges', '[(0, 1), (1, 2, 0)]', /item 2 to be an \(int, int\) tuple/],
    ['story_edges not a list', 3, 'story_edges', '(0, 1)', /expected a list of \(int, int\) edges, found \(0, 1\)/],
    ['story_edges holding a str', 2, 'story_edges', "[(0, 'x')]", /item 1 to hold int node indices, found 'x'/],
    ['story_edges index out of range', 4, 'story_edges', '[(0, 5)]', /item 1 refers to node 5, but genders lists 5/],
    ['story_edges negative index', 1, 'story_edges', '[(-1, 0)]', /refers to node -1/],
    ['query_edge not a tuple', 2, 'query_edge', '[0, 3]', /query_edge to be an \(int, int\) tuple, found \[0, 3\]/],
    ['query_edge out of range', 1, 'query_edge', '(0, 3)', /query_edge refers to node 3, but genders lists 3/],
    ['query_edge empty', 3, 'query_edge', '', /expected a Python literal, found an empty field/],
    [
      'genders with an unknown gender',
      2,
      'genders',
      'Ines:female,Tomas:man,Gideon:male,Linus:male',
      /item 2 as Name:male/,
    ],
    ['genders without a colon', 1, 'genders', 'Odile,Bastien:male,Maren:female', /item 1 as Name:male/],
    ['genders with an empty name', 1, 'genders', ':female,Bastien:male,Maren:female', /item 1 as Name:male/],
    ['genders empty', 4, 'genders', '', /expected Name:gender,..., found an empty field/],
    ['edge_types holding an int', 1, 'edge_types', "['son', 3]", /item 2 to be a string, found 3/],
    ['edge_types longer than story_edges', 1, 'edge_types', "['son', 'sister', 'son']", /at most 2 edge types/],
    ['target empty', 2, 'target', '', /expected a relation word/],
    ['query of one name', 1, 'query', "('Odile',)", /a tuple of two names, found \('Odile',\)/],
    ['query holding an int', 1, 'query', "('Odile', 2)", /expected a name, found 2/],
    ['text_target not a list', 3, 'text_target', "'Edmund is the grandfather.'", /expected a list of strings/],
    [
      'proof_state dict of two entries',
      2,
      'proof_state',
      "[{('a', 'r', 'b'): [], ('c', 'r', 'd'): []}]",
      /item 1 to be a dict with one entry/,
    ],
    ['proof_state head of two names', 1, 'proof_state', "[{('a', 'b'): []}]", /a \(name, relation, name\) tuple/],
    [
      'proof_state body not a list',
      1,
      'proof_state',
      "[{('a', 'r', 'b'): ('a', 'r', 'b')}]",
      /item 1 to map to a list/,
    ],
    ['node_mapping with str keys', 4, 'node_mapping', "{'2': 0}", /expected a dict of int to int, found \{'2': 0\}/],
    ['node_mapping not a dict', 4, 'node_mapping', '[(2, 0)]', /expected a dict of int to int/],
  ])('%s', (_case, row, column, value, message) => {
    const error = formatError(fixtureWith(row, column, value));
    expect(error.where).toEqual({ file: 'bad.csv', row, column });
    expect(error.detail).toMatch(message);
  });

  it('prints the place before the detail', () => {
    const error = formatError(fixtureWith(2, 'query_edge', '[0, 3]'));
    expect(error.message).toBe(
      'bad.csv, row 2, column query_edge: expected query_edge to be an (int, int) tuple, found [0, 3]',
    );
  });

  it('says a short row has too few fields, naming no column (a lost comma shifts them all)', () => {
    const records = parseCsv(miniCsv);
    records[3] = (records[3] ?? []).slice(0, 12);
    const error = formatError(writeCsv(records));
    expect(error.where).toEqual({ file: 'bad.csv', row: 3 });
    // The fixture's row 2 spans two lines, so row 3 starts on line 5.
    expect(error.message).toBe('bad.csv, row 3: the row starting on line 5 has 12 fields, the header has 18');
  });

  it('names no column for a row with surplus fields', () => {
    const records = parseCsv(miniCsv);
    records[1] = [...(records[1] ?? []), 'extra'];
    const error = formatError(writeCsv(records));
    expect(error.where).toEqual({ file: 'bad.csv', row: 1 });
    expect(error.detail).toBe('the row starting on line 2 has 19 fields, the header has 18');
  });

  it('names the row of an unterminated quote and the line it opened on', () => {
    const lines = miniCsv.split('\n');
    // The fixture's row 2 spans two lines, so row 4 is on line 6.
    const text = [...lines.slice(0, 5), `${lines[5]},"open`, ...lines.slice(6)].join('\n');
    const error = formatError(text);
    expect(error.where).toEqual({ file: 'bad.csv', row: 4 });
    expect(error.detail).toBe('line 6: unterminated quoted field starting on line 6');
  });

  it('says an empty file is empty, naming no column', () => {
    for (const text of ['', '\uFEFF']) {
      expect(formatError(text).where).toEqual({ file: 'bad.csv' });
      expect(formatError(text).message).toBe('bad.csv: the file is empty (no header row)');
    }
    expect(formatError(`\n${miniCsv}`).detail).toBe(
      'the first line is blank; expected a header row naming the CLUTRR columns',
    );
  });

  it('rejects a header without a required column', () => {
    const [header = [], ...data] = parseCsv(miniCsv);
    const text = writeCsv([header.map((name) => (name === 'genders' ? 'gender' : name)), ...data]);
    const error = formatError(text);
    expect(error.where).toEqual({ file: 'bad.csv', column: 'genders' });
    expect(error.detail).toBe('the header has no "genders" column');
  });

  it('rejects a header naming a column twice', () => {
    const [header = [], ...data] = parseCsv(miniCsv);
    const text = writeCsv([header.map((name) => (name === 'syn_story' ? 'story' : name)), ...data]);
    expect(formatError(text).where).toEqual({ file: 'bad.csv', column: 'story' });
  });
});

/** Any text a column may hold, rich in CSV and Python quoting hazards. */
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom(',', '"', "'", '\\', '\n', '\r', 'a', ' ', '[', ']', 'é') }),
  fc.string({ unit: 'binary' }),
);
const name = fc.string({ unit: fc.constantFrom('A', 'b', 'é', "'", '"', ' ', '\\', '-'), minLength: 1, maxLength: 8 });
const triple = fc.tuple(text, text, text);

const clutrrRow: fc.Arbitrary<ClutrrRow> = fc
  .array(fc.record({ name, gender: fc.constantFrom('male', 'female') }), { minLength: 1, maxLength: 8 })
  .chain((genders) => {
    const node = fc.nat({ max: genders.length - 1 });
    const edge = fc.tuple(node, node);
    return fc.record({
      index: text,
      id: text,
      story: text,
      query: fc.tuple(text, text),
      textQuery: text,
      target: text.filter((t) => t !== ''),
      textTarget: fc.array(text, { maxLength: 2 }),
      cleanStory: text,
      proofState: fc.array(fc.record({ head: triple, body: fc.array(triple, { maxLength: 3 }) }), { maxLength: 3 }),
      fComb: text,
      taskName: text,
      storyEdges: fc.array(edge, { maxLength: 6 }),
      edgeTypes: fc.array(text, { maxLength: 6 }),
      queryEdge: edge,
      genders: fc.constant(genders),
      synStory: text,
      nodeMapping: fc.array(fc.tuple(fc.integer(), fc.integer()), { maxLength: 6 }),
      taskSplit: text,
    });
  })
  .map((row) => ({ ...row, edgeTypes: row.edgeTypes.slice(0, row.storyEdges.length) }));

describe('parseClutrrCsv ∘ writeClutrrCsv', () => {
  it('gives back every list of rows, with either line end', () => {
    fc.assert(
      fc.property(
        fc.array(clutrrRow, { maxLength: 4 }),
        fc.constantFrom<LineEnding>('\n', '\r\n'),
        (rows, lineEnding) => {
          const written = writeClutrrCsv(rows, { lineEnding });
          expect(parseClutrrCsv(written)).toEqual(rows);
          expect(writeClutrrCsv(parseClutrrCsv(written), { lineEnding })).toBe(written);
        },
      ),
      { numRuns: 500 },
    );
  });
});
