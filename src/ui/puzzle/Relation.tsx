import type { StoryEntity } from '../../core/puzzle/puzzle';
import { EntityName } from './EntityName';

/**
 * "Kelly is Anne's daughter" with the names drawn: `to` is `from`'s `word`. With `query`, the two
 * are the question's pair and carry their A and B marks.
 */
export function Relation({
  from,
  to,
  word,
  query = false,
}: {
  from: StoryEntity | undefined;
  to: StoryEntity | undefined;
  word: string;
  query?: boolean;
}) {
  return (
    <>
      <EntityName name={to?.name ?? '?'} gender={to?.gender} query={query ? 'B' : null} /> is{' '}
      <EntityName name={from?.name ?? '?'} gender={from?.gender} query={query ? 'A' : null} />
      's <strong>{word}</strong>
    </>
  );
}
