import { useId, useMemo, useState } from 'react';
import '../../ui/table.css';
import { formatCount } from '../../core/util/format';
import type { ParticipantThreshold } from '../../study/results/thresholds';
import { thresholdSummary } from '../../study/results/thresholds';
import { Pager, pageWindow } from '../../ui/Pager';
import { fixed, range } from './format';
import { useResults } from './store';
import { TableScroll } from '../../ui/TableScroll';

/** Lines per page, as the participants table. */
const PAGE = 100;

const PROCEDURE: Record<ParticipantThreshold['procedure'], string> = {
  staircase: 'staircase (2-down-1-up)',
  quest: 'QUEST+',
};

const STOP: Record<ParticipantThreshold['stop'], string> = {
  trials: 'most trials',
  interval: 'interval narrow enough',
  '': 'not stopped (left early)',
};

/** "4.32 hops (SD 0.81), 95% CI [3.95, 4.69], 12 participants", or the one value. */
function summaryText(list: readonly ParticipantThreshold[]): string {
  const s = thresholdSummary(list);
  if (!s) return '–';
  const sd = Number.isFinite(s.sd) ? ` (SD ${fixed(s.sd, 2)})` : '';
  const ci = Number.isFinite(s.low) ? `, 95% CI ${range(s.low, s.high, 2)}` : '';
  return `${fixed(s.mean, 2)} hops${sd}${ci}, ${formatCount(s.participants)} participant${s.participants === 1 ? '' : 's'}`;
}

/**
 * An adaptive study's thresholds (`adaptive-thresholds`): each participant's estimate as the rows
 * store it (the results server's own, after the session's last answered trial), its 95% interval,
 * the procedure, the trials and why the run stopped; above it the mean threshold with its spread
 * (by condition too when there are several). Nothing for other studies.
 */
export function AdaptiveThresholds() {
  const id = useId();
  const list = useResults((s) => s.thresholds);
  const [page, setPage] = useState(0);
  const conditions = useMemo(() => [...new Set(list.map((p) => p.condition))].sort(), [list]);
  if (list.length === 0) return null;
  const win = pageWindow(list.length, page, PAGE);
  return (
    <section className="results__thresholds" aria-labelledby={`${id}-h`} data-testid="adaptive-thresholds">
      <h2 id={`${id}-h`}>Thresholds (adaptive study)</h2>
      <p className="hint">
        Each participant’s threshold k (the longest story they answer mostly right) after their last answered trial,
        with its 95% interval, as the rows store it: the results server recomputes it from the answers.
      </p>
      <p data-testid="adaptive-thresholds-mean">
        <strong>Mean threshold:</strong> {summaryText(list)}
      </p>
      {conditions.length > 1 && (
        <ul className="results__threshold-conditions" data-testid="adaptive-thresholds-conditions">
          {conditions.map((c) => (
            <li key={c}>
              {c}: {summaryText(list.filter((p) => p.condition === c))}
            </li>
          ))}
        </ul>
      )}
      <TableScroll className="results__table-wrap results__scroll" sticky="first" labelledBy={`${id}-cap`}>
        <table className="results__table">
          <caption id={`${id}-cap`}>Thresholds by participant ({formatCount(list.length)})</caption>
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Participant</th>
              <th scope="col">Condition</th>
              <th scope="col">Procedure</th>
              <th scope="col">Threshold k</th>
              <th scope="col">95% interval</th>
              <th scope="col">Trials</th>
              <th scope="col">Stopped by</th>
            </tr>
          </thead>
          <tbody>
            {list.slice(win.start, win.start + PAGE).map((p) => (
              <tr key={p.session_id} data-testid="adaptive-thresholds-row" data-session={p.session_id}>
                <th scope="row" className="mono">
                  {p.session_id}
                </th>
                <td className="mono">{p.participant_id || '–'}</td>
                <td>{p.condition}</td>
                <td>{PROCEDURE[p.procedure]}</td>
                <td data-testid="adaptive-thresholds-k" data-value={p.threshold}>
                  {fixed(p.threshold, 2)}
                </td>
                <td data-testid="adaptive-thresholds-interval" data-low={p.low} data-high={p.high}>
                  {range(p.low, p.high, 2)}
                </td>
                <td>{p.trials}</td>
                <td data-testid="adaptive-thresholds-stop" data-value={p.stop}>
                  {STOP[p.stop]}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <Pager page={win.page} pages={win.pages} onPage={setPage} label="Threshold pages" />
    </section>
  );
}
