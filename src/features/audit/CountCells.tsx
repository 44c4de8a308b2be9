import type { VerdictCounts } from '../../core/formats/audit';
import { formatCount as fmt } from '../../core/util/format';
import { entailedShare } from './summary';

/** The count columns of the per-file and per-k tables. */
export function CountCells({ c }: { c: VerdictCounts }) {
  return (
    <>
      <td>{fmt(c.rows)}</td>
      <td>{fmt(c.entailed)}</td>
      <td>{fmt(c.ambiguous)}</td>
      <td>{fmt(c.unsupported)}</td>
      <td>{entailedShare(c)}</td>
    </>
  );
}

/** The headers of CountCells' columns. */
export function CountHeads() {
  return (
    <>
      <th scope="col">Rows</th>
      <th scope="col">Entailed</th>
      <th scope="col">Ambiguous</th>
      <th scope="col">Unsupported</th>
      <th scope="col">Entailed share</th>
    </>
  );
}
