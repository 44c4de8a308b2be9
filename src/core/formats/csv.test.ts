import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CsvSyntaxError, detectLineEnding, parseCsv, writeCsv, type LineEnding } from './csv';

describe('parseCsv', () => {
  it('splits records and fields', () => {
    expect(parseCsv('a,b\n1,2\n')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks', () => {
    expect(parseCsv('x,"a, ""b""\nc\r\nd",y\n')).toEqual([['x', 'a, "b"\nc\r\nd', 'y']]);
  });

  it('accepts CRLF line ends and a missing final line end', () => {
    expect(parseCsv('a,b\r\n1,2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it('keeps empty fields, blank lines and a lone quoted empty field apart', () => {
    expect(parseCsv('')).toEqual([]);
    expect(parseCsv(',\n\n""\na,\n')).toEqual([['', ''], [], [''], ['a', '']]);
  });

  it('reports an unterminated quote with the line it opened on', () => {
    const text = 'h1,h2\nv,w\nx,"never closed\nmore\n';
    expect(() => parseCsv(text)).toThrow(CsvSyntaxError);
    expect(() => parseCsv(text)).toThrow('line 3: unterminated quoted field starting on line 3');
    try {
      parseCsv(text);
    } catch (error) {
      expect(error).toMatchObject({ line: 3, record: 2 });
    }
  });

  it('rejects text after a closing quote', () => {
    expect(() => parseCsv('a\n"b"c,d\n')).toThrow("line 2: expected ',' or a line end after a closing quote");
  });
});

describe('writeCsv', () => {
  it('quotes only fields holding a comma, quote, CR or LF, and ends every record', () => {
    expect(writeCsv([['', 'plain', 'a,b', 'say "hi"', 'x\ny', 'x\ry', "it's [A]"]])).toBe(
      ',plain,"a,b","say ""hi""","x\ny","x\ry",it\'s [A]\n',
    );
  });

  it('writes blank and single-empty-field records as Python does', () => {
    expect(writeCsv([])).toBe('');
    expect(writeCsv([[]])).toBe('\n');
    expect(writeCsv([['']])).toBe('""\n');
  });

  it('uses the requested line end', () => {
    expect(writeCsv([['a'], ['b']], { lineEnding: '\r\n' })).toBe('a\r\nb\r\n');
  });
});

describe('detectLineEnding', () => {
  it('finds the first record terminator outside quotes', () => {
    expect(detectLineEnding('a,b\r\n1,2\r\n')).toBe('\r\n');
    expect(detectLineEnding('"x\r\ny",b\n1,2\n')).toBe('\n');
    expect(detectLineEnding('no line end')).toBe('\n');
  });
});

const field = fc.oneof(
  fc.string({ unit: fc.constantFrom(',', '"', '\r', '\n', 'a', ' ', 'é', "'") }),
  fc.string({ unit: 'binary' }),
);
const records = fc.array(fc.array(field, { maxLength: 5 }), { maxLength: 6 });
const lineEnding = fc.constantFrom<LineEnding>('\n', '\r\n');

describe('parseCsv ∘ writeCsv', () => {
  it('gives back every list of records', () => {
    fc.assert(
      fc.property(records, lineEnding, (rows, ending) => {
        expect(parseCsv(writeCsv(rows, { lineEnding: ending }))).toEqual(rows);
      }),
      { numRuns: 2000 },
    );
  });

  it('reproduces text it wrote, line end included', () => {
    fc.assert(
      fc.property(records, lineEnding, (rows, ending) => {
        const text = writeCsv(rows, { lineEnding: ending });
        expect(writeCsv(parseCsv(text), { lineEnding: ending })).toBe(text);
      }),
    );
  });
});
