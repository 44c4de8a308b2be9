import { area, line, scaleLinear } from 'd3';
import { useId, useState } from 'react';
import { MODEL_SLOTS as SLOTS, REPORT_KS, SERIES_GROUP_LABEL, SERIES_GROUPS, type ChartSeries } from './report';
import { AxisTitles, GridY, TicksBelow } from '../../ui/chart/axes';
import { useChartWidth } from '../../ui/chart/useChartWidth';
import './accuracyChart.css';

const H = 300;
const M = { top: 14, right: 16, bottom: 42, left: 50 };

const describe = (series: readonly ChartSeries[]) =>
  series.map((s) => `${s.label}: ${s.points.map((p) => `k ${p.k} ${p.value.toFixed(2)}`).join(', ')}`).join('; ');

/**
 * Accuracy vs k, one line per model and source: solid the run in this browser, dashed the
 * training script's own curve, and the paper's stated figures (Table 2, k = 2, 3) as short
 * segments with a ± standard-error band. d3 computes the scales and path strings; React draws.
 * The table beside it holds every figure (the chart is an image with a description). The chart
 * draws at its box's width, so its text keeps its size on a phone. The legend groups the lines
 * (the paper's, ours, ablations); each entry is a toggle button that hides or shows its line.
 */
export function AccuracyChart({ series }: { series: readonly ChartSeries[] }) {
  const id = useId();
  const [boxRef, W] = useChartWidth<HTMLElement>(640, 280, 768);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = (key: string) =>
    setHidden((old) => {
      const next = new Set(old);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  const shown = series.filter((s) => !hidden.has(s.key));
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
    <figure className="model-report__chart" data-testid="models-chart" ref={boxRef}>
      <svg
        width={W}
        height={H}
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-labelledby={`${id}-t ${id}-d`}
        preserveAspectRatio="xMidYMid meet"
      >
        <title id={`${id}-t`}>Accuracy by k (2 to 10)</title>
        <desc id={`${id}-d`}>{shown.length ? describe(shown) : 'No figures yet.'}</desc>
        <GridY y={y} left={M.left} right={W - M.right} format={(t) => t.toFixed(1)} className="model-report__grid" />
        <TicksBelow className="model-report__tick" items={REPORT_KS} at={(k) => x(Number(k))} y={H - M.bottom + 18} />
        <AxisTitles x="k (reasoning steps)" y="accuracy" width={W} height={H} plot={M} className="model-report__axis" />
        {shown.map((s) => (
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
      <figcaption className="accuracy-legend">
        {SERIES_GROUPS.map((group) => {
          const members = series.filter((s) => s.group === group);
          if (members.length === 0) return null;
          return (
            <div key={group} className="accuracy-legend__group" data-testid="models-legend-group" data-group={group}>
              <span className="accuracy-legend__title" id={`${id}-g-${group}`}>
                {SERIES_GROUP_LABEL[group]}
              </span>
              <ul className="model-report__legend" aria-labelledby={`${id}-g-${group}`}>
                {members.map((s) => (
                  <li key={s.key} className={`model-report__slot-${s.slot % SLOTS} model-report__src-${s.source}`}>
                    <button
                      type="button"
                      className="accuracy-legend__toggle"
                      aria-pressed={!hidden.has(s.key)}
                      data-testid="models-legend-entry"
                      data-line={s.key}
                      title={hidden.has(s.key) ? 'Show this line' : 'Hide this line'}
                      onClick={() => toggle(s.key)}
                    >
                      <svg width="28" height="10" aria-hidden="true">
                        <line className="model-report__line" x1="2" x2="26" y1="5" y2="5" />
                      </svg>
                      {s.label}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          );
        })}
      </figcaption>
    </figure>
  );
}
