import type { PuzzleRecord, StoryFact } from '../puzzle/puzzle';
import type { Rng } from '../random/rng';
import { mapped } from '../util/mapped';

/**
 * The order a story is told in, shared by the paraphrase and the plain renderers: the facts as
 * chains, each chain told as sentences, and the sentences arranged as the story order asks.
 */

/**
 * How a story's sentences are ordered. `shuffled` (datasets' default, as CLUTRR's generator
 * does): every sentence, path and noise alike, in a seeded random order, and the clean story is
 * the path's sentences in that same order. `path`: the path's sentences in path order with each
 * noise chain interleaved among them, and the clean story in path order (for teaching).
 */
export type StoryOrder = 'shuffled' | 'path';
export const STORY_ORDERS: readonly StoryOrder[] = ['shuffled', 'path'];

/**
 * The facts of a puzzle as chains, each told as a unit: the path in path order; each noise
 * path separately (consecutive facts of one kind where each starts where the last ended); a
 * memory fact alone.
 */
export function factChains(puzzle: PuzzleRecord): StoryFact[][] {
  const chains: StoryFact[][] = [];
  let current: StoryFact[] = [];
  for (const f of puzzle.facts) {
    const last = current[current.length - 1];
    const continues = last !== undefined && last.kind === f.kind && f.kind !== 'memory' && last.to === f.from;
    if (!continues && current.length > 0) {
      chains.push(current);
      current = [];
    }
    current.push(f);
  }
  if (current.length > 0) chains.push(current);
  return chains;
}

/**
 * The story's sentences in the given order, and the clean story's (the path's sentences): see
 * StoryOrder. Each chain is a list of sentences; `path` marks the story path's chain.
 */
export function arrange<T>(
  chains: readonly { readonly path: boolean; readonly sentences: readonly T[] }[],
  order: StoryOrder,
  rng: Rng,
): { sentences: T[]; clean: T[] } {
  if (order === 'path') {
    return {
      sentences: interleave(
        chains.map((c) => c.sentences),
        rng,
      ),
      clean: chains.filter((c) => c.path).flatMap((c) => c.sentences),
    };
  }
  // Shuffle positions (the same draws as shuffling the sentences) and keep each one's chain kind.
  const all: T[] = [];
  const path: boolean[] = [];
  for (const c of chains) {
    for (const s of c.sentences) {
      all.push(s);
      path.push(c.path);
    }
  }
  const shuffled = rng.shuffle(mapped(all, (_, i) => i));
  const sentences: T[] = [];
  const clean: T[] = [];
  for (const i of shuffled) {
    sentences.push(all[i]!);
    if (path[i]) clean.push(all[i]!);
  }
  return { sentences, clean };
}

/** Merges lists at random, keeping the order within each list (every interleaving equally likely). */
export function interleave<T>(lists: readonly (readonly T[])[], rng: Rng): T[] {
  const pos = mapped(lists, () => 0);
  const out: T[] = [];
  let left = lists.reduce((s, l) => s + l.length, 0);
  while (left > 0) {
    let r = rng.int(left);
    let k = 0;
    while (r >= lists[k]!.length - pos[k]!) r -= lists[k]!.length - pos[k++]!;
    out.push(lists[k]![pos[k]!++]!);
    left--;
  }
  return out;
}
