import { scaleLinear } from 'd3';
import type { Predicate } from '../../core/kinship/relations';
import type { Puzzle } from '../../core/puzzle/puzzle';
import type { Point } from './geometry';
import { MIN_SPACE, NODE_HEIGHT, nodeWidth, ROW_HEIGHT, SPOUSE_SPACE, TIGHT_SPACE } from './sizes';
import type { LayoutNode } from './types';

/** One column of the compact story layout (less than MIN_GAP: rows may interleave). */
const STORY_COLUMN = 72;

/** Generation difference (to − from) that each predicate implies. */
const GENERATION_STEP: Record<Predicate, number> = {
  child: 1,
  'inv-child': -1,
  SO: 0,
  sibling: 0,
  grand: 2,
  'inv-grand': -2,
  'in-law': 1,
  'inv-in-law': -1,
  un: 1,
  'inv-un': -1,
};

interface Placed {
  readonly generation: number;
  /** Horizontal order key (family slot or fallback column). */
  readonly order: number;
  readonly spouseOf: number | null;
}

/** Generations and order from the family tree. */
function placeFromFamily(puzzle: Puzzle, slots: ReadonlyMap<number, number>): Placed[] {
  const people = puzzle.family.people;
  const byPerson = new Map(puzzle.entities.map((e) => [e.person as number, e.index]));
  return puzzle.entities.map((e) => {
    const p = people[e.person]!;
    const spouse = p.spouse !== null ? byPerson.get(p.spouse) : undefined;
    return { generation: p.generation, order: slots.get(e.person) ?? 0, spouseOf: spouse ?? null };
  });
}

/**
 * Generations and order from the facts alone: a walk over each connected group of people,
 * stepping generations by each predicate, then the groups side by side.
 */
function placeFromFacts(puzzle: Puzzle): Placed[] {
  const n = puzzle.entities.length;
  const adj: { to: number; step: number; spouse: boolean }[][] = Array.from({ length: n }, () => []);
  for (const f of puzzle.facts) {
    const step = GENERATION_STEP[f.predicate];
    adj[f.from]?.push({ to: f.to, step, spouse: f.predicate === 'SO' });
    adj[f.to]?.push({ to: f.from, step: -step, spouse: f.predicate === 'SO' });
  }
  const gen = new Array<number | null>(n).fill(null);
  const visit = new Array<number>(n).fill(0);
  const spouseOf = new Array<number | null>(n).fill(null);
  const order = new Array<number>(n).fill(0);
  let offset = 0;
  let stamp = 0;
  for (let s = 0; s < n; s++) {
    if (gen[s] !== null) continue;
    const group: number[] = [s];
    gen[s] = 0;
    visit[s] = stamp++;
    for (let q = 0; q < group.length; q++) {
      const v = group[q]!;
      for (const e of adj[v]!) {
        if (e.spouse) spouseOf[v] = e.to;
        if (gen[e.to] !== null) continue;
        gen[e.to] = gen[v]! + e.step;
        visit[e.to] = stamp++;
        group.push(e.to);
      }
    }
    const low = Math.min(...group.map((v) => gen[v]!));
    const rows = new Map<number, number[]>();
    for (const v of group) {
      gen[v] = gen[v]! - low;
      const row = rows.get(gen[v]!) ?? [];
      row.push(v);
      rows.set(gen[v]!, row);
    }
    let width = 0;
    for (const row of rows.values()) {
      row.sort((a, b) => visit[a]! - visit[b]!);
      // Spouses next to each other.
      const arranged: number[] = [];
      for (const v of row) {
        if (arranged.includes(v)) continue;
        arranged.push(v);
        const sp = spouseOf[v];
        if (sp !== null && sp !== undefined && gen[sp] === gen[v] && !arranged.includes(sp)) arranged.push(sp);
      }
      arranged.forEach((v, i) => (order[v] = offset + i * 2));
      width = Math.max(width, arranged.length * 2);
    }
    offset += width + 1;
  }
  return puzzle.entities.map((_, i) => ({ generation: gen[i] ?? 0, order: order[i]!, spouseOf: spouseOf[i] ?? null }));
}

/**
 * Compact positions: rows by generation; columns follow the order keys (so relatives stay
 * roughly above each other); within a row, neighbours joined by a fact are at least MIN_SPACE
 * apart (room for its label), others TIGHT_SPACE, and spouses exactly SPOUSE_SPACE, side by side.
 */
function compactPositions(
  placed: readonly Placed[],
  widths: readonly number[],
  linked: (a: number, b: number) => boolean,
): Point[] {
  const columns = [...new Set(placed.map((p) => p.order))].sort((a, b) => a - b);
  const rank = new Map(columns.map((c, i) => [c, i]));
  const gens = placed.map((p) => p.generation);
  const y = scaleLinear()
    .domain([Math.min(...gens), Math.min(...gens) + 1])
    .range([0, ROW_HEIGHT]);
  const xs = placed.map((p) => rank.get(p.order)! * STORY_COLUMN);
  const rows = new Map<number, number[]>();
  placed.forEach((p, i) => rows.set(p.generation, [...(rows.get(p.generation) ?? []), i]));
  for (const row of rows.values()) {
    row.sort((a, b) => placed[a]!.order - placed[b]!.order);
    for (let j = 1; j < row.length; j++) {
      const prev = row[j - 1]!;
      const cur = row[j]!;
      const half = (widths[prev]! + widths[cur]!) / 2;
      const spouses = placed[cur]!.spouseOf === prev;
      const space = linked(prev, cur) ? MIN_SPACE : TIGHT_SPACE;
      xs[cur] = spouses ? xs[prev]! + half + SPOUSE_SPACE : Math.max(xs[cur]!, xs[prev]! + half + space);
    }
  }
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  return placed.map((p, i) => ({ x: xs[i]! - (x0 + x1) / 2, y: y(p.generation) }));
}

/** 'A' for the question's first person, 'B' for its second, null for everyone else. */
export function queryMark(puzzle: Puzzle, entity: number): 'A' | 'B' | null {
  return entity === puzzle.query[0] ? 'A' : entity === puzzle.query[1] ? 'B' : null;
}

/**
 * The story's people alone, packed: generations top to bottom, spouses side by side, columns in
 * the family tree's order (`slots`, when `familyKnown`) or in an order walked from the facts.
 * One node per entity, in entity order, with id `e<index>`.
 */
export function placeStory(puzzle: Puzzle, familyKnown: boolean, slots: ReadonlyMap<number, number>): LayoutNode[] {
  const placed = familyKnown ? placeFromFamily(puzzle, slots) : placeFromFacts(puzzle);
  const widths = puzzle.entities.map((e) => nodeWidth(e.name));
  const pairs = new Set(puzzle.facts.flatMap((f) => [`${f.from},${f.to}`, `${f.to},${f.from}`]));
  const pos = compactPositions(placed, widths, (a, b) => pairs.has(`${a},${b}`));
  return puzzle.entities.map((e) => ({
    id: `e${e.index}`,
    entity: e.index,
    person: familyKnown ? e.person : null,
    name: e.name,
    gender: e.gender,
    generation: placed[e.index]!.generation,
    hidden: false,
    query: queryMark(puzzle, e.index),
    x: pos[e.index]!.x,
    y: pos[e.index]!.y,
    width: widths[e.index]!,
    height: NODE_HEIGHT,
  }));
}
