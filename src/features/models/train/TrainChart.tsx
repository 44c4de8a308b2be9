import { line, scaleLinear } from 'd3';
import { useEffect, useId, useRef, useState } from 'react';
import type { EpochRecord } from '../../../worker/trainClient';

const H = 230;
const M = { top: 16, right: 58, bottom: 40, left: 48 };

/** The element's width in CSS pixels, followed as it changes (the chart draws at 1:1, so its text stays its CSS size). */
function useWidth<T extends HTMLElement>(fallback: number) {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(([e]) => e && setWidth(Math.max(260, Math.round(e.contentRect.width))));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, width] as const;
}

/**
 * The live curves of a training run: the epoch's mean training loss (left axis) and the
 * validation slice's accuracy after it (right axis, 0..1), one point per epoch as it ends. d3
 * makes the scales and paths; React draws at the element's own width, so labels stay legible on
 * a phone.
 */
export function TrainChart({ history, epochs }: { history: readonly EpochRecord[]; epochs: number }) {
  const id = useId();
  const [ref, W] = useWidth<HTMLDivElement>(640);
  const first = history[0]?.epoch ?? 1;
  const lastEpoch = Math.max(first + Math.max(epochs, 1) - 1, history.at(-1)?.epoch ?? 1, first + 1);
  const x = scaleLinear()
    .domain([first, lastEpoch])
    .range([M.left, W - M.right]);
  const maxLoss = Math.max(0.5, ...history.map((h) => h.loss));
  const yLoss = scaleLinear()
    .domain([0, maxLoss])
    .nice()
    .range([H - M.bottom, M.top]);
  const yAcc = scaleLinear()
    .domain([0, 1])
    .range([H - M.bottom, M.top]);
  const lossLine = line<EpochRecord>()
    .x((h) => x(h.epoch))
    .y((h) => yLoss(h.loss));
  const valPoints = history.filter((h) => h.testAccuracy23 !== null);
  const valLine = line<EpochRecord>()
    .x((h) => x(h.epoch))
    .y((h) => yAcc(h.testAccuracy23!));
  const xTicks = x.ticks(Math.min(lastEpoch - first + 1, Math.max(2, Math.floor(W / 70)))).filter(Number.isInteger);
  const describe = history.length
    ? history
        .map(
          (h) =>
            `epoch ${h.epoch}: loss ${h.loss.toFixed(3)}${h.testAccuracy23 === null ? '' : `, validation accuracy ${h.testAccuracy23.toFixed(3)}`}`,
        )
        .join('; ')
    : 'No epoch has ended yet.';
  return (
    <figure className="train-panel__chart" ref={ref} data-testid="train-progress" data-epochs={history.length}>
      <svg width={W} height={H} viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-t ${id}-d`}>
        <title id={`${id}-t`}>Training loss and validation accuracy by epoch</title>
        <desc id={`${id}-d`}>{describe}</desc>
        <g className="train-panel__grid" aria-hidden="true">
          {yAcc.ticks(5).map((t) => (
            <g key={t} transform={`translate(0,${yAcc(t)})`}>
              <line x1={M.left} x2={W - M.right} />
              <text x={W - M.right + 6} dy="0.32em" className="train-panel__acc-tick">
                {t.toFixed(1)}
              </text>
            </g>
          ))}
          {yLoss.ticks(5).map((t) => (
            <text key={t} x={M.left - 6} y={yLoss(t)} dy="0.32em" textAnchor="end" className="train-panel__loss-tick">
              {t.toFixed(1)}
            </text>
          ))}
          {xTicks.map((t) => (
            <text key={t} x={x(t)} y={H - M.bottom + 18} textAnchor="middle">
              {t}
            </text>
          ))}
          <text x={(M.left + W - M.right) / 2} y={H - 4} textAnchor="middle">
            epoch
          </text>
          <text transform={`translate(12,${(M.top + H - M.bottom) / 2}) rotate(-90)`} textAnchor="middle">
            loss
          </text>
          <text transform={`translate(${W - 12},${(M.top + H - M.bottom) / 2}) rotate(90)`} textAnchor="middle">
            validation accuracy
          </text>
        </g>
        <path className="train-panel__loss" d={lossLine(history) ?? ''} data-series="loss" />
        <path className="train-panel__val" d={valLine(valPoints) ?? ''} data-series="validation" />
        {history.map((h) => (
          <circle key={`l${h.epoch}`} className="train-panel__loss-dot" cx={x(h.epoch)} cy={yLoss(h.loss)} r={3.5} />
        ))}
        {valPoints.map((h) => (
          <rect
            key={`v${h.epoch}`}
            className="train-panel__val-dot"
            x={x(h.epoch) - 3.5}
            y={yAcc(h.testAccuracy23!) - 3.5}
            width={7}
            height={7}
          />
        ))}
      </svg>
      <figcaption className="train-panel__legend">
        <span className="train-panel__key train-panel__key--loss">training loss (left)</span>
        <span className="train-panel__key train-panel__key--val">validation accuracy (right)</span>
      </figcaption>
    </figure>
  );
}
