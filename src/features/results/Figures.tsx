import { saveFile } from '../../ui/saveFile';
import '../../ui/table.css';
import { useId, useMemo } from 'react';
import { formatCount } from '../../core/util/format';
import {
  GROUP_BY_LABEL,
  groupsShown,
  INTERVAL_METHODS,
  SCALE,
  tableToCsv,
  type Figure,
  type GroupBy,
  type GroupRow,
} from '../../study/results/figures';
import {
  isResumedMode,
  RESUMED_MODE_LABEL,
  RESUMED_MODES,
  resumedNote,
  resumedTally,
  type ResumedMode,
} from '../../study/results/resumed';
import { fixed, range } from './format';
import { IntervalChart, SERIES_STYLES, type ChartPoint } from './IntervalChart';
import { useResults } from './store';
import { CLUSTER_NOTE_RATIO } from '../../study/results/stats';
import { TableScroll } from '../../ui/TableScroll';

const GROUPINGS: readonly GroupBy[] = ['k', 'task', 'condition', 'condition-k'];

const points = (groups: readonly GroupRow[], pick: (g: GroupRow) => Figure): ChartPoint[] =>
  groups.map((g) => {
    const f = pick(g);
    return {
      key: g.key,
      band: g.band,
      series: g.series,
      estimate: f.interval.estimate,
      lo: f.interval.lo,
      hi: f.interval.hi,
      clusteredLo: f.clustered.lo,
      clusteredHi: f.clustered.hi,
    };
  });

function describe(
  what: string,
  groups: readonly GroupRow[],
  pick: (g: GroupRow) => Figure,
  digits: number,
  by: GroupBy,
) {
  const parts = groups.map((g) => {
    const f = pick(g);
    return `${by} ${g.key}: ${fixed(f.interval.estimate, digits)} ${range(f.interval.lo, f.interval.hi, digits)}`;
  });
  return `${what} by ${GROUP_BY_LABEL[by]}, with 95% intervals: ${parts.join('; ')}. The table below lists every figure.`;
}

/** A figure's cell: estimate and trial-level interval, then the participant-clustered interval. */
function FigureCell({
  f,
  digits,
  testId,
  resumed,
}: {
  f: Figure;
  digits: number;
  testId: string;
  /** Resumed trials the figure holds, said under it (marking them); none when not marking. */
  resumed?: number;
}) {
  return (
    <td data-testid={testId} data-value={f.interval.estimate} data-n={f.n}>
      <span className="results__est">{fixed(f.interval.estimate, digits)}</span>{' '}
      <span className="results__ci">{range(f.interval.lo, f.interval.hi, digits)}</span>
      <br />
      <span className={`results__ci results__ci-cluster${f.clusteringMatters ? ' results__ci-wide' : ''}`}>
        by participant {range(f.clustered.lo, f.clustered.hi, digits)}
        {f.clusteringMatters ? ' †' : ''}
      </span>
      {resumed !== undefined && resumed > 0 && (
        <>
          <br />
          <span className="results__resumed-mark">holds {formatCount(resumed)} resumed</span>
        </>
      )}
    </td>
  );
}

/** Where each group's resumed trials are, for the response-time chart: `k 2: 1, k 4: 2`. */
function resumedByGroup(groups: readonly GroupRow[], by: GroupBy, pick: (g: GroupRow) => number): string {
  return groups
    .filter((g) => pick(g) > 0)
    .map((g) => `${by === 'condition-k' ? g.key : `${by} ${g.key}`}: ${formatCount(pick(g))}`)
    .join(', ');
}

