import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCsv, writeCsv } from './csv';
import { reindexCsv } from './reindex';

const field = fc.string({ unit: fc.constantFrom('a', 'b', ',', '"', '\n', '\r\n', ' ', '7'), maxLength: 8 });

describe('reindexCsv', () => {
  it('renumbers the first field of every record, however the text is cut into pieces', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(99999), fc.array(field, { minLength: 1, maxLength: 4 })), { maxLength: 12 }),
        fc.nat(1000),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.constantFrom<'\n' | '\r\n'>('\n', '\r\n'),
        (records, start, cuts, lineEnding) => {
          const text = writeCsv(
            records.map(([i, rest]) => [String(i), ...rest]),
            { lineEnding },
          );
          const expected = writeCsv(
            records.map(([, rest], j) => [String(start + j), ...rest]),
            { lineEnding },
          );
          const points = [...new Set(cuts.map((c) => (text.length ? c % text.length : 0)))].sort((a, b) => a - b);
          const next = reindexCsv(start);
          let out = '';
          let at = 0;
          for (const p of points) {
            out += next(text.slice(at, p));
            at = p;
          }
          out += next(text.slice(at), true);
          expect(out).toBe(expected);
          expect(parseCsv(out).map((r) => r[0])).toEqual(records.map((_, j) => String(start + j)));
        },
      ),
      { numRuns: 500 },
    );
  });
});
