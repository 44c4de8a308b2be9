import { memo, useMemo } from 'react';
import type { RelationWord } from '../../core/kinship/relations';
import type { Puzzle } from '../../core/puzzle/puzzle';
import type { RenderedStory } from '../../core/text/render';
import { selectGuess, selectHover, selectMissed, selectRevealed, selectSecondTry } from '../../state/selectors';
import { useStore } from '../../state/useStore';
import { AnswerGrid } from '../../ui/puzzle/AnswerGrid';
import { proofInWords } from '../../ui/puzzle/proof';
import { Question } from '../../ui/puzzle/Question';
import { Relation } from '../../ui/puzzle/Relation';
import { StoryText } from '../../ui/puzzle/StoryText';
import { queryPeople } from '../../ui/puzzle/text';
import { LabelVerdictNote } from './LabelVerdictNote';
import { type LabelVerdict, labelVerdict } from './verdict';

const actions = () => useStore.getState();
const pickGuess = (w: RelationWord) => actions().pickGuess(w);

/** The story's sentences; hovering or focusing one lights its facts in the graph. */
function Story({ puzzle, story }: { puzzle: Puzzle; story: RenderedStory }) {
  const hover = useStore(selectHover);
  const lit = useMemo(() => new Set(hover?.factIds ?? []), [hover]);
  // Text runs and names, once per story (not on every hover).
  const texts = useMemo(
    () => story.sentences.map((s) => <StoryText text={s.text} entities={puzzle.entities} query={puzzle.query} />),
    [puzzle, story],
  );
  return (
    <p className="story" data-testid="story">
      {story.sentences.map((s, i) => {
        const on = s.factIds.some((f) => lit.has(f));
        const enter = () => actions().highlight({ factIds: s.factIds, source: 'sentence' });
        const leave = () => actions().highlight(null);
        return (
          <span key={i}>
            <span
              className={`sentence${on ? ' sentence--lit' : ''}`}
              data-testid="story-sentence"
              data-facts={s.factIds.join(',')}
              data-highlighted={on ? 'true' : 'false'}
              tabIndex={0}
              onPointerEnter={enter}
              onPointerLeave={leave}
              onFocus={enter}
              onBlur={leave}
            >
              {texts[i]}
            </span>{' '}
          </span>
        );
      })}
    </p>
  );
}

/**
 * All twenty relation words; memoised on the target word, so a new puzzle with the same answer
 * does not redraw the buttons. An untrusted label (an imported row the facts do not decide) is
 * never marked as the answer.
 */
const AnswerPicker = memo(function AnswerPicker({ target, trusted }: { target: RelationWord; trusted: boolean }) {
  const guess = useStore(selectGuess);
  const missed = useStore(selectMissed);
  const revealed = useStore(selectRevealed);
  return (
    <fieldset className="answers">
      <legend>Your answer</legend>
      <AnswerGrid
        className="answers__grid"
        picked={guess ?? missed}
        answer={revealed && trusted ? target : null}
        onPick={pickGuess}
      />
    </fieldset>
  );
});

/** The answer (announced politely) and the proof in words, once revealed. */
function Answer({ puzzle, verdict }: { puzzle: Puzzle; verdict: LabelVerdict }) {
  const revealed = useStore(selectRevealed);
  const guess = useStore(selectGuess);
  const missed = useStore(selectMissed);
  const { a, b } = queryPeople(puzzle);
  const words = useMemo(() => proofInWords(puzzle), [puzzle]);
  return (
    <div className="answer-panel" aria-live="polite" data-testid="answer-panel">
      {!revealed && missed && (
        <p className="verdict verdict--wrong" data-testid="try-again">
          ✗ Not {missed}. One more try.
        </p>
      )}
      {revealed && (
        <>
          {guess && verdict.trusted && (
            <p className={guess === puzzle.target.word ? 'verdict verdict--right' : 'verdict verdict--wrong'}>
              {guess === puzzle.target.word ? '✓ Right.' : `✗ Not quite: you said ${guess}.`}
            </p>
          )}
          {guess && !verdict.trusted && (
            <p className="verdict">
              You said {guess}; the file’s label is {puzzle.target.word}.
            </p>
          )}
          <p className="answer-line" data-testid="answer" data-relation={puzzle.target.word}>
            {verdict.kind !== 'generated' && <span className="answer-line__source">The file’s label: </span>}
            <Relation from={a} to={b} word={puzzle.target.word} query />.
          </p>
          <LabelVerdictNote verdict={verdict} />
          {verdict.proofShown && words.length > 0 && (
            <>
              <h3 className="subhead">{verdict.trusted ? 'Why' : 'The file’s reasoning'}</h3>
              <ol className="proof-words" data-testid="proof-words">
                {words.map((w, i) => (
                  <li key={i}>{w}</li>
                ))}
              </ol>
            </>
          )}
        </>
      )}
    </div>
  );
}

/** The setting: reveal on the first pick, or give a wrong pick one more try. */
function SecondTryToggle() {
  const on = useStore(selectSecondTry);
  return (
    <label className="second-try">
      <input
        type="checkbox"
        checked={on}
        data-testid="second-try"
        onChange={(e) => actions().setSecondTry(e.target.checked)}
      />{' '}
      Let me try again after a wrong pick
    </label>
  );
}

export function StoryPanel({ puzzle, story }: { puzzle: Puzzle; story: RenderedStory }) {
  const revealed = useStore(selectRevealed);
  const verdict = useMemo(() => labelVerdict(puzzle), [puzzle]);
  return (
    <section className="panel panel--story" aria-labelledby="story-heading">
      <h2 id="story-heading" className="panel__title">
        Story{' '}
        <span className="panel__meta">
          task {puzzle.task}.{puzzle.k} · {puzzle.facts.length} facts · seed {puzzle.seed}
        </span>
      </h2>
      <Story puzzle={puzzle} story={story} />
      <Question puzzle={puzzle} className="query" />
      <AnswerPicker target={puzzle.target.word} trusted={verdict.trusted} />
      <SecondTryToggle />
      <button
        type="button"
        className={revealed ? 'button' : 'button button--primary'}
        data-testid="reveal-answer"
        aria-expanded={revealed}
        onClick={() => actions().reveal()}
      >
        {revealed ? 'Answer shown below' : 'Reveal answer'}
      </button>
      <Answer puzzle={puzzle} verdict={verdict} />
    </section>
  );
}
