import { useEffect, useMemo, useRef, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import { PREDICATES, PREDICATE_WORDS, type RelationWord } from '../../core/kinship/relations';
import type { Puzzle } from '../../core/puzzle/puzzle';
import type { RenderedStory } from '../../core/text/render';
import { EntityName, FamilyGraph, type ProofLight } from '../../graph';
import {
  classroomView,
  queryPeople,
  ruleWords,
  selectClassGuess,
  selectClassroomCursor,
  selectGuessOpen,
  selectPuzzle,
  selectStory,
  stepFacts,
  textSegments,
  tripleWords,
  useStore,
} from '../../state';

const actions = () => useStore.getState();

export const CLASSROOM_KEYS: readonly [string, string][] = [
  ['→ / Space', 'next'],
  ['←', 'back'],
  ['G', "class's guess"],
  ['R', 'reveal'],
  ['F', 'full screen'],
  ['Esc', 'exit'],
];

function Text({ text, puzzle }: { text: string; puzzle: Puzzle }) {
  return (
    <>
      {textSegments(text, puzzle.entities).map((s, i) =>
        'name' in s ? <EntityName key={i} name={s.name} gender={s.entity?.gender} /> : s.text,
      )}
    </>
  );
}

/** The twenty words in a dialog; arrows move, Enter picks, Esc closes. */
function GuessDialog({
  onPick,
  onClose,
  current,
}: {
  onPick: (w: RelationWord) => void;
  onClose: () => void;
  current: RelationWord | null;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const first =
      ref.current?.querySelector<HTMLButtonElement>('button[aria-pressed="true"]') ??
      ref.current?.querySelector('button');
    first?.focus();
  }, []);
  const onKey = (e: ReactKeyboardEvent) => {
    const buttons = [...(ref.current?.querySelectorAll<HTMLButtonElement>('.guess__grid button') ?? [])];
    const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const move: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 4, ArrowUp: -4 };
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onClose();
    } else if (move[e.key] !== undefined && i >= 0) {
      e.preventDefault();
      buttons[(i + move[e.key]! + buttons.length) % buttons.length]?.focus();
    }
    e.stopPropagation();
  };
  return (
    <div className="guess" role="dialog" aria-modal="true" aria-labelledby="guess-title" ref={ref} onKeyDown={onKey}>
      <h2 id="guess-title">The class's guess</h2>
      <div className="guess__grid">
        {PREDICATES.flatMap((p) => PREDICATE_WORDS[p] as readonly RelationWord[]).map((w) => (
          <button
            key={w}
            type="button"
            className="answer"
            data-testid="answer-option"
            data-relation={w}
            aria-pressed={current === w}
            onClick={() => onPick(w)}
          >
            {w}
          </button>
        ))}
      </div>
      <button type="button" className="button" onClick={onClose}>
        Close (Esc)
      </button>
    </div>
  );
}

function Presenter({ puzzle, story }: { puzzle: Puzzle; story: RenderedStory }) {
  const cursor = useStore(selectClassroomCursor);
  const guess = useStore(selectClassGuess);
  const guessOpen = useStore(selectGuessOpen);
  const view = classroomView(puzzle, story, cursor);
  const { a, b } = queryPeople(puzzle);
  const shown = story.sentences.slice(0, view.sentences);
  const visibleFacts = useMemo(() => new Set(shown.flatMap((s) => s.factIds)), [shown]);
  const visibleEntities = useMemo(() => new Set<number>(view.question ? puzzle.query : []), [view.question, puzzle]);
  const latest = useMemo(() => new Set(story.sentences[view.sentences - 1]?.factIds ?? []), [story, view.sentences]);
  const proof = useMemo<ProofLight | null>(() => {
    if (view.proofStep === null) return null;
    const s = puzzle.proof[view.proofStep]!;
    return { ...stepFacts(puzzle, view.proofStep), head: { from: s.head.from, to: s.head.to, word: s.head.word } };
  }, [puzzle, view.proofStep]);
  const steps = view.proofStep === null ? [] : puzzle.proof.slice(0, view.proofStep + 1);

  // Keep the newest thing in view: long stories push the answer and the proof below the fold.
  const textRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = textRef.current?.querySelector('[data-newest="true"]');
    if (el && 'scrollIntoView' in el) el.scrollIntoView({ block: 'nearest' });
  }, [cursor]);
  const newest = view.current?.type ?? null;

  return (
    <div className="classroom__body">
      <div
        className={`classroom__text${story.sentences.length > 6 ? ' classroom__text--long' : ''}`}
        ref={textRef}
        tabIndex={0}
        role="region"
        aria-label="Story, question and answer"
      >
        <p className="classroom__story" data-testid="story" aria-live="polite">
          {shown.map((s, i) => (
            <span
              key={i}
              className={`sentence${i === view.sentences - 1 && !view.question ? ' sentence--new' : ''}`}
              data-testid="story-sentence"
              data-facts={s.factIds.join(',')}
              data-newest={newest === 'sentence' && i === view.sentences - 1 ? 'true' : undefined}
            >
              <Text text={s.text} puzzle={puzzle} />{' '}
            </span>
          ))}
          {view.sentences === 0 && (
            <span className="classroom__cue">Press → or Space to tell the story, one sentence at a time.</span>
          )}
        </p>
        {view.question && (
          <p
            className="classroom__question"
            data-testid="query"
            data-newest={newest === 'question' ? 'true' : undefined}
          >
            How is <EntityName name={b?.name ?? '?'} gender={b?.gender} query="B" /> related to{' '}
            <EntityName name={a?.name ?? '?'} gender={a?.gender} query="A" />?
          </p>
        )}
        <div aria-live="polite">
          {guess && (
            <p className="classroom__guess" data-testid="class-guess">
              The class says: <strong>{guess}</strong>
              {view.answer && (guess === puzzle.target.word ? ' ✓ right' : ' ✗ not quite')}
            </p>
          )}
          {view.answer && (
            <p
              className="classroom__answer"
              data-testid="answer"
              data-relation={puzzle.target.word}
              data-newest={newest === 'answer' ? 'true' : undefined}
            >
              <EntityName name={b?.name ?? '?'} gender={b?.gender} query="B" /> is{' '}
              <EntityName name={a?.name ?? '?'} gender={a?.gender} query="A" />
              's <strong>{puzzle.target.word}</strong>.
            </p>
          )}
          {steps.length > 0 && (
            <ol className="classroom__proof">
              {steps.map((s, i) => (
                <li
                  key={i}
                  data-testid="proof-step"
                  className={i === view.proofStep ? 'current' : ''}
                  data-newest={i === view.proofStep ? 'true' : undefined}
                >
                  {tripleWords(puzzle, s.body[0])} and {tripleWords(puzzle, s.body[1])}, so{' '}
                  {tripleWords(puzzle, s.head)} <span className="classroom__rule">({ruleWords(s)})</span>
                </li>
              ))}
            </ol>
          )}
        </div>
      </div>
      <div className="classroom__graph">
        <FamilyGraph
          puzzle={puzzle}
          visibleFacts={visibleFacts}
          visibleEntities={visibleEntities}
          highlighted={view.proofStep === null ? latest : undefined}
          proof={proof}
          label={`The family so far: ${visibleFacts.size} of ${puzzle.facts.length} facts`}
        />
      </div>
      {guessOpen && <div className="guess-backdrop" aria-hidden="true" onClick={() => actions().setGuessOpen(false)} />}
      {guessOpen && (
        <GuessDialog
          current={guess}
          onPick={(w) => actions().setClassGuess(w)}
          onClose={() => actions().setGuessOpen(false)}
        />
      )}
    </div>
  );
}

