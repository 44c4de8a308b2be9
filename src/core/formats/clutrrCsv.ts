/**
 * CLUTRR CSV files (pandas `to_csv` of the generator's DataFrame) to and from `ClutrrRow`s.
 * Parsing checks every symbolic column's shape so later stages can trust the rows; writing
 * renders them exactly as Python would, so import → export reproduces a released file.
 */

import { CsvRecordReader, CsvSyntaxError, writeCsv, type CsvRecordPlace, type LineEnding } from './csv';
import { CLUTRR_COLUMNS, CsvFormatError, type ClutrrColumn, type ClutrrRow, type NamedTriple } from './clutrrRow';
import { GENDERS, type Gender } from '../kinship/relations';
import { isPyList, parsePyLiteral, pyRepr, PyDict, PyTuple, type PyValue, reprInt, reprStr } from './pyLiteral';

/** The columns a file must have; the others default to empty values when absent. */
export const REQUIRED_CLUTRR_COLUMNS = [
  'story_edges',
  'edge_types',
  'query_edge',
  'genders',
  'target',
] as const satisfies readonly ClutrrColumn[];

// ---------------------------------------------------------------------------------------------
// parse

/**
 * Parses a CLUTRR CSV file, finding columns by header name and checking each symbolic column's
 * shape. Blank lines are skipped. Throws CsvFormatError naming the file, the 1-based data row
 * (records after the header, blank ones counted) and the column of the problem.
 */
export function parseClutrrCsv(text: string, fileName?: string): ClutrrRow[] {
  const rows: ClutrrRow[] = [];
  const reader = new ClutrrRowReader((row) => rows.push(row), fileName);
  reader.push(text);
  reader.end();
  return rows;
}

/**
 * The streaming form of parseClutrrCsv: text goes in as chunks, each row goes out to `onRow`
 * with its 1-based data row `n` as soon as it is read. Errors are parseClutrrCsv's, raised at the
 * first problem in file order by `push` or `end`; rows before it have been delivered.
 */
export class ClutrrRowReader {
  private readonly csv: CsvRecordReader;
  private header: readonly string[] | null = null;
  private columns: ReadonlyMap<string, number> = new Map();
  private first = true;

  constructor(
    private readonly onRow: (row: ClutrrRow, n: number) => void,
    private readonly file?: string,
  ) {
    this.csv = new CsvRecordReader((fields, place) => this.record(fields, place));
  }

  push(text: string): void {
    if (this.first && text !== '') {
      this.first = false;
      // Spreadsheet tools prepend a byte-order mark, which would otherwise rename the first column.
      if (text.startsWith('\uFEFF')) text = text.slice(1);
    }
    this.syntax(() => this.csv.push(text));
  }

  end(): void {
    this.syntax(() => this.csv.end());
    if (this.header === null) throw new CsvFormatError('the file is empty (no header row)', { file: this.file });
  }

  private syntax(read: () => void): void {
    try {
      read();
    } catch (error) {
      if (!(error instanceof CsvSyntaxError)) throw error;
      throw new CsvFormatError(error.message, { file: this.file, row: error.record > 0 ? error.record : undefined });
    }
  }

  private record(fields: string[], place: CsvRecordPlace): void {
    if (this.header === null) {
      this.columns = indexHeader(fields, this.file);
      this.header = fields;
      return;
    }
    if (fields.length === 0) return;
    const where = { file: this.file, row: place.index };
    checkFieldCount(fields, this.header, where, place.line);
    this.onRow(readRow(new RowCells(fields, this.columns, where)), place.index);
  }
}

function indexHeader(header: readonly string[], file: string | undefined): ReadonlyMap<string, number> {
  if (header.length === 0) {
    throw new CsvFormatError('the first line is blank; expected a header row naming the CLUTRR columns', { file });
  }
  const columns = new Map<string, number>();
  header.forEach((name, i) => {
    if (columns.has(name)) throw new CsvFormatError('the header names this column twice', { file, column: name });
    columns.set(name, i);
  });
  for (const column of REQUIRED_CLUTRR_COLUMNS) {
    if (!columns.has(column)) throw new CsvFormatError(`the header has no "${column}" column`, { file, column });
  }
  return columns;
}

interface CellPlace {
  readonly file: string | undefined;
  readonly row: number;
}

function checkFieldCount(record: readonly string[], header: readonly string[], place: CellPlace, line: number): void {
  if (record.length === header.length) return;
  // No column to name: a missing or surplus comma (or quote) shifts every field after it.
  throw new CsvFormatError(
    `the row starting on line ${line} has ${record.length} fields, the header has ${header.length}`,
    place,
  );
}

/** One data record, addressed by column name; decoding errors come back as CsvFormatError. */
class RowCells {
  constructor(
    private readonly record: readonly string[],
    private readonly columns: ReadonlyMap<string, number>,
    private readonly place: CellPlace,
  ) {}

