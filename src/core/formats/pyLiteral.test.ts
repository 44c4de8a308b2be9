import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parsePyLiteral, pyRepr, PyDict, PyFloat, PyTuple, type PyValue } from './pyLiteral';

const t = (...items: PyValue[]) => new PyTuple(items);

describe('pyRepr of str (expected values from CPython 3)', () => {
  it.each([
    ['', "''"],
    ['plain', "'plain'"],
    ["it's", `"it's"`],
    ['say "hi"', `'say "hi"'`],
    [`it's "hi"`, `'it\\'s "hi"'`],
    ['a\\b', "'a\\\\b'"],
    ['line\nnext\r\ttab', "'line\\nnext\\r\\ttab'"],
    ['\x00\x07\x1b\x7f', "'\\x00\\x07\\x1b\\x7f'"],
    ['Zoë 漢字 😀 ñ', "'Zoë 漢字 😀 ñ'"],
    ['\xa0\xad', "'\\xa0\\xad'"],
    ['\u2028\u200b\ufeff', "'\\u2028\\u200b\\ufeff'"],
    ['\u{e0001}', "'\\U000e0001'"],
    ['\ud800', "'\\ud800'"],
    ["\\'", `"\\\\'"`],
  ])('repr(%j) is %s', (value, expected) => {
    expect(pyRepr(value)).toBe(expected);
  });
});

