import { closeFamily, type KinGraph, relationOf } from '../../core/family/closure';
import type { Family } from '../../core/family/family';
import { predicateOf } from '../../core/kinship/relations';
import type { Puzzle } from '../../core/puzzle/puzzle';

// Keyed by the family object: every view of one puzzle (the drawing, the hidden-family toggle)
// shares one closure, and it goes away with the puzzle.
const closures = new WeakMap<Family, KinGraph>();

/**
 * The family's closure (every pair's relation), computed once per family object; null for a
 * puzzle without a family (an imported record).
 */
export function familyClosure(family: Family | undefined): KinGraph | null {
  if (!family || family.people.length === 0) return null;
  let g = closures.get(family);
  if (!g) {
    g = closeFamily(family);
    closures.set(family, g);
  }
  return g;
}

/**
 * Whether `puzzle.family` is the family behind the story: it holds the story's people and its
 * closure relates every fact's two people by the fact's predicate. Puzzles imported from files
 * carry a stand-in family (everyone in one generation, unrelated), which fails this test.
 */
export function familyDescribes(puzzle: Puzzle, closure: KinGraph | null = null): boolean {
  const people = puzzle.family?.people ?? [];
  if (people.length === 0) return false;
  if (!puzzle.entities.every((e) => people[e.person]?.name === e.name && people[e.person]?.gender === e.gender))
    return false;
  const g = closure ?? familyClosure(puzzle.family)!;
  const person = (i: number) => puzzle.entities[i]!.person;
  return puzzle.facts.every((f) => {
    const code = relationOf(g, person(f.from), person(f.to));
    return code !== 0 && predicateOf(code) === f.predicate;
  });
}
