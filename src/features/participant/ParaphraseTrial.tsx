import { useId, useRef, type KeyboardEvent } from 'react';
import { factSentences, impliedSentence } from '../../study/collect/clause';
import { wordCount } from '../../study/collect/checks';
import type { ParaphraseScreen } from '../../study/run/run';
import { CollectExamples } from './CollectExamples';
import { SubmitButton, TrialBar, useTrial, type TrialProps } from './TrialBar';

/**
 * One paraphrase trial: the clause's facts, one per line; the implied fact with the
 * instruction not to state it; the text box (its draft is kept by the run across a reload); the
 * live checks, which must all pass before Submit works; the examples, folded. Keyboard: Tab
 * reaches everything; in the text box Enter is a new line and Ctrl/⌘+Enter submits.
 */
export function ParaphraseTrial({ run, state, onError, notices }: TrialProps<ParaphraseScreen>) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const id = useId();
  // Each clause starts at the top with its heading focused; the keyboard of a phone opens only
  // when the participant goes to the text box, so the facts stay in view.
  const { now, done, total, submit } = useTrial(run, state, headingRef, onError);

  const ready = run.ready;
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && ready) {
      e.preventDefault();
      submit();
    }
  };
  const facts = factSentences(state.clause);
  const implied = impliedSentence(state.clause);
  const words = wordCount(state.text);
  const { minWords, maxWords } = run.deps.def;
  const empty = state.text.trim() === '';

  return (
    <section className="study-trial collect-trial" aria-labelledby={`${id}-heading`} onKeyDown={onKeyDown}>
      <h1 id={`${id}-heading`} className="study-trial__title" tabIndex={-1} ref={headingRef}>
        Write a story
      </h1>
      {notices}
      <div className="collect-facts">
        <h2 id={`${id}-facts`}>Tell every fact</h2>
        <ul data-testid="paraphrase-facts" aria-labelledby={`${id}-facts`}>
          {facts.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
        <div
          className={`collect-implied${implied === null ? ' collect-implied--none' : ''}`}
          data-testid="paraphrase-implied"
        >
          {implied === null ? (
            <p>One fact only: nothing follows from it that you must keep back.</p>
          ) : (
            <>
              <h2>Do not state</h2>
              <p className="collect-implied__fact">{implied}</p>
              <p>It follows from the facts: leave it for the reader to work out.</p>
            </>
          )}
        </div>
      </div>
      <div className="collect-write">
        <label htmlFor={`${id}-text`}>Your story</label>
        <textarea
          id={`${id}-text`}
          data-testid="paraphrase-text"
          rows={5}
          value={state.text}
          spellCheck
          autoComplete="off"
          aria-describedby={`${id}-count ${id}-problems`}
          onChange={(e) => run.write(e.target.value)}
          onBlur={() => void run.flushDraft()}
        />
        <p id={`${id}-count`} className="collect-count">
          {words} word{words === 1 ? '' : 's'} ({minWords} to {maxWords}). Your text is kept if the page reloads.
        </p>
      </div>
      <div
        id={`${id}-problems`}
        className={`collect-problems${state.problems.length === 0 ? ' collect-problems--ok' : ''}`}
        data-testid="paraphrase-problems"
        data-count={state.problems.length}
      >
        {state.problems.length === 0 ? (
          <p role="status">All checks pass: you can submit your story.</p>
        ) : (
          <>
            <p role="status">
              {empty
                ? 'What the story needs:'
                : `${state.problems.length} thing${state.problems.length === 1 ? '' : 's'} to change before you can submit:`}
            </p>
            <ul>
              {state.problems.map((p) => (
                <li key={`${p.code}:${p.message}`} data-code={p.code}>
                  {p.message}
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
      <details className="collect-examples-fold">
        <summary>Examples of a good and a bad story</summary>
        <CollectExamples testId="paraphrase-examples" />
      </details>
      <TrialBar
        state={state}
        now={now}
        done={done}
        total={total}
        what="stories"
        hint={ready ? 'Press Submit (or Ctrl+Enter).' : 'Submit works once every check passes.'}
      >
        <SubmitButton testId="submit-paraphrase" ready={ready} onSubmit={submit} />
      </TrialBar>
    </section>
  );
}