describe('pyRepr of printable ASCII with quotes', () => {
  it('escapes only the quote it wraps the text in, as the character-by-character rule does', () => {
    // The general rule, written out: the quote CPython chooses, then each character escaped.
    const reference = (text: string) => {
      const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
      let out = quote;
      for (const ch of text) out += ch === quote ? `\\${ch}` : ch === '\\' ? '\\\\' : ch;
      return out + quote;
    };
    const ascii = fc.string({ unit: fc.constantFrom("'", '"', '\\', 'a', ' ', 'Z', '~', ',') });
    fc.assert(
      fc.property(ascii, (text) => {
        expect(pyRepr(text)).toBe(reference(text));
        expect(parsePyLiteral(pyRepr(text))).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('pyRepr of other values', () => {
  it('prints scalars as Python does', () => {
    expect([0, -7, 42, null, true, false].map(pyRepr)).toEqual(['0', '-7', '42', 'None', 'True', 'False']);
  });

  it('gives one-element tuples their comma and uses Python separators', () => {
    expect(pyRepr(t())).toBe('()');
    expect(pyRepr(t(1))).toBe('(1,)');
    expect(pyRepr(t(0, 'a'))).toBe("(0, 'a')");
    expect(pyRepr([])).toBe('[]');
    expect(pyRepr([t(0, 1), t(1, 2)])).toBe('[(0, 1), (1, 2)]');
    expect(pyRepr(new PyDict([]))).toBe('{}');
    expect(
      pyRepr(
        new PyDict([
          [3, 0],
          [11, 1],
        ]),
      ),
    ).toBe('{3: 0, 11: 1}');
    expect(pyRepr([new PyDict([[t('A', 'son', 'B'), [t('A', 'wife', 'C')]]])])).toBe(
      "[{('A', 'son', 'B'): [('A', 'wife', 'C')]}]",
    );
  });

  it.each([
    [1, '1.0'],
    [-0, '-0.0'],
    [0.1, '0.1'],
    [2.5, '2.5'],
    [1e15, '1000000000000000.0'],
    [1e16, '1e+16'],
    [1.5e300, '1.5e+300'],
    [0.0001, '0.0001'],
    [0.00001, '1e-05'],
    [5e-324, '5e-324'],
    [1 / 3, '0.3333333333333333'],
  ])('repr(float %d) is %s', (value, expected) => {
    expect(pyRepr(new PyFloat(value))).toBe(expected);
  });

  it('refuses a JS number that is not an int', () => {
    expect(() => pyRepr(1.5)).toThrow(/not a safe integer/);
  });
});

describe('parsePyLiteral', () => {
  it('reads both quote kinds and Python escapes', () => {
    expect(parsePyLiteral(`'it\\'s'`)).toBe("it's");
    expect(parsePyLiteral(`"say \\"hi\\" it's"`)).toBe(`say "hi" it's`);
    expect(parsePyLiteral(`'\\x41\\101\\u00e9\\U0001F600\\n\\t\\\\\\0'`)).toBe('AAé😀\n\t\\\0');
    expect(parsePyLiteral(`'a\\qb'`)).toBe('a\\qb');
    expect(parsePyLiteral(`'Zoë'`)).toBe('Zoë');
  });

  it('reads numbers, constants and containers with loose spacing and trailing commas', () => {
    expect(parsePyLiteral(' [ ( 1 , -2 ) , ] ')).toEqual([t(1, -2)]);
    expect(parsePyLiteral('- 3')).toBe(-3);
    expect(parsePyLiteral('-0')).toBe(0);
    expect(parsePyLiteral('(1)')).toBe(1);
    expect(parsePyLiteral('(1,)')).toEqual(t(1));
    expect(parsePyLiteral('()')).toEqual(t());
    expect(parsePyLiteral('{1: 2, (3, 4): [None, True, False],}')).toEqual(
      new PyDict([
        [1, 2],
        [t(3, 4), [null, true, false]],
      ]),
    );
    expect(parsePyLiteral('1.5')).toEqual(new PyFloat(1.5));
    expect(parsePyLiteral('1e3')).toEqual(new PyFloat(1000));
  });

  it.each([
    ['', /expected a value .* at offset 0, found end of input/],
    ['[1, 2', /expected ',' or '\]' at offset 5/],
    ['(1 2)', /expected ',' or '\)' at offset 3/],
    ["'abc", /expected a closing ' \(string opened at offset 0\) at offset 4, found end of input/],
    ["'ab\ncd'", /at offset 3/],
    ['{1 2}', /expected ':' at offset 3/],
    ['{1: 2 3}', /expected ',' or '}' at offset 6/],
    ['[1] x', /expected end of input at offset 4/],
    ['{[1]: 2}', /expected a hashable dict key .* at offset 1/],
    ['nope', /expected a value .* at offset 0/],
    ['constructor', /expected a value .* at offset 0/],
    ["'\\N{BULLET}'", /unsupported/],
    ['-x', /expected a number at offset 1/],
    ['99999999999999999', /expected an integer of at most 15 digits at offset 0/],
    ["'\\x4'", /expected hex digits after \\x at offset 3/],
    ['['.repeat(250), /expected at most 200 nested containers at offset 201/],
  ])('rejects %j', (text, message) => {
    expect(() => parsePyLiteral(text)).toThrow(message);
  });
});

/** Strings rich in the characters repr must escape or choose quotes around. */
const pyString = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: fc.constantFrom("'", '"', '\\', '\n', '\r', '\t', '\x00', '\x7f', 'a', ' ', 'é', '\u2028', '😀') }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) }),
);

const pyScalar: fc.Arbitrary<PyValue> = fc.oneof(
  pyString,
  fc.maxSafeInteger(),
  fc.constantFrom(null, true, false),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => new PyFloat(x)),
);

const { value: pyValue } = fc.letrec<{ value: PyValue; key: PyValue }>((tie) => ({
  key: fc.oneof(
    { depthSize: 'small' },
    pyScalar,
    fc.array(tie('key'), { maxLength: 3 }).map((items) => new PyTuple(items)),
  ),
  value: fc.oneof(
    { depthSize: 'small' },
    pyScalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(tie('value'), { maxLength: 4 }).map((items) => new PyTuple(items)),
    fc.array(fc.tuple(tie('key'), tie('value')), { maxLength: 4 }).map((entries) => new PyDict(entries)),
  ),
}));

describe('parsePyLiteral ∘ pyRepr', () => {
  it('gives back every value', () => {
    fc.assert(
      fc.property(pyValue, (value) => {
        expect(parsePyLiteral(pyRepr(value))).toStrictEqual(value);
      }),
      { numRuns: 2000 },
    );
  });
});
