import type { Puzzle, StoryEntity } from '../../core/puzzle/puzzle';

export type Segment = { readonly text: string } | { readonly name: string; readonly entity: StoryEntity | undefined };

/** Splits CLUTRR text (`[Anne] is the mother of [Kelly].`) into plain runs and names. */
export function textSegments(text: string, entities: readonly StoryEntity[]): Segment[] {
  const byName = new Map(entities.map((e) => [e.name, e]));
  const out: Segment[] = [];
  const re = /\[([^\]]+)\]/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push({ text: text.slice(last, m.index) });
    out.push({ name: m[1]!, entity: byName.get(m[1]!) });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

/** The question's two people: "How is B related to A?" */
export function queryPeople(puzzle: Puzzle): { a: StoryEntity | undefined; b: StoryEntity | undefined } {
  return { a: puzzle.entities[puzzle.query[0]], b: puzzle.entities[puzzle.query[1]] };
}
