import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { labelVerdict } from './verdict';
import { LlmAsk } from './LlmAsk';
import { PanelHead } from './PanelHead';
import type { Puzzle } from '../../core/puzzle/puzzle';
import type { RenderedStory } from '../../core/text/render';
import { selectGuess, selectProofOpen } from '../../state/selectors';
import { useStore } from '../../state/useStore';
import { queryPeople } from '../../ui/puzzle/text';
import {
  mainModels,
  median,
  modelFactsText,
  type ModelAnswer,
  type ModelIndexEntry,
  modelsClient,
  questionFromPuzzle,
  topAnswers,
} from '../../worker/modelsClient';
import type { BackendName, BackendResult } from '../../worker/modelsProtocol';
import { isCancelled } from '../../worker/rpc';
import './modelPanel.css';

/** What the family drawing shows of a model's attention: fact id → weight, and whose it is. */
export interface AttentionView {
  readonly label: string;
  readonly weights: ReadonlyMap<number, number>;
}

type Phase =
  | { readonly name: 'idle' }
  | { readonly name: 'loading'; readonly done: number; readonly total: number; readonly what: string }
  | { readonly name: 'ready' }
  | { readonly name: 'switching'; readonly to: BackendName }
  | { readonly name: 'error'; readonly message: string };

interface Answered {
  /** The puzzle (and story) it answers: answers to an older puzzle are not shown. */
  readonly key: string;
  readonly answer: ModelAnswer;
}

const BACKEND_WORDS: Record<BackendName, string> = {
  webgl: 'WebGL (GPU)',
  wasm: 'WebAssembly',
  cpu: 'plain JavaScript (cpu)',
};

/** The models of the last successful load: the panel comes back ready when the view is reopened. */
let remembered: readonly ModelIndexEntry[] | null = null;
/** The puzzle whose answers the reader asked to see, kept across visits too. */
let rememberedShown: string | null = null;

/** The models whose answers carry one attention weight per stated fact (their descriptor says `facts`). */
const factAttentionModels = (models: readonly ModelIndexEntry[]) => models.filter((m) => m.attention === 'facts');

/** Whose attention is drawn at first: the first model with attention over the facts (index order). */
function defaultAttention(models: readonly ModelIndexEntry[]): string | null {
  return factAttentionModels(models)[0]?.id ?? null;
}

const kib = (bytes: number) => `${Math.round(bytes / 1024).toLocaleString('en')} KiB`;
const percent = (p: number) => `${(p * 100).toFixed(p >= 0.995 || p < 0.0005 ? 0 : 1)}%`;

/**
 * "Ask the models": loads the shipped main models in the models worker (on demand: tfjs and the
 * weights are fetched only after the button), then shows each one's answer to the puzzle in view
 * with its five most probable answers, beside the reader's own answer. The true answer waits
 * until the proof is open (the explorer never gives it away before). The GAT's attention can be
 * drawn on the family graph (`onAttention`).
 */
