import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Puzzle } from '../../core/puzzle/puzzle';
import type { TrialScreen } from '../../study/run';
import { SUBMIT_MARK, type StudyRun } from '../../study/run';
import { AnswerGrid } from '../../ui/puzzle/AnswerGrid';
import { FactsDrawing } from './FactsDrawing';
import { Progress } from './Progress';

const DIFFICULTY_WORDS = ['very easy', 'easy', 'medium', 'hard', 'very hard'] as const;

/** Whole seconds left until `deadline` (never below 0). */
const secondsLeft = (deadline: number, now: number) => Math.max(0, Math.ceil((deadline - now) / 1000));

/** `m:ss` for the overall limit (often many minutes). */
const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

/**
 * Arrow keys among the relation words, by the columns the grid shows: the app's stylesheet lays
 * the twenty words out in two columns on phones and four on wider screens, so a fixed step of
 * four (AnswerGrid's own arrow keys) would jump two rows on a phone.
 */
function onGridArrows(e: KeyboardEvent<HTMLDivElement>): void {
  const grid = e.currentTarget.querySelector<HTMLElement>('.answers__grid');
  if (!grid) return;
  const columns = getComputedStyle(grid).gridTemplateColumns.split(' ').filter(Boolean).length || 1;
  const move = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: columns, ArrowUp: -columns }[e.key];
  if (move === undefined) return;
  const buttons = [...grid.querySelectorAll<HTMLButtonElement>('button')];
  const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
  if (i < 0) return;
  e.preventDefault();
  buttons[(i + move + buttons.length) % buttons.length]?.focus();
}

/** Ticks the run's deadlines and redraws the countdown while a timed trial is on screen. */
function useClock(run: StudyRun, timed: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!timed) return;
    const id = setInterval(() => {
      setNow(Date.now());
      void run.tick();
    }, 200);
    return () => clearInterval(id);
  }, [run, timed]);
  return now;
}

/** Keys typed in these never choose a rating or submit (the scratchpad, buttons that act on Enter themselves). */
const OWN_KEYS = new Set(['TEXTAREA', 'INPUT', 'BUTTON', 'A', 'SELECT']);

/**
 * One trial: story (with the drawing and the scratchpad when the condition has them), the
 * question, the relation words, the difficulty rating and the submit button. Keyboard: Tab
 * reaches everything; arrow keys move among the words; 1–5 rate; Enter submits.
 */
export function TrialView({
  run,
  state,
  puzzle,
  onError,
}: {
  run: StudyRun;
  state: TrialScreen;
  puzzle: Puzzle | undefined;
  onError: (e: unknown) => void;
}) {
  const condition = run.condition!;
  const timed = state.deadline !== null || state.overallDeadline !== null;
  const now = useClock(run, timed);
  const storyRef = useRef<HTMLDivElement>(null);
  const index = state.trial.trialIndex;
  const [done, total] = run.progress();

  useEffect(() => {
    // The time from the submit click to this story on screen (only for one trial straight after another).
    if (performance.getEntriesByName(SUBMIT_MARK, 'mark').length > 0) {
      performance.measure('study:answer-to-next', SUBMIT_MARK);
      performance.clearMarks(SUBMIT_MARK);
    }
    storyRef.current?.focus({ preventScroll: false });
  }, [index]);

  const submit = () => void run.submit().catch(onError);
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    const target = e.target as HTMLElement;
    if (OWN_KEYS.has(target.tagName) && !(target.tagName === 'BUTTON' && /^[1-5]$/.test(e.key))) return;
    if (/^[1-5]$/.test(e.key)) {
      run.rate(Number(e.key));
      e.preventDefault();
    } else if (e.key === 'Enter') {
      submit();
      e.preventDefault();
    }
  };
  const phase = state.trial.item.phase;
  const ready = state.picked !== null && state.difficulty !== null;

  return (
    <section className="study-trial" aria-labelledby="trial-heading" onKeyDown={onKeyDown}>
      <div className="study-trial__top">
        <h1 id="trial-heading" className="study-trial__title">
          {phase === 'practice' ? 'Practice puzzle' : 'Puzzle'}
        </h1>
        {state.deadline !== null && (
          <p className="study-countdown" role="timer" aria-live="off">
            <span data-testid="countdown">{secondsLeft(state.deadline, now)}</span> s left
          </p>
        )}
        {state.overallDeadline !== null && (
          <p className="study-countdown study-countdown--overall" role="timer" aria-live="off">
            All puzzles: <span data-testid="overall-countdown">{clock(secondsLeft(state.overallDeadline, now))}</span>{' '}
            left
          </p>
        )}
      </div>
      <Progress done={done} total={total} />
      <div className={`study-trial__body${condition.scratchpad ? ' study-trial__body--pad' : ''}`}>
        <div className="study-trial__story" ref={storyRef} tabIndex={-1} aria-label="Story">
          <p data-testid="trial-story" className="study-story">
            {state.content.story}
          </p>
          {condition.display === 'text+drawing' && puzzle && <FactsDrawing puzzle={puzzle} />}
        </div>
        {condition.scratchpad && (
          <label className="study-scratchpad">
            <span>Notes (for you only; not saved)</span>
            <textarea key={index} data-testid="scratchpad" rows={6} spellCheck={false} />
          </label>
        )}
      </div>
      <p data-testid="trial-question" className="study-question">
        {state.content.question}
      </p>
      <fieldset className="answers">
        <legend>Answer</legend>
        <div onKeyDown={onGridArrows}>
          <AnswerGrid picked={state.picked} onPick={(w) => run.pick(w)} className="answers__grid study-answers" />
        </div>
      </fieldset>
      <fieldset className="answers study-difficulty">
        <legend>How difficult was this puzzle? (keys 1–5)</legend>
        <div className="study-difficulty__row">
          {DIFFICULTY_WORDS.map((word, i) => (
            <button
              key={word}
              type="button"
              className="answer"
              data-testid="difficulty-option"
              data-value={i + 1}
              aria-pressed={state.difficulty === i + 1}
              aria-label={`${i + 1}: ${word}`}
              onClick={() => run.rate(i + 1)}
            >
              <span className="study-difficulty__n">{i + 1}</span>
              <span className="study-difficulty__word">{word}</span>
            </button>
          ))}
        </div>
      </fieldset>
      <div className="study-actions">
        <button
          type="button"
          className="button button--primary"
          data-testid="submit-answer"
          disabled={!ready}
          onClick={submit}
        >
          Submit answer
        </button>
        {!ready && (
          <span className="study-hint">
            {state.picked === null ? 'Choose an answer' : 'Rate the difficulty'} to go on.
          </span>
        )}
      </div>
    </section>
  );
}
