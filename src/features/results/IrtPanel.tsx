import { bin, extent, line, max, scaleLinear } from 'd3';
import { useEffect, useId, useMemo, useState, type ReactNode } from 'react';
import type { IrtModel } from '../../study/results/irt';
import type { IrtItemRow, IrtReport, PlacedRespondent } from '../../study/results/irtRows';
import type { IrtResult } from '../../worker/resultsProtocol';
import { isCancelled } from '../../worker/rpc';
import { AxisTitles, GridY } from '../../ui/chart/axes';
import { ChoiceSelect } from './ChoiceSelect';
import { fixed } from './format';
import { readerIrt, useResults } from './store';
import { useCompare } from './useCompare';
import './irt.css';

/**
 * Item response theory on the dashboard (`irt-panel`): the Rasch model or the 2PL fitted in the
 * results worker to the merged solve rows (`src/study/results/irtRows.ts`), drawn as item
 * difficulty against k, the test information curve and the participants' abilities, with every
 * model that answered the same items (asked in "Models on the same items") placed on the same
 * ability scale (`irt-models`), and people's difficulty ratings set beside IRT difficulty.
 */

const MODEL_CHOICES: readonly (readonly [IrtModel, string])[] = [
  ['rasch', 'Rasch (1PL)'],
  ['2pl', '2PL'],
];

/** The charts are drawn at about their shown size (the grid keeps them ≥ W px), so 12 px text stays ≥ 11 px. */
const W = 300;
const H = 200;
const M = { top: 20, right: 12, bottom: 38, left: 42 };

type State =
  | { readonly status: 'idle' }
  | { readonly status: 'done'; readonly result: Extract<IrtResult, { ok: true }> }
  | { readonly status: 'error'; readonly message: string };

export function IrtPanel() {
  const id = useId();
  const key = useResults((s) => s.mergedKey);
  const computing = useResults((s) => s.computing);
  const excludeFlagged = useResults((s) => s.excludeFlagged);
  const models = useCompare((s) => s.models);
  const answers = useCompare((s) => s.answers);
  const [model, setModel] = useState<IrtModel>('rasch');
  const [state, setState] = useState<State>({ status: 'idle' });

  const respondents = useMemo(
    () =>
      models.flatMap((m) => {
        const mine = answers[m.id];
        if (!mine) return [];
        return [
          {
            id: m.id,
            label: m.label,
            answers: Object.entries(mine).map(([item, a]) => [item, a.correct] as const),
          },
        ];
      }),
    [models, answers],
  );

  useEffect(() => {
    if (key === null || computing) return;
    let live = true;
    const asked = readerIrt({ key, model, excludeFlagged, respondents });
    if (!asked) return;
    asked.then(
      (result) => {
        if (!live) return;
        if (result.ok) setState({ status: 'done', result });
        else if (!result.stale) setState({ status: 'error', message: result.message });
      },
      (e: unknown) => {
        if (!live || isCancelled(e)) return;
        setState({ status: 'error', message: e instanceof Error ? e.message : String(e) });
      },
    );
    return () => {
      live = false;
    };
  }, [key, computing, model, excludeFlagged, respondents]);

  return (
    <section
      className="irt"
      aria-labelledby={`${id}-h`}
      data-testid="irt-panel"
      data-status={state.status === 'done' && state.result.report.model !== model ? 'fitting' : state.status}
    >
      <h2 id={`${id}-h`}>Items, people and models on one scale (item response theory)</h2>
      <div className="irt__controls">
        <ChoiceSelect
          label="Model"
          className="irt__model"
          value={model}
          choices={MODEL_CHOICES}
          onChoose={setModel}
          testId="irt-model"
        />
      </div>
      {state.status === 'done' ? (
        <IrtFigures report={state.result.report} placed={state.result.placed} asked={models.length > 0} />
      ) : state.status !== 'error' ? (
        <p className="hint" data-testid="irt-fitting">
          Fitting the {model === 'rasch' ? 'Rasch model' : '2PL'}…
        </p>
      ) : (
        <p className="hint" data-testid="irt-error">
          No item response model for these rows: {state.message}.
        </p>
      )}
    </section>
  );
}

