import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Puzzle } from '../core/puzzle/puzzle';
import { isTaskId, type TaskId } from '../core/puzzle/tasks';
import { createRng } from '../core/random/rng';
import { renderPlain } from '../core/text/plain';
import { unbracket } from '../core/text/render';
import { createGeneratorClient } from '../worker/client';

interface Settings {
  seed: string;
  k: number;
  task: TaskId;
}

function readUrl(): Settings {
  const q = new URLSearchParams(window.location.search);
  const k = Number(q.get('k') ?? 2);
  const task = Number(q.get('task') ?? 1);
  return {
    seed: q.get('seed') ?? String(Date.now() % 100000),
    k: Number.isInteger(k) && k >= 1 && k <= 20 ? k : 2,
    task: isTaskId(task) ? task : 1,
  };
}

/** A plain page: one seeded puzzle as text (the explorer replaces it). */
export function App() {
  const client = useMemo(() => createGeneratorClient(), []);
  const [settings, setSettings] = useState<Settings>(readUrl);
  const [puzzle, setPuzzle] = useState<Puzzle | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [revealed, setRevealed] = useState(false);

  useEffect(() => {
    const q = new URLSearchParams({ seed: settings.seed, k: String(settings.k), task: String(settings.task) });
    window.history.replaceState(null, '', `?${q}`);
    client
      .latest('puzzle', 'puzzle', settings)
      .then((p) => {
        setPuzzle(p);
        setError(null);
        setRevealed(false);
      })
      .catch((e: Error) => {
        if (e.name !== 'CancelledError') setError(e.message);
      });
  }, [client, settings]);

  const text = useMemo(() => (puzzle ? renderPlain(puzzle, 'test', createRng(puzzle.seed, 'text')) : null), [puzzle]);
  const next = useCallback(() => setSettings((s) => ({ ...s, seed: String((Number(s.seed) || 0) + 1) })), []);

  return (
    <main>
      <h1>CLUTRR Lab</h1>
      {error && <p role="alert">{error}</p>}
      {puzzle && text && (
        <>
          <p data-testid="story">
            {text.sentences.map((s, i) => (
              <span key={i} data-testid="story-sentence" data-facts={s.factIds.join(',')}>
                {unbracket(s.text)}{' '}
              </span>
            ))}
          </p>
          <p data-testid="query">{unbracket(text.question)}</p>
          <button data-testid="reveal-answer" onClick={() => setRevealed(true)}>
            Reveal answer
          </button>
          {revealed && <p data-testid="answer">{puzzle.target.word}</p>}
        </>
      )}
      <button data-testid="new-puzzle" onClick={next}>
        New puzzle
      </button>
    </main>
  );
}
