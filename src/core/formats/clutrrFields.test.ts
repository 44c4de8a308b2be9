import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clutrrFields } from './clutrrCsv';
import type { ClutrrRow, NamedTriple } from './clutrrRow';
import { pyRepr, PyDict, PyTuple } from './pyLiteral';

/** The literal columns through the generic pyRepr: what clutrrFields must write, byte for byte. */
function reference(row: ClutrrRow): string[] {
  const t = (x: NamedTriple) => new PyTuple(x);
  return [
    row.index,
    row.id,
    row.story,
    pyRepr(new PyTuple(row.query)),
    row.textQuery,
    row.target,
    pyRepr(row.textTarget),
    row.cleanStory,
    pyRepr(row.proofState.map((s) => new PyDict([[t(s.head), s.body.map(t)]]))),
    row.fComb,
    row.taskName,
    pyRepr(row.storyEdges.map((e) => new PyTuple(e))),
    pyRepr(row.edgeTypes),
    pyRepr(new PyTuple(row.queryEdge)),
    row.genders.map((g) => `${g.name}:${g.gender}`).join(','),
    row.synStory,
    pyRepr(new PyDict(row.nodeMapping)),
    row.taskSplit,
  ];
}

const text = fc.string({
  unit: fc.oneof(
    fc.constantFrom("'", '"', '\\', '\n', '\t', 'é', '\u2028', '\u0000', '\u00a0', '😀', ','),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
  ),
});
const triple = fc.tuple(text, text, text);
const pair = fc.tuple(fc.integer({ min: -5, max: 1e6 }), fc.nat(1e6));
const row = fc.record({
  index: fc.nat().map(String),
  id: text,
  story: text,
  query: fc.tuple(text, text),
  textQuery: text,
  target: text,
  textTarget: fc.array(text, { maxLength: 3 }),
  cleanStory: text,
  proofState: fc.array(fc.record({ head: triple, body: fc.array(triple, { maxLength: 3 }) }), { maxLength: 3 }),
  fComb: text,
  taskName: text,
  storyEdges: fc.array(pair, { maxLength: 5 }),
  edgeTypes: fc.array(text, { maxLength: 5 }),
  queryEdge: pair,
  genders: fc.array(
    fc.record({ name: fc.stringMatching(/^[A-Za-z][a-z ]{0,8}$/), gender: fc.constantFrom('male', 'female') }),
    { maxLength: 4 },
  ),
  synStory: text,
  nodeMapping: fc.array(pair, { maxLength: 5 }),
  taskSplit: text,
}) as fc.Arbitrary<ClutrrRow>;

describe('clutrrFields', () => {
  it('writes the literal columns exactly as pyRepr does', () => {
    fc.assert(
      fc.property(row, (r) => {
        expect(clutrrFields(r)).toEqual(reference(r));
      }),
      { numRuns: 400 },
    );
  });
});
