/**
 * Seeded randomness. Everything random in the project flows from an `Rng`; there is no
 * Math.random in core. The generator is sfc32 (small fast counter, 128-bit state), seeded
 * through a 32-bit mixing hash, so the same seed gives the same stream in Node, a worker and
 * the browser (only 32-bit integer arithmetic is used).
 */

export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform 32-bit unsigned integer. */
  uint32(): number;
  /** Uniform integer in [0, n); n must be a positive integer. */
  int(n: number): number;
  /** Uniform integer in [lo, hi], inclusive. */
  range(lo: number, hi: number): number;
  /** true with probability p. */
  chance(p: number): boolean;
  /** A uniformly chosen element; the array must not be empty. */
  pick<T>(items: readonly T[]): T;
  /** Fisher–Yates shuffle in place; returns the same array. */
  shuffle<T>(items: T[]): T[];
}

/** A seed as users type it: a non-negative integer or any string. */
export type Seed = number | string;

/** 32-bit finaliser (from the murmur3 family): spreads every input bit over the output. */
export function mix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A stable 32-bit hash of a string or of a list of seed parts. */
export function hashSeed(...parts: readonly Seed[]): number {
  let h = 0x9e3779b9;
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p]!;
    // A row's seed is hashed three times in a row (its puzzle, text and id streams): the state
    // after a first part is kept for the next call that starts with the same part.
    if (p === 0 && part === lastFirst) {
      h = lastFirstHash;
      continue;
    }
    h = hashPart(h, part);
    if (p === 0) {
      lastFirst = part;
      lastFirstHash = h;
    }
  }
  return h >>> 0;
}

let lastFirst: Seed | undefined;
let lastFirstHash = 0;

/** Hashes `#` and the digits of a number part, or `$` and a string part, then the length. */
function hashPart(h: number, part: Seed): number {
  // The marker is hashed on its own rather than prefixed to the part: prefixing would make a new
  // string (and flatten it) for every hash, and most seeds are already strings.
  const s = typeof part === 'number' ? String(part) : part;
  h = mix32(h ^ (typeof part === 'number' ? 0x23 : 0x24)) + 0x6d2b79f5;
  for (let i = 0; i < s.length; i++) {
    h = mix32(h ^ s.charCodeAt(i)) + 0x6d2b79f5;
  }
  return mix32(h ^ (s.length + 1));
}

class Sfc32 implements Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // The state is kept as signed 32-bit integers (`| 0`): uint32() reads it only through 32-bit
    // operators, so the stream is the same as from the unsigned values, and V8 can keep the
    // fields as small integers instead of boxed doubles.
    this.a = mix32(seed ^ 0xa341316c) | 0;
    this.b = mix32(seed ^ 0xc8013ea4) | 0;
    this.c = mix32(seed ^ 0xad90777d) | 0;
    this.d = 1;
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.uint32() / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return p >= 1 || this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[this.int(items.length)] as T;
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = items[i] as T;
      items[i] = items[j] as T;
      items[j] = t;
    }
    return items;
  }
}

/** A new generator for a seed, optionally namespaced by further parts (`createRng(7, 'noise')`). */
export function createRng(seed: Seed, ...parts: readonly Seed[]): Rng {
  return new Sfc32(hashSeed(seed, ...parts));
}
