import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseClutrrCsv } from '../core/formats/clutrrCsv';
import { CLASSES } from './encoding';
import { exampleFromRow, splitValidation } from './csvExamples';

const rows = () => {
  const url = new URL('../core/formats/fixtures/mini-clutrr.csv', import.meta.url);
  return parseClutrrCsv(readFileSync(url, 'utf8'), 'mini-clutrr.csv');
};

describe('exampleFromRow', () => {
  it("numbers the puzzle's people as its graph does, also when untyped edges left people out", () => {
    for (const row of rows()) {
      const made = exampleFromRow(row);
      expect(made).not.toBeNull();
      const { puzzle, question } = made!.example;
      const g = question.graph;
      expect(puzzle.entities.length).toBe(g.numNodes);
      expect(puzzle.entities.map((e) => e.index)).toEqual(puzzle.entities.map((_, i) => i));
      expect(puzzle.query).toEqual(g.query);
      // Every typed edge of the graph is a fact of the puzzle between the same two nodes.
      const facts = new Set(puzzle.facts.map((f) => `${f.from}>${f.to}`));
      for (let e = 0; e < g.from.length; e++) expect(facts.has(`${g.from[e]}>${g.to[e]}`)).toBe(true);
      // The names stay with their people after the renumbering.
      expect(puzzle.entities[g.query[0]]!.name).toBe(row.query[0]);
      expect(puzzle.entities[g.query[1]]!.name).toBe(row.query[1]);
      expect(CLASSES[g.label]).toBe(row.target);
    }
  });
  it('skips a row whose target is not one of the 18 classes', () => {
    const row = rows()[0]!;
    expect(exampleFromRow({ ...row, target: 'godmother' })).toBeNull();
  });
});

describe('splitValidation', () => {
  it('holds out a seeded tenth, the same for the same seed, and none below ten rows', () => {
    const xs = Array.from({ length: 50 }, (_, i) => i);
    const a = splitValidation(xs, 'v');
    expect(a.validation.length).toBe(5);
    expect([...a.train, ...a.validation].sort((x, y) => x - y)).toEqual(xs);
    expect(splitValidation(xs, 'v')).toEqual(a);
    expect(splitValidation(xs.slice(0, 9), 'v').validation).toEqual([]);
  });
});
