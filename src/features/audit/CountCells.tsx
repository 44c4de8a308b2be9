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
      <td>{fmt(c.assumed)}</td>
      <td>{fmt(c.impossible)}</td>
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
      <th
        scope="col"
        title="Entailed rows that only an assumption rule decides (my child's uncle or aunt is my sibling; my child's grandparent is my parent)"
      >
        Assumed
      </th>
      <th scope="col" title="Assumed rows whose label is true in no family where the facts hold">
        True in no family
      </th>
    </>
  );
}
