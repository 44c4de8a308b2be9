import { line, scaleBand, scaleLinear } from 'd3';
import { useId } from 'react';
import { AxisTitles, GridY, TicksBelow } from '../../ui/chart/axes';
import { useChartWidth } from '../../ui/chart/useChartWidth';

/** One group's estimate with its trial-level (thick) and participant-clustered (thin) intervals. */
export interface ChartPoint {
  readonly key: string;
  /** Its place on the x axis (several series share a band). */
  readonly band: string;
  /** Its series, or null when the chart has one. */
  readonly series: string | null;
  readonly estimate: number;
  readonly lo: number;
  readonly hi: number;
  readonly clusteredLo: number;
  readonly clusteredHi: number;
}

export interface IntervalChartProps {
  readonly testId: string;
  readonly title: string;
  /** A sentence for screen readers: the figures the chart shows (the table has them all). */
  readonly description: string;
  readonly xLabel: string;
  readonly yLabel: string;
  /**
   * The y axis range: the measure's scale (accuracy 0–1, ratings 1–5; times from 0 up to a
   * default top). The axis never goes below its lower end; with `grow` its top rises to the data.
   */
  readonly domain: readonly [number, number];
  readonly grow?: boolean;
  /** Which estimate and intervals the chart shows (printed under it and read with its description). */
  readonly method: string;
  readonly format: (v: number) => string;
  readonly points: readonly ChartPoint[];
  /** The paper's figure per band (Table 3), drawn as hollow diamonds. */
  readonly paper?: ReadonlyMap<string, number>;
  /** A sentence about what the figures hold (e.g. resumed trials), under the method and in the description. */
  readonly note?: string;
  readonly noteTestId?: string;
}

const H = 230;
const M = { top: 14, right: 12, bottom: 40, left: 46 };

const finite = (v: number) => Number.isFinite(v);

/** Series colours in results.css (`.results__series-0` …); more series reuse them in turn. */
export const SERIES_STYLES = 4;

/**
 * A small chart of estimates with 95% intervals per group. d3 computes the scales and the path
 * strings; React draws the SVG. Thick bar: the trial-level interval (`method`); thin whisker:
 * the interval from resampling participants. The chart is an image with a title and a
 * description; the table next to it is the full text alternative.
 */
export function IntervalChart(p: IntervalChartProps) {
  const id = useId();
  // Drawn at the figure's own width (one SVG unit a CSS pixel), so its text is never scaled down.
  const [boxRef, W] = useChartWidth<HTMLElement>(360, 260, 560);
  const keys = [...new Set(p.points.map((d) => d.band))];
  const series = [...new Set(p.points.map((d) => d.series))];
  const values = p.points.flatMap((d) => [d.lo, d.hi, d.clusteredLo, d.clusteredHi, d.estimate]).filter(finite);
  const paperValues = [...(p.paper?.values() ?? [])];
  const [lo] = p.domain;
  const hi = p.grow ? Math.max(p.domain[1], ...values, ...paperValues) : p.domain[1];
  const x = scaleBand<string>()
    .domain(keys)
    .range([M.left, W - M.right])
    .padding(0.2);
  // clamp: a figure off the scale (none should be) is drawn at its edge, never below the axis.
  const y = scaleLinear()
    .domain([lo, hi])
    .nice()
    .range([H - M.bottom, M.top])
    .clamp(true);
  const w = x.bandwidth();
  const cx = (band: string) => (x(band) ?? 0) + w / 2;
  // Series side by side in the left part of the band, the paper's diamond at its right.
  const sx = (d: ChartPoint) => {
    const i = series.indexOf(d.series);
    return cx(d.band) + (series.length === 1 ? -0.12 * w : -0.34 * w + (i * 0.44 * w) / (series.length - 1));
  };
  // Points are joined only when the bands are ordered (k or task), not for conditions.
  const ordered = keys.every((k) => Number.isFinite(Number(k)));
  const join = line<ChartPoint>()
    .defined((d) => finite(d.estimate))
    .x(sx)
    .y((d) => y(d.estimate));
  const paperPoints = keys.filter((k) => p.paper?.has(k)).map((k) => ({ key: k, v: p.paper!.get(k)! }));
  const paperX = (band: string) => cx(band) + (series.length === 1 ? 0.12 : 0.3) * w;
  const paperLine = line<{ key: string; v: number }>()
    .x((d) => paperX(d.key))
    .y((d) => y(d.v));

  return (
    <figure className="results__chart" data-testid={p.testId} ref={boxRef}>
      <svg
        width={W}
        height={H}
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-labelledby={`${id}-t ${id}-d`}
        preserveAspectRatio="xMidYMid meet"
        className="results__chart-svg"
      >
        <title id={`${id}-t`}>{p.title}</title>
        <desc id={`${id}-d`}>
          {p.description} {p.method}.{p.note ? ` ${p.note}.` : ''}
        </desc>
        <GridY y={y} left={M.left} right={W - M.right} format={p.format} className="results__grid" />
        <TicksBelow
          className="results__grid"
          items={keys}
          at={(k) => cx(String(k))}
          y={H - M.bottom + 16}
          label={(k) => (String(k).length > 12 ? `${String(k).slice(0, 11)}…` : String(k))}
        />
        <AxisTitles x={p.xLabel} y={p.yLabel} width={W} height={H} plot={M} className="results__axis-label" />
        <g aria-hidden="true">
          {paperPoints.length > 1 && ordered && (
            <path className="results__paper-line" d={paperLine(paperPoints) ?? ''} />
          )}
          {ordered &&
            series.map((name, i) => (
              <path
                key={name ?? ''}
                className={`results__study-line results__series-${i % SERIES_STYLES}`}
                d={join(p.points.filter((d) => d.series === name)) ?? ''}
              />
            ))}
          {p.points.map((d) => {
            const px = sx(d);
            return (
              <g
                key={d.key}
                className={`results__point results__series-${series.indexOf(d.series) % SERIES_STYLES}`}
                data-key={d.key}
              >
                {finite(d.clusteredLo) && (
                  <g className="results__whisker">
                    <line x1={px} x2={px} y1={y(d.clusteredLo)} y2={y(d.clusteredHi)} />
                    <line x1={px - 4} x2={px + 4} y1={y(d.clusteredLo)} y2={y(d.clusteredLo)} />
                    <line x1={px - 4} x2={px + 4} y1={y(d.clusteredHi)} y2={y(d.clusteredHi)} />
                  </g>
                )}
                {finite(d.lo) && <line className="results__bar" x1={px} x2={px} y1={y(d.lo)} y2={y(d.hi)} />}
                {finite(d.estimate) && <circle cx={px} cy={y(d.estimate)} r={4} />}
              </g>
            );
          })}
          {paperPoints.map((d) => {
            const px = paperX(d.key);
            const py = y(d.v);
            return (
              <path
                key={d.key}
                className="results__paper"
                data-key={d.key}
                d={`M${px},${py - 5}L${px + 5},${py}L${px},${py + 5}L${px - 5},${py}Z`}
              />
            );
          })}
        </g>
      </svg>
      <figcaption>
        {p.title}
        <span className="results__chart-method" data-testid="results-chart-method">
          {p.method}
        </span>
        {p.note && (
          <span className="results__chart-method results__chart-note" data-testid={p.noteTestId}>
            {p.note}
          </span>
        )}
      </figcaption>
    </figure>
  );
}
