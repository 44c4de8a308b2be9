/**
 * Python literals as CLUTRR's pandas-written CSV columns hold them: `repr()` of str, int, float,
 * tuple, list, dict, None and bools, and the inverse parser for that subset (what
 * `ast.literal_eval` accepts for these types, minus bytes, sets, complex and implicit string
 * concatenation). Python ints map to JS numbers; floats, tuples and dicts get marker classes
 * because JS has no value that tells them apart from ints, lists and objects.
 */

/** A Python value in the supported subset; a JS array is a Python list. */
export type PyValue = null | boolean | number | string | PyFloat | PyTuple | PyDict | readonly PyValue[];

/** A Python float (kept apart from ints so `1.0` reprs as `1.0`, not `1`). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A Python tuple. */
export class PyTuple {
  constructor(readonly items: readonly PyValue[]) {}
}

/** A Python dict, its entries in insertion order; keys must be hashable (no lists or dicts). */
export class PyDict {
  constructor(readonly entries: readonly (readonly [PyValue, PyValue])[]) {}
}

/** True when the value is a Python list. */
export function isPyList(value: PyValue): value is readonly PyValue[] {
  return Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------
// repr

/** Python 3's `repr(value)`; throws for a JS number that is not a safe integer (wrap floats in PyFloat). */
export function pyRepr(value: PyValue): string {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return reprInt(value);
  if (typeof value === 'string') return reprStr(value);
  if (value instanceof PyFloat) return reprFloat(value.value);
  if (value instanceof PyTuple) return reprTuple(value.items);
  if (value instanceof PyDict) return `{${value.entries.map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;
  return `[${value.map(pyRepr).join(', ')}]`;
}

/** A Python int's repr; refuses what is not a safe integer (pyRepr's rule for numbers). */
export function reprInt(value: number): string {
  if (!Number.isSafeInteger(value)) {
    throw new Error(`pyRepr: ${value} is not a safe integer; wrap floats in PyFloat`);
  }
  return String(value);
}

function reprTuple(items: readonly PyValue[]): string {
  // A one-element tuple needs its comma, or Python would read a parenthesised value.
  return items.length === 1 ? `(${pyRepr(items[0] as PyValue)},)` : `(${items.map(pyRepr).join(', ')})`;
}

const ESCAPED_CONTROLS: ReadonlyMap<string, string> = new Map([
  ['\\', '\\\\'],
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\t', '\\t'],
]);

// Not printable for CPython's str.isprintable(); space, the one printable Zs, never gets here.
const NON_PRINTABLE = /^[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

// Printable ASCII without ' or \: repr just wraps it in single quotes (most CLUTRR strings).
const PLAIN_ASCII = /^[\x20-\x26\x28-\x5b\x5d-\x7e]*$/;

// Printable ASCII without \ (quotes allowed): repr escapes at most the quote it wraps the text in.
const PRINTABLE_ASCII = /^[\x20-\x5b\x5d-\x7e]*$/;

/** Python 3's `repr()` of a str: CPython's quote choice and escapes. */
export function reprStr(text: string): string {
  if (PLAIN_ASCII.test(text)) return `'${text}'`;
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  if (PRINTABLE_ASCII.test(text)) return quote + (quote === "'" ? text.replaceAll("'", "\\'") : text) + quote;
  let out = quote;
  for (const ch of text) out += ch === quote ? `\\${ch}` : reprChar(ch);
  return out + quote;
}

function reprChar(ch: string): string {
  const escaped = ESCAPED_CONTROLS.get(ch);
  if (escaped !== undefined) return escaped;
  const code = ch.codePointAt(0) as number;
  if (code >= 0x20 && code < 0x7f) return ch;
  if (NON_PRINTABLE.test(ch)) return hexEscape(code);
  return ch;
}

function hexEscape(code: number): string {
  const hex = code.toString(16);
  if (code <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${hex.padStart(4, '0')}`;
  return `\\U${hex.padStart(8, '0')}`;
}

/** Python 3's `repr()` of a float: shortest round-trip digits, exponent form outside 1e-4 ≤ |x| < 1e16. */
function reprFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const [mantissa = '0', exponent = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  // Python's decimal point position: value = 0.<digits> × 10^decpt.
  const decpt = Number(exponent) + 1;
  if (decpt <= -4 || decpt > 16) return sign + exponentForm(digits, decpt - 1);
  return sign + fixedForm(digits, decpt);
}

function exponentForm(digits: string, exponent: number): string {
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const exp = String(Math.abs(exponent)).padStart(2, '0');
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${exp}`;
}

function fixedForm(digits: string, decpt: number): string {
  if (decpt <= 0) return `0.${'0'.repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${digits}${'0'.repeat(decpt - digits.length)}.0`;
  return `${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

// ---------------------------------------------------------------------------------------------
// parse

/** Parses one Python literal of the PyValue subset; throws an Error naming what was expected and the 0-based offset. */
export function parsePyLiteral(text: string): PyValue {
  const parser = new LiteralParser(text);
  parser.skipSpace();
  const value = parser.value(0);
  parser.skipSpace();
  if (!parser.atEnd()) parser.fail('end of input');
  return value;
}

// Python's own parser gives up near this depth; failing cleanly beats a JS stack overflow.
const MAX_DEPTH = 200;

// Maps, not object literals: a lookup must never find Object.prototype members.
const SIMPLE_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['\n', ''],
  ['\\', '\\'],
  ["'", "'"],
  ['"', '"'],
  ['a', '\x07'],
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
  ['v', '\v'],
]);

const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const NAMED_CONSTANTS: ReadonlyMap<string, PyValue> = new Map<string, PyValue>([
  ['None', null],
  ['True', true],
  ['False', false],
]);

class LiteralParser {
  private pos = 0;

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  fail(expected: string, at = this.pos): never {
    const found = at < this.text.length ? JSON.stringify(this.text[at]) : 'end of input';
    throw new Error(`expected ${expected} at offset ${at}, found ${found}`);
  }

  skipSpace(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      // ASCII answers without a regex test; anything else (or the end, NaN) asks \s.
      if (c === 32 || (c >= 9 && c <= 13)) this.pos++;
      else if (c > 127 && /\s/.test(this.text[this.pos] as string)) this.pos++;
      else return;
    }
  }

  value(depth: number): PyValue {
    if (depth > MAX_DEPTH) this.fail(`at most ${MAX_DEPTH} nested containers`);
    const ch = this.text[this.pos];
    if (ch === "'" || ch === '"') return this.string();
    if (ch === '[') return this.list(depth);
    if (ch === '(') return this.parenthesised(depth);
    if (ch === '{') return this.dict(depth);
    if (ch === '-' || ch === '+') return this.signedNumber();
    if (ch !== undefined && ((ch >= '0' && ch <= '9') || ch === '.')) return this.number(1);
    return this.namedConstant();
  }

  private namedConstant(): PyValue {
    NAME.lastIndex = this.pos;
    const match = NAME.exec(this.text);
    const value = match ? NAMED_CONSTANTS.get(match[0]) : undefined;
    if (!match || value === undefined) this.fail('a value (str, number, tuple, list, dict, None, True or False)');
    this.pos += match[0].length;
    return value;
  }

  private signedNumber(): PyValue {
    const sign = this.text[this.pos] === '-' ? -1 : 1;
    this.pos++;
    this.skipSpace();
    return this.number(sign);
  }

  private number(sign: 1 | -1): number | PyFloat {
    NUMBER.lastIndex = this.pos;
    const match = NUMBER.exec(this.text);
    if (!match) this.fail('a number');
    const start = this.pos;
    this.pos += match[0].length;
    const magnitude = Number(match[0]);
    if (/[.eE]/.test(match[0])) return new PyFloat(sign * magnitude);
    if (!Number.isSafeInteger(magnitude)) this.fail('an integer of at most 15 digits', start);
    // Python has no negative zero int; keep JS from producing one.
    return magnitude === 0 ? 0 : sign * magnitude;
  }

  private string(): string {
    const quote = this.text[this.pos] as string;
    const start = this.pos++;
    // Most strings hold no escape and no line break: one slice instead of a loop.
    const close = this.text.indexOf(quote, this.pos);
    if (close >= 0) {
      const body = this.text.slice(this.pos, close);
      if (!body.includes('\\') && !body.includes('\n')) {
        this.pos = close + 1;
        return body;
      }
    }
    let out = '';
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined || ch === '\n') this.fail(`a closing ${quote} (string opened at offset ${start})`);
      this.pos++;
      if (ch === quote) return out;
      out += ch === '\\' ? this.escape() : ch;
    }
  }

  private escape(): string {
    const ch = this.text[this.pos];
    if (ch === undefined) this.fail('an escape character');
    const simple = SIMPLE_ESCAPES.get(ch);
    if (simple !== undefined) {
      this.pos++;
      return simple;
    }
    if (/[0-7]/.test(ch)) return this.codeEscape(/[0-7]{1,3}/y, 8, 0);
    if (ch === 'x') return this.codeEscape(/[0-9a-fA-F]{2}/y, 16, 1);
    if (ch === 'u') return this.codeEscape(/[0-9a-fA-F]{4}/y, 16, 1);
    if (ch === 'U') return this.codeEscape(/[0-9a-fA-F]{8}/y, 16, 1);
    if (ch === 'N') this.fail('an escape other than \\N{...} (unsupported)');
    // Python keeps an unknown escape as written, backslash included.
    return '\\';
  }

  private codeEscape(digits: RegExp, radix: number, prefixLength: number): string {
    digits.lastIndex = this.pos + prefixLength;
    const match = digits.exec(this.text);
    if (!match) this.fail(`hex digits after \\${this.text[this.pos]}`, this.pos + prefixLength);
    const code = parseInt(match[0], radix);
    if (code > 0x10ffff) this.fail('a code point of at most \\U0010ffff');
    this.pos += prefixLength + match[0].length;
    return String.fromCodePoint(code);
  }

  private list(depth: number): PyValue[] {
    return this.items(']', depth).items;
  }

  /** `()` and `(a,)` are tuples; `(a)` is just `a`. */
  private parenthesised(depth: number): PyValue {
    const { items, trailingComma } = this.items(')', depth);
    return items.length === 1 && !trailingComma ? (items[0] as PyValue) : new PyTuple(items);
  }

  private items(close: string, depth: number): { items: PyValue[]; trailingComma: boolean } {
    this.pos++;
    const items: PyValue[] = [];
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] === close) {
        this.pos++;
        return { items, trailingComma: items.length > 0 };
      }
      items.push(this.value(depth + 1));
      this.skipSpace();
      if (this.text[this.pos] === close) {
        this.pos++;
        return { items, trailingComma: false };
      }
      if (this.text[this.pos] !== ',') this.fail(`',' or '${close}'`);
      this.pos++;
    }
  }

  private dict(depth: number): PyDict {
    this.pos++;
    const entries: [PyValue, PyValue][] = [];
    for (;;) {
      this.skipSpace();
      if (this.text[this.pos] === '}') break;
      entries.push(this.dictEntry(depth));
      this.skipSpace();
      if (this.text[this.pos] === '}') break;
      if (this.text[this.pos] !== ',') this.fail("',' or '}'");
      this.pos++;
    }
    this.pos++;
    return new PyDict(entries);
  }

  private dictEntry(depth: number): [PyValue, PyValue] {
    const keyAt = this.pos;
    const key = this.value(depth + 1);
    if (!isHashable(key)) this.fail('a hashable dict key (not a list or dict)', keyAt);
    this.skipSpace();
    if (this.text[this.pos] !== ':') this.fail("':'");
    this.pos++;
    this.skipSpace();
    return [key, this.value(depth + 1)];
  }
}

function isHashable(value: PyValue): boolean {
  if (value instanceof PyTuple) return value.items.every(isHashable);
  return !(value instanceof PyDict) && !isPyList(value);
}
