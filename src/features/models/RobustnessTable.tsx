import { useId } from 'react';
import { PAPER_MODEL_LABEL } from './paper';
import { formatAccuracy, formatPaper, NOISE_LABEL, type RobustnessTable as Table } from './report';

/**
 * Train noise × test noise (k = 2, 3 test sets) from every shipped folder's metadata, beside the
 * paper's GAT and BiLSTM-attention (Table 2; the other noise-trained rows from its appendix).
 * Cells: `models-rob-<model>-<train>-<test>` (`data-value`, `data-rows`, `data-id` the folder).
 */
export function RobustnessTable({ table, errors }: { table: Table; errors: readonly string[] }) {
  const id = useId();
  return (
    <section className="mr-section" aria-labelledby={`${id}-h`} data-testid="models-robustness">
      <h2 id={`${id}-h`}>Robustness: trained on one noise kind, tested on each</h2>
      <p className="hint">
        From the training metadata of every shipped folder (the main models are trained clean; a version{' '}
        <code>1-&lt;noise&gt;</code> is trained on that noise), each tested on fresh k = 2, 3 puzzles of each kind by
        the training script. A blank cell: no folder of that model was trained on that noise. The paper&apos;s figures
        are means ± standard error over 10 runs.
      </p>
      {errors.map((e) => (
        <p key={e} className="mr-error" role="alert" data-testid="models-metadata-error">
          {e}
        </p>
      ))}
      <div className="mr-table-wrap" tabIndex={0} role="region" aria-labelledby={`${id}-cap`}>
        <table className="mr-table">
          <caption id={`${id}-cap`}>Accuracy by training and test noise</caption>
          <thead>
            <tr>
              <th scope="col" className="mr-left">
                Trained on
              </th>
              <th scope="col" className="mr-left">
                Tested on
              </th>
              {table.columns.map((c) => (
                <th key={c.model} scope="col">
                  {c.label}
                  <span className="mr-id">{c.model}</span>
                </th>
              ))}
              <th scope="col">Paper: {PAPER_MODEL_LABEL.gat}</th>
              <th scope="col">Paper: {PAPER_MODEL_LABEL.bilstmAttention}</th>
              <th scope="col" className="mr-left">
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
                className={i > 0 && table.rows[i - 1]!.train !== r.train ? 'mr-group-start' : undefined}
              >
                <th scope="row">{NOISE_LABEL[r.train]}</th>
                <td className="mr-left">{NOISE_LABEL[r.test]}</td>
                {table.columns.map((c) => {
                  const cell = r.cells[c.model];
                  return (
                    <td
                      key={c.model}
                      data-testid={`models-rob-${c.model}-${r.train}-${r.test}`}
                      data-value={cell?.accuracy}
                      data-rows={cell?.rows}
                      data-id={cell?.id}
                      title={cell ? `${cell.id}, ${cell.rows} puzzles` : undefined}
                    >
                      {cell ? formatAccuracy(cell.accuracy) : ''}
                    </td>
                  );
                })}
                <td className="mr-paper" data-testid={`models-rob-paper-gat-${r.train}-${r.test}`}>
                  {r.paper ? formatPaper(r.paper.gat) : '–'}
                </td>
                <td className="mr-paper" data-testid={`models-rob-paper-bilstm-${r.train}-${r.test}`}>
                  {r.paper ? formatPaper(r.paper.bilstmAttention) : '–'}
                </td>
                <td className="mr-note mr-left">{r.paperSource ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