  /** The column's text, or '' when the file has no such column. */
  text(column: ClutrrColumn): string {
    return this.decode(column, (text) => text, '');
  }

  decode<T>(column: ClutrrColumn, decodeCell: (text: string) => T, absent: T): T {
    const i = this.columns.get(column);
    if (i === undefined) return absent;
    try {
      return decodeCell(this.record[i] as string);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new CsvFormatError(detail, { ...this.place, column });
    }
  }
}

function readRow(cells: RowCells): ClutrrRow {
  const genders = cells.decode('genders', decodeGenders, []);
  const nodeCount = genders.length;
  const storyEdges = cells.decode('story_edges', (t) => decodeStoryEdges(t, nodeCount), []);
  return {
    index: cells.text(''),
    id: cells.text('id'),
    story: cells.text('story'),
    query: cells.decode('query', decodeQuery, ['', '']),
    textQuery: cells.text('text_query'),
    target: cells.decode('target', decodeTarget, ''),
    textTarget: cells.decode('text_target', (t) => expectStrings(literal(t)), []),
    cleanStory: cells.text('clean_story'),
    proofState: cells.decode('proof_state', decodeProofState, []),
    fComb: cells.text('f_comb'),
    taskName: cells.text('task_name'),
    storyEdges,
    edgeTypes: cells.decode('edge_types', (t) => decodeEdgeTypes(t, storyEdges.length), []),
    queryEdge: cells.decode('query_edge', (t) => decodeEdge(literal(t), nodeCount, 'query_edge'), [0, 0]),
    genders,
    synStory: cells.text('syn_story'),
    nodeMapping: cells.decode('node_mapping', decodeNodeMapping, []),
    taskSplit: cells.text('task_split'),
  };
}

// ---------------------------------------------------------------------------------------------
// column decoders: each throws a plain Error saying what it expected

function literal(text: string): PyValue {
  if (text === '') throw new Error('expected a Python literal, found an empty field');
  try {
    return parsePyLiteral(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`not a Python literal: ${detail}`, { cause: error });
  }
}

function decodeTarget(text: string): string {
  if (text === '') throw new Error('expected a relation word, found an empty field');
  return text;
}

function decodeQuery(text: string): readonly [string, string] {
  const [head, tail] = expectTuple(literal(text), 2, 'a tuple of two names');
  return [expectString(head, 'a name'), expectString(tail, 'a name')];
}

function decodeProofState(text: string): ClutrrRow['proofState'] {
  return expectList(literal(text), 'a list of proof steps').map((step, i) => {
    if (!(step instanceof PyDict) || step.entries.length !== 1) {
      throw shapeError(`item ${i + 1} to be a dict with one entry`, step);
    }
    const [head, body] = step.entries[0] as readonly [PyValue, PyValue];
    return {
      head: expectTriple(head),
      body: expectList(body, `item ${i + 1} to map to a list`).map(expectTriple),
    };
  });
}

function expectTriple(value: PyValue): NamedTriple {
  const [a, r, b] = expectTuple(value, 3, 'a (name, relation, name) tuple');
  const what = 'a (name, relation, name) tuple of strings';
  return [expectString(a, what), expectString(r, what), expectString(b, what)];
}

function decodeStoryEdges(text: string, nodeCount: number): ClutrrRow['storyEdges'] {
  return expectList(literal(text), 'a list of (int, int) edges').map((edge, i) =>
    decodeEdge(edge, nodeCount, `item ${i + 1}`),
  );
}

function decodeEdge(value: PyValue, nodeCount: number, what: string): readonly [number, number] {
  const [from, to] = expectTuple(value, 2, `${what} to be an (int, int) tuple`);
  return [expectNode(from, nodeCount, what), expectNode(to, nodeCount, what)];
}

function expectNode(value: PyValue, nodeCount: number, what: string): number {
  if (typeof value !== 'number') throw shapeError(`${what} to hold int node indices`, value);
  if (value < 0 || value >= nodeCount) {
    throw new Error(`${what} refers to node ${value}, but genders lists ${nodeCount} people (0 to ${nodeCount - 1})`);
  }
  return value;
}

function decodeEdgeTypes(text: string, edgeCount: number): readonly string[] {
  const types = expectStrings(literal(text));
  // Released noisy files type only the path edges, so fewer types than edges is legal.
  if (types.length > edgeCount) {
    throw new Error(`expected at most ${edgeCount} edge types (one per story edge), found ${types.length}`);
  }
  return types;
}

function decodeGenders(text: string): ClutrrRow['genders'] {
  if (text === '') throw new Error('expected Name:gender,..., found an empty field');
  return text.split(',').map((person, i) => {
    const [name, gender, ...rest] = person.split(':');
    if (!name || rest.length > 0 || !isGender(gender)) {
      throw new Error(`expected item ${i + 1} as Name:male or Name:female, found ${JSON.stringify(person)}`);
    }
    return { name, gender };
  });
}

