import { HeadCells, type HeadColumn } from '../../ui/HeadCells';
import { REPORT_KS } from './report';

/** A column of words in a report table: left-aligned (figures, the default, align right). */
export const left = (label: string): HeadColumn => ({ label, className: 'model-report__left' });

/** The accuracy tables' leading columns: which model, and where its figures come from. */
const MODEL_SOURCE_COLUMNS: readonly HeadColumn[] = [left('Model'), left('Figures from')];

/** The accuracy tables' head (the report's and the supervision comparison's): model, source, one column per reported k. */
export function AccuracyHead() {
  return (
    <thead>
      <tr>
        <HeadCells columns={MODEL_SOURCE_COLUMNS} />
        {REPORT_KS.map((k) => (
          <th key={k} scope="col">
            k = {k}
          </th>
        ))}
      </tr>
    </thead>
  );
}