/** Accuracy, response time and difficulty by the chosen grouping: three charts and the table. */
export function Figures() {
  const id = useId();
  const rows = useResults((s) => s.merged.rows);
  // The select follows the choice at once; the figures, their own view once the worker has them.
  const chosen = useResults((s) => s.groupBy);
  const { groups: all, items, view } = useResults((s) => s.figures);
  const by = view.by;
  const resumedMode = useResults((s) => s.resumedMode);
  const setResumedMode = useResults((s) => s.setResumedMode);
  const groups = useMemo(() => groupsShown(all, resumedMode), [all, resumedMode]);
  // Items hold every main and check trial of the participants in the figures, once.
  const tally = useMemo(() => resumedTally(items), [items]);
  const setGroupBy = useResults((s) => s.setGroupBy);
  const excludeFlagged = useResults((s) => s.excludeFlagged);
  const setExcludeFlagged = useResults((s) => s.setExcludeFlagged);
  const people = useResults((s) => s.participants);
  const flaggedCount = useMemo(() => people.filter((p) => p.flags.length > 0).length, [people]);
  if (rows === 0) return null;
  const withPaper = by === 'k' || by === 'condition-k';
  const paperBy = (pick: (g: GroupRow) => number | undefined) =>
    withPaper ? new Map(groups.flatMap((g) => (g.paper ? [[g.band, pick(g)!] as const] : []))) : undefined;
  const paperAcc = paperBy((g) => g.paper?.accuracy);
  const paperDiff = paperBy((g) => g.paper?.difficulty);
  const series = [...new Set(groups.flatMap((g) => (g.series === null ? [] : [g.series])))];
  const anyWide = groups.some(
    (g) => g.accuracy.clusteringMatters || g.rt.clusteringMatters || g.difficulty.clusteringMatters,
  );
  const label = GROUP_BY_LABEL[by];
  const axis = by === 'condition-k' ? GROUP_BY_LABEL.k : label;
  const marking = resumedMode === 'mark';
  const rtResumed = groups.reduce((n, g) => n + g.resumed.rt, 0);
  const rtNote =
    marking && rtResumed > 0
      ? `Holds ${formatCount(rtResumed)} resumed trial${rtResumed === 1 ? '' : 's'} (${resumedByGroup(groups, by, (g) => g.resumed.rt)})`
      : undefined;
  const exportName = `results-by-${by}${resumedMode === 'include' ? '' : resumedMode === 'mark' ? '-resumed-marked' : '-resumed-left-out'}.csv`;

  return (
    <section
      className="results__figures"
      aria-labelledby={`${id}-h`}
      data-testid="results-figures"
      data-group-by={by}
      data-exclude-flagged={view.excludeFlagged}
      data-resumed-mode={resumedMode}
    >
      <h2 id={`${id}-h`}>Accuracy, response time and difficulty</h2>
      <div className="results__controls">
        <div className="results__field">
          <label htmlFor={`${id}-by`}>Group by</label>
          <select
            id={`${id}-by`}
            data-testid="results-group-by"
            value={chosen}
            onChange={(e) => setGroupBy(e.target.value as GroupBy)}
          >
            {GROUPINGS.map((g) => (
              <option key={g} value={g}>
                {GROUP_BY_LABEL[g]}
              </option>
            ))}
          </select>
        </div>
        <label className="results__check">
          <input
            type="checkbox"
            data-testid="results-exclude-flagged"
            checked={excludeFlagged}
            onChange={(e) => setExcludeFlagged(e.target.checked)}
          />
          Leave out flagged participants ({formatCount(flaggedCount)})
        </label>
        <div className="results__field">
          <label htmlFor={`${id}-resumed`}>Resumed trials</label>
          <select
            id={`${id}-resumed`}
            data-testid="resumed-mode"
            value={resumedMode}
            aria-describedby={`${id}-resumed-note`}
            onChange={(e) => {
              if (isResumedMode(e.target.value)) setResumedMode(e.target.value);
            }}
          >
            {RESUMED_MODES.map((m: ResumedMode) => (
              <option key={m} value={m}>
                {RESUMED_MODE_LABEL[m]}
              </option>
            ))}
          </select>
        </div>
        <button
          type="button"
          data-testid="results-export"
          onClick={() => saveFile([tableToCsv(groups, by, resumedMode)], exportName, 'text/csv;charset=utf-8')}
        >
          Export table (CSV)
        </button>
      </div>
      <p className="hint">
        Main trials only (practice and attention checks left out); a timeout counts as wrong and has no time or rating.
      </p>
      <p
        id={`${id}-resumed-note`}
        className={`results__resumed-note${tally.resumed > 0 && resumedMode !== 'include' ? ' results__resumed-note-on' : ''}`}
        data-testid="resumed-note"
        data-mode={resumedMode}
        data-resumed={tally.resumed}
        data-trials={tally.trials}
        aria-live="polite"
      >
        {resumedNote(resumedMode, tally)}
      </p>
      <ul className="results__legend">
        {(series.length ? series : [null]).map((name, i) => (
          <li key={name ?? ''} className={`results__series-${i % SERIES_STYLES}`} data-testid="results-legend-series">
            <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
              <line className="results__bar" x1="8" x2="8" y1="5" y2="19" />
              <circle cx="8" cy="12" r="4" className="results__legend-dot" />
              <line className="results__legend-whisker" x1="18" x2="18" y1="2" y2="22" />
            </svg>
            {name === null ? 'this study' : `condition ${name}`}
            {i === 0
              ? ': dot, the estimate; thick bar, its 95% interval over trials; thin whisker, the 95% bootstrap interval resampling whole participants (each chart says which interval)'
              : ''}
          </li>
        ))}
        {withPaper && (
          <li>
            <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
              <path className="results__paper" d="M12,6L18,12L12,18L6,12Z" />
            </svg>
            the paper&apos;s Table 3 (time-limited crowd workers)
          </li>
        )}
      </ul>
      <div className="results__charts">
        <IntervalChart
          testId="results-chart-accuracy"
          title={`Accuracy by ${label}`}
          description={describe('Accuracy', groups, (g) => g.accuracy, 3, by)}
          xLabel={axis}
          yLabel="accuracy"
          domain={SCALE.accuracy}
          method="95% Wilson interval; whisker: by participant"
          format={(v) => v.toFixed(1)}
          points={points(groups, (g) => g.accuracy)}
          paper={paperAcc}
        />
        <IntervalChart
          testId="results-chart-rt"
          title={`Response time by ${label} (s, geometric mean)`}
          description={describe('Geometric mean response time in seconds', groups, (g) => g.rt, 1, by)}
          xLabel={axis}
          yLabel="seconds"
          domain={[SCALE.rt[0], 10]}
          grow
          method="Geometric mean; 95% t interval on log time; whisker: by participant"
          format={(v) => String(Math.round(v))}
          points={points(groups, (g) => g.rt)}
          note={rtNote}
          noteTestId="results-rt-resumed"
        />
        <IntervalChart
          testId="results-chart-difficulty"
          title={`Difficulty rating by ${label} (1–5)`}
          description={describe('Mean difficulty rating', groups, (g) => g.difficulty, 2, by)}
          xLabel={axis}
          yLabel="rating"
          domain={SCALE.difficulty}
          method="Mean; 95% t interval on the logit scale, within 1–5; whisker: by participant"
          format={(v) => String(v)}
          points={points(groups, (g) => g.difficulty)}
          paper={paperDiff}
        />
      </div>
      <TableScroll className="results__table-wrap" sticky="first" labelledBy={`${id}-cap`}>
        <table className="results__table" data-testid="results-table" aria-describedby={`${id}-methods`}>
          <caption id={`${id}-cap`}>
            Figures by {label}, 95% intervals{withPaper ? ', with the paper’s Table 3' : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">{by === 'condition-k' ? 'condition, k' : by}</th>
              <th scope="col">Participants</th>
              <th scope="col">Trials</th>
              {marking && <th scope="col">Resumed</th>}
              <th scope="col">Accuracy</th>
              {withPaper && <th scope="col">Paper accuracy</th>}
              <th scope="col">Response time (s, geometric mean)</th>
              <th scope="col">Difficulty (1–5, mean)</th>
              {withPaper && <th scope="col">Paper difficulty</th>}
            </tr>
          </thead>
          <tbody>
            {groups.map((g) => (
              <tr key={g.key} data-testid="results-row" data-key={g.key}>
                <th scope="row">{g.key}</th>
                <td>{formatCount(g.participants)}</td>
                <td>
                  {formatCount(g.trials)}
                  {g.timeouts > 0 && <span className="results__ci"> ({formatCount(g.timeouts)} timed out)</span>}
                  {resumedMode === 'omit' && g.resumed.trials > 0 && (
                    <span className="results__ci" data-testid="results-resumed-left-out">
                      {' '}
                      ({formatCount(g.resumed.trials)} resumed left out)
                    </span>
                  )}
                </td>
                {marking && (
                  <td
                    data-testid="results-resumed"
                    data-value={g.resumed.trials}
                    data-rt={g.resumed.rt}
                    data-difficulty={g.resumed.difficulty}
                  >
                    {formatCount(g.resumed.trials)}
                  </td>
                )}
                <FigureCell f={g.accuracy} digits={3} testId="results-accuracy" />
                {withPaper && (
                  <td data-testid="results-paper-accuracy">{g.paper ? g.paper.accuracy.toFixed(3) : '–'}</td>
                )}
                <FigureCell f={g.rt} digits={1} testId="results-rt" resumed={marking ? g.resumed.rt : undefined} />
                <FigureCell
                  f={g.difficulty}
                  digits={2}
                  testId="results-difficulty"
                  resumed={marking ? g.resumed.difficulty : undefined}
                />
                {withPaper && (
                  <td data-testid="results-paper-difficulty">
                    {g.paper ? `${g.paper.difficulty.toFixed(2)} ± ${g.paper.difficultySd.toFixed(2)}` : '–'}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <ul id={`${id}-methods`} className="hint results__methods" data-testid="results-interval-note">
        {(['accuracy', 'rt', 'difficulty', 'clustered'] as const).map((m) => (
          <li key={m} data-measure={m}>
            {INTERVAL_METHODS[m]}.
          </li>
        ))}
        <li>Every interval stays within its scale: accuracy 0–1, response time above 0 s, difficulty 1–5.</li>
      </ul>
      <p className="hint" data-testid="results-cluster-note">
        {anyWide
          ? `† Clustering matters here: the interval over participants is at least ${CLUSTER_NOTE_RATIO}× as wide as the one over trials, because participants differ; read the wider one.`
          : `Clustering by participant changes no interval by ${CLUSTER_NOTE_RATIO}× or more here.`}{' '}
        The paper reports no intervals or trial counts for Table 3 (difficulty there is mean ± sd).
      </p>
    </section>
  );
}
