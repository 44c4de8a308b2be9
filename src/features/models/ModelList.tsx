import { useId } from 'react';
import type { ModelIndexEntry, ModelMetadata } from '../../ml/model';
import { formatBytes } from '../../core/util/format';
import { NOISE_LABEL } from './report';

const duration = (s: number) => (s < 120 ? `${Math.round(s)} s` : `${Math.round(s / 60)} min`);

/** The shipped main models: what each is, its weights, and how the training script made it. */
export function ModelList({
  models,
  metadata,
}: {
  models: readonly ModelIndexEntry[];
  metadata: Readonly<Record<string, ModelMetadata>>;
}) {
  const id = useId();
  if (models.length === 0) return null;
  return (
    <div className="mr-table-wrap" tabIndex={0} role="region" aria-labelledby={`${id}-cap`}>
      <table className="mr-table mr-list" data-testid="models-list">
        <caption id={`${id}-cap`}>Shipped models (public/models, main versions)</caption>
        <thead>
          <tr>
            <th scope="col" className="mr-left">
              Model
            </th>
            <th scope="col" className="mr-left">
              Reads
            </th>
            <th scope="col">Weights</th>
            <th scope="col" className="mr-left">
              Trained on
            </th>
            <th scope="col">Epochs</th>
            <th scope="col">Training time</th>
            <th scope="col" className="mr-left">
              Made by
            </th>
          </tr>
        </thead>
        <tbody>
          {models.map((m) => {
            const meta = metadata[m.id];
            const t = meta?.training;
            return (
              <tr key={m.id} data-testid="models-entry" data-id={m.id}>
                <th scope="row">
                  {m.label}
                  <span className="mr-id">{m.id}</span>
                </th>
                <td className="mr-left">{m.reads === 'graph' ? 'the graph of facts' : 'the story text'}</td>
                <td>{formatBytes(m.weightBytes)}</td>
                <td className="mr-left">
                  {t
                    ? `${t.rows.toLocaleString('en')} ${NOISE_LABEL[t.noise]?.toLowerCase() ?? t.noise} puzzles, k = ${[...new Set(t.tasks.map((x) => x.k))].join(', ')}`
                    : '–'}
                </td>
                <td>{t?.epochs ?? '–'}</td>
                <td>{t ? duration(t.seconds) : '–'}</td>
                <td className="mr-left mr-cmd">{meta ? <code>{meta.madeBy}</code> : '–'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