function isGender(value: string | undefined): value is Gender {
  return (GENDERS as readonly (string | undefined)[]).includes(value);
}

function decodeNodeMapping(text: string): ClutrrRow['nodeMapping'] {
  const dict = literal(text);
  if (!(dict instanceof PyDict)) throw shapeError('a dict of int to int', dict);
  return dict.entries.map(([key, value]) => {
    if (typeof key !== 'number' || typeof value !== 'number') {
      throw shapeError('a dict of int to int', new PyDict([[key, value]]));
    }
    return [key, value] as const;
  });
}

function expectList(value: PyValue, what: string): readonly PyValue[] {
  if (!isPyList(value)) throw shapeError(what, value);
  return value;
}

function expectStrings(value: PyValue): readonly string[] {
  return expectList(value, 'a list of strings').map((item, i) => expectString(item, `item ${i + 1} to be a string`));
}

function expectTuple(value: PyValue, length: 2, what: string): readonly [PyValue, PyValue];
function expectTuple(value: PyValue, length: 3, what: string): readonly [PyValue, PyValue, PyValue];
function expectTuple(value: PyValue, length: number, what: string): readonly PyValue[] {
  if (!(value instanceof PyTuple) || value.items.length !== length) throw shapeError(what, value);
  return value.items;
}

function expectString(value: PyValue, what: string): string {
  if (typeof value !== 'string') throw shapeError(what, value);
  return value;
}

function shapeError(expected: string, found: PyValue): Error {
  const shown = pyRepr(found);
  return new Error(`expected ${expected}, found ${shown.length > 60 ? `${shown.slice(0, 57)}...` : shown}`);
}

// ---------------------------------------------------------------------------------------------
// write

export interface ClutrrWriteOptions {
  /** Defaults to `\n`; pass `detectLineEnding(source)` to reproduce a CRLF file. */
  readonly lineEnding?: LineEnding;
}

/**
 * Writes rows as pandas writes a CLUTRR DataFrame: header CLUTRR_COLUMNS, Python reprs in the
 * literal columns. Throws CsvFormatError for a person the genders column cannot spell.
 */
export function writeClutrrCsv(rows: readonly ClutrrRow[], options: ClutrrWriteOptions = {}): string {
  return writeCsv([CLUTRR_COLUMNS, ...rows.map((row, i) => clutrrFields(row, i + 1))], options);
}

/**
 * A row's fields in CLUTRR_COLUMNS order; `rowNumber` (1-based) only labels errors. The literal
 * columns are written straight from the row's shapes (tuples of two or three, lists, a dict of
 * ints) rather than through PyTuple / PyDict values and pyRepr: the same text (a test checks it
 * against pyRepr), at a fraction of the cost when a dataset is written.
 */
export function clutrrFields(row: ClutrrRow, rowNumber?: number): string[] {
  // Every name appears in several columns: repr each once.
  const names = new Map<string, string>();
  const str = (text: string) => {
    let r = names.get(text);
    if (r === undefined) names.set(text, (r = reprStr(text)));
    return r;
  };
  const triple = (t: NamedTriple) => `(${str(t[0])}, ${str(t[1])}, ${str(t[2])})`;
  const pair = (p: readonly [number, number], sep: string) => `${reprInt(p[0])}${sep}${reprInt(p[1])}`;
  return [
    row.index,
    row.id,
    row.story,
    `(${str(row.query[0])}, ${str(row.query[1])})`,
    row.textQuery,
    row.target,
    `[${row.textTarget.map(reprStr).join(', ')}]`,
    row.cleanStory,
    `[${row.proofState.map((step) => `{${triple(step.head)}: [${step.body.map(triple).join(', ')}]}`).join(', ')}]`,
    row.fComb,
    row.taskName,
    `[${row.storyEdges.map((e) => `(${pair(e, ', ')})`).join(', ')}]`,
    `[${row.edgeTypes.map(str).join(', ')}]`,
    `(${pair(row.queryEdge, ', ')})`,
    gendersField(row.genders, rowNumber),
    row.synStory,
    `{${row.nodeMapping.map((m) => pair(m, ': ')).join(', ')}}`,
    row.taskSplit,
  ];
}

/** The genders column (`name:gender,...`); refuses a name the column cannot hold (row `row`, 1-based, labels the error). */
export function gendersField(genders: ClutrrRow['genders'], row: number | undefined): string {
  return genders
    .map(({ name, gender }, i) => {
      // A name holding a separator would be read back as different people, so refuse it.
      if (name === '' || /[,:]/.test(name)) {
        throw new CsvFormatError(`person ${i + 1} has a name genders cannot hold: ${JSON.stringify(name)}`, {
          row,
          column: 'genders',
        });
      }
      return `${name}:${gender}`;
    })
    .join(',');
}