/**
 * A full-screen presenter view of one puzzle: large type, the story told one sentence at a time,
 * the class's guess, the answer, then the proof step by step. Driven by the keyboard.
 */
export function ClassroomView() {
  const puzzle = useStore(selectPuzzle);
  const story = useStore(selectStory);
  const cursor = useStore(selectClassroomCursor);
  const rootRef = useRef<HTMLDivElement>(null);
  const total = puzzle && story ? classroomView(puzzle, story, cursor).total : 0;

  useEffect(() => {
    rootRef.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      const s = actions();
      if (s.guessOpen || e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA'))
        return;
      const onButton = target?.tagName === 'BUTTON' || target?.tagName === 'A';
      switch (e.key) {
        case 'ArrowRight':
        case 'PageDown':
          s.classroomStep(1);
          break;
        case ' ':
          if (onButton) return; // Space presses the focused button
          s.classroomStep(1);
          break;
        case 'ArrowLeft':
        case 'PageUp':
          s.classroomStep(-1);
          break;
        case 'g':
        case 'G':
          s.setGuessOpen(true);
          break;
        case 'r':
        case 'R':
          s.classroomReveal();
          break;
        case 'f':
        case 'F':
          if (document.fullscreenElement) void document.exitFullscreen();
          else void rootRef.current?.requestFullscreen?.().catch(() => undefined);
          break;
        case 'Escape':
          if (document.fullscreenElement) return;
          s.setRoute('puzzle');
          break;
        default:
          return;
      }
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div className="classroom" ref={rootRef} tabIndex={-1} data-testid="classroom">
      <header className="classroom__bar">
        <h1 className="classroom__title" data-view-heading tabIndex={-1}>
          Classroom{puzzle ? ` · task ${puzzle.task}.${puzzle.k}` : ''}
        </h1>
        <span className="classroom__progress" data-testid="classroom-progress">
          {Math.max(0, cursor + 1)} / {total}
        </span>
        <div className="classroom__buttons">
          <button type="button" className="button" onClick={() => actions().classroomStep(-1)}>
            ← Back
          </button>
          <button
            type="button"
            className="button button--primary"
            data-testid="classroom-next"
            onClick={() => actions().classroomStep(1)}
          >
            Next →
          </button>
          <button type="button" className="button" onClick={() => actions().setGuessOpen(true)}>
            Guess (G)
          </button>
          <button type="button" className="button" onClick={() => actions().classroomReveal()}>
            Reveal (R)
          </button>
          <button type="button" className="button" onClick={() => actions().classroomRestart()}>
            Restart
          </button>
          <button
            type="button"
            className="button"
            data-testid="classroom-exit"
            onClick={() => actions().setRoute('puzzle')}
          >
            Exit (Esc)
          </button>
        </div>
      </header>
      {puzzle && story ? (
        <Presenter puzzle={puzzle} story={story} />
      ) : (
        <p className="placeholder">Generating the puzzle…</p>
      )}
      <footer className="classroom__keys" aria-label="Keyboard" data-testid="classroom-keys">
        {CLASSROOM_KEYS.map(([k, what]) => (
          <span key={k}>
            <kbd>{k}</kbd> {what}
          </span>
        ))}
      </footer>
    </div>
  );
}
