import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closeFamily } from '../../core/family/closure';
import { generatePuzzle, type Puzzle } from '../../core/puzzle/puzzle';
import { TASK_IDS, type TaskId } from '../../core/puzzle/tasks';
import { familyTreeSlots } from './familyTree';
import { boxesOverlap, fitTransform } from './geometry';
import { layoutPuzzle } from './layout';
import { placeLabels } from './routing';
import { LABEL_HEIGHT, labelWidth, MIN_SPACE, SPOUSE_SPACE, TIGHT_SPACE } from './sizes';
import type { GraphLayout } from './types';
import { standInFamily } from '../../core/formats/toPuzzle';

const puzzleArb = fc
  .record({
    seed: fc.integer({ min: 0, max: 1_000_000 }),
    k: fc.integer({ min: 1, max: 10 }),
    task: fc.constantFrom(...TASK_IDS),
  })
  .map(({ seed, k, task }) => generatePuzzle({ seed, k, task: task as TaskId }));

function expectNoOverlap(layout: GraphLayout) {
  const ns = layout.nodes;
  for (let i = 0; i < ns.length; i++) {
    for (let j = i + 1; j < ns.length; j++) {
      const a = ns[i]!;
      const b = ns[j]!;
      const apart = Math.abs(a.x - b.x) >= (a.width + b.width) / 2 || Math.abs(a.y - b.y) >= (a.height + b.height) / 2;
      expect(apart, `${a.name} overlaps ${b.name}`).toBe(true);
    }
  }
}

function expectGenerationsOrdered(layout: GraphLayout) {
  for (const a of layout.nodes) {
    for (const b of layout.nodes) {
      if (a.generation < b.generation) expect(a.y).toBeLessThan(b.y);
      if (a.generation === b.generation) expect(a.y).toBe(b.y);
    }
  }
}

/** Spouses both drawn: same row, `gap(a, b)` apart (centre to centre), nobody between them. */
function expectSpousesAdjacent(
  puzzle: Puzzle,
  layout: GraphLayout,
  gap: ((a: { width: number }, b: { width: number }) => number) | null,
) {
  const byPerson = new Map(layout.nodes.filter((n) => n.person !== null).map((n) => [n.person!, n]));
  for (const n of layout.nodes) {
    const spouse = puzzle.family.people[n.person!]?.spouse;
    if (spouse === null || spouse === undefined) continue;
    const m = byPerson.get(spouse);
    if (!m) continue;
    expect(m.y).toBe(n.y);
    if (gap) expect(Math.abs(m.x - n.x)).toBeCloseTo(gap(n, m), 6);
    const between = layout.nodes.filter((o) => o.y === n.y && o.x > Math.min(n.x, m.x) && o.x < Math.max(n.x, m.x));
    expect(between).toEqual([]);
  }
}

describe('layoutPuzzle (story people only)', () => {
  it('draws one node per story person and one edge per fact', () => {
    fc.assert(
      fc.property(puzzleArb, (p) => {
        const layout = layoutPuzzle(p);
        expect(layout.nodes).toHaveLength(p.entities.length);
        expect(layout.edges).toHaveLength(p.facts.length);
        expect(layout.edges.map((e) => e.factId)).toEqual(p.facts.map((f) => f.id));
        expect(layout.nodes.filter((n) => n.query).map((n) => [n.entity, n.query])).toEqual([
          [p.query[0], 'A'],
          [p.query[1], 'B'],
        ]);
      }),
      { numRuns: 150 },
    );
  });

  it('keeps nodes apart, generations in order and spouses side by side', () => {
    fc.assert(
      fc.property(puzzleArb, (p) => {
        const layout = layoutPuzzle(p);
        expectNoOverlap(layout);
        expectGenerationsOrdered(layout);
        expectSpousesAdjacent(p, layout, (a, b) => (a.width + b.width) / 2 + SPOUSE_SPACE);
        // Room for a label between neighbours that a fact joins.
        const joined = new Set(p.facts.flatMap((f) => [`e${f.from},e${f.to}`, `e${f.to},e${f.from}`]));
        for (const row of new Set(layout.nodes.map((n) => n.y))) {
          const ns = layout.nodes.filter((n) => n.y === row).sort((a, b) => a.x - b.x);
          for (let i = 1; i < ns.length; i++) {
            const space = ns[i]!.x - ns[i - 1]!.x - (ns[i]!.width + ns[i - 1]!.width) / 2;
            const want = joined.has(`${ns[i - 1]!.id},${ns[i]!.id}`) ? Math.min(SPOUSE_SPACE, MIN_SPACE) : TIGHT_SPACE;
            expect(space).toBeGreaterThanOrEqual(want - 1e-9);
          }
        }
      }),
      { numRuns: 150 },
    );
  });

  it('puts parents above children', () => {
    const p = generatePuzzle({ seed: 42, k: 6, task: 5 });
    const layout = layoutPuzzle(p);
    const y = (i: number) => layout.nodes.find((n) => n.entity === i)!.y;
    for (const f of p.facts) {
      if (f.predicate === 'child' || f.predicate === 'grand' || f.predicate === 'in-law')
        expect(y(f.to)).toBeGreaterThan(y(f.from));
      if (f.predicate === 'SO' || f.predicate === 'sibling') expect(y(f.to)).toBe(y(f.from));
    }
  });

  it('draws untyped links apart from the facts', () => {
    const p = generatePuzzle({ seed: 8, k: 3, task: 1 });
    const layout = layoutPuzzle(p, { untyped: [[0, 2]] });
    expect(layout.links).toHaveLength(1);
    expect(layout.edges).toHaveLength(p.facts.length);
  });

  it('is a pure function of the puzzle', () => {
    const p = generatePuzzle({ seed: 7, k: 4, task: 5 });
    expect(layoutPuzzle(p)).toEqual(layoutPuzzle(p));
  });
});

