/**
 * RFC 4180 CSV as pandas' `to_csv` (Python's csv module, QUOTE_MINIMAL) writes it, so that a
 * parsed file can be written back byte for byte.
 */

/** The record terminator: pandas writes `os.linesep`, so files from Windows use CRLF. */
export type LineEnding = '\n' | '\r\n';

/** Malformed CSV text: `line` is the 1-based physical line, `record` the 0-based record index (0 = header). */
export class CsvSyntaxError extends Error {
  override name = 'CsvSyntaxError';
  constructor(
    readonly detail: string,
    readonly line: number,
    readonly record: number,
  ) {
    super(`line ${line}: ${detail}`);
  }
}

/**
 * Splits CSV text into records of fields. Accepts LF, CRLF and CR line ends and an optional
 * final line end; an empty line is a record with no fields (`[]`), a line `""` one empty field.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  const reader = new CsvRecordReader((fields) => records.push(fields));
  reader.push(text);
  reader.end();
  return records;
}

/** Where a record is: `index` 0-based (0 = header, blank lines counted), `line` the 1-based physical line it starts on. */
export interface CsvRecordPlace {
  readonly index: number;
  readonly line: number;
}

type ReaderState =
  /** Before the first character of a record. */
  | 'record'
  /** After a comma: the next field may open with a quote. */
  | 'field'
  | 'bare'
  | 'quoted'
  /** Just after a quote inside a quoted field: a doubled quote or the field's end. */
  | 'quote'
  /** After a CR that ended a record: an LF next belongs to it. */
  | 'cr';

const COMMA = 44;
const LF = 10;
const CR = 13;
const QUOTE = 34;

/**
 * A streaming CSV reader, same grammar as parseCsv: text goes in as chunks of any size (a chunk
 * may end inside a quoted field or between the CR and LF of a line end), and each complete
 * record goes out to `onRecord` as soon as its line end is read, so memory holds one record.
 * Throws CsvSyntaxError from `push` or `end` at the first malformed record; records before it
 * have been delivered.
 */
export class CsvRecordReader {
  private state: ReaderState = 'record';
  private fields: string[] = [];
  /** Pieces of the field being read when it spans chunks (or holds doubled quotes). */
  private parts: string[] = [];
  private line = 1;
  private index = 0;
  private recordLine = 1;
  private quoteLine = 1;
  /** The quoted text read so far ends with CR, so an LF opening the next chunk ends the same line. */
  private quotedCr = false;

  constructor(private readonly onRecord: (fields: string[], place: CsvRecordPlace) => void) {}

  /** Reads one chunk of text. */
  push(text: string): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      switch (this.state) {
        case 'cr':
          if (text.charCodeAt(i) === LF) i++;
          this.state = 'record';
          break;
        case 'record': {
          this.recordLine = this.line;
          const c = text.charCodeAt(i);
          if (c === LF || c === CR) {
            i++;
            this.emit(c);
            break;
          }
          this.state = 'field';
          break;
        }
        case 'field':
          if (text.charCodeAt(i) === QUOTE) {
            i++;
            this.quoteLine = this.line;
            this.quotedCr = false;
            this.state = 'quoted';
          } else this.state = 'bare';
          break;
        case 'bare': {
          let j = i;
          let c = 0;
          while (j < n && (c = text.charCodeAt(j)) !== COMMA && c !== LF && c !== CR) j++;
          if (j === n) {
            this.parts.push(text.slice(i, j));
            i = j;
            break;
          }
          this.endField(text.slice(i, j));
          i = j + 1;
          this.afterField(c);
          break;
        }
        case 'quoted': {
          const close = text.indexOf('"', i);
          const piece = text.slice(i, close < 0 ? n : close);
          this.countQuotedLines(piece);
          this.parts.push(piece);
          if (close < 0) {
            i = n;
            break;
          }
          i = close + 1;
          this.state = 'quote';
          break;
        }
        case 'quote': {
          const c = text.charCodeAt(i);
          if (c === QUOTE) {
            this.parts.push('"');
            this.quotedCr = false;
            this.state = 'quoted';
            i++;
            break;
          }
          if (c !== COMMA && c !== LF && c !== CR) {
            throw new CsvSyntaxError(`expected ',' or a line end after a closing quote`, this.line, this.index);
          }
          this.endField('');
          i++;
          this.afterField(c);
          break;
        }
      }
    }
  }

  /** Ends the text: delivers a last record without a line end, or throws for an open quote. */
  end(): void {
    switch (this.state) {
      case 'quoted':
        throw new CsvSyntaxError(
          `unterminated quoted field starting on line ${this.quoteLine}`,
          this.quoteLine,
          this.index,
        );
      case 'field':
      case 'bare':
      case 'quote':
        this.endField('');
        this.emit(0);
        break;
      default:
    }
    this.state = 'record';
  }

  private endField(last: string): void {
    if (this.parts.length === 0) this.fields.push(last);
    else {
      this.parts.push(last);
      this.fields.push(this.parts.join(''));
      this.parts = [];
    }
  }

  /** After a field's terminator `c`: the next field, or the record's end. */
  private afterField(c: number): void {
    if (c === COMMA) this.state = 'field';
    else this.emit(c);
  }

  /** Delivers the record ended by line end `c` (0 at the end of the text). */
  private emit(c: number): void {
    const fields = this.fields;
    this.fields = [];
    const place = { index: this.index, line: this.recordLine };
    this.index++;
    if (c !== 0) this.line++;
    this.state = c === CR ? 'cr' : 'record';
    this.onRecord(fields, place);
  }

  private countQuotedLines(piece: string): void {
    if (piece.length === 0) return;
    if (piece.indexOf('\n') >= 0 || piece.indexOf('\r') >= 0) {
      this.line += countLineBreaks(piece);
      // A CRLF cut by the chunk boundary is one line end, not two.
      if (this.quotedCr && piece.charCodeAt(0) === LF) this.line--;
    }
    this.quotedCr = piece.charCodeAt(piece.length - 1) === CR;
  }
}

function countLineBreaks(text: string): number {
  return text.match(/\r\n|\r|\n/g)?.length ?? 0;
}

export interface CsvWriteOptions {
  /** Defaults to `\n`. */
  readonly lineEnding?: LineEnding;
}

/** Writes records as pandas does: minimal quoting, doubled quotes, every record terminated. */
export function writeCsv(records: readonly (readonly string[])[], options: CsvWriteOptions = {}): string {
  const lineEnding = options.lineEnding ?? '\n';
  // Appending builds a rope that is flattened once, when the text is written out.
  let out = '';
  for (let i = 0; i < records.length; i++) out += csvRecord(records[i]!) + lineEnding;
  return out;
}

function csvRecord(fields: readonly string[]): string {
  // Python's csv module quotes a lone empty field so the record is not read back as a blank line.
  if (fields.length === 1 && fields[0] === '') return '""';
  let out = '';
  for (let i = 0; i < fields.length; i++) {
    if (i > 0) out += ',';
    out += csvField(fields[i]!);
  }
  return out;
}

/** What makes a field need quotes (csvField). */
export const NEEDS_QUOTES = /[",\r\n]/;

/** One field as pandas writes it: quoted only when it holds a quote, a comma or a line break. */
export function csvField(field: string): string {
  if (!NEEDS_QUOTES.test(field)) return field;
  return `"${field.includes('"') ? field.replaceAll('"', '""') : field}"`;
}

/** The terminator of the text's first record (`\n` when it has none), to write a file back as it came. */
export function detectLineEnding(text: string): LineEnding {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '\n') return text[i - 1] === '\r' ? '\r\n' : '\n';
  }
  return '\n';
}
