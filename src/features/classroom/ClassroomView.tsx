import { useEffect, useMemo, useRef, useState, type KeyboardEvent as ReactKeyboardEvent } from 'react';
import type { RelationWord } from '../../core/kinship/relations';
import type { Puzzle } from '../../core/puzzle/puzzle';
import type { RenderedStory } from '../../core/text/render';
import { FamilyGraph, READABLE_ZOOM, type ProofLight } from '../../graph/FamilyGraph';
import { classroomBeats } from '../../state/classroom';
import {
  selectClassGuess,
  selectClassroomCursor,
  selectGuessOpen,
  selectPuzzle,
  selectStory,
} from '../../state/selectors';
import { useStore } from '../../state/useStore';
import { AnswerGrid } from '../../ui/puzzle/AnswerGrid';
import { stepFacts } from '../../ui/puzzle/proof';
import { StepSentence } from '../../ui/puzzle/ProofStep';
import { Question } from '../../ui/puzzle/Question';
import { Relation } from '../../ui/puzzle/Relation';
import { StoryText } from '../../ui/puzzle/StoryText';
import { queryPeople } from '../../ui/puzzle/text';
import { previousPuzzle } from '../../state/handout';
import './classroom.css';
import { Handout, HANDOUT_SIZES } from './Handout';
import { actionForKey, capsFor, CLASSROOM_KEYMAP, type ClassroomAction } from './keymap';
import { presenterView } from './presenter';

const actions = () => useStore.getState();

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
  // Keys stay inside the dialog: the presenter's keys must not step the story behind it.
  const onKey = (e: ReactKeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onClose();
    }
    e.stopPropagation();
  };
  return (
    <div className="guess" role="dialog" aria-modal="true" aria-labelledby="guess-title" ref={ref} onKeyDown={onKey}>
      <h2 id="guess-title">The class's guess</h2>
      <AnswerGrid className="guess__grid" picked={current} onPick={onPick} arrowKeys />
      <button type="button" className="button" onClick={onClose}>
        Close ({capsFor('exit')})
      </button>
    </div>
  );
}

/**
 * The drawing's smallest zoom grows with the screen: names (14 px type) are drawn about 24 px
 * high on a 1920 px wide projector, readable from the back of a room; a family larger than the
 * box is followed (the newest facts centred) rather than shrunk.
 */
function useProjectorZoom(): number {
  const [width, setWidth] = useState(() => window.innerWidth);
  useEffect(() => {
    const on = () => setWidth(window.innerWidth);
    window.addEventListener('resize', on);
    return () => window.removeEventListener('resize', on);
  }, []);
  return Math.max(READABLE_ZOOM, width / 1240);
}

