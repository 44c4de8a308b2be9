import type { Puzzle } from '../../core/puzzle/puzzle';
import { EntityName } from './EntityName';
import { queryPeople } from './text';
import './puzzle.css';

/** "How is B related to A?" with the names drawn and marked. */
export function Question({ puzzle, className }: { puzzle: Puzzle; className: string }) {
  const { a, b } = queryPeople(puzzle);
  return (
    <p className={className} data-testid="query">
      How is <EntityName name={b?.name ?? '?'} gender={b?.gender} query="B" /> related to{' '}
      <EntityName name={a?.name ?? '?'} gender={a?.gender} query="A" />?
    </p>
  );
}
