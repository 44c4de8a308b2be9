import { useId } from 'react';
import type { ModelIndexEntry, ModelMetadata } from '../../ml/model';
import { PAPER_CLEAN_K23, PAPER_MODEL_NAME, PAPER_MODELS, PAPER_NOT_SHIPPED } from './paper';
import { accuracyOf, formatAccuracy, formatPaper, metadataCurve, REPORT_KS, type KCount } from './report';
import { AccuracyHead } from './HeadCells';
import '../../ui/table.css';
import { TableScroll } from '../../ui/TableScroll';

export interface AccuracyTableProps {
  readonly models: readonly ModelIndexEntry[];
  readonly counts: Readonly<Record<string, readonly KCount[]>>;
  readonly metadata: Readonly<Record<string, ModelMetadata>>;
  /** The model being evaluated now (its row is marked busy). */
  readonly current: string | null;
}

/**
 * Every figure of the chart as text: per model the run in this browser (`models-acc-<model>-<k>`,
 * with `data-correct` and `data-rows`) and the training script's curve
 * (`models-train-<model>-<k>`), then the paper's Table 2 clean figures of all seven of its models
 * (`models-paper-<paper model>`), which cover k = 2, 3 only; BERT and BERT-LSTM marked not shipped.
 */
export function AccuracyTable({ models, counts, metadata, current }: AccuracyTableProps) {
  const id = useId();
  return (
    <TableScroll className="model-report__table-wrap" labelledBy={`${id}-cap`}>
      <table className="model-report__table" data-testid="models-accuracy">
        <caption id={`${id}-cap`}>Accuracy by model and k</caption>
        <AccuracyHead />
        <tbody>
          {models.flatMap((m) => {
            const byK = new Map((counts[m.id] ?? []).map((c) => [c.k, c]));
            const meta = metadata[m.id];
            const curve = new Map(meta ? metadataCurve(meta).map((p) => [p.k, p.accuracy]) : []);
            return [
              <tr key={`${m.id}-run`} data-testid="models-row" data-model={m.model} aria-busy={current === m.id}>
                <th scope="row" rowSpan={2} className="sticky-col">
                  {m.label}
                  <span className="model-report__id">{m.id}</span>
                </th>
                <td className="model-report__left">this browser</td>
                {REPORT_KS.map((k) => {
                  const c = byK.get(k);
                  return (
                    <td
                      key={k}
                      data-testid={`models-acc-${m.model}-${k}`}
                      data-value={c ? accuracyOf(c) : undefined}
                      data-correct={c?.correct}
                      data-rows={c?.rows}
                      title={c ? `${c.correct} of ${c.rows} right` : undefined}
                    >
                      {formatAccuracy(c ? accuracyOf(c) : undefined)}
                    </td>
                  );
                })}
              </tr>,
              <tr key={`${m.id}-train`} className="model-report__train-row">
                <td>training script{meta ? ` (${meta.test.rows} per k, seed ${meta.seed})` : ''}</td>
                {REPORT_KS.map((k) => (
                  <td key={k} data-testid={`models-train-${m.model}-${k}`} data-value={curve.get(k)}>
                    {formatAccuracy(curve.get(k))}
                  </td>
                ))}
              </tr>,
            ];
          })}
          {PAPER_MODELS.map((pm) => (
            <tr key={pm} className="model-report__paper-row" data-testid={`models-paper-${pm}`}>
              <th scope="row" className="sticky-col">
                Paper: {PAPER_MODEL_NAME[pm]}
                {PAPER_NOT_SHIPPED[pm] && <span className="model-report__id">not shipped</span>}
              </th>
              <td className="model-report__left">Table 2 (clean)</td>
              <td colSpan={2} data-value={PAPER_CLEAN_K23[pm].mean}>
                {formatPaper(PAPER_CLEAN_K23[pm])} <span className="model-report__note">k = 2, 3 together</span>
              </td>
              <td colSpan={REPORT_KS.length - 2} className="model-report__note">
                not stated (Figure 5 is a plot without numbers)
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
