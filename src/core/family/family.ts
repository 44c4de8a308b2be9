import type { Gender } from '../kinship/relations';
import type { Rng } from '../random/rng';
import { FEMALE_NAMES, MALE_NAMES } from './names';

/** Index of a person inside one family (0 is the root). */
export type PersonId = number & { readonly __brand: 'PersonId' };

export interface Person {
  readonly id: PersonId;
  readonly name: string;
  readonly gender: Gender;
  /** 0 for the root couple, 1 for their children and the children's spouses, and so on. */
  readonly generation: number;
  /** [father, mother] for people born in the family; null for the root and for in-laws. */
  readonly parents: readonly [PersonId, PersonId] | null;
  readonly spouse: PersonId | null;
  readonly children: readonly PersonId[];
}

export interface Family {
  readonly people: readonly Person[];
}

/** The original generator's tunable parameters. */
export interface FamilyParams {
  /** Generations, counting the root couple's (the last generation marries but has no children). */
  readonly maxLevels: number;
  readonly minChild: number;
  readonly maxChild: number;
  /** Probability that a person marries. */
  readonly pMarry: number;
}

export const DEFAULT_FAMILY: FamilyParams = { maxLevels: 3, minChild: 4, maxChild: 4, pMarry: 1 };

/** The largest family this parameter set can produce, or Infinity past the name pool. */
export function maxFamilySize(p: FamilyParams): number {
  let size = 2;
  let couples = 1;
  for (let level = 1; level < p.maxLevels; level++) {
    const born = couples * p.maxChild;
    size += 2 * born;
    couples = born;
    if (size > MALE_NAMES.length + FEMALE_NAMES.length) return Infinity;
  }
  return size;
}

/** Why a parameter set cannot describe a family, or undefined when it is valid. */
export function checkFamilyParams(p: FamilyParams): string | undefined {
  return familyProblem(p)?.message;
}

/** Why family parameters are unusable, and which parameter is at fault; undefined when fine. */
export function familyProblem(p: FamilyParams): { param: keyof FamilyParams; message: string } | undefined {
  const int = (v: number) => Number.isInteger(v);
  if (!int(p.maxLevels) || p.maxLevels < 1)
    return { param: 'maxLevels', message: `max-levels must be a whole number ≥ 1 (got ${p.maxLevels})` };
  if (!int(p.minChild) || p.minChild < 0)
    return { param: 'minChild', message: `min-child must be a whole number ≥ 0 (got ${p.minChild})` };
  if (!int(p.maxChild) || p.maxChild < p.minChild)
    return {
      param: 'maxChild',
      message: `max-child must be a whole number ≥ min-child (got ${p.maxChild} with min-child ${p.minChild})`,
    };
  if (!(p.pMarry >= 0 && p.pMarry <= 1))
    return { param: 'pMarry', message: `p-marry must be between 0 and 1 (got ${p.pMarry})` };
  if (maxFamilySize(p) > 1000) {
    return {
      param: 'maxChild',
      message: `a family with max-levels ${p.maxLevels} and max-child ${p.maxChild} could reach more people than the name pool holds (${MALE_NAMES.length} men, ${FEMALE_NAMES.length} women); lower them`,
    };
  }
  return undefined;
}

interface MutablePerson {
  id: PersonId;
  name: string;
  gender: Gender;
  generation: number;
  parents: readonly [PersonId, PersonId] | null;
  spouse: PersonId | null;
  children: readonly PersonId[];
}

/**
 * The children of everyone without any. Shared by all of them: nothing mutates a person's
 * children once the family is built (Person.children is readonly).
 */
const NO_CHILDREN: readonly PersonId[] = [];

/**
 * Draws names without repetition: a partial Fisher–Yates over each gender's pool. The pools are
 * never copied: a family takes a few dozen of some 180 names, so the shuffle is kept as a small
 * table of which pool entry each moved slot now holds (0: its own), instead of a copy of the names.
 * The tables are shared by every pool (one family is drawn at a time: generateFamily never
 * yields) and stamped with the pool's draw number, so a new pool starts empty without clearing
 * or allocating them (a typed array of this size lives outside the heap: slow to allocate).
 */
class NamePool {
  private maleUsed = 0;
  private femaleUsed = 0;
  private readonly stamp: number;
  constructor(private readonly rng: Rng) {
    if (++drawNumber > 0x3fffffff) {
      drawNumber = 1;
      MALE_TABLE.stamps.fill(0);
      FEMALE_TABLE.stamps.fill(0);
    }
    this.stamp = drawNumber;
  }

  available(g: Gender): number {
    return g === 'male' ? MALE_NAMES.length - this.maleUsed : FEMALE_NAMES.length - this.femaleUsed;
  }

