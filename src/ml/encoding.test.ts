import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseClutrrCsv } from '../core/formats/clutrrCsv';
import { puzzleToRow } from '../core/formats/fromPuzzle';
import { RELATION_WORDS } from '../core/kinship/relations';
import { generatePuzzle, toRecord } from '../core/puzzle/puzzle';
import { createRng } from '../core/random/rng';
import { renderPlain } from '../core/text/plain';
import {
  anonymise,
  batchGraphs,
  batchTokens,
  buildVocabulary,
  CLASSES,
  classIndex,
  edgeTypeOf,
  graphFromPuzzle,
  graphFromRow,
  NUM_EDGE_TYPES,
  NUM_WORDS,
  type StoryGraph,
} from './encoding';

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
    expect(encoded.map((e) => e.graph.numNodes)).toEqual(rows.map((r) => r.genders.length));
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
  it('anonymises names to @ent tokens, a seeded fresh assignment per story', () => {
    const a = anonymise(story, 1, ['Ann', 'Cara']);
    expect(a).toEqual(anonymise(story, 1, ['Ann', 'Cara']));
    const ids = [...a.entities.values()];
    expect(new Set(ids).size).toBe(3);
    expect(a.tokens.join(' ')).toBe(
      `${a.entities.get('Ann')} went shopping with her son ${a.entities.get('Bob')} . ${a.entities.get('Bob')} called his sister ${a.entities.get('Cara')} .`,
    );
    const assignments = new Set(Array.from({ length: 20 }, (_, s) => anonymise(story, s).entities.get('Ann')));
    expect(assignments.size).toBeGreaterThan(5);
  });
  it('vocabulary and padded token ids round-trip', () => {
    const stories = [anonymise(story, 1).tokens, anonymise('[Dan] is [Eve]’s father-in-law.', 2).tokens];
    const vocab = buildVocabulary(stories);
    expect(vocab.slice(0, 3)).toEqual(['<pad>', '<unk>', '@ent0']);
    expect(vocab).toContain('father-in-law');
    const { ids, lengths, maxLength } = batchTokens(stories, vocab);
    expect([...lengths]).toEqual(stories.map((s) => s.length));
    stories.forEach((s, b) =>
      expect([...ids.subarray(b * maxLength, b * maxLength + s.length)].map((i) => vocab[i])).toEqual(s),
    );
    expect(ids[1 * maxLength + stories[1]!.length]).toBe(0);
    expect(batchTokens([['zebra']], vocab).ids[0]).toBe(1);
  });
});
