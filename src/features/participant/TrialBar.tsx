import { useEffect, useState, type ReactNode, type RefObject } from 'react';
import { SUBMIT_MARK, type StudyRun } from '../../study/run/run';
import { Progress, type ProgressUnit } from './Progress';

/** The warning shows for the last this many seconds of a per-puzzle or overall limit. */
export const WARNING_S = 10;

/** Whole seconds left until `deadline` (never below 0). */
const secondsLeft = (deadline: number, now: number) => Math.max(0, Math.ceil((deadline - now) / 1000));

/** `m:ss` for the overall limit (often many minutes). */
const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

/**
 * A trial's start, for every kind of trial: the time from the previous submit to this trial on
 * screen (`study:answer-to-next`, only straight after another trial), then the page at the top
 * with `focus` focused (a story, a heading), without scrolling it away.
 */
export function useTrialStart(trialIndex: number, focus: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    if (performance.getEntriesByName(SUBMIT_MARK, 'mark').length > 0) {
      performance.measure('study:answer-to-next', SUBMIT_MARK);
      performance.clearMarks(SUBMIT_MARK);
    }
    window.scrollTo(0, 0);
    focus.current?.focus({ preventScroll: true });
  }, [trialIndex, focus]);
}

/**
 * The run's clock (corrected by the results server's) for the countdowns, redrawn every 200 ms
 * while a timed trial shows; on every trial the run is ticked (its deadlines, and the time on
 * screen it writes every few seconds), once a second when nothing counts down.
 */
export function useTrialClock(run: StudyRun, timed: boolean): number {
  const [now, setNow] = useState(() => run.now());
  useEffect(() => {
    const id = setInterval(
      () => {
        if (timed) setNow(run.now());
        void run.tick();
      },
      timed ? 200 : 1000,
    );
    return () => clearInterval(id);
  }, [run, timed]);
  return now;
}

/** What the participant app hands every kind of trial screen. */
export interface TrialProps<S> {
  run: StudyRun;
  state: S;
  onError: (e: unknown) => void;
  /** Said above the trial: a refusal of an answer, the last trial's time being up. */
  notices?: ReactNode;
}

/** A trial screen's state as the clock and the start of a trial read it. */
interface TimedTrial {
  readonly deadline: number | null;
  readonly overallDeadline: number | null;
  readonly trial: { readonly trialIndex: number };
}

/**
 * What every kind of trial does alike: the clock (fast while a limit counts down), the trial's
 * start with `focus` focused, the progress, and the submit (its failure to `onError`).
 */
export function useTrial(
  run: StudyRun,
  state: TimedTrial,
  focus: RefObject<HTMLElement | null>,
  onError: (e: unknown) => void,
) {
  const now = useTrialClock(run, state.deadline !== null || state.overallDeadline !== null);
  useTrialStart(state.trial.trialIndex, focus);
  const [done, total] = run.progress();
  const submit = () => void run.submit().catch(onError);
  return { now, done, total, submit };
}

/** The trial's Submit in its bar, usable once the trial is ready. */
export function SubmitButton({ testId, ready, onSubmit }: { testId: string; ready: boolean; onSubmit: () => void }) {
  return (
    <button type="button" className="button button--primary" data-testid={testId} disabled={!ready} onClick={onSubmit}>
      Submit
    </button>
  );
}

/** The warning line for the limits that end within WARNING_S seconds, or null. */
function warningText(perItem: number | null, overall: number | null, item: string, all: string): string | null {
  const one = perItem !== null && perItem <= WARNING_S;
  const every = overall !== null && overall <= WARNING_S;
  if (!one && !every) return null;
  const what = one && every ? `${item} and ${all}` : one ? item : all;
  return `Time is nearly up: ${WARNING_S} seconds or less for ${what}.`;
}

/** What a limit is called in the warning, per kind of trial. */
const LIMIT_WORDS: Record<ProgressUnit, [string, string]> = {
  puzzles: ['this puzzle', 'all puzzles'],
  stories: ['this story', 'all stories'],
  reviews: ['this review', 'all reviews'],
};

/**
 * The bar kept at the bottom of the viewport on every kind of trial: the countdowns (per item,
 * overall), the progress, the hint or the time warning (announced once: its text does not tick),
 * and the trial's Submit (its children).
 */
export function TrialBar({
  state,
  now,
  done,
  total,
  what,
  hint,
  children,
}: {
  state: { readonly deadline: number | null; readonly overallDeadline: number | null };
  now: number;
  done: number;
  total: number;
  what: ProgressUnit;
  hint: string;
  children: ReactNode;
}) {
  const perItemLeft = state.deadline === null ? null : secondsLeft(state.deadline, now);
  const overallLeft = state.overallDeadline === null ? null : secondsLeft(state.overallDeadline, now);
  const [item, all] = LIMIT_WORDS[what];
  const warning = warningText(perItemLeft, overallLeft, item, all);
  return (
    <div className={`study-bar${warning ? ' study-bar--warning' : ''}`} data-testid="trial-bar">
      {(perItemLeft !== null || overallLeft !== null) && (
        <div className="study-bar__timers">
          {perItemLeft !== null && (
            <p className="study-countdown" role="timer" aria-live="off">
              <span data-testid="countdown">{perItemLeft}</span> s left
            </p>
          )}
          {overallLeft !== null && (
            <p className="study-countdown study-countdown--overall" role="timer" aria-live="off">
              All: <span data-testid="overall-countdown">{clock(overallLeft)}</span>
            </p>
          )}
        </div>
      )}
      <div className="study-bar__middle">
        <Progress done={done} total={total} what={what} />
        {/* Polite: announced once when the warning starts (its text does not tick). */}
        <p className="study-bar__status" role="status" aria-live="polite">
          {warning ? (
            <span className="study-warning" data-testid="time-warning">
              {warning}
            </span>
          ) : (
            <span className="study-hint" data-testid="submit-hint">
              {hint}
            </span>
          )}
        </p>
      </div>
      {children}
    </div>
  );
}