  take(g: Gender): string {
    const male = g === 'male';
    const pool = male ? MALE_NAMES : FEMALE_NAMES;
    const { slots, stamps } = male ? MALE_TABLE : FEMALE_TABLE;
    const i = male ? this.maleUsed++ : this.femaleUsed++;
    const j = i + this.rng.int(pool.length - i);
    const stamp = this.stamp;
    const atJ = stamps[j] === stamp ? slots[j]! : j;
    // Swap slots i and j; slot i is never read again (later draws read slots above it).
    slots[j] = stamps[i] === stamp ? slots[i]! : i;
    stamps[j] = stamp;
    return pool[atJ] as string;
  }
}

/** Which pool entry each slot holds (valid where its stamp is the current pool's). */
const table = (size: number) => ({ slots: new Uint16Array(size), stamps: new Int32Array(size) });
const MALE_TABLE = table(MALE_NAMES.length);
const FEMALE_TABLE = table(FEMALE_NAMES.length);
let drawNumber = 0;

/**
 * A random family as the original CLUTRR builds one: a root man; every person marries with
 * probability pMarry (a spouse of the other gender from outside the family); every couple has
 * between minChild and maxChild children of random gender, for maxLevels generations. Names never
 * repeat inside a family; when a gender's names run out, the remaining people are not born.
 * Genders are fixed at birth and never changed afterwards.
 */
export function generateFamily(rng: Rng, params: FamilyParams, reuse?: FamilyStore): Family {
  const names = new NamePool(rng);
  const people: MutablePerson[] = reuse ? reuse.start() : [];
  // Written without helper closures, and with one `parents` tuple and one children array per
  // couple, shared by siblings and by both spouses (none is mutated after this function): this
  // runs for every generated puzzle and was its largest allocation.
  let level: MutablePerson[] = [newPerson(people, names, 'male', 0, null, reuse)];
  for (let gen = 0; gen < params.maxLevels; gen++) {
    const next: MutablePerson[] = [];
    for (const p of level) {
      const otherGender: Gender = p.gender === 'male' ? 'female' : 'male';
      if (!rng.chance(params.pMarry) || names.available(otherGender) === 0) continue;
      const spouse = newPerson(people, names, otherGender, p.generation, null, reuse);
      p.spouse = spouse.id;
      spouse.spouse = p.id;
      if (gen === params.maxLevels - 1) continue;
      const parents: readonly [PersonId, PersonId] = p.gender === 'male' ? [p.id, spouse.id] : [spouse.id, p.id];
      const children: PersonId[] = [];
      const count = rng.range(params.minChild, params.maxChild);
      for (let c = 0; c < count; c++) {
        const g: Gender = rng.chance(0.5) ? 'male' : 'female';
        if (names.available(g) === 0) continue;
        const child = newPerson(people, names, g, gen + 1, parents, reuse);
        children.push(child.id);
        next.push(child);
      }
      if (children.length > 0) p.children = spouse.children = children;
    }
    level = next;
  }
  if (reuse) return reuse.finish(people);
  return { people };
}

/**
 * The people of one family at a time, kept for the next: generateFamily given a store rewrites
 * its person objects instead of making new ones (a family of 42 people is most of a puzzle's
 * allocation). The family it returns is valid only until the store's next family: for callers
 * that keep nothing of it (a dataset row keeps names and genders, copied, not people).
 */
export class FamilyStore {
  private readonly kept: MutablePerson[] = [];
  private readonly people: MutablePerson[] = [];
  private readonly family: { people: MutablePerson[] } = { people: this.people };
  private count = 0;

  /** An empty list to build the next family in. */
  start(): MutablePerson[] {
    this.count = 0;
    return this.people;
  }

  /** The next person object to rewrite (its id is the next id), or undefined when none is left. */
  take(): MutablePerson | undefined {
    return this.count < this.kept.length ? this.kept[this.count++] : undefined;
  }

  /** Keeps a new person object (the next id) for later families. */
  keep(p: MutablePerson): void {
    this.kept.push(p);
    this.count++;
  }

  /** The family built in `start`'s list: the list cut to the people of this family. */
  finish(people: MutablePerson[]): Family {
    if (people.length !== this.count) people.length = this.count;
    return this.family;
  }
}

/** Appends a person with the next id and a fresh name, not yet married, without children. */
function newPerson(
  people: MutablePerson[],
  names: NamePool,
  gender: Gender,
  generation: number,
  parents: readonly [PersonId, PersonId] | null,
  reuse: FamilyStore | undefined,
): MutablePerson {
  const reused = reuse?.take();
  if (reused) {
    reused.name = names.take(gender);
    reused.gender = gender;
    reused.generation = generation;
    reused.parents = parents;
    reused.spouse = null;
    reused.children = NO_CHILDREN;
    people[reused.id] = reused;
    return reused;
  }
  const p: MutablePerson = {
    id: people.length as PersonId,
    name: names.take(gender),
    gender,
    generation,
    parents,
    spouse: null,
    children: NO_CHILDREN,
  };
  people.push(p);
  reuse?.keep(p);
  return p;
}
