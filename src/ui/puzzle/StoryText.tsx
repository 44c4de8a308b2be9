import type { StoryEntity } from '../../core/puzzle/puzzle';
import { EntityName } from './EntityName';
import { textSegments } from './text';

/**
 * CLUTRR text with `[Name]`s drawn as names (gender by shape and colour); given the question's
 * pair, its two people are marked A and B.
 */
export function StoryText({
  text,
  entities,
  query,
}: {
  text: string;
  entities: readonly StoryEntity[];
  query?: readonly [number, number];
}) {
  return (
    <>
      {textSegments(text, entities).map((s, i) =>
        'name' in s ? (
          <EntityName
            key={i}
            name={s.name}
            gender={s.entity?.gender}
            query={
              s.entity && query ? (s.entity.index === query[0] ? 'A' : s.entity.index === query[1] ? 'B' : null) : null
            }
          />
        ) : (
          s.text
        ),
      )}
    </>
  );
}
