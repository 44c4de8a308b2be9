import { useId } from 'react';
import { PAPER_MODEL_NAME } from './paper';
import {
  formatAccuracy,
  formatPaper,
  NOISE_LABEL,
  type RobustnessColumn,
  type RobustnessTable as Table,
} from './report';
import { HeadCells } from '../../ui/HeadCells';
import { left } from './HeadCells';

/**
 * Train noise × test noise (k = 2, 3 test sets) from every shipped folder's metadata, beside all
 * seven columns of the paper's Table 2 (the other noise-trained rows from its appendix): each
 * paper column stands next to the model of ours that reimplements it; BERT and BERT-LSTM, which
 * no model of ours reimplements, at the end, marked not shipped. Our cells:
 * `models-rob-<column>-<train>-<test>` (`data-value`, `data-rows`, `data-id` the folder); the
 * paper's: `models-rob-paper-<model>-<train>-<test>`.
 */
export function RobustnessTable({ table, errors }: { table: Table; errors: readonly string[] }) {
  const id = useId();
  const notShipped = table.columns.filter(
    (c): c is Extract<RobustnessColumn, { source: 'paper' }> => c.source === 'paper' && c.notShipped !== null,
  );
  return (
    <section className="model-report__section" aria-labelledby={`${id}-h`} data-testid="models-robustness">
      <h2 id={`${id}-h`}>Robustness: trained on one noise kind, tested on each</h2>
      <p className="hint">
        From the training metadata of every shipped folder (the main models are trained clean; a version{' '}
        <code>1-&lt;noise&gt;</code> is trained on that noise; a folder trained on CLUTRR&apos;s labels has its own
        column), each tested on fresh k = 2, 3 puzzles of each kind by the training script. A blank cell: no folder of
        that model was trained on that noise. Beside each model, the paper&apos;s figure for the model it reimplements
        (Table 2, means ± standard error over 10 runs; the rows it leaves to its appendix from there).
        {notShipped.length > 0 && (
          <>
            {' '}
            {notShipped.map((c) => PAPER_MODEL_NAME[c.paperModel]).join(' and ')}: the paper&apos;s figures only, not
            shipped ({notShipped[0]!.notShipped}).
          </>
        )}
      </p>
      {errors.map((e) => (
        <p key={e} className="model-report__error" role="alert" data-testid="models-metadata-error">
          {e}
        </p>
      ))}
      <div className="model-report__table-wrap" tabIndex={0} role="region" aria-labelledby={`${id}-cap`}>
        <table className="model-report__table model-report__rob">
          <caption id={`${id}-cap`}>Accuracy by training and test noise, ours beside the paper&apos;s</caption>
          <thead>
            <tr>
              <HeadCells columns={[left('Trained on'), left('Tested on')]} />
              {table.columns.map((c) =>
                c.source === 'ours' ? (
                  <th key={c.key} scope="col" data-testid="models-rob-col" data-key={c.key}>
                    {c.label}
                    <span className="model-report__id">{c.key}</span>
                  </th>
                ) : (
                  <th
                    key={`paper-${c.key}`}
                    scope="col"
                    className="model-report__paper"
                    data-testid="models-rob-col"
                    data-key={`paper-${c.key}`}
                    data-shipped={c.notShipped ? 'no' : undefined}
                  >
                    {c.label}
                    {c.notShipped && <span className="model-report__id">not shipped</span>}
                  </th>
                ),
              )}
              <th scope="col" className="model-report__left">
                Paper source
              </th>
            </tr>
          </thead>
          <tbody>
            {table.rows.map((r, i) => (
              <tr
                key={`${r.train}-${r.test}`}
                data-testid="models-rob-row"
                data-train={r.train}
                data-test={r.test}
                className={i > 0 && table.rows[i - 1]!.train !== r.train ? 'model-report__group-start' : undefined}
              >
                <th scope="row">{NOISE_LABEL[r.train]}</th>
                <td className="model-report__left">{NOISE_LABEL[r.test]}</td>
                {table.columns.map((c) => {
                  if (c.source === 'paper') {
                    const fig = r.paper?.[c.paperModel];
                    return (
                      <td
                        key={`paper-${c.key}`}
                        className={
                          c.notShipped ? 'model-report__paper model-report__not-shipped' : 'model-report__paper'
                        }
                        data-testid={`models-rob-paper-${c.key}-${r.train}-${r.test}`}
                        data-value={fig?.mean}
                      >
                        {fig ? formatPaper(fig) : '–'}
                      </td>
                    );
                  }
                  const cell = r.cells[c.key];
                  return (
                    <td
                      key={c.key}
                      data-testid={`models-rob-${c.key}-${r.train}-${r.test}`}
                      data-value={cell?.accuracy}
                      data-rows={cell?.rows}
                      data-id={cell?.id}
                      title={cell ? `${cell.id}, ${cell.rows} puzzles` : undefined}
                    >
                      {cell ? formatAccuracy(cell.accuracy) : ''}
                    </td>
                  );
                })}
                <td className="model-report__note model-report__left">{r.paperSource ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
