import { useId } from 'react';
import type { ModelIndexEntry, ModelMetadata } from '../../ml/model';
import { modelKind, paperModelText, READS_TEXT, SUPERVISION_TEXT, trainedOnText } from '../../ml/modelKinds';
import { formatBytes } from '../../core/util/format';
import { HeadCells, type HeadColumn } from '../../ui/HeadCells';
import { left } from './HeadCells';

const duration = (s: number) => (s < 120 ? `${Math.round(s)} s` : `${Math.round(s / 60)} min`);

/** "answer only", with the model it is an ablation of when the descriptor says so. */
function supervisionOf(m: ModelIndexEntry, models: readonly ModelIndexEntry[]): string {
  const text = SUPERVISION_TEXT[m.supervision] ?? m.supervision;
  const of = modelKind(m.model)?.ablationOf;
  if (!of) return text;
  const full = models.find((x) => x.model === of)?.label ?? modelKind(of)?.label ?? of;
  return `${text} (ablation of ${full})`;
}

/**
 * The shipped main models, each with what it is (its descriptor's facts, as index.json carries
 * them): what it reads, what supervised it, which paper model it reimplements, what it was
 * trained on, a sentence on what it is; then its weights and how the training script made it.
 * Below, the other shipped folders (noise-trained, CLUTRR's labels) with what each was trained on.
 */
const LIST_COLUMNS: readonly HeadColumn[] = [
  left('Model'),
  left('Reads'),
  left('Supervised by'),
  left('Paper model'),
  left('Trained on'),
  { label: 'Weights' },
  { label: 'Epochs' },
  { label: 'Training time' },
  left('Made by'),
];
const OTHER_COLUMNS: readonly HeadColumn[] = [
  left('Folder'),
  left('Model'),
  left('Trained on'),
  { label: 'Epochs' },
  { label: 'Training time' },
  left('Made by'),
];

export function ModelList({
  models,
  others,
  metadata,
}: {
  models: readonly ModelIndexEntry[];
  others: readonly ModelIndexEntry[];
  metadata: Readonly<Record<string, ModelMetadata>>;
}) {
  const id = useId();
  if (models.length === 0) return null;
  return (
    <>
      <div className="model-report__table-wrap" tabIndex={0} role="region" aria-labelledby={`${id}-cap`}>
        <table className="model-report__table model-report__list" data-testid="models-list">
          <caption id={`${id}-cap`}>
            Shipped models (public/models, main versions): what each is and what it learned from
          </caption>
          <thead>
            <tr>
              <HeadCells columns={LIST_COLUMNS} />
            </tr>
          </thead>
          <tbody>
            {models.map((m) => {
              const meta = metadata[m.id];
              const t = meta?.training;
              return (
                <tr
                  key={m.id}
                  data-testid="models-entry"
                  data-id={m.id}
                  data-reads={m.reads}
                  data-supervision={m.supervision}
                  data-paper={m.paperModel ?? 'none'}
                >
                  <th scope="row">
                    {m.label}
                    <span className="model-report__id">{m.id}</span>
                    <span className="model-report__desc" data-testid="models-description">
                      {m.description}
                    </span>
                  </th>
                  <td className="model-report__left">{READS_TEXT[m.reads] ?? m.reads}</td>
                  <td
                    className={
                      m.supervision === 'answer' ? 'model-report__left' : 'model-report__left model-report__flag'
                    }
                    data-testid="models-supervision"
                  >
                    {supervisionOf(m, models)}
                  </td>
                  <td className="model-report__left">{paperModelText(m.paperModel)}</td>
                  <td className="model-report__left model-report__trained" data-testid="models-trained-on">
                    {trainedOnText(m.trainedOn)}
                  </td>
                  <td>{formatBytes(m.weightBytes)}</td>
                  <td>{t?.epochs ?? '–'}</td>
                  <td>{t ? duration(t.seconds) : '–'}</td>
                  <td className="model-report__left model-report__cmd">{meta ? <code>{meta.madeBy}</code> : '–'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {others.length > 0 && (
        <div className="model-report__table-wrap" tabIndex={0} role="region" aria-labelledby={`${id}-other`}>
          <table className="model-report__table model-report__list" data-testid="models-other">
            <caption id={`${id}-other`}>
              Other shipped versions (in the robustness table; not run in the browser)
            </caption>
            <thead>
              <tr>
                <HeadCells columns={OTHER_COLUMNS} />
              </tr>
            </thead>
            <tbody>
              {others.map((m) => {
                const meta = metadata[m.id];
                return (
                  <tr key={m.id} data-testid="models-other-entry" data-id={m.id}>
                    <th scope="row" className="model-report__left">
                      <code>{m.id}</code>
                    </th>
                    <td className="model-report__left">{m.label}</td>
                    <td className="model-report__left">{trainedOnText(m.trainedOn)}</td>
                    <td>{meta?.training.epochs ?? '–'}</td>
                    <td>{meta ? duration(meta.training.seconds) : '–'}</td>
                    <td className="model-report__left model-report__cmd">{meta ? <code>{meta.madeBy}</code> : '–'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