describe('layoutPuzzle without a family (imported puzzles)', () => {
  it('derives generations from the facts and still keeps the invariants', () => {
    fc.assert(
      fc.property(puzzleArb, (p) => {
        const bare: Puzzle = { ...p, family: { people: [] } };
        // A stand-in family, as imported rows carry.
        const entities = p.entities.map((e) => ({ ...e, person: e.index as typeof e.person }));
        const standIn: Puzzle = { ...p, family: standInFamily(entities), entities };
        expect(layoutPuzzle(standIn).familyKnown).toBe(false);
        const layout = layoutPuzzle(bare);
        expect(layout.familyKnown).toBe(false);
        expect(layout.nodes).toHaveLength(p.entities.length);
        expect(layout.edges).toHaveLength(p.facts.length);
        expectNoOverlap(layout);
        const y = (i: number) => layout.nodes.find((n) => n.entity === i)!.y;
        for (const f of p.facts) {
          if (f.predicate === 'child') expect(y(f.to)).toBeGreaterThan(y(f.from));
          if (f.predicate === 'SO' || f.predicate === 'sibling') expect(y(f.to)).toBe(y(f.from));
        }
      }),
      { numRuns: 100 },
    );
  });

  it('ignores the hidden-family option', () => {
    const p = generatePuzzle({ seed: 3, k: 3, task: 2 });
    const layout = layoutPuzzle({ ...p, family: { people: [] } }, { showHidden: true, closure: closeFamily(p.family) });
    expect(layout.edges.every((e) => e.kind !== 'background')).toBe(true);
  });
});

describe('layoutPuzzle with the hidden family', () => {
  it('draws every family member once, the story facts once, and background edges apart', () => {
    fc.assert(
      fc.property(puzzleArb, (p) => {
        const layout = layoutPuzzle(p, { showHidden: true, closure: closeFamily(p.family) });
        expect(layout.nodes).toHaveLength(p.family.people.length);
        expect(layout.nodes.filter((n) => !n.hidden)).toHaveLength(p.entities.length);
        expect(layout.edges.filter((e) => e.kind !== 'background')).toHaveLength(p.facts.length);
        expect(layout.edges.filter((e) => e.kind === 'background').length).toBeGreaterThan(0);
        expectNoOverlap(layout);
        expectGenerationsOrdered(layout);
        expectSpousesAdjacent(p, layout, null);
        // A hidden relation line never repeats a stated fact (tree connectors may run beneath one).
        const stated = new Set(
          layout.edges.filter((e) => e.factId !== null).map((e) => [e.source, e.target].sort().join()),
        );
        for (const e of layout.edges.filter((x) => x.kind === 'background' && x.relation !== 'parent')) {
          expect(stated.has([e.source, e.target].sort().join())).toBe(false);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('familyTreeSlots', () => {
  it('puts couples above their children and never shares a slot within a generation', () => {
    for (let seed = 0; seed < 40; seed++) checkSlots(seed);
  });
});

function checkSlots(seed: number) {
  {
    const p = generatePuzzle({ seed, k: 2, task: 1, family: { maxLevels: 4, minChild: 0, maxChild: 3, pMarry: 0.8 } });
    const slots = familyTreeSlots(p.family);
    expect(slots.size).toBe(p.family.people.length);
    const rows = new Map<number, number[]>();
    for (const person of p.family.people)
      rows.set(person.generation, [...(rows.get(person.generation) ?? []), slots.get(person.id)!]);
    for (const xs of rows.values()) {
      xs.sort((a, b) => a - b);
      for (let i = 1; i < xs.length; i++) expect(xs[i]! - xs[i - 1]!).toBeGreaterThanOrEqual(1);
    }
    for (const person of p.family.people) {
      if (!person.parents || person.spouse === null) continue;
      const kids = person.children.map((c) => slots.get(c)!);
      if (kids.length === 0) continue;
      const centre = (slots.get(person.id)! + slots.get(person.spouse)!) / 2;
      expect(centre).toBeGreaterThanOrEqual(Math.min(...kids) - 0.5);
      expect(centre).toBeLessThanOrEqual(Math.max(...kids) + 0.5);
    }
  }
}

describe('placeLabels', () => {
  it('moves a label along its curve off a node and off an earlier label', () => {
    const line = (y: number) => (t: number) => ({ x: t * 400, y });
    const node = { x: 200, y: 0, width: 40, height: 30 };
    const [a, b] = placeLabels(
      [
        { text: 'daughter', at: line(0) },
        { text: 'daughter', at: line(0) },
      ],
      [node],
    );
    expect(boxesOverlap({ ...a!, width: labelWidth('daughter'), height: LABEL_HEIGHT }, node)).toBe(false);
    expect(
      boxesOverlap(
        { ...a!, width: labelWidth('daughter'), height: LABEL_HEIGHT },
        { ...b!, width: labelWidth('daughter'), height: LABEL_HEIGHT },
      ),
    ).toBe(false);
  });
});

describe('fitTransform', () => {
  it('fits the bounds inside the viewport, centred', () => {
    const t = fitTransform({ x0: -100, y0: 0, x1: 300, y1: 200 }, 800, 400, 20, 10);
    expect(t.k).toBeCloseTo(Math.min(760 / 400, 360 / 200));
    expect(t.x + t.k * 100).toBeCloseTo(400);
    expect(t.y + t.k * 100).toBeCloseTo(200);
  });
  it('never zooms past the maximum', () => {
    expect(fitTransform({ x0: 0, y0: 0, x1: 10, y1: 10 }, 800, 400, 0, 1.5).k).toBe(1.5);
  });
});
