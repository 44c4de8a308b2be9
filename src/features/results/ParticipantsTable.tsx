import { useId, useMemo, useState } from 'react';
import '../../ui/table.css';
import { SortHeader } from '../../ui/SortHeader';
import { sortRows, textMatches, type TableQuery } from '../../ui/tableQuery';
import { useHashTable } from '../../ui/useHashTable';
import { formatCount } from '../../core/util/format';
import { FLAG_RULES, FLAG_TEXT, participantsShown } from '../../study/results/figures';
import { fixed } from './format';
import { Pager, pageWindow } from '../../ui/Pager';
import { useResults } from './store';
import { TableSearch } from '../../ui/TableSearch';
import { TableScroll } from '../../ui/TableScroll';

/** Lines per page: a study of thousands is not drawn all at once. */
const PAGE = 100;
const FILTERS = ['flagged'] as const;

type Line = ReturnType<typeof useResults.getState>['participants'][number];
const n = (v: number | null | undefined) => v ?? -1;
const SORTS: Record<string, (p: Line) => string | number> = {
  session: (p) => p.session_id,
  participant: (p) => p.participant_id,
  condition: (p) => p.condition,
  main: (p) => p.mainTrials,
  resumed: (p) => p.resumed,
  accuracy: (p) => n(p.accuracy),
  time: (p) => n(p.medianRt),
  difficulty: (p) => n(p.meanDifficulty),
  timeouts: (p) => p.timeouts,
  hidden: (p) => p.hiddenMs,
};

/** One line per participant (session), flagged ones marked; a filter shows the flagged only. */
const RESULTS_ROUTE = '#/results';

export function ParticipantsTable() {
  const id = useId();
  // Computed in the results worker when the files were merged.
  const all = useResults((s) => s.participants);
  const resumedMode = useResults((s) => s.resumedMode);
  const list = useMemo(() => participantsShown(all, resumedMode), [all, resumedMode]);
  const marking = resumedMode === 'mark';
  const [page, setPage] = useState(0);
  // Search, sort and the flagged-only filter live in the URL (people_q, people_sort, people_dir,
  // people_flagged=1): a view is a link.
  const [query, setQuery] = useHashTable(RESULTS_ROUTE, FILTERS, 'people_');
  const flaggedOnly = query.filters.flagged === '1';
  const flagged = useMemo(() => list.filter((p) => p.flags.length > 0), [list]);
  const shown = useMemo(() => {
    const kept = (flaggedOnly ? flagged : list).filter((p) =>
      textMatches([p.session_id, p.participant_id, String(p.condition)], query.q),
    );
    const by = query.sort ? SORTS[query.sort] : undefined;
    return by ? sortRows(kept, by, query.dir) : kept;
  }, [list, flagged, flaggedOnly, query]);
  if (list.length === 0) return null;
  const sortBy = (s: Pick<TableQuery, 'sort' | 'dir'>) => {
    setQuery((q) => ({ ...q, ...s }));
    setPage(0);
  };
  const win = pageWindow(shown.length, page, PAGE);
  return (
    <section className="results__participants" aria-labelledby={`${id}-h`} data-testid="results-participants">
      <h2 id={`${id}-h`}>Participants</h2>
      <p className="hint">
        Flagged ({formatCount(flagged.length)} of {formatCount(list.length)}): an attention check answered wrong or not
        at all; {Math.round(FLAG_RULES.timeoutShare * 100)}% or more of main and check trials timed out; or{' '}
        {FLAG_RULES.hiddenMs / 1000} s or more in another tab over the run. Accuracy and times are over main trials
        {resumedMode === 'omit' ? ' not resumed (the flags count every trial)' : ''}.
        {marking ? ' Resumed: main and check trials shown again after an interruption.' : ''}
      </p>
      <label className="results__check">
        <input
          type="checkbox"
          checked={flaggedOnly}
          onChange={(e) => {
            const filters: Record<string, string> = e.target.checked ? { flagged: '1' } : {};
            setQuery((old) => ({ ...old, filters }));
            setPage(0);
          }}
          data-testid="results-flagged-only"
        />
        Show flagged participants only
      </label>
      <TableSearch
        label="Search participants"
        value={query.q}
        placeholder="session, participant id, condition"
        onSearch={(q) => {
          setQuery((old) => ({ ...old, q }));
          setPage(0);
        }}
        testId="results-participants-search"
      />
      <TableScroll className="results__table-wrap results__scroll" sticky="first" labelledBy={`${id}-cap`}>
        <table className="results__table">
          <caption id={`${id}-cap`}>
            {flaggedOnly ? 'Flagged participants' : 'All participants'} ({formatCount(shown.length)})
          </caption>
          <thead>
            <tr>
              <SortHeader column="session" label="Session" query={query} onSort={sortBy} />
              <SortHeader column="participant" label="Participant" query={query} onSort={sortBy} />
              <th scope="col">Flags</th>
              <SortHeader column="condition" label="Condition" query={query} onSort={sortBy} />
              <SortHeader column="main" label="Main trials" query={query} onSort={sortBy} />
              {marking && <SortHeader column="resumed" label="Resumed" query={query} onSort={sortBy} />}
              <SortHeader column="accuracy" label="Accuracy" query={query} onSort={sortBy} />
              <SortHeader column="time" label="Median time (s)" query={query} onSort={sortBy} />
              <SortHeader column="difficulty" label="Difficulty" query={query} onSort={sortBy} />
              <th scope="col">Checks wrong</th>
              <SortHeader column="timeouts" label="Timeouts" query={query} onSort={sortBy} />
              <SortHeader column="hidden" label="Hidden (s)" query={query} onSort={sortBy} />
            </tr>
          </thead>
          <tbody>
            {shown.slice(win.start, win.start + PAGE).map((p) => (
              <tr
                key={p.session_id}
                data-testid="results-participant"
                data-session={p.session_id}
                data-flags={p.flags.join(' ')}
                className={p.flags.length ? 'results__flagged' : undefined}
              >
                <th scope="row" className="mono">
                  {p.session_id}
                </th>
                <td className="mono" data-testid="results-participant-id">
                  {p.participant_id || '–'}
                </td>
                <td>
                  {p.flags.length === 0 ? (
                    '–'
                  ) : (
                    <ul className="results__flags">
                      {p.flags.map((f) => (
                        <li key={f} className="results__flag">
                          {FLAG_TEXT[f]}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                <td>{p.condition}</td>
                <td>{p.mainTrials}</td>
                {marking && (
                  <td data-testid="results-participant-resumed" data-value={p.resumed}>
                    {p.resumed}
                  </td>
                )}
                <td>{fixed(p.accuracy, 3)}</td>
                <td>{fixed(p.medianRt, 1)}</td>
                <td>{fixed(p.meanDifficulty, 2)}</td>
                <td>
                  {p.checksFailed} of {p.checks}
                </td>
                <td>{p.timeouts}</td>
                <td>{fixed(p.hiddenMs / 1000, 0)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      <Pager page={win.page} pages={win.pages} onPage={setPage} label="Participant pages" />
    </section>
  );
}
