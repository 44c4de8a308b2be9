import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseClutrrCsv } from '../core/formats/clutrrCsv';
import { puzzleToRow } from '../core/formats/fromPuzzle';
import { rowToPuzzle } from '../core/formats/toPuzzle';
import { RELATION_WORDS } from '../core/kinship/relations';
import { generatePuzzle, toRecord } from '../core/puzzle/puzzle';
import { createRng } from '../core/random/rng';
import { renderPlain } from '../core/text/plain';
import {
  batchGraphs,
  batchTexts,
  CLASSES,
  classIndex,
  edgeTypeOf,
  graphFromPuzzle,
  graphFromRow,
  NUM_EDGE_TYPES,
  NUM_WORDS,
  type StoryGraph,
} from './encoding';
import { learnTokenizer, UNK_ID } from './text/tokens';

const puzzle = (seed: number, k = 3, task: 1 | 2 | 3 | 4 = 1) => toRecord(generatePuzzle({ seed, k, task }));
const rowOf = (p: ReturnType<typeof puzzle>) =>
  puzzleToRow(p, renderPlain(p, 'test', createRng(p.seed, 'text')), { index: 0, id: 'x', split: 'test' });
const plain = (g: StoryGraph) => ({ ...g, from: [...g.from], to: [...g.to], type: [...g.type] });

describe('classes', () => {
  it('are frozen: 18 words in this order (changing it breaks every shipped model)', () => {
    expect(CLASSES).toMatchInlineSnapshot(`
      [
        "son",
        "daughter",
        "father",
        "mother",
        "brother",
        "sister",
        "grandson",
        "granddaughter",
        "grandfather",
        "grandmother",
        "son-in-law",
        "daughter-in-law",
        "father-in-law",
        "mother-in-law",
        "nephew",
        "niece",
        "uncle",
        "aunt",
      ]
    `);
  });
  it("are core's relation words without husband and wife, in core's order", () => {
    expect(CLASSES).toEqual(RELATION_WORDS.filter((w) => w !== 'husband' && w !== 'wife'));
    expect(classIndex('neice')).toBe(classIndex('niece'));
    expect(classIndex('husband')).toBe(-1);
  });
  it('edge types: self, 20 words, 20 inverses', () => {
    expect(NUM_EDGE_TYPES).toBe(41);
    expect(RELATION_WORDS.map(edgeTypeOf)).toEqual(RELATION_WORDS.map((_, i) => i + 1));
    expect(edgeTypeOf('neice')).toBe(edgeTypeOf('niece'));
    expect(edgeTypeOf('cousin')).toBeUndefined();
  });
});

describe('graphs', () => {
  it('a puzzle and its CSV row encode to the same graph', () => {
    for (const [seed, task] of [
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
    ] as const) {
      const p = puzzle(seed, 3, task);
      const g = graphFromPuzzle(p);
      const { graph, untypedEdges } = graphFromRow(rowOf(p));
      expect(untypedEdges).toEqual([]);
      expect(plain(graph)).toEqual(plain(g));
      expect(g.type.length).toBe(p.facts.length);
      expect(CLASSES[g.label]).toBe(p.target.word);
    }
  });
  it('leaves out and lists the edges a row gives no type', () => {
    const p = puzzle(5, 3, 3);
    const row = rowOf(p);
    const { graph, untypedEdges } = graphFromRow({ ...row, edgeTypes: row.edgeTypes.slice(0, 3) });
    expect(untypedEdges).toEqual(p.facts.slice(3).map((f) => f.id));
    expect(graph.type.length).toBe(3);
  });
  it('reads a released-format file: noise edges without a type are left out and named', () => {
    const url = new URL('../core/formats/fixtures/mini-clutrr.csv', import.meta.url);
    const rows = parseClutrrCsv(readFileSync(url, 'utf8'), 'mini-clutrr.csv');
    const encoded = rows.map(graphFromRow);
    expect(encoded.map((e) => e.untypedEdges)).toEqual([[], [], [3], [2]]);
    expect(encoded.map((e) => CLASSES[e.graph.label])).toEqual(rows.map((r) => r.target));
    // The people only an untyped edge reached are left out; everyone else keeps a place.
    expect(encoded.map((e) => e.graph.numNodes + e.droppedPeople.length)).toEqual(rows.map((r) => r.genders.length));
    expect(encoded.map((e) => e.droppedPeople)).toEqual([[], [], [4], [3, 4]]);
  });
  it('an imported row with untyped edges gives the graph its row gives (the bare people left out too)', () => {
    const url = new URL('../core/formats/fixtures/mini-clutrr.csv', import.meta.url);
    for (const row of parseClutrrCsv(readFileSync(url, 'utf8'), 'mini-clutrr.csv')) {
      expect(plain(graphFromPuzzle(rowToPuzzle(row)))).toEqual(plain(graphFromRow(row).graph));
    }
  });
  it('leaves out the people only untyped edges reached, renumbering the rest in order', () => {
    const p = puzzle(5, 3, 3);
    const row = rowOf(p);
    const typed = 3;
    const { graph, droppedPeople } = graphFromRow({ ...row, edgeTypes: row.edgeTypes.slice(0, typed) });
    const linked = new Set([...row.storyEdges.slice(0, typed).flat(), ...row.queryEdge]);
    const expected = row.genders.map((_, i) => i).filter((i) => !linked.has(i));
    expect(droppedPeople).toEqual(expected);
    expect(graph.numNodes).toBe(row.genders.length - expected.length);
    const renumber = (i: number) => i - expected.filter((d) => d < i).length;
    expect([...graph.from]).toEqual(row.storyEdges.slice(0, typed).map(([a]) => renumber(a)));
    expect([...graph.to]).toEqual(row.storyEdges.slice(0, typed).map(([, b]) => renumber(b)));
    expect(graph.query).toEqual(row.queryEdge.map(renumber));
  });
  it('the same puzzle encodes identically in repeated calls', () => {
    const p = puzzle(6);
    const a = batchGraphs([graphFromPuzzle(p)], { inverseEdges: true });
    const b = batchGraphs([graphFromPuzzle(p)], { inverseEdges: true });
    expect(a).toEqual(b);
  });
  it('batches: padding, self-loops, edges j → i, inverse edges, query one-hots', () => {
    const g: StoryGraph = {
      numNodes: 3,
      from: Int32Array.of(0, 1),
      to: Int32Array.of(1, 2),
      type: Int32Array.of(edgeTypeOf('son')!, edgeTypeOf('brother')!),
      query: [0, 2],
      label: classIndex('son'),
    };
    const small: StoryGraph = {
      ...g,
      numNodes: 2,
      from: Int32Array.of(0),
      to: Int32Array.of(1),
      type: Int32Array.of(1),
    };
    const T = NUM_EDGE_TYPES;
    const batch = batchGraphs([g, small], { inverseEdges: true, minNodes: 4 });
    const N = batch.maxNodes;
    expect(N).toBe(4);
    const edge = (b: number, i: number, j: number) => {
      const o = ((b * N + i) * N + j) * T;
      return [...batch.edges.subarray(o, o + T)].flatMap((v, t) => (v ? [t] : []));
    };
    expect(edge(0, 0, 0)).toEqual([0]);
    expect(edge(0, 1, 0)).toEqual([edgeTypeOf('son')]);
    expect(edge(0, 0, 1)).toEqual([edgeTypeOf('son')! + NUM_WORDS]);
    expect(edge(0, 2, 1)).toEqual([edgeTypeOf('brother')]);
    expect(edge(0, 3, 3)).toEqual([]);
    expect([...batch.nodeMask]).toEqual([1, 1, 1, 0, 1, 1, 0, 0]);
    expect([...batch.queryA]).toEqual([1, 0, 0, 0, 1, 0, 0, 0]);
    expect([...batch.queryB]).toEqual([0, 0, 1, 0, 0, 0, 1, 0]);
    expect([...batch.labels]).toEqual([0, 0]);
    expect(batchGraphs([g]).edges.filter((v) => v).length).toBe(5);
  });
});

