import { scaleBand, scaleLinear } from 'd3';
import { useId, useState } from 'react';
import { formatCount as fmt } from '../../core/util/format';
import type { PatternCount } from './summary';
import { GridX } from '../../ui/chart/axes';
import { useChartWidth } from '../../ui/chart/useChartWidth';

const TOP = 20;
const BAR = 22;
const MARGIN = { top: 24, right: 48, bottom: 8 };
const TABLE_LIMIT = 500;

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * Pattern (f_comb) counts per k: a horizontal bar chart of the most frequent patterns at the
 * chosen k (counts of finished tasks, as the workers counted them). d3 computes the scales;
 * React draws the SVG. The SVG has a title and description,
 * and a table lists every pattern's count for readers who cannot see the chart.
 */
export function PatternChart({ counts }: { counts: ReadonlyMap<number, readonly PatternCount[]> }) {
  const id = useId();
  const ks = [...counts.keys()];
  const [chosenK, setChosenK] = useState<number | null>(null);
  const [tableOpen, setTableOpen] = useState(false);
  // Drawn at the box's own width, so the 12 px type is 12 px on a phone too: a narrower box gets
  // a narrower label column (patterns clipped to it, whole in their tooltip) and fewer ticks.
  const [boxRef, WIDTH] = useChartWidth<HTMLElement>(720, 280, 864);
  const LABEL = Math.round(Math.min(250, Math.max(110, WIDTH * 0.38)));
  const labelChars = Math.max(8, Math.floor((LABEL - 14) / 7.3));
  const k = chosenK !== null && counts.has(chosenK) ? chosenK : (ks[0] ?? null);
  const list = k === null ? [] : (counts.get(k) ?? []);
  const top = list.slice(0, TOP);
  const rowsAtK = list.reduce((s, p) => s + p.count, 0);

  const height = MARGIN.top + Math.max(1, top.length) * BAR + MARGIN.bottom;
  const x = scaleLinear()
    .domain([0, Math.max(1, top[0]?.count ?? 1)])
    .nice()
    .range([LABEL, WIDTH - MARGIN.right]);
  const y = scaleBand<string>()
    .domain(top.map((p) => p.pattern))
    .range([MARGIN.top, MARGIN.top + top.length * BAR])
    .padding(0.2);

  const most = list[0];
  const least = list[list.length - 1];
  const description =
    k === null
      ? 'No rows yet.'
      : `At k = ${k}: ${fmt(rowsAtK)} rows in ${fmt(list.length)} distinct patterns. ` +
        `Most frequent: ${most?.pattern} (${most?.count}); least frequent: ${least?.pattern} (${least?.count}). ` +
        `The chart shows the ${Math.min(TOP, list.length)} most frequent.`;

  return (
    // Measured on the section: its contents may be skipped while off screen (content-visibility).
    <section
      ref={boxRef}
      className="dataset__chart"
      aria-labelledby={`${id}-h`}
      data-testid="pattern-chart"
      data-k={k ?? ''}
    >
      <h2 id={`${id}-h`}>Patterns per k</h2>
      {ks.length === 0 ? (
        <p className="hint">The chart appears as tasks finish.</p>
      ) : (
        <>
          <div className="dataset__chart-controls">
            <label htmlFor={`${id}-k`}>Story length</label>
            <select id={`${id}-k`} value={k ?? ''} onChange={(e) => setChosenK(Number(e.target.value))}>
              {ks.map((kk) => (
                <option key={kk} value={kk}>
                  k = {kk} ({fmt(counts.get(kk)!.length)} patterns)
                </option>
              ))}
            </select>
          </div>
          <p className="hint" id={`${id}-d`}>
            {description}
          </p>
          <div className="dataset__chart-box">
            <svg
              className="dataset__chart-svg"
              width={WIDTH}
              height={height}
              viewBox={`0 0 ${WIDTH} ${height}`}
              role="img"
              aria-labelledby={`${id}-t ${id}-desc`}
              preserveAspectRatio="xMinYMin meet"
            >
              <title id={`${id}-t`}>{`Count of each f_comb pattern at k = ${k}`}</title>
              <desc id={`${id}-desc`}>{description}</desc>
              <GridX
                x={x}
                top={MARGIN.top}
                bottom={height - MARGIN.bottom}
                format={fmt}
                ticks={WIDTH < 520 ? 3 : 5}
                integers
                className="dataset__axis"
              />
              {top.map((p) => {
                const by = y(p.pattern) ?? 0;
                return (
                  <g key={p.pattern} className="dataset__bar" aria-hidden="true">
                    <text x={LABEL - 8} y={by + y.bandwidth() / 2} dominantBaseline="middle" textAnchor="end">
                      <title>{p.pattern}</title>
                      {clip(p.pattern, labelChars)}
                    </text>
                    <rect x={LABEL} y={by} width={Math.max(1, x(p.count) - LABEL)} height={y.bandwidth()} rx={2} />
                    <text
                      x={x(p.count) + 4}
                      y={by + y.bandwidth() / 2}
                      dominantBaseline="middle"
                      className="dataset__bar-value"
                    >
                      {fmt(p.count)}
                    </text>
                  </g>
                );
              })}
            </svg>
          </div>
          <details
            className="dataset__chart-table"
            onToggle={(e) => setTableOpen((e.target as HTMLDetailsElement).open)}
          >
            <summary>Table of pattern counts at k = {k}</summary>
            {tableOpen && (
              <table>
                <caption>
                  f_comb patterns at k = {k}, most frequent first
                  {list.length > TABLE_LIMIT ? ` (the first ${TABLE_LIMIT} of ${fmt(list.length)})` : ''}
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Pattern</th>
                    <th scope="col">Rows</th>
                  </tr>
                </thead>
                <tbody>
                  {list.slice(0, TABLE_LIMIT).map((p) => (
                    <tr key={p.pattern}>
                      <td>{p.pattern}</td>
                      <td>{fmt(p.count)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </details>
        </>
      )}
    </section>
  );
}
