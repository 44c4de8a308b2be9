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
  const reader = new CsvReader(text);
  const records: string[][] = [];
  while (!reader.atEnd()) records.push(reader.record(records.length));
  return records;
}

class CsvReader {
  private pos = 0;
  private line = 1;

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  record(index: number): string[] {
    if (this.skipLineEnd()) return [];
    const fields: string[] = [];
    for (;;) {
      fields.push(this.text[this.pos] === '"' ? this.quotedField(index) : this.bareField());
      if (this.atEnd() || this.skipLineEnd()) return fields;
      if (this.text[this.pos] !== ',') {
        throw new CsvSyntaxError(`expected ',' or a line end after a closing quote`, this.line, index);
      }
      this.pos++;
    }
  }

  private skipLineEnd(): boolean {
    const ch = this.text[this.pos];
    if (ch !== '\n' && ch !== '\r') return false;
    this.pos += ch === '\r' && this.text[this.pos + 1] === '\n' ? 2 : 1;
    this.line++;
    return true;
  }

  private bareField(): string {
    const start = this.pos;
    while (!this.atEnd() && !isFieldEnd(this.text[this.pos] as string)) this.pos++;
    return this.text.slice(start, this.pos);
  }

  private quotedField(index: number): string {
    const startLine = this.line;
    const parts: string[] = [];
    this.pos++;
    for (;;) {
      const close = this.text.indexOf('"', this.pos);
      if (close < 0)
        throw new CsvSyntaxError(`unterminated quoted field starting on line ${startLine}`, startLine, index);
      const chunk = this.text.slice(this.pos, close);
      this.line += countLineBreaks(chunk);
      parts.push(chunk);
      this.pos = close + 1;
      if (this.text[this.pos] !== '"') return parts.join('');
      parts.push('"');
      this.pos++;
    }
  }
}

function isFieldEnd(ch: string): boolean {
  return ch === ',' || ch === '\n' || ch === '\r';
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
  return records.map((record) => csvRecord(record) + lineEnding).join('');
}

function csvRecord(fields: readonly string[]): string {
  // Python's csv module quotes a lone empty field so the record is not read back as a blank line.
  if (fields.length === 1 && fields[0] === '') return '""';
  return fields.map(csvField).join(',');
}

const NEEDS_QUOTES = /[",\r\n]/;

function csvField(field: string): string {
  return NEEDS_QUOTES.test(field) ? `"${field.replaceAll('"', '""')}"` : field;
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