describe('text', () => {
  const story = '[Ann] went shopping with her son [Bob]. [Bob] called his sister [Cara].';
  const tokens = learnTokenizer([story, '[Dan] is [Eve]’s father-in-law.']);
  const item = (s: string, a: string, b: string, seed = 1) => ({
    story: s,
    queryNames: [a, b] as const,
    label: classIndex('sister'),
    seed,
  });

  it('batchTexts: padded ids, mask, sentences, query positions as weights summing to 1', () => {
    const items = [item(story, 'Ann', 'Bob'), item('[Dan] is [Eve]’s father.', 'Eve', 'Dan', 2)];
    const batch = batchTexts(items, tokens);
    const L = batch.maxLength;
    expect(L).toBe(tokens.encode(story, 1).ids.length);
    const row = (x: ArrayLike<number>, b: number) => Array.from({ length: L }, (_, i) => x[b * L + i]!);
    expect(row(batch.ids, 0)).toEqual(tokens.encode(story, 1, ['Ann', 'Bob']).ids);
    const second = tokens.encode(items[1]!.story, 2, ['Eve', 'Dan']);
    expect(row(batch.mask, 1)).toEqual(row(batch.ids, 1).map((_, i) => (i < second.ids.length ? 1 : 0)));
    expect(
      row(batch.ids, 1)
        .slice(second.ids.length)
        .every((id) => id === 0),
    ).toBe(true);
    expect(row(batch.sentence, 0)).toEqual([...tokens.encode(story, 1).sentence]);
    expect(
      row(batch.sentence, 1)
        .slice(second.ids.length)
        .every((s) => s === -1),
    ).toBe(true);
    // Bob appears twice in the first story: half the weight at each place.
    expect(row(batch.queryB, 0).filter((w) => w > 0)).toEqual([0.5, 0.5]);
    expect(row(batch.queryA, 0).reduce((x, y) => x + y)).toBe(1);
    const bobId = tokens.encode(story, 1, ['Ann', 'Bob']).entities.get('Bob');
    row(batch.queryB, 0).forEach((w, i) => expect(w > 0).toBe(batch.ids[i] === bobId));
    expect([...batch.labels]).toEqual([classIndex('sister'), classIndex('sister')]);
    expect(batchTexts(items, tokens)).toEqual(batch);
    expect(batchTexts(items, tokens, { minLength: 40 }).maxLength).toBe(40);
  });

  it('text no training story had still makes a batch (pieces and <unk>, never an error); dropout needs an rng', () => {
    const odd = item('[Zoë] télé-phoned her GRANDPA, [Max]… ☃', 'Zoë', 'Max');
    const batch = batchTexts([odd], tokens);
    expect(batch.maxLength).toBeGreaterThan(5);
    expect(batch.queryA.reduce((x, y) => x + y)).toBe(1);
    expect(() => batchTexts([odd], tokens, { wordDropout: 0.1 })).toThrow(/needs an rng/);
    const dropped = batchTexts([odd], tokens, { wordDropout: 1, rng: createRng(3) });
    expect([...dropped.ids].filter((id) => id === UNK_ID).length).toBeGreaterThanOrEqual(4);
  });
});
