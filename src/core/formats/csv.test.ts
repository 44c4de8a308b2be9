import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CsvRecordReader,
  type CsvRecordPlace,
  CsvSyntaxError,
  detectLineEnding,
  parseCsv,
  writeCsv,
  type LineEnding,
} from './csv';

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

/** Reads `chunks` through a CsvRecordReader; returns the records with their places, or the error. */
function readChunks(chunks: readonly string[]): {
  records: { fields: string[]; place: CsvRecordPlace }[];
  error?: CsvSyntaxError;
} {
  const records: { fields: string[]; place: CsvRecordPlace }[] = [];
  const reader = new CsvRecordReader((fields, place) => records.push({ fields, place }));
  try {
    for (const chunk of chunks) reader.push(chunk);
    reader.end();
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    return { records, error };
  }
  return { records };
}

/** `text` cut at every position in `cuts` (sorted, within the text). */
const cut = (text: string, cuts: readonly number[]): string[] =>
  [0, ...cuts, text.length].slice(1).map((end, i, ends) => text.slice(i === 0 ? 0 : ends[i - 1], end));

describe('CsvRecordReader', () => {
  it('reads a quoted field cut anywhere, doubled quotes and line breaks included', () => {
    const text = 'h1,h2\r\nx,"a, ""b""\r\nc"\r\ny,z\r\n';
    for (let at = 0; at <= text.length; at++) {
      const { records } = readChunks([text.slice(0, at), text.slice(at)]);
      expect(records.map((r) => r.fields)).toEqual([
        ['h1', 'h2'],
        ['x', 'a, "b"\r\nc'],
        ['y', 'z'],
      ]);
      expect(records.map((r) => r.place)).toEqual([
        { index: 0, line: 1 },
        { index: 1, line: 2 },
        { index: 2, line: 4 },
      ]);
    }
  });

  it('reads text one character at a time', () => {
    const text = 'a,"b\nc"\r\n\r\n"",\rlast';
    expect(readChunks([...text]).records.map((r) => r.fields)).toEqual(parseCsv(text));
  });

  it('counts a CRLF split between chunks as one line end, outside and inside quotes', () => {
    expect(readChunks(['a\r', '\nb\r', '\nc']).records).toEqual([
      { fields: ['a'], place: { index: 0, line: 1 } },
      { fields: ['b'], place: { index: 1, line: 2 } },
      { fields: ['c'], place: { index: 2, line: 3 } },
    ]);
    const { records } = readChunks(['"x\r', '\ny"\r', '\nnext\n']);
    expect(records.map((r) => r.fields)).toEqual([['x\r\ny'], ['next']]);
    expect(records[1]!.place.line).toBe(3);
    // A CR before a doubled quote and an LF after it are two line ends.
    expect(readChunks(['"a\r""', '\nb"\nend']).records[1]!.place.line).toBe(4);
  });

  it('reports an unterminated quote with its record and the line it opened on, whatever the chunks', () => {
    const text = 'h\nv\n"two\r\nlines\n';
    for (let at = 0; at <= text.length; at++) {
      const { records, error } = readChunks([text.slice(0, at), text.slice(at)]);
      expect(records).toHaveLength(2);
      expect(error).toMatchObject({
        line: 3,
        record: 2,
        message: 'line 3: unterminated quoted field starting on line 3',
      });
    }
  });

  it('reports text after a closing quote on the line of the quote, after delivering the records before it', () => {
    const text = 'a\nb\n"multi\nline"x,y\n';
    for (let at = 0; at <= text.length; at++) {
      const { records, error } = readChunks([text.slice(0, at), text.slice(at)]);
      expect(records.map((r) => r.fields)).toEqual([['a'], ['b']]);
      expect(error).toMatchObject({ line: 4, record: 2 });
      expect(error?.message).toBe("line 4: expected ',' or a line end after a closing quote");
    }
  });

  it('gives the same records, places and error however the text is cut', () => {
    const anyText = fc.oneof(
      records.chain((rows) => lineEnding.map((ending) => writeCsv(rows, { lineEnding: ending }))),
      fc.string({ unit: fc.constantFrom(',', '"', '\r', '\n', 'a') }),
    );
    const textAndCuts = anyText.chain((text) =>
      fc.tuple(fc.constant(text), fc.uniqueArray(fc.integer({ min: 0, max: text.length }), { maxLength: 6 })),
    );
    fc.assert(
      fc.property(textAndCuts, ([text, cuts]) => {
        const whole = readChunks([text]);
        const streamed = readChunks(
          cut(
            text,
            [...cuts].sort((x, y) => x - y),
          ),
        );
        expect(streamed.records).toEqual(whole.records);
        expect(streamed.error?.message).toBe(whole.error?.message);
        expect(streamed.error?.record).toBe(whole.error?.record);
        if (!whole.error) expect(whole.records.map((r) => r.fields)).toEqual(parseCsv(text));
      }),
      { numRuns: 2000 },
    );
  });
});
