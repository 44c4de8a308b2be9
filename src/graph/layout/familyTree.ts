import type { Family, Person } from '../../core/family/family';

/**
 * Horizontal slots of a family tree, in units of one person: couples side by side (the man on
 * the left), every couple centred above its children's couples, and subtrees side by side without
 * overlap (a tidy tree). Slot values are slot centres and may be halves. `generation` gives
 * the row. Every person of the family gets a slot.
 */
export function familyTreeSlots(family: Family): Map<number, number> {
  const people = family.people;
  const slots = new Map<number, number>();
  if (people.length === 0) return slots;
  const width = new Map<number, number>();
  // The people born in the family (plus the root) carry the subtrees; spouses ride along.
  const widthOf = (p: Person): number => {
    const cached = width.get(p.id);
    if (cached !== undefined) return cached;
    const own = p.spouse !== null ? 2 : 1;
    const kids = p.children.reduce((sum, c) => sum + widthOf(people[c]!), 0);
    const w = Math.max(own, kids);
    width.set(p.id, w);
    return w;
  };
  const unitCentre = (p: Person): number =>
    p.spouse !== null ? (slots.get(p.id)! + slots.get(p.spouse)!) / 2 : slots.get(p.id)!;
  const place = (p: Person, left: number) => {
    const w = widthOf(p);
    const kidsWidth = p.children.reduce((sum, c) => sum + widthOf(people[c]!), 0);
    let x = left + (w - kidsWidth) / 2;
    const unitCentres: number[] = [];
    for (const c of p.children) {
      place(people[c]!, x);
      x += widthOf(people[c]!);
      unitCentres.push(unitCentre(people[c]!));
    }
    const own = p.spouse !== null ? 2 : 1;
    // Centred over the first and last child's couples, kept inside its own subtree's interval.
    const centre = unitCentres.length > 0 ? (unitCentres[0]! + unitCentres[unitCentres.length - 1]!) / 2 : left + w / 2;
    const coupleLeft = Math.min(left + w - own, Math.max(left, centre - own / 2));
    if (p.spouse === null) {
      slots.set(p.id, coupleLeft + 0.5);
    } else {
      const maleFirst = p.gender === 'male';
      slots.set(p.id, coupleLeft + (maleFirst ? 0.5 : 1.5));
      slots.set(p.spouse, coupleLeft + (maleFirst ? 1.5 : 0.5));
    }
  };
  // Roots: people with no parents who are not someone's in-law spouse (normally just person 0).
  const isInLaw = (p: Person) => p.parents === null && p.spouse !== null && people[p.spouse]!.parents !== null;
  let left = 0;
  for (const p of people) {
    if (p.parents !== null || slots.has(p.id) || isInLaw(p)) continue;
    place(p, left);
    left += widthOf(p);
  }
  // Anyone left over (malformed families): append at the right.
  for (const p of people) if (!slots.has(p.id)) slots.set(p.id, left++ + 0.5);
  return slots;
}
