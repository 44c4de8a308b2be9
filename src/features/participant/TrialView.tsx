import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Puzzle } from '../../core/puzzle/puzzle';
import type { TrialScreen } from '../../study/run/run';
import { AnswerGrid } from '../../ui/puzzle/AnswerGrid';
import { FactsDrawing } from './FactsDrawing';
import { SubmitButton, TrialBar, useTrial, type TrialProps } from './TrialBar';

const DIFFICULTY_WORDS = ['very easy', 'easy', 'medium', 'hard', 'very hard'] as const;

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

/** Wide enough for two columns: the drawing's trials put it beside everything else. */
const WIDE_QUERY = '(min-width: 900px)';

function useWide(): boolean {
  const [wide, setWide] = useState(() => window.matchMedia(WIDE_QUERY).matches);
  useEffect(() => {
    const media = window.matchMedia(WIDE_QUERY);
    const onChange = () => setWide(media.matches);
    media.addEventListener('change', onChange);
    return () => media.removeEventListener('change', onChange);
  }, []);
  return wide;
}

/** Where typing is text: digits and Enter belong to the field (Ctrl/⌘+Enter still submits). */
const isTextField = (el: HTMLElement) => el.tagName === 'TEXTAREA' || el.tagName === 'INPUT' || el.isContentEditable;

/**
 * One trial on one screen: story (beside the drawing on wide screens; with the scratchpad when
 * the condition has one), the question, the relation words and the difficulty rating, and a bar
 * kept at the bottom of the viewport with the timers, the progress and Submit. Keyboard: Tab
 * reaches everything; arrow keys move among the words; 1–5 rate; once an answer and a rating are
 * chosen, Enter submits from anywhere (Ctrl/⌘+Enter from the scratchpad).
 */
export function TrialView({
  run,
  state,
  puzzle,
  onError,
  notices,
}: TrialProps<TrialScreen> & { puzzle: Puzzle | undefined }) {
  const condition = run.condition!;
  const storyRef = useRef<HTMLDivElement>(null);
  const wide = useWide();
  const index = state.trial.trialIndex;
  // Each trial starts at the top of the page, with the story focused.
  const { now, done, total, submit } = useTrial(run, state, storyRef, onError);

  const ready = state.picked !== null && state.difficulty !== null;
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    const target = e.target as HTMLElement;
    if (e.key === 'Enter') {
      // Enter submits once the answer is complete, wherever the focus is (a word button would
      // otherwise pick itself again); in the scratchpad Enter is a new line, Ctrl/⌘+Enter submits.
      if (isTextField(target) && !(e.ctrlKey || e.metaKey)) return;
      if (!ready) return;
      e.preventDefault();
      submit();
      return;
    }
    if (/^[1-5]$/.test(e.key) && !isTextField(target) && !e.ctrlKey && !e.metaKey && !e.altKey) {
      run.rate(Number(e.key));
      e.preventDefault();
    }
  };
  const phase = state.trial.item.phase;
  const drawing = condition.display === 'text+drawing' && puzzle !== undefined;
  const split = drawing && wide;

  const storyText = (
    <p data-testid="trial-story" className="study-story">
      {state.content.story}
    </p>
  );
  const scratchpad = condition.scratchpad && (
    <label className="study-scratchpad">
      <span>Notes (for you only; not saved)</span>
      <textarea key={index} data-testid="scratchpad" rows={4} spellCheck={false} />
    </label>
  );
  const drawingFigure = drawing && (
    <FactsDrawing puzzle={puzzle} queryA={state.content.queryA} queryB={state.content.queryB} />
  );
  const answering = (
    <>
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
    </>
  );

  return (
    <section
      className={`study-trial${drawing ? ' study-trial--drawing' : ''}`}
      aria-labelledby="trial-heading"
      onKeyDown={onKeyDown}
    >
      <h1 id="trial-heading" className="study-trial__title">
        {phase === 'practice' ? 'Practice puzzle' : 'Puzzle'}
      </h1>
      {notices}
      {split ? (
        // Wide screens with the drawing: the story, the question, the words and the rating in one
        // column, the drawing (and the notes) in the other, so that everything one answers with
        // fits one screen (1280×800) above the bar.
        <div className="study-trial__split">
          <div className="study-trial__main">
            <div className="study-trial__story" ref={storyRef} tabIndex={-1} aria-label="Story">
              {storyText}
            </div>
            {answering}
          </div>
          <div className="study-trial__side">
            {drawingFigure}
            {scratchpad}
          </div>
        </div>
      ) : (
        <>
          <div className={`study-trial__body${condition.scratchpad ? ' study-trial__body--pad' : ''}`}>
            <div className="study-trial__story" ref={storyRef} tabIndex={-1} aria-label="Story">
              {storyText}
              {scratchpad}
            </div>
            {drawingFigure}
          </div>
          {answering}
        </>
      )}
      <TrialBar
        state={state}
        now={now}
        done={done}
        total={total}
        what="puzzles"
        hint={
          ready
            ? 'Press Enter or Submit.'
            : state.picked === null
              ? 'Choose an answer, then rate it (1–5).'
              : 'Rate the difficulty (keys 1–5).'
        }
      >
        <SubmitButton testId="submit-answer" ready={ready} onSubmit={submit} />
      </TrialBar>
    </section>
  );
}
