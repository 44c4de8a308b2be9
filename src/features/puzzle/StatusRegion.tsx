import { useEffect, useState } from 'react';
import { selectError, selectOrigin, selectStatus, selectUrlWarnings } from '../../state/selectors';
import { useStore } from '../../state/useStore';

/** How long a generation may run before the Cancel button appears. */
const SLOW_MS = 400;

/**
 * Errors and notices beside the controls: the worker's refusals (impossible settings) in an
 * alert, slow generations with a Cancel button, URL problems, and where the puzzle came from.
 */
export function StatusRegion() {
  const error = useStore(selectError);
  const status = useStore(selectStatus);
  const warnings = useStore(selectUrlWarnings);
  const origin = useStore(selectOrigin);
  const [slow, setSlow] = useState(false);

  useEffect(() => {
    if (status !== 'loading') return;
    const t = setTimeout(() => setSlow(true), SLOW_MS);
    return () => {
      clearTimeout(t);
      setSlow(false);
    };
  }, [status]);

  return (
    <div className="status">
      <div role="alert" data-testid="error" className={error ? 'alert alert--error' : 'alert--empty'}>
        {error && (
          <>
            <strong>Could not make this puzzle:</strong> {error}
          </>
        )}
      </div>
      <div role="status" className="status__polite">
        {slow && (
          <p className="notice">
            Generating…{' '}
            <button
              type="button"
              className="button"
              data-testid="cancel"
              onClick={() => useStore.getState().cancelRequest()}
            >
              Cancel
            </button>
          </p>
        )}
        {warnings.map((w) => (
          <p key={w} className="notice">
            {w}
          </p>
        ))}
        {origin === 'external' && (
          <p className="notice" data-testid="external-notice">
            This puzzle was opened from another view; the link does not reproduce it.{' '}
            <button type="button" className="button" onClick={() => void useStore.getState().requestPuzzle()}>
              Back to the generated puzzle
            </button>
          </p>
        )}
      </div>
    </div>
  );
}