function IrtFigures({
  report,
  placed,
  asked,
}: {
  report: IrtReport;
  placed: readonly PlacedRespondent[];
  asked: boolean;
}) {
  const flagged = report.items.filter((i) => i.flag !== null);
  const fitted = report.items.filter((i) => i.difficulty !== null);
  const unit = report.model === 'rasch' ? 'logits' : 'SD units';
  const span = abilitySpan(report, placed);
  const counts = (flag: IrtItemRow['flag']) => flagged.filter((i) => i.flag === flag).length;
  const flaggedText = [
    counts('all-correct') ? `${counts('all-correct')} everyone got right` : '',
    counts('all-wrong') ? `${counts('all-wrong')} everyone got wrong` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return (
    <>
      <p className="hint irt__method" data-testid="irt-method">
        {report.model === 'rasch'
          ? 'Rasch model: P(right) = logistic(ability − difficulty), abilities normal with their spread estimated.'
          : '2PL: P(right) = logistic(discrimination × (ability − difficulty)), abilities N(0, 1).'}{' '}
        Fitted by {report.method.estimation} ({report.iterations} iterations
        {report.converged ? '' : ', not converged'}); abilities are {report.method.ability}; reliability is the{' '}
        {report.method.reliability}. Main puzzle trials only; a timeout is wrong.
      </p>
      <p className="irt__summary" data-testid="irt-summary">
        <strong>{report.persons.length}</strong> participants, <strong>{report.items.length}</strong> items
        {flagged.length > 0 ? ` (${flagged.length} not fitted: ${flaggedText})` : ''}. {report.method.reliability}:{' '}
        <strong data-testid="irt-reliability">{fixed(report.reliability, 3)}</strong>; ability SD{' '}
        {fixed(report.abilitySd, 2)} {unit}.
      </p>
      <div className="irt__charts">
        <DifficultyByK items={fitted} unit={unit} />
        <InformationCurve report={report} unit={unit} span={span} />
        <AbilityChart report={report} placed={placed} unit={unit} span={span} />
      </div>
      <div className="irt__models" data-testid="irt-models" data-placed={placed.length}>
        <h3>Models on the same scale</h3>
        {placed.length > 0 ? (
          <>
            <ol className="irt__model-list">
              {placed.map((p) => (
                <li key={p.id} data-testid="irt-model-line" data-model={p.id} data-percentile={p.percentile.toFixed(1)}>
                  {p.sentence}
                </li>
              ))}
            </ol>
            <p className="hint">
              Each model is scored on the items it answered with the participants&apos; item estimates (EAP), and its
              percentile read from the fitted ability distribution; the numbers match the markers in the ability chart.
            </p>
          </>
        ) : (
          <p className="hint">
            {asked
              ? 'No model answered an item the model could fit.'
              : 'Ask the models (in “Models on the same items”) to place them on this scale.'}
          </p>
        )}
      </div>
      <p className="irt__ratings" data-testid="irt-ratings">
        {report.ratingCorrelation
          ? `Difficulty ratings (1–5) against IRT difficulty, by item: r = ${report.ratingCorrelation.r.toFixed(2)} over ${report.ratingCorrelation.items} rated items.`
          : 'Difficulty ratings (1–5) against IRT difficulty: too few rated items to correlate.'}
      </p>
      <details className="irt__items">
        <summary>The items&apos; estimates ({report.items.length})</summary>
        <div className="irt__table-wrap" tabIndex={0} role="region" aria-label="The items' estimates">
          <table className="irt__table" data-testid="irt-items">
            <thead>
              <tr>
                <th scope="col">Puzzle</th>
                <th scope="col">k</th>
                <th scope="col">Difficulty</th>
                <th scope="col">SE</th>
                {report.model === '2pl' && <th scope="col">Discr.</th>}
                <th scope="col">Infit</th>
                <th scope="col">Outfit</th>
                <th scope="col">Rating</th>
              </tr>
            </thead>
            <tbody>
              {report.items.map((i) => (
                <tr key={i.id}>
                  <td>{i.puzzle_id}</td>
                  <td>{i.k}</td>
                  <td>{i.difficulty === null ? `not fitted (${i.flag})` : i.difficulty.toFixed(2)}</td>
                  <td>{i.se === null ? '' : i.se.toFixed(2)}</td>
                  {report.model === '2pl' && <td>{i.discrimination === null ? '' : i.discrimination.toFixed(2)}</td>}
                  <td>{i.infit === null ? '' : i.infit.toFixed(2)}</td>
                  <td>{i.outfit === null ? '' : i.outfit.toFixed(2)}</td>
                  <td>{i.meanRating === null ? '' : i.meanRating.toFixed(1)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </>
  );
}

const plot = { top: M.top, bottom: M.bottom, left: M.left, right: M.right };

/**
 * The ability axis of the information and ability charts, ±span: three ability SDs, widened to
 * hold every participant and model, at least ±2 and never beyond the information grid.
 */
function abilitySpan(report: IrtReport, placed: readonly PlacedRespondent[]): number {
  const grid = Math.abs(report.information[0]?.ability ?? 4);
  const far = Math.max(
    2,
    3 * report.abilitySd,
    ...report.persons.map((p) => Math.abs(p.ability) + 0.25),
    ...placed.map((p) => Math.abs(p.ability) + 0.25),
  );
  return Math.min(grid, Math.ceil(far));
}

function Figure({
  testId,
  title,
  description,
  caption,
  children,
}: {
  testId: string;
  title: string;
  description: string;
  caption: string;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <figure className="irt__chart" data-testid={testId}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-t ${id}-d`} className="irt__svg">
        <title id={`${id}-t`}>{title}</title>
        <desc id={`${id}-d`}>{description}</desc>
        {children}
      </svg>
      <figcaption>
        {title}
        <span className="irt__caption">{caption}</span>
      </figcaption>
    </figure>
  );
}

/** Each fitted item's difficulty at its k (spread sideways within k), and the mean per k joined. */
function DifficultyByK({ items, unit }: { items: readonly IrtItemRow[]; unit: string }) {
  const ks = [...new Set(items.map((i) => i.k))].sort((a, b) => a - b);
  const [lo = -1, hi = 1] = extent(items, (i) => i.difficulty!);
  const x = scaleLinear()
    .domain([(ks[0] ?? 2) - 0.5, (ks.at(-1) ?? 2) + 0.5])
    .range([M.left, W - M.right]);
  const y = scaleLinear()
    .domain([Math.min(lo, -1), Math.max(hi, 1)])
    .nice()
    .range([H - M.bottom, M.top]);
  const byK = ks.map((k) => {
    const mine = items.filter((i) => i.k === k);
    return { k, mine, mean: mine.reduce((s, i) => s + i.difficulty!, 0) / mine.length };
  });
  const mean = line<{ k: number; mean: number }>()
    .x((d) => x(d.k))
    .y((d) => y(d.mean));
  const description = `Mean item difficulty by k: ${byK.map((d) => `k = ${d.k}: ${d.mean.toFixed(2)} (${d.mine.length} items)`).join('; ')}.`;
  return (
    <Figure
      testId="irt-difficulty-chart"
      title="Item difficulty by k"
      description={description}
      caption={`Dots: items; line: mean per k (${unit})`}
    >
      <GridY y={y} left={M.left} right={W - M.right} format={(t) => String(t)} className="irt__grid" ticks={5} />
      <g className="irt__grid" aria-hidden="true">
        {ks.map((k) => (
          <text key={k} x={x(k)} y={H - M.bottom + 15} textAnchor="middle">
            {k}
          </text>
        ))}
      </g>
      <AxisTitles x="k (story length)" y="difficulty" width={W} height={H} plot={plot} className="irt__axis" />
      <g aria-hidden="true">
        {byK.length > 1 && <path className="irt__line" d={mean(byK) ?? ''} />}
        {byK.flatMap(({ k, mine }) =>
          mine.map((i, n) => {
            const spread = mine.length > 1 ? -0.28 + (0.56 * n) / (mine.length - 1) : 0;
            return <circle key={i.id} className="irt__dot" cx={x(k + spread)} cy={y(i.difficulty!)} r={3} />;
          }),
        )}
        {byK.map((d) => (
          <circle key={d.k} className="irt__mean" cx={x(d.k)} cy={y(d.mean)} r={4.5} />
        ))}
      </g>
    </Figure>
  );
}

/** The test information Σ a²P(1 − P) over ability. */
function InformationCurve({ report, unit, span }: { report: IrtReport; unit: string; span: number }) {
  const pts = report.information.filter((p) => Math.abs(p.ability) <= span + 1e-9);
  const x = scaleLinear()
    .domain([pts[0]!.ability, pts.at(-1)!.ability])
    .range([M.left, W - M.right]);
  const top = max(pts, (p) => p.information) ?? 1;
  const y = scaleLinear()
    .domain([0, top])
    .nice()
    .range([H - M.bottom, M.top]);
  const path = line<(typeof pts)[number]>()
    .x((p) => x(p.ability))
    .y((p) => y(p.information));
  const peak = pts.reduce((a, b) => (b.information > a.information ? b : a));
  return (
    <Figure
      testId="irt-information-chart"
      title="Test information"
      description={`The test measures best at ability ${peak.ability.toFixed(1)}, where its information is ${peak.information.toFixed(2)} (SE ${(1 / Math.sqrt(peak.information)).toFixed(2)}).`}
      caption={`Σ a²P(1−P) over the fitted items; SE = 1/√information (ability in ${unit})`}
    >
      <GridY y={y} left={M.left} right={W - M.right} format={(t) => String(t)} className="irt__grid" ticks={4} />
      <BottomTicks x={x} />
      <AxisTitles x="ability" y="information" width={W} height={H} plot={plot} className="irt__axis" />
      <path className="irt__curve" d={path(pts) ?? ''} aria-hidden="true" />
    </Figure>
  );
}

/** Whole-number ticks of an ability axis under the plot. */
function BottomTicks({ x }: { x: ReturnType<typeof scaleLinear<number, number>> }) {
  return (
    <g className="irt__grid" aria-hidden="true">
      {x
        .ticks(6)
        .filter((t) => Number.isInteger(t))
        .map((t) => (
          <text key={t} x={x(t)} y={H - M.bottom + 15} textAnchor="middle">
            {t}
          </text>
        ))}
    </g>
  );
}

/** The participants' EAP abilities as a histogram, the models as numbered markers on the same axis. */
function AbilityChart({
  report,
  placed,
  unit,
  span,
}: {
  report: IrtReport;
  placed: readonly PlacedRespondent[];
  unit: string;
  span: number;
}) {
  const domain: [number, number] = [-span, span];
  const x = scaleLinear()
    .domain(domain)
    .range([M.left, W - M.right]);
  const abilities = report.persons.filter((p) => p.fittedAnswers > 0).map((p) => p.ability);
  const bins = bin().domain(domain).thresholds(x.ticks(16))(abilities);
  const y = scaleLinear()
    .domain([0, max(bins, (b) => b.length) ?? 1])
    .nice()
    .range([H - M.bottom, M.top]);
  const clamp = (v: number) => Math.min(domain[1], Math.max(domain[0], v));
  // Number labels side by side when models sit close together (at least 11 px apart).
  const labelX = new Map<string, number>();
  let last = -Infinity;
  for (const p of [...placed].sort((a, b) => a.ability - b.ability)) {
    const at = Math.max(x(clamp(p.ability)), last + 11);
    labelX.set(p.id, at);
    last = at;
  }
  return (
    <Figure
      testId="irt-ability-chart"
      title="Abilities"
      description={`${abilities.length} participants' abilities (EAP)${placed.length ? `; models: ${placed.map((p, i) => `${i + 1} ${p.label} at ${p.ability.toFixed(2)}`).join(', ')}` : ''}.`}
      caption={`Bars: participants (EAP, ${unit})${placed.length ? '; numbered marks: the models' : ''}`}
    >
      <GridY
        y={y}
        left={M.left}
        right={W - M.right}
        format={(t) => (Number.isInteger(t) ? String(t) : '')}
        className="irt__grid"
        ticks={4}
      />
      <BottomTicks x={x} />
      <AxisTitles x="ability" y="participants" width={W} height={H} plot={plot} className="irt__axis" />
      <g aria-hidden="true">
        {bins.map((b) => (
          <rect
            key={b.x0}
            className="irt__bar"
            x={x(b.x0!) + 0.5}
            width={Math.max(0, x(b.x1!) - x(b.x0!) - 1)}
            y={y(b.length)}
            height={H - M.bottom - y(b.length)}
          />
        ))}
        {placed.map((p, i) => {
          const px = x(clamp(p.ability));
          return (
            <g key={p.id} className="irt__marker" data-model={p.id}>
              <line x1={px} x2={px} y1={M.top + 2} y2={H - M.bottom} />
              <text x={labelX.get(p.id)} y={M.top - 6} textAnchor="middle">
                {i + 1}
              </text>
            </g>
          );
        })}
      </g>
    </Figure>
  );
}
