import type { KCounts } from '../../core/formats/audit';
import { CountCells, CountHeads } from './CountCells';

/** Verdict counts per story length k, over every file. */
export function KSummary({ byK }: { byK: readonly KCounts[] }) {
  if (byK.length === 0) return null;
  return (
    <table className="audit__table">
      <caption>Per story length k</caption>
      <thead>
        <tr>
          <th scope="col">k</th>
          <CountHeads />
        </tr>
      </thead>
      <tbody>
        {byK.map((c) => (
          <tr key={c.k} data-testid="audit-summary-k" data-k={c.k}>
            <th scope="row">{c.k}</th>
            <CountCells c={c} />
          </tr>
        ))}
      </tbody>
    </table>
  );
}
