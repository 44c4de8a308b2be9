import { useId, useMemo, useState } from 'react';
import { formatCount } from '../../core/util/format';
import type { CellCoverage } from '../../study/collect/collect';
import { Pager, pageWindow } from '../../ui/Pager';
import { ChoiceSelect } from './ChoiceSelect';

const PAGE = 50;

/** Which cells the table lists. */
const SHOW = {
  needed: 'Still without an accepted story',
  collected: 'With stories',
  all: 'All cells',
} as const;
type Show = keyof typeof SHOW;

/**
 * Stories per clause cell (relation combination × genders) against the bank's cells: per k, how
 * many cells have an accepted story; then the cells themselves, filtered to what still needs
 * paraphrases, what has stories, or all.
 */
export function CollectCoverage({ cells }: { cells: readonly CellCoverage[] }) {
  const id = useId();
  const [show, setShow] = useState<Show>('needed');
  const [page, setPage] = useState(0);
  const byK = useMemo(() => {
    const out = new Map<
      number,
      { cells: number; withStories: number; withAccepted: number; stories: number; accepted: number }
    >();
    for (const c of cells) {
      const k = out.get(c.k) ?? { cells: 0, withStories: 0, withAccepted: 0, stories: 0, accepted: 0 };
      k.cells++;
      if (c.stories > 0) k.withStories++;
      if (c.accepted > 0) k.withAccepted++;
      k.stories += c.stories;
      k.accepted += c.accepted;
      out.set(c.k, k);
    }
    return [...out.entries()].sort((a, b) => a[0] - b[0]);
  }, [cells]);
  const shown = useMemo(
    () => cells.filter((c) => (show === 'needed' ? c.accepted === 0 : show === 'collected' ? c.stories > 0 : true)),
    [cells, show],
  );
  const win = pageWindow(shown.length, page, PAGE);
  return (
    <div className="results__collect-coverage" data-testid="collect-coverage" data-cells={cells.length}>
      <h3 id={`${id}-h`}>Coverage of the clause cells</h3>
      <p className="hint">
        A cell is a relation combination with the genders of its people, as the template files key them. The bank column
        is how many templates the app&apos;s own bank has for the cell.
      </p>
      <ul className="results__collect-k">
        {byK.map(([k, s]) => (
          <li
            key={k}
            data-testid="collect-coverage-k"
            data-k={k}
            data-cells={s.cells}
            data-with-stories={s.withStories}
            data-with-accepted={s.withAccepted}
          >
            <span className="results__collect-k-label">k = {k}</span>
            <span
              className="results__collect-bar"
              role="img"
              aria-label={`${s.withAccepted} of ${s.cells} cells of k = ${k} have an accepted story`}
            >
              <span style={{ width: `${(s.withAccepted / Math.max(1, s.cells)) * 100}%` }} />
            </span>
            <span>
              {formatCount(s.withAccepted)} of {formatCount(s.cells)} cells accepted ({formatCount(s.withStories)} with
              stories; {formatCount(s.stories)} stories, {formatCount(s.accepted)} accepted)
            </span>
          </li>
        ))}
      </ul>
      <ChoiceSelect
        label="Show"
        className="results__field results__collect-show"
        value={show}
        choices={Object.entries(SHOW) as [Show, string][]}
        onChoose={(s) => {
          setShow(s);
          setPage(0);
        }}
        testId="collect-coverage-show"
      />
      <div className="results__table-wrap results__scroll" tabIndex={0} role="region" aria-labelledby={`${id}-cap`}>
        <table className="results__table">
          <caption id={`${id}-cap`}>
            {SHOW[show]} ({formatCount(shown.length)} of {formatCount(cells.length)} cells)
          </caption>
          <thead>
            <tr>
              <th scope="col">Relations</th>
              <th scope="col">Genders</th>
              <th scope="col">k</th>
              <th scope="col">Bank</th>
              <th scope="col">Stories</th>
              <th scope="col">Passed checks</th>
              <th scope="col">Accepted</th>
            </tr>
          </thead>
          <tbody>
            {shown.slice(win.start, win.start + PAGE).map((c) => (
              <tr
                key={c.id}
                data-testid="collect-cell"
                data-cell={c.id}
                data-stories={c.stories}
                data-accepted={c.accepted}
              >
                <th scope="row" className="mono">
                  {c.fComb}
                </th>
                <td className="mono">{c.genderComb}</td>
                <td>{c.k}</td>
                <td>{c.bankTemplates}</td>
                <td>{c.stories}</td>
                <td>{c.passed}</td>
                <td className="results__est">{c.accepted}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager page={win.page} pages={win.pages} onPage={setPage} label="Cell pages" />
    </div>
  );
}
