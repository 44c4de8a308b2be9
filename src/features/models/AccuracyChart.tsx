import { area, line, scaleLinear } from 'd3';
import { useId } from 'react';
import { MODEL_SLOTS as SLOTS, REPORT_KS, type ChartSeries } from './report';
import { AxisTitles, GridY, TicksBelow } from '../../ui/chart/axes';

const W = 640;
const H = 300;
const M = { top: 14, right: 16, bottom: 42, left: 50 };

const describe = (series: readonly ChartSeries[]) =>
  series.map((s) => `${s.label}: ${s.points.map((p) => `k ${p.k} ${p.value.toFixed(2)}`).join(', ')}`).join('; ');

/**
 * Accuracy vs k, one line per model and source: solid the run in this browser, dashed the
 * training script's own curve, and the paper's stated figures (Table 2, k = 2, 3) as short
 * segments with a ± standard-error band. d3 computes the scales and path strings; React draws.
 * The table beside it holds every figure (the chart is an image with a description).
 */
export function AccuracyChart({ series }: { series: readonly ChartSeries[] }) {
  const id = useId();
  const x = scaleLinear()
    .domain([REPORT_KS[0]!, REPORT_KS[REPORT_KS.length - 1]!])
    .range([M.left, W - M.right]);
  const y = scaleLinear()
    .domain([0, 1])
    .range([H - M.bottom, M.top]);
  type P = ChartSeries['points'][number];
  const path = line<P>()
    .x((p) => x(p.k))
    .y((p) => y(p.value));
  const band = area<P>()
    .x((p) => x(p.k))
    .y0((p) => y(p.lo ?? p.value))
    .y1((p) => y(p.hi ?? p.value));
  return (
    <figure className="model-report__chart" data-testid="models-chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-t ${id}-d`} preserveAspectRatio="xMidYMid meet">
        <title id={`${id}-t`}>Accuracy by k (2 to 10)</title>
        <desc id={`${id}-d`}>{series.length ? describe(series) : 'No figures yet.'}</desc>
        <GridY y={y} left={M.left} right={W - M.right} format={(t) => t.toFixed(1)} className="model-report__grid" />
        <TicksBelow className="model-report__tick" items={REPORT_KS} at={(k) => x(Number(k))} y={H - M.bottom + 18} />
        <AxisTitles x="k (reasoning steps)" y="accuracy" width={W} height={H} plot={M} className="model-report__axis" />
        {series.map((s) => (
          <g
            key={s.key}
            className={`model-report__series model-report__slot-${s.slot % SLOTS} model-report__src-${s.source}`}
            data-series={s.key}
            data-points={s.points.length}
          >
            {s.source === 'paper' && <path className="model-report__band" d={band(s.points) ?? ''} />}
            <path className="model-report__line" d={path(s.points) ?? ''} />
            {s.source !== 'paper' &&
              s.points.map((p) => (
                <circle
                  key={p.k}
                  className="model-report__dot"
                  cx={x(p.k)}
                  cy={y(p.value)}
                  r={s.source === 'browser' ? 3.5 : 2.5}
                />
              ))}
          </g>
        ))}
      </svg>
      <figcaption>
        <ul className="model-report__legend" aria-label="Lines">
          {series.map((s) => (
            <li key={s.key} className={`model-report__slot-${s.slot % SLOTS} model-report__src-${s.source}`}>
              <svg width="28" height="10" aria-hidden="true">
                <line className="model-report__line" x1="2" x2="26" y1="5" y2="5" />
              </svg>
              {s.label}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
