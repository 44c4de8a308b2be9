import { useId, useRef, type KeyboardEvent } from 'react';
import { factSentences, impliedSentence } from '../../study/collect/clause';
import { REVIEW_REASONS, type ReviewReason } from '../../study/definition/definition';
import type { ReviewScreen } from '../../study/run/run';
import { CollectExamples } from './CollectExamples';
import { SubmitButton, TrialBar, useTrial, type TrialProps } from './TrialBar';

/** What each reason for "bad" says on the screen (the paper's three, and another). */
const REASON_TEXT: Record<ReviewReason, string> = {
  ungrammatical: 'It is nonsense or ungrammatical',
  'missing-fact': 'It leaves out a fact, or tells one wrongly',
  'reveals-implied': 'It states the fact it should keep back',
  other: 'Another reason',
};

/** Keys that stand for a verdict (first letters of the buttons). */
const VERDICT_KEYS: Record<string, 'good' | 'bad'> = { g: 'good', b: 'bad' };

const isTextField = (el: HTMLElement) => el.tagName === 'TEXTAREA' || el.isContentEditable;

/**
 * One review trial: someone else's story, the facts it should tell and the one it
 * should keep back, good or bad, and for bad at least one reason. Keyboard: Tab reaches
 * everything; G and B choose the verdict, 1–4 tick the reasons of a bad one; once the verdict is
 * complete, Enter submits from anywhere on the trial.
 */
export function ReviewTrial({ run, state, onError, notices }: TrialProps<ReviewScreen>) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const id = useId();
  const { now, done, total, submit } = useTrial(run, state, headingRef, onError);
  const { clause, item } = state.task;

  const ready = run.ready;
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    const target = e.target as HTMLElement;
    if (e.ctrlKey || e.metaKey || e.altKey || isTextField(target)) return;
    if (e.key === 'Enter') {
      // A focused button or box would act on Enter itself; once the verdict is complete it submits.
      if (!ready) return;
      e.preventDefault();
      submit();
      return;
    }
    const verdict = VERDICT_KEYS[e.key.toLowerCase()];
    if (verdict) {
      e.preventDefault();
      run.judge(verdict);
      return;
    }
    const n = Number(e.key);
    if (state.verdict === 'bad' && Number.isInteger(n) && n >= 1 && n <= REVIEW_REASONS.length) {
      e.preventDefault();
      run.toggleReason(REVIEW_REASONS[n - 1]!);
    }
  };
  const implied = impliedSentence(clause);
  const hint = ready
    ? 'Press Enter or Submit.'
    : state.verdict === 'bad'
      ? 'Tick at least one reason (keys 1–4).'
      : 'Is the story good or bad? (keys G, B)';

  return (
    <section className="study-trial collect-trial" aria-labelledby={`${id}-heading`} onKeyDown={onKeyDown}>
      <h1 id={`${id}-heading`} className="study-trial__title" tabIndex={-1} ref={headingRef}>
        Review a story
      </h1>
      {notices}
      {/* Near the top, where a phone never hides it under the sticky submit bar. */}
      <details className="collect-examples-fold">
        <summary>Examples of a good and a bad story</summary>
        <CollectExamples />
      </details>
      <h2 id={`${id}-story`} className="collect-subtitle">
        The story
      </h2>
      <blockquote className="collect-story" data-testid="review-story" aria-labelledby={`${id}-story`}>
        {item.story}
      </blockquote>
      <div className="collect-facts">
        <h2 id={`${id}-facts`}>The facts it should tell</h2>
        <ul data-testid="review-facts" aria-labelledby={`${id}-facts`}>
          {factSentences(clause).map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
        {implied !== null && (
          <div className="collect-implied" data-testid="review-implied">
            <h2>The fact it should not state</h2>
            <p className="collect-implied__fact">{implied}</p>
          </div>
        )}
      </div>
      <fieldset className="collect-verdict">
        <legend>Is this a good story? (keys G, B)</legend>
        <p className="hint">Good: grammatical, tells every fact, and does not state the fact it should keep back.</p>
        <div className="collect-verdict__row">
          {(['good', 'bad'] as const).map((v) => (
            <button
              key={v}
              type="button"
              className="answer collect-verdict__button"
              data-testid="review-verdict"
              data-value={v}
              aria-pressed={state.verdict === v}
              onClick={() => run.judge(v)}
            >
              {v === 'good' ? 'Good' : 'Bad'}
            </button>
          ))}
        </div>
      </fieldset>
      {state.verdict === 'bad' && (
        <fieldset className="collect-reasons">
          <legend>Why is it bad? Tick every reason that applies (keys 1–4).</legend>
          {REVIEW_REASONS.map((r, i) => (
            <label key={r} className="collect-reason">
              <input
                type="checkbox"
                data-testid="review-reason"
                data-value={r}
                checked={state.reasons.includes(r)}
                onChange={() => run.toggleReason(r)}
              />
              <span>
                <span className="collect-reason__key">{i + 1}</span> {REASON_TEXT[r]}
              </span>
            </label>
          ))}
        </fieldset>
      )}
      <TrialBar state={state} now={now} done={done} total={total} what="reviews" hint={hint}>
        <SubmitButton testId="submit-review" ready={ready} onSubmit={submit} />
      </TrialBar>
    </section>
  );
}
