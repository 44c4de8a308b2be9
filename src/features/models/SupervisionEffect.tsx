import { useId } from 'react';
import type { ModelIndexEntry, ModelMetadata } from '../../ml/model';
import { SUPERVISION_TEXT } from '../../ml/modelKinds';
import { accuracyOf, type ablationPairs, formatAccuracy, type KCount, metadataCurve, REPORT_KS } from './report';
import { AccuracyHead } from './HeadCells';

/**
 * A model beside its ablation (the same network trained on the answer only), by k: the training
 * script's curve of each and, after a run, this browser's; the difference row shows what the
 * extra supervision buys. Cells `models-ablation-<model>-<k>` (`data-value`, the training
 * script's figure) and `models-ablation-diff-<k>`.
 */
export function SupervisionEffect({
  pairs,
  counts,
  metadata,
}: {
  pairs: ReturnType<typeof ablationPairs>;
  counts: Readonly<Record<string, readonly KCount[]>>;
  metadata: Readonly<Record<string, ModelMetadata>>;
}) {
  const id = useId();
  if (pairs.length === 0) return null;
  const curve = (m: ModelIndexEntry) =>
    new Map(metadata[m.id] ? metadataCurve(metadata[m.id]!).map((p) => [p.k, p.accuracy]) : []);
  const run = (m: ModelIndexEntry) => new Map((counts[m.id] ?? []).map((c) => [c.k, accuracyOf(c)]));
  return (
    <section className="model-report__section" aria-labelledby={`${id}-h`} data-testid="models-ablation">
      <h2 id={`${id}-h`}>What the extra supervision buys</h2>
      {pairs.map(({ full, ablation }) => {
        const [f, a] = [curve(full), curve(ablation)];
        const [rf, ra] = [run(full), run(ablation)];
        const ran = REPORT_KS.some((k) => rf.has(k) && ra.has(k));
        return (
          <div
            key={full.id}
            className="model-report__table-wrap"
            tabIndex={0}
            role="region"
            aria-labelledby={`${id}-${full.model}`}
          >
            <table className="model-report__table">
              <caption id={`${id}-${full.model}`}>
                {full.label} (supervised by the {SUPERVISION_TEXT[full.supervision]}) beside {ablation.label} (the same
                network, {SUPERVISION_TEXT[ablation.supervision]}): accuracy by k on the training script&apos;s test
                sets{ran ? ' and in this browser' : ''}
              </caption>
              <AccuracyHead />
              <tbody>
                {[full, ablation].map((m) => (
                  <tr key={m.id}>
                    <th scope="row">
                      {m.label}
                      <span className="model-report__id">{m.id}</span>
                    </th>
                    <td className="model-report__left">training script</td>
                    {REPORT_KS.map((k) => (
                      <td key={k} data-testid={`models-ablation-${m.model}-${k}`} data-value={curve(m).get(k)}>
                        {formatAccuracy(curve(m).get(k))}
                      </td>
                    ))}
                  </tr>
                ))}
                <tr className="model-report__diff-row">
                  <th scope="row">Difference</th>
                  <td className="model-report__left">training script</td>
                  {REPORT_KS.map((k) => {
                    const d = f.has(k) && a.has(k) ? f.get(k)! - a.get(k)! : undefined;
                    return (
                      <td key={k} data-testid={`models-ablation-diff-${k}`} data-value={d}>
                        {d === undefined ? '–' : `${d >= 0 ? '+' : '−'}${Math.abs(d).toFixed(3)}`}
                      </td>
                    );
                  })}
                </tr>
                {ran && (
                  <tr className="model-report__diff-row">
                    <th scope="row">Difference</th>
                    <td className="model-report__left">this browser</td>
                    {REPORT_KS.map((k) => {
                      const d = rf.has(k) && ra.has(k) ? rf.get(k)! - ra.get(k)! : undefined;
                      return (
                        <td key={k} data-testid={`models-ablation-run-diff-${k}`} data-value={d}>
                          {d === undefined ? '–' : `${d >= 0 ? '+' : '−'}${Math.abs(d).toFixed(3)}`}
                        </td>
                      );
                    })}
                  </tr>
                )}
              </tbody>
            </table>
          </div>
        );
      })}
    </section>
  );
}
