import type { Gender } from '../../core/kinship/relations';
import './puzzle.css';

/**
 * A person's name as every view writes it: the gender is shown by a shape (a square for men, a
 * circle for women, as in the graph and in pedigree charts) and by colour, never by colour alone.
 */
export function EntityName({
  name,
  gender,
  query,
}: {
  name: string;
  gender: Gender | undefined;
  query?: 'A' | 'B' | null;
}) {
  return (
    <span className={`name name--${gender ?? 'unknown'}${query ? ' name--query' : ''}`} data-gender={gender}>
      {name}
    </span>
  );
}
