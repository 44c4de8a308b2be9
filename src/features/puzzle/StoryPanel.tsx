import { memo, useMemo } from 'react';
import { PREDICATES, PREDICATE_WORDS, type RelationWord } from '../../core/kinship/relations';
import type { Puzzle } from '../../core/puzzle/puzzle';
import type { RenderedStory } from '../../core/text/render';
import { EntityName } from '../../graph';
import { proofInWords, queryPeople, selectGuess, selectHover, selectRevealed, useStore } from '../../state';
import { StoryText } from './StoryText';

const actions = () => useStore.getState();

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

/** "How is B related to A?" with the names styled. */
export function Question({ puzzle, className }: { puzzle: Puzzle; className?: string }) {
  const { a, b } = queryPeople(puzzle);
  return (
    <p className={className ?? 'query'} data-testid="query">
      How is <EntityName name={b?.name ?? '?'} gender={b?.gender} query="B" /> related to{' '}
      <EntityName name={a?.name ?? '?'} gender={a?.gender} query="A" />?
    </p>
  );
}

/** All twenty relation words, paired by predicate (male word, female word). */
/** Memoised on the target word: a new puzzle with the same answer does not redraw the buttons. */
const AnswerPicker = memo(function AnswerPicker({ target }: { target: RelationWord }) {
  const guess = useStore(selectGuess);
  const revealed = useStore(selectRevealed);
  return (
    <fieldset className="answers">
      <legend>Your answer</legend>
      <div className="answers__grid">
        {PREDICATES.map((p) =>
          (PREDICATE_WORDS[p] as readonly RelationWord[]).map((w) => {
            const right = revealed && w === target;
            const wrong = revealed && guess === w && w !== target;
            return (
              <button
                key={w}
                type="button"
                className={`answer${guess === w ? ' answer--picked' : ''}${right ? ' answer--right' : ''}${wrong ? ' answer--wrong' : ''}`}
                data-testid="answer-option"
                data-relation={w}
                aria-pressed={guess === w}
                onClick={() => actions().pickGuess(w)}
              >
                {right && <span aria-hidden="true">✓ </span>}
                {wrong && <span aria-hidden="true">✗ </span>}
                {w}
              </button>
            );
          }),
        )}
      </div>
    </fieldset>
  );
});

/** The answer (announced politely) and the proof in words, once revealed. */
function Answer({ puzzle }: { puzzle: Puzzle }) {
  const revealed = useStore(selectRevealed);
  const guess = useStore(selectGuess);
  const { a, b } = queryPeople(puzzle);
  const words = useMemo(() => proofInWords(puzzle), [puzzle]);
  return (
    <div className="answer-panel" aria-live="polite" data-testid="answer-panel">
      {revealed && (
        <>
          {guess && (
            <p className={guess === puzzle.target.word ? 'verdict verdict--right' : 'verdict verdict--wrong'}>
              {guess === puzzle.target.word ? '✓ Right.' : `✗ Not quite: you said ${guess}.`}
            </p>
          )}
          <p className="answer-line" data-testid="answer" data-relation={puzzle.target.word}>
            <EntityName name={b?.name ?? '?'} gender={b?.gender} query="B" /> is{' '}
            <EntityName name={a?.name ?? '?'} gender={a?.gender} query="A" />
            's <strong>{puzzle.target.word}</strong>.
          </p>
          <h3 className="subhead">Why</h3>
          <ol className="proof-words" data-testid="proof-words">
            {words.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ol>
        </>
      )}
    </div>
  );
}

export function StoryPanel({ puzzle, story }: { puzzle: Puzzle; story: RenderedStory }) {
  const revealed = useStore(selectRevealed);
  return (
    <section className="panel panel--story" aria-labelledby="story-heading">
      <h2 id="story-heading" className="panel__title">
        Story{' '}
        <span className="panel__meta">
          task {puzzle.task}.{puzzle.k} · {puzzle.facts.length} facts · seed {puzzle.seed}
        </span>
      </h2>
      <Story puzzle={puzzle} story={story} />
      <Question puzzle={puzzle} />
      <AnswerPicker target={puzzle.target.word} />
      <button
        type="button"
        className="button button--primary"
        data-testid="reveal-answer"
        aria-expanded={revealed}
        onClick={() => actions().reveal()}
      >
        {revealed ? 'Answer shown below' : 'Reveal answer'}
      </button>
      <Answer puzzle={puzzle} />
    </section>
  );
}
