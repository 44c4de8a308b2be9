/** The run's progress over main and check trials (practice is not counted). */
export function Progress({ done, total }: { done: number; total: number }) {
  return (
    <div
      className="study-progress"
      data-testid="progress"
      role="progressbar"
      aria-label="Puzzles done"
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
      aria-valuetext={`${done} of ${total} puzzles done`}
    >
      <div className="study-progress__bar" style={{ width: total > 0 ? `${(100 * done) / total}%` : '0%' }} />
      <span className="study-progress__text">
        {done} of {total} done
      </span>
    </div>
  );
}
