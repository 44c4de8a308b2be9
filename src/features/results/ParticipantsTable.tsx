import { useId, useState } from 'react';
import { formatCount } from '../../core/util/format';
import { FLAG_RULES, FLAG_TEXT } from '../../study/figures';
import { fixed } from './format';
import { Pager, pageWindow } from '../../ui/Pager';
import { useResults } from './store';

/** Lines per page: a study of thousands is not drawn all at once. */
const PAGE = 100;

/** One line per participant (session), flagged ones marked; a filter shows the flagged only. */
export function ParticipantsTable() {
  const id = useId();
  // Computed in the results worker when the files were merged.
  const list = useResults((s) => s.participants);
  const [flaggedOnly, setFlaggedOnly] = useState(false);
  const [page, setPage] = useState(0);
  if (list.length === 0) return null;
  const flagged = list.filter((p) => p.flags.length > 0);
  const shown = flaggedOnly ? flagged : list;
  const win = pageWindow(shown.length, page, PAGE);
  return (
    <section className="rs-participants" aria-labelledby={`${id}-h`} data-testid="results-participants">
      <h2 id={`${id}-h`}>Participants</h2>
      <p className="rs-hint">
        Flagged ({formatCount(flagged.length)} of {formatCount(list.length)}): an attention check answered wrong or not
        at all; {Math.round(FLAG_RULES.timeoutShare * 100)}% or more of main and check trials timed out; or{' '}
        {FLAG_RULES.hiddenMs / 1000} s or more in another tab over the run. Accuracy and times are over main trials.
      </p>
      <label className="rs-check">
        <input
          type="checkbox"
          checked={flaggedOnly}
          onChange={(e) => {
            setFlaggedOnly(e.target.checked);
            setPage(0);
          }}
          data-testid="results-flagged-only"
        />
        Show flagged participants only
      </label>
      <div className="rs-table-wrap rs-scroll" tabIndex={0} role="region" aria-labelledby={`${id}-cap`}>
        <table className="rs-table">
          <caption id={`${id}-cap`}>
            {flaggedOnly ? 'Flagged participants' : 'All participants'} ({formatCount(shown.length)})
          </caption>
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">Participant</th>
              <th scope="col">Flags</th>
              <th scope="col">Condition</th>
              <th scope="col">Main trials</th>
              <th scope="col">Accuracy</th>
              <th scope="col">Median time (s)</th>
              <th scope="col">Difficulty</th>
              <th scope="col">Checks wrong</th>
              <th scope="col">Timeouts</th>
              <th scope="col">Hidden (s)</th>
            </tr>
          </thead>
          <tbody>
            {shown.slice(win.start, win.start + PAGE).map((p) => (
              <tr
                key={p.session_id}
                data-testid="results-participant"
                data-session={p.session_id}
                data-flags={p.flags.join(' ')}
                className={p.flags.length ? 'rs-flagged' : undefined}
              >
                <th scope="row" className="rs-mono">
                  {p.session_id}
                </th>
                <td className="rs-mono" data-testid="results-participant-id">
                  {p.participant_id || '–'}
                </td>
                <td>
                  {p.flags.length === 0 ? (
                    '–'
                  ) : (
                    <ul className="rs-flags">
                      {p.flags.map((f) => (
                        <li key={f} className="rs-flag">
                          {FLAG_TEXT[f]}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
                <td>{p.condition}</td>
                <td>{p.mainTrials}</td>
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
      </div>
      <Pager page={win.page} pages={win.pages} onPage={setPage} label="Participant pages" />
    </section>
  );
}
