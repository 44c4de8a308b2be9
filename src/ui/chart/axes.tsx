/**
 * The charts' axes and grid, drawn once (as Observable Plot shares its axis and grid marks): the
 * results' intervals, the models' accuracy by k and the builder's pattern counts use these. The
 * scales come from d3; React draws. Each chart passes its own class for its colours.
 */

/** A numeric scale as d3 makes them: a function with ticks. */
export interface TickScale {
  (value: number): number;
  ticks(count?: number): number[];
}

/** Horizontal grid lines at the y scale's ticks, labelled at the left edge of the plot. */
export function GridY({
  y,
  left,
  right,
  format,
  ticks = 5,
  className,
}: {
  y: TickScale;
  left: number;
  right: number;
  format: (t: number) => string;
  ticks?: number;
  className: string;
}) {
  return (
    <g className={className} aria-hidden="true">
      {y.ticks(ticks).map((t) => (
        <g key={t} transform={`translate(0,${y(t)})`}>
          <line x1={left} x2={right} />
          <text x={left - 7} dy="0.32em" textAnchor="end">
            {format(t)}
          </text>
        </g>
      ))}
    </g>
  );
}

/** Vertical grid lines at the x scale's ticks (whole numbers only with `integers`), labelled above the plot. */
export function GridX({
  x,
  top,
  bottom,
  format,
  ticks = 5,
  integers = false,
  className,
}: {
  x: TickScale;
  top: number;
  bottom: number;
  format: (t: number) => string;
  ticks?: number;
  integers?: boolean;
  className: string;
}) {
  return (
    <g className={className} aria-hidden="true">
      {x
        .ticks(ticks)
        .filter((t) => !integers || Number.isInteger(t))
        .map((t) => (
          <g key={t} transform={`translate(${x(t)},0)`}>
            <line y1={top - 4} y2={bottom} />
            <text y={top - 8} textAnchor="middle">
              {format(t)}
            </text>
          </g>
        ))}
    </g>
  );
}

/** Labels of categories (or of chosen values) under the plot, centred on their place. */
export function TicksBelow({
  items,
  at,
  y,
  label = String,
  className,
}: {
  items: readonly (string | number)[];
  at: (item: string | number) => number;
  y: number;
  label?: (item: string | number) => string;
  className?: string;
}) {
  return (
    <g className={className} aria-hidden="true">
      {items.map((it) => (
        <text key={it} x={at(it)} y={y} textAnchor="middle">
          {label(it)}
        </text>
      ))}
    </g>
  );
}

/** The axes' titles: x centred under the plot, y turned along its left edge. */
export function AxisTitles({
  x,
  y,
  width,
  height,
  plot,
  className,
}: {
  x: string;
  y: string;
  width: number;
  height: number;
  plot: { readonly top: number; readonly bottom: number; readonly left: number; readonly right: number };
  className: string;
}) {
  return (
    <g aria-hidden="true">
      <text className={className} x={(plot.left + width - plot.right) / 2} y={height - 6} textAnchor="middle">
        {x}
      </text>
      <text
        className={className}
        transform={`translate(13,${(plot.top + height - plot.bottom) / 2}) rotate(-90)`}
        textAnchor="middle"
      >
        {y}
      </text>
    </g>
  );
}
