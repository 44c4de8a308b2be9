import { useId } from 'react';
import { fixed, range } from './format';
import { useResults } from './store';

/** One line per puzzle: how many answered it, accuracy with its Wilson interval, the usual wrong answer. */
export function ItemsTable() {
  const id = useId();
  // Computed in the results worker with the figures (flagged participants left out with them).
  const list = useResults((s) => s.figures.items);
  const excludeFlagged = useResults((s) => s.figures.view.excludeFlagged);
  if (list.length === 0) return null;
  return (
    <section className="rs-items" aria-labelledby={`${id}-h`} data-testid="results-items">
      <h2 id={`${id}-h`}>Items</h2>
      <p className="rs-hint">
        Main items by k, hardest first; attention checks at the end. Practice items are left out
        {excludeFlagged ? ', and so are flagged participants' : ''}. Accuracy with its 95% Wilson interval; time and
        difficulty are plain means of the item&apos;s answers, without an interval.
      </p>
      <div className="rs-table-wrap rs-scroll" tabIndex={0} role="region" aria-labelledby={`${id}-cap`}>
        <table className="rs-table">
          <caption id={`${id}-cap`}>Items ({list.length})</caption>
          <thead>
            <tr>
              <th scope="col">Puzzle</th>
              <th scope="col">k</th>
              <th scope="col">Task</th>
              <th scope="col">Answer</th>
              <th scope="col">Answers</th>
              <th scope="col">Accuracy [95% Wilson]</th>
              <th scope="col">Mean time (s, arithmetic)</th>
              <th scope="col">Mean difficulty</th>
              <th scope="col">Most common wrong answer</th>
            </tr>
          </thead>
          <tbody>
            {list.map((it) => (
              <tr key={it.puzzle_id} data-testid="results-item" data-puzzle={it.puzzle_id}>
                <th scope="row" className="rs-mono">
                  {it.puzzle_id}
                </th>
                <td>{it.k}</td>
                <td>{it.task}</td>
                <td>{it.gold}</td>
                <td>{it.n}</td>
                <td data-testid="results-item-accuracy">
                  {fixed(it.accuracy.estimate, 3)}{' '}
                  <span className="rs-ci">{range(it.accuracy.lo, it.accuracy.hi, 3)}</span>
                </td>
                <td>{fixed(it.meanRt, 1)}</td>
                <td>{fixed(it.meanDifficulty, 2)}</td>
                <td>{it.commonError ? `${it.commonError.word} (${it.commonError.count})` : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