export function ModelPanel({
  puzzle,
  story,
  onAttention,
}: {
  puzzle: Puzzle;
  story: RenderedStory;
  onAttention: (view: AttentionView | null) => void;
}) {
  const guess = useStore(selectGuess);
  const open = useStore(selectProofOpen);
  // An imported row's label that the facts do not entail is not the answer: no ✓ or ✗ against it.
  const trusted = useMemo(() => labelVerdict(puzzle).trusted, [puzzle]);
  const [phase, setPhase] = useState<Phase>(remembered ? { name: 'ready' } : { name: 'idle' });
  const [models, setModels] = useState<readonly ModelIndexEntry[]>(remembered ?? []);
  const [backend, setBackend] = useState<BackendResult | null>(null);
  const [answers, setAnswers] = useState<ReadonlyMap<string, Answered>>(new Map());
  const [latency, setLatency] = useState<ReadonlyMap<string, readonly number[]>>(new Map());
  /** Why the last answer failed (the next puzzle or backend asks again). */
  const [answerError, setAnswerError] = useState<string | null>(null);
  const [showAttention, setShowAttention] = useState(true);
  const [attentionOf, setAttentionOf] = useState<string | null>(() => defaultAttention(remembered ?? []));
  const backendId = useId();
  const attentionId = useId();
  const asked = useRef(0);
  // The puzzle whose model answers the reader asked to see. Otherwise a new puzzle's answers
  // wait (a good model's answer is the answer) until the reader answers or opens the proof.
  const [shownFor, setShownFor] = useState<string | null>(() => rememberedShown);
  useEffect(() => {
    rememberedShown = shownFor;
  }, [shownFor]);

  const key = `${puzzle.seed}|${puzzle.k}|${puzzle.task}|${story.story}`;
  const question = useMemo(() => questionFromPuzzle(puzzle, story.story), [puzzle, story]);

  // Loading is not answering: the answers of the puzzle in view stay behind "Show their answers"
  // until the reader answers or opens the proof (issue 33).
  const load = async () => {
    const client = modelsClient();
    try {
      setPhase({ name: 'loading', done: 0, total: 0, what: 'the list of models' });
      const main = mainModels(await client.index());
      if (main.length === 0) throw new Error('this build ships no models (models/index.json lists none)');
      setBackend(await client.backend());
      const total = main.reduce((s, m) => s + m.weightBytes, 0);
      let before = 0;
      for (const m of main) {
        setPhase({ name: 'loading', done: before, total, what: m.label });
        await client.ensureLoaded(m.id, (bytes) =>
          setPhase({ name: 'loading', done: before + bytes, total, what: m.label }),
        );
        before += m.weightBytes;
      }
      setModels(main);
      remembered = main;
      setAttentionOf(defaultAttention(main));
      setPhase({ name: 'ready' });
    } catch (e) {
      setPhase({ name: 'error', message: (e as Error).message });
    }
  };

  // Coming back to a panel whose models were loaded: ask the worker which backend it is on.
  useEffect(() => {
    if (remembered && !backend)
      void modelsClient()
        .backend()
        .then(setBackend, () => {});
  }, [backend]);

  // Every model answers the puzzle in view (again after a backend switch).
  const ready = phase.name === 'ready';
  const backendName = backend?.backend;
  useEffect(() => {
    if (!ready || models.length === 0) return;
    const ticket = ++asked.current;
    const client = modelsClient();
    void (async () => {
      for (const m of models) {
        // Once more if another view stopped the shared worker meanwhile (ensureLoaded reloads).
        for (let attempt = 0; ; attempt++) {
          try {
            await client.ensureLoaded(m.id);
            const r = await client.answer(m.id, [question]);
            if (asked.current !== ticket) return;
            setAnswers((prev) => new Map(prev).set(m.id, { key, answer: r.answers[0]! }));
            setLatency((prev) => new Map(prev).set(m.id, [...(prev.get(m.id) ?? []), r.ms]));
            setAnswerError(null);
            break;
          } catch (e) {
            if (asked.current !== ticket) return;
            if (isCancelled(e) && attempt === 0) continue;
            setAnswerError(`${m.label}: ${(e as Error).message}`);
            return;
          }
        }
      }
    })();
  }, [ready, models, question, key, backendName]);

  const switchBackend = async (name: BackendName) => {
    setPhase({ name: 'switching', to: name });
    try {
      setBackend(await modelsClient().backend(name));
      setLatency(new Map());
      setPhase({ name: 'ready' });
    } catch (e) {
      setAnswerError((e as Error).message);
      setPhase({ name: 'ready' });
      await modelsClient()
        .backend()
        .then(setBackend, () => {});
    }
  };

  // The drawing's attention: the chosen GAT's, on the puzzle in view only.
  const attentionAnswer = attentionOf ? answers.get(attentionOf) : undefined;
  const attentionLabel = models.find((m) => m.id === attentionOf)?.label ?? '';
  const weights = attentionAnswer?.key === key ? attentionAnswer.answer.factAttention : undefined;
  const report = onAttention;
  useEffect(() => {
    if (!showAttention || !weights) {
      report(null);
      return;
    }
    report({ label: attentionLabel, weights: new Map(Array.from(weights, (w, i) => [puzzle.facts[i]?.id ?? i, w])) });
  }, [report, showAttention, weights, attentionLabel, puzzle]);
  useEffect(() => () => report(null), [report]);

  const { a, b } = queryPeople(puzzle);
  const gats = factAttentionModels(models);
  const busy = phase.name === 'loading' || phase.name === 'switching';
  const visible = open || guess !== null || shownFor === key;

  return (
    <section className="panel panel--models" aria-labelledby="models-heading" data-testid="model-panel">
      <PanelHead
        id="models-heading"
        title="Ask the models"
        tools={
          backend && (
            <>
              <label htmlFor={backendId}>Runs on</label>
              <select
                id={backendId}
                data-testid="model-backend"
                value={backend.backend}
                disabled={busy}
                onChange={(e) => void switchBackend(e.target.value as BackendName)}
              >
                {(['webgl', 'wasm', 'cpu'] as const).map((n) => (
                  <option key={n} value={n} disabled={backend.available[n] !== true}>
                    {BACKEND_WORDS[n]}
                    {backend.available[n] === true ? '' : ' (unavailable)'}
                  </option>
                ))}
              </select>
            </>
          )
        }
      />

      {phase.name === 'idle' || (phase.name === 'error' && models.length === 0) ? (
        <>
          <p className="hint">
            Models trained on our own k = 2, 3 puzzles answer this puzzle in your browser: some read the graph of stated
            facts, some the story&apos;s text. Each says what it reads, what supervised its training, what it was
            trained on and which of the paper&apos;s models it reimplements. Their answers may give the puzzle away.
          </p>
          <button type="button" className="button" data-testid="model-load" onClick={() => void load()}>
            Load the models
          </button>
        </>
      ) : null}

      {phase.name === 'loading' && (
        <div className="models__progress">
          <label>
            Loading {phase.what}…{' '}
            <progress
              data-testid="model-progress"
              max={phase.total || 1}
              value={phase.total ? phase.done : undefined}
            />{' '}
            {phase.total > 0 && `${kib(phase.done)} of ${kib(phase.total)}`}
          </label>
        </div>
      )}
      {phase.name === 'switching' && <p className="hint">Moving the models to {BACKEND_WORDS[phase.to]}…</p>}
      {(phase.name === 'error' || answerError) && (
        <p className="alert alert--error" role="alert" data-testid="model-error">
          {phase.name === 'error' ? phase.message : answerError}
        </p>
      )}

      {models.length > 0 && (
        <>
          <p className="models__people">
            <span>
              How is {b?.name} related to {a?.name}? Your answer:{' '}
              <strong data-testid="model-person-answer">{guess ?? 'not given yet'}</strong>
            </span>
            {open && (
              <span>
                {' '}
                · {trusted ? 'true answer' : 'the file’s label (not entailed as the answer)'}:{' '}
                <strong data-testid="model-true-answer" data-relation={puzzle.target.word}>
                  {puzzle.target.word}
                </strong>
              </span>
            )}
          </p>
          {!visible && (
            <p className="models__hidden">
              <button
                type="button"
                className="button button--small"
                data-testid="model-show"
                onClick={() => setShownFor(key)}
              >
                Show their answers
              </button>{' '}
              <span className="hint">
                The models have answered; their answers wait until you answer or reveal the proof, since they may give
                the puzzle away.
              </span>
            </p>
          )}
          <ul className="models__list">
            {models.map((m) => {
              const got = answers.get(m.id);
              const current = got?.key === key ? got.answer : undefined;
              const top = current && visible ? topAnswers(current.probs) : [];
              const word = top[0]?.word;
              const right = word === puzzle.target.word;
              return (
                <li key={m.id} className="models__model" data-testid="model-entry" data-model={m.model}>
                  <h3 className="subhead">{m.label}</h3>
                  <dl className="models__facts" data-testid={`model-facts-${m.model}`}>
                    {modelFactsText(m).map(([term, text]) => (
                      <div
                        key={term}
                        className={term === 'Supervised by' && m.supervision !== 'answer' ? 'models__flag' : undefined}
                      >
                        <dt>{term}</dt>
                        <dd>{text}</dd>
                      </div>
                    ))}
                  </dl>
                  <p
                    className="models__answer"
                    data-testid={`model-answer-${m.model}`}
                    data-relation={word}
                    aria-live="polite"
                  >
                    {word ? (
                      <>
                        answers <strong>{word}</strong>
                        {guess && <> ({word === guess ? 'as you did' : `you said ${guess}`})</>}
                        {open && trusted && (
                          <span className={right ? 'verdict--right' : 'verdict--wrong'}>
                            {right ? ' ✓ right' : ' ✗ wrong'}
                          </span>
                        )}
                      </>
                    ) : current ? (
                      'answered (hidden until you answer or show it)'
                    ) : (
                      'thinking…'
                    )}
                  </p>
                  <ol
                    className="models__top"
                    data-testid={`model-top5-${m.model}`}
                    aria-label={`${m.label}: five most probable answers`}
                  >
                    {top.map((t) => (
                      <li key={t.word} data-relation={t.word} data-prob={t.p.toFixed(4)}>
                        <span className="models__word">{t.word}</span>
                        <span className="models__bar" aria-hidden="true">
                          <span style={{ width: `${(t.p * 100).toFixed(1)}%` }} />
                        </span>
                        <span className="models__p">{percent(t.p)}</span>
                      </li>
                    ))}
                  </ol>
                </li>
              );
            })}
          </ul>
          <p className="models__latency" data-testid="model-latency">
            Time per puzzle on {backend ? BACKEND_WORDS[backend.backend] : '…'} (median of the answers so far):{' '}
            {models
              .map((m) => {
                const xs = latency.get(m.id) ?? [];
                return `${m.label} ${xs.length ? `${median(xs).toFixed(1)} ms (${xs.length})` : '…'}`;
              })
              .join(' · ')}
          </p>
          {gats.length > 0 && (
            <div className="models__attention">
              <input
                id={attentionId}
                type="checkbox"
                data-testid="attention-toggle"
                checked={showAttention}
                onChange={(e) => setShowAttention(e.target.checked)}
              />
              <label htmlFor={attentionId}>Draw the attention of</label>{' '}
              {gats.length > 1 ? (
                <select
                  aria-label="Whose attention"
                  data-testid="attention-model"
                  value={attentionOf ?? ''}
                  onChange={(e) => setAttentionOf(e.target.value)}
                >
                  {gats.map((m) => (
                    <option key={m.id} value={m.id}>
                      {m.label}
                    </option>
                  ))}
                </select>
              ) : (
                gats[0]!.label
              )}{' '}
              on the family drawing
            </div>
          )}
          {backend && Object.entries(backend.available).some(([, v]) => v !== true) && (
            <ul className="hint models__unavailable">
              {(Object.entries(backend.available) as [BackendName, true | string][])
                .filter(([, v]) => v !== true)
                .map(([n, why]) => (
                  <li key={n}>
                    {BACKEND_WORDS[n]} unavailable: {why}
                  </li>
                ))}
            </ul>
          )}
        </>
      )}
      <LlmAsk
        puzzle={puzzle}
        question={{ story: story.story, a: question.queryNames[0], b: question.queryNames[1] }}
        puzzleKey={key}
        visible={visible}
        trusted={trusted}
        open={open}
        guess={guess}
        onShow={() => setShownFor(key)}
      />
    </section>
  );
}