function Presenter({ puzzle, story }: { puzzle: Puzzle; story: RenderedStory }) {
  const cursor = useStore(selectClassroomCursor);
  const guess = useStore(selectClassGuess);
  const guessOpen = useStore(selectGuessOpen);
  const view = useMemo(() => presenterView(puzzle, story, cursor), [puzzle, story, cursor]);
  const { a, b } = queryPeople(puzzle);
  const shown = useMemo(() => story.sentences.slice(0, view.sentences), [story, view.sentences]);
  const visibleFacts = useMemo(() => new Set(shown.flatMap((s) => s.factIds)), [shown]);
  const visibleEntities = useMemo(() => new Set<number>(view.question ? puzzle.query : []), [view.question, puzzle]);
  const latest = useMemo(() => new Set(story.sentences[view.sentences - 1]?.factIds ?? []), [story, view.sentences]);
  // Proof steps come after the answer beat, so the derived edge never shows before the answer.
  const proof = useMemo<ProofLight | null>(() => {
    if (view.proofStep === null) return null;
    const s = puzzle.proof[view.proofStep]!;
    return { ...stepFacts(puzzle, view.proofStep), head: { from: s.head.from, to: s.head.to, word: s.head.word } };
  }, [puzzle, view.proofStep]);
  const steps = view.proofStep === null ? [] : puzzle.proof.slice(0, view.proofStep + 1);
  const projectorZoom = useProjectorZoom();

  // Keep the newest thing in view: long stories push the answer and the proof below the fold.
  const textRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = textRef.current?.querySelector('[data-newest="true"]');
    if (el && 'scrollIntoView' in el) el.scrollIntoView({ block: 'nearest' });
  }, [cursor]);
  const newest = view.current?.type ?? null;

  return (
    <div className={`classroom__body${puzzle.entities.length > 8 ? ' classroom__body--large' : ''}`}>
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
              <StoryText text={s.text} entities={puzzle.entities} />{' '}
            </span>
          ))}
          {view.sentences === 0 && (
            <span className="classroom__cue">Press → or Space to tell the story, one sentence at a time.</span>
          )}
        </p>
        {view.question && (
          <div data-newest={newest === 'question' ? 'true' : undefined}>
            <Question puzzle={puzzle} className="classroom__question" />
          </div>
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
              <Relation from={a} to={b} word={puzzle.target.word} query />.
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
                  <StepSentence puzzle={puzzle} step={s} ruleClassName="classroom__rule" />
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
          minTextZoom={projectorZoom}
          whole
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
  const total = puzzle && story ? classroomBeats(puzzle, story).length : 0;
  const [handout, setHandout] = useState({ count: 1, drawing: true });

  useEffect(() => {
    rootRef.current?.focus();
    const run: Record<ClassroomAction, () => void> = {
      next: () => actions().classroomStep(1),
      back: () => actions().classroomStep(-1),
      nextPuzzle: () => actions().newPuzzle(),
      previousPuzzle: () => void previousPuzzle(useStore),
      guess: () => actions().setGuessOpen(true),
      reveal: () => actions().classroomReveal(),
      fullscreen: () => {
        if (document.fullscreenElement) void document.exitFullscreen();
        else void rootRef.current?.requestFullscreen?.().catch(() => undefined);
      },
      exit: () => actions().setRoute('puzzle'),
    };
    const onKey = (e: KeyboardEvent) => {
      const s = actions();
      if (s.guessOpen || e.ctrlKey || e.metaKey || e.altKey) return;
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA'))
        return;
      const action = actionForKey(e.key);
      if (action === null) return;
      if (e.key === ' ' && (target?.tagName === 'BUTTON' || target?.tagName === 'A')) return; // Space presses the focused button
      if (action === 'exit' && document.fullscreenElement) return; // the browser leaves full screen first
      run[action]();
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
          <button
            type="button"
            className="button"
            data-testid="classroom-prev-puzzle"
            onClick={() => previousPuzzle(useStore)}
          >
            ◀ Puzzle ({capsFor('previousPuzzle')})
          </button>
          <button
            type="button"
            className="button"
            data-testid="classroom-next-puzzle"
            onClick={() => actions().newPuzzle()}
          >
            Puzzle ▶ ({capsFor('nextPuzzle')})
          </button>
          <button type="button" className="button" onClick={() => actions().setGuessOpen(true)}>
            Guess ({capsFor('guess')})
          </button>
          <button type="button" className="button" onClick={() => actions().classroomReveal()}>
            Reveal ({capsFor('reveal')})
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
            Exit ({capsFor('exit')})
          </button>
          <details className="classroom__print">
            <summary className="button">Print…</summary>
            <div className="classroom__print-panel">
              <label>
                Puzzles{' '}
                <select
                  data-testid="handout-count"
                  value={handout.count}
                  onChange={(e) => setHandout({ ...handout, count: Number(e.target.value) })}
                >
                  {HANDOUT_SIZES.map((n) => (
                    <option key={n} value={n}>
                      {n}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                <input
                  type="checkbox"
                  data-testid="handout-drawing"
                  checked={handout.drawing}
                  onChange={(e) => setHandout({ ...handout, drawing: e.target.checked })}
                />{' '}
                with the drawing
              </label>
              <button type="button" className="button" data-testid="handout-print" onClick={() => window.print()}>
                Print handout
              </button>
              <p className="classroom__print-note">
                From this puzzle on (the next ones by New puzzle’s seeds), an answer line each, and the answers on a
                page of their own.
              </p>
            </div>
          </details>
        </div>
      </header>
      {puzzle && story ? (
        <Presenter puzzle={puzzle} story={story} />
      ) : (
        <p className="placeholder">Generating the puzzle…</p>
      )}
      <Handout count={handout.count} drawing={handout.drawing} />
      <footer className="classroom__keys" aria-label="Keyboard" data-testid="classroom-keys">
        {CLASSROOM_KEYMAP.map((b) => (
          <span key={b.action}>
            <kbd>{b.caps}</kbd> {b.label}
          </span>
        ))}
      </footer>
    </div>
  );
}
