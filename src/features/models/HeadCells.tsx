import type { HeadColumn } from '../../ui/HeadCells';
import { REPORT_KS } from './report';

/** A column of words in a report table: left-aligned (figures, the default, align right). */
export const left = (label: string): HeadColumn => ({ label, className: 'model-report__left' });

/** The accuracy tables' leading columns: which model, and where its figures come from. */
export const MODEL_SOURCE_COLUMNS: readonly HeadColumn[] = [left('Model'), left('Figures from')];

/** One head cell per reported k. */
export function KHeadCells() {
  return REPORT_KS.map((k) => (
    <th key={k} scope="col">
      k = {k}
    </th>
  ));
}
