import { useId, useMemo, useState } from 'react';
import { formatCount } from '../../core/util/format';
import type { StoryReport, StoryStatus } from '../../study/collect/collect';
import { Pager, pageWindow } from '../../ui/Pager';
import { TableSearch } from '../../ui/TableSearch';
import { textMatches } from '../../ui/tableQuery';
import { ChoiceSelect } from './ChoiceSelect';

const PAGE = 25;

const STATUS_TEXT: Record<StoryStatus, string> = {
  accepted: 'Accepted',
  rejected: 'Rejected',
  pending: 'Waiting for reviews',
  'failed-checks': 'Failed the live checks',
};

type Filter = 'all' | StoryStatus;

/** Every story with its clause, its status and each review (verdict and reasons); accepted ones with their template. */
export function CollectStories({ stories }: { stories: readonly StoryReport[] }) {
  const id = useId();
  const [filter, setFilter] = useState<Filter>('all');
  const [q, setQ] = useState('');
  const [page, setPage] = useState(0);
  const shown = useMemo(
    () =>
      stories.filter(
        (s) =>
          (filter === 'all' || s.status === filter) && textMatches([s.id, s.clauseId, s.text, s.author.participant], q),
      ),
    [stories, filter, q],
  );
  const win = pageWindow(shown.length, page, PAGE);
  return (
    <div className="results__collect-stories" data-testid="collect-stories" data-count={stories.length}>
      <h3 id={`${id}-h`}>Stories and their reviews</h3>
      <div className="results__controls">
        <ChoiceSelect<Filter>
          label="Status"
          className="results__field"
          value={filter}
          choices={[
            ['all', `All (${formatCount(stories.length)})`],
            ...(Object.keys(STATUS_TEXT) as StoryStatus[]).map(
              (s) => [s, `${STATUS_TEXT[s]} (${formatCount(stories.filter((x) => x.status === s).length)})`] as const,
            ),
          ]}
          onChoose={(f) => {
            setFilter(f);
            setPage(0);
          }}
          testId="collect-stories-status"
        />
        <TableSearch
          label="Search stories"
          value={q}
          placeholder="text, clause, story id, participant"
          onSearch={(text) => {
            setQ(text);
            setPage(0);
          }}
          testId="collect-stories-search"
        />
      </div>
      <p className="hint" aria-live="polite">
        {formatCount(shown.length)} of {formatCount(stories.length)} stories
      </p>
      <ol className="results__collect-story-list" aria-labelledby={`${id}-h`}>
        {shown.slice(win.start, win.start + PAGE).map((s) => (
          <li
            key={s.id}
            className={`results__collect-story results__status-${s.status}`}
            data-testid="collect-story"
            data-story={s.id}
            data-status={s.status}
            data-clause={s.clauseId}
            data-good={s.good}
            data-bad={s.bad}
          >
            <p className="results__collect-story-head">
              <span className="results__collect-status">{STATUS_TEXT[s.status]}</span>{' '}
              <span className="mono">{s.fComb}</span> · <span className="mono">{s.genderComb}</span> · k = {s.k}
              <span className="results__collect-why"> — {s.why}</span>
            </p>
            <blockquote className="results__collect-text" data-testid="collect-story-text">
              {s.text}
            </blockquote>
            {s.template !== null && (
              <p className="results__collect-template">
                Template: <code data-testid="collect-story-template">{s.template}</code>
              </p>
            )}
            <p className="hint">
              Story <span className="mono">{s.id}</span>
              {s.author.participant ? (
                <>
                  {' '}
                  by <span className="mono">{s.author.participant}</span>
                </>
              ) : null}
            </p>
            {s.reviews.length > 0 ? (
              <ul className="results__collect-reviews" aria-label={`Reviews of story ${s.id}`}>
                {s.reviews.map((r) => (
                  <li
                    key={r.session}
                    data-testid="collect-review"
                    data-verdict={r.verdict}
                    data-reasons={r.reasons.join(',')}
                    className={`results__review-${r.verdict}`}
                  >
                    <span className="results__collect-verdict">{r.verdict === 'good' ? 'Good' : 'Bad'}</span>
                    {r.reasons.length > 0 && <> ({r.reasons.join(', ')})</>}
                    <span className="hint">
                      {' '}
                      by <span className="mono">{r.participant || r.session}</span>
                    </span>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="hint">No reviews yet.</p>
            )}
          </li>
        ))}
      </ol>
      <Pager page={win.page} pages={win.pages} onPage={setPage} label="Story pages" />
    </div>
  );
}
