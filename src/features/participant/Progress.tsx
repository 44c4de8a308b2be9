/** What the progress counts: puzzles solved, stories written or stories reviewed. */
export type ProgressUnit = 'puzzles' | 'stories' | 'reviews';

/** The run's progress over main and check trials (practice is not counted). */
export function Progress({ done, total, what = 'puzzles' }: { done: number; total: number; what?: ProgressUnit }) {
  const label = what === 'puzzles' ? 'Puzzles done' : what === 'stories' ? 'Stories written' : 'Stories reviewed';
  return (
    <div
      className="study-progress"
      data-testid="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
      aria-valuetext={`${done} of ${total} ${what === 'reviews' ? 'stories reviewed' : `${what} done`}`}
    >
      <div className="study-progress__bar" style={{ width: total > 0 ? `${(100 * done) / total}%` : '0%' }} />
      <span className="study-progress__text">
        {done} of {total} done
      </span>
    </div>
  );
}
