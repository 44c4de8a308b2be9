import { describe, expect, it } from 'vitest';
import { generatePuzzle, type Puzzle } from '../../core/puzzle/puzzle';
import type { TaskId } from '../../core/puzzle/tasks';
import { boxesOverlap } from './geometry';
import { labelBox, nodeBox } from './sizes';
import { layoutStatedFacts, type StatedFactsLayout } from './statedFacts';

const PHONE_WIDTH = 340;
const WIDE_WIDTH = 560;

const puzzles = (seeds: number, ks: readonly number[], tasks: readonly TaskId[]): Puzzle[] =>
  Array.from({ length: seeds }, (_, seed) =>
    ks.flatMap((k) => tasks.map((task) => generatePuzzle({ seed, k, task }))),
  ).flat();

/** The family generation of each story person (what the explorer's rows show). */
const generationOf = (p: Puzzle, entity: number) => p.family.people[p.entities[entity]!.person]!.generation;

const inside = (b: { x: number; y: number; width: number; height: number }, l: StatedFactsLayout) =>
  b.x - b.width / 2 >= l.bounds.x0 - 1e-9 &&
  b.x + b.width / 2 <= l.bounds.x1 + 1e-9 &&
  b.y - b.height / 2 >= l.bounds.y0 - 1e-9 &&
  b.y + b.height / 2 <= l.bounds.y1 + 1e-9;

describe('layoutStatedFacts', () => {
  it('is a function of the puzzle and the width: the same layout on every call (a reload)', () => {
    const p = generatePuzzle({ seed: 42, k: 6, task: 2 });
    const a = layoutStatedFacts(p, { width: PHONE_WIDTH });
    const b = layoutStatedFacts(generatePuzzle({ seed: 42, k: 6, task: 2 }), { width: PHONE_WIDTH });
    expect(b).toEqual(a);
    // Another puzzle seed gives another picture.
    const c = layoutStatedFacts(generatePuzzle({ seed: 43, k: 6, task: 2 }), { width: PHONE_WIDTH });
    expect(c.nodes.map((n) => [Math.round(n.x), Math.round(n.y)])).not.toEqual(
      a.nodes.map((n) => [Math.round(n.x), Math.round(n.y)]),
    );
  });

  it('draws every story person once and every stated fact once, and marks the question’s pair', () => {
    for (const p of puzzles(8, [2, 5, 10], [1, 3, 4])) {
      const l = layoutStatedFacts(p, { width: PHONE_WIDTH });
      expect(l.nodes.map((n) => n.entity)).toEqual(p.entities.map((e) => e.index));
      expect(l.nodes.map((n) => n.name)).toEqual(p.entities.map((e) => e.name));
      expect(l.edges.map((e) => [e.from, e.to, e.word])).toEqual(p.facts.map((f) => [f.from, f.to, f.word]));
      expect(l.nodes.filter((n) => n.query === 'A').map((n) => n.entity)).toEqual([p.query[0]]);
      expect(l.nodes.filter((n) => n.query === 'B').map((n) => n.entity)).toEqual([p.query[1]]);
    }
  });

  it.each([PHONE_WIDTH, WIDE_WIDTH])(
    'at width %d, k up to 10: people inside the width and the box, no two people overlap, labels clear of people and each other',
    (width) => {
      let labelsChecked = 0;
      for (const p of puzzles(6, [2, 4, 6, 8, 10], [1, 2, 3, 4, 5, 6, 7])) {
        const l = layoutStatedFacts(p, { width });
        const where = `seed ${p.seed} k ${p.k} task ${p.task}`;
        const people = l.nodes.map((n) => nodeBox(n));
        for (const n of l.nodes) {
          expect(n.x - n.width / 2, where).toBeGreaterThanOrEqual(-1e-9);
          expect(n.x + n.width / 2, where).toBeLessThanOrEqual(width + 1e-9);
        }
        for (const b of people) expect(inside(b, l), where).toBe(true);
        for (let i = 0; i < people.length; i++) {
          for (let j = i + 1; j < people.length; j++) {
            expect(boxesOverlap(people[i]!, people[j]!), `${where}: ${l.nodes[i]!.name} and ${l.nodes[j]!.name}`).toBe(
              false,
            );
          }
        }
        const labels = l.edges.map((e) => labelBox(e.label, e.word));
        for (const [i, b] of labels.entries()) {
          expect(inside(b, l), where).toBe(true);
          for (const q of people)
            expect(boxesOverlap(b, q), `${where}: label ${l.edges[i]!.word} on a person`).toBe(false);
          for (const other of labels.slice(i + 1))
            expect(boxesOverlap(b, other), `${where}: labels overlap`).toBe(false);
          labelsChecked++;
        }
      }
      expect(labelsChecked).toBeGreaterThan(1000);
    },
  );

  it('does not order people by generation: older people are above younger ones no more often than below', () => {
    // The explorer's layout puts every older generation above every younger one (its rows): a
    // share of 1 and every puzzle ordered. Here, over many puzzles, a pair of people from different
    // generations has the older one above about half the time, and few puzzles spanning three or
    // more generations come out ordered from top to bottom.
    let olderAbove = 0;
    let pairs = 0;
    let ordered = 0;
    let spanning = 0;
    for (const p of puzzles(80, [3, 4, 5, 6], [1])) {
      const l = layoutStatedFacts(p, { width: PHONE_WIDTH });
      const gens = l.nodes.map((n) => generationOf(p, n.entity));
      let monotone = true;
      for (let i = 0; i < l.nodes.length; i++) {
        for (let j = 0; j < l.nodes.length; j++) {
          if (gens[i]! >= gens[j]!) continue;
          pairs++;
          // Lower generation numbers are older (the root couple is generation 0).
          if (l.nodes[i]!.y < l.nodes[j]!.y) olderAbove++;
          else monotone = false;
        }
      }
      if (new Set(gens).size >= 3) {
        spanning++;
        if (monotone) ordered++;
      }
    }
    expect(pairs).toBeGreaterThan(1000);
    expect(spanning).toBeGreaterThan(50);
    const share = olderAbove / pairs;
    expect(share).toBeGreaterThan(0.4);
    expect(share).toBeLessThan(0.6);
    expect(ordered / spanning).toBeLessThan(0.2);
  });
});
