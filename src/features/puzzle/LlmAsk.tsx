import { useRef, useState } from 'react';
import type { Puzzle } from '../../core/puzzle/puzzle';
import { LlmError } from '../../llm/client';
import { PROMPTS, type PromptKind } from '../../llm/prompt';
import { askItem, type LlmItemResult } from '../../llm/run';
import { explainFailure, pageOrigin, pageTransport } from '../../llm/session/ask';
import { EndpointForm } from '../../llm/session/EndpointForm';
import { llmReady, useLlmSettings } from '../../llm/session/settings';

interface Asked {
  /** The puzzle (and story) it answers: an answer to another puzzle is not shown. */
  readonly key: string;
  readonly model: string;
  readonly prompt: PromptKind;
  readonly result: LlmItemResult;
}

/**
 * "Ask a language model", beside the shipped models: the endpoint the reader typed answers the
 * puzzle in view when asked (nothing is sent before). Its answer, and its reply (which names the
 * answer), wait behind the same step as the shipped models' (`visible`); the prompt sent is shown
 * at once. Test ids: `llm-panel`, `llm-ask`, `llm-answer` (`data-relation`, `data-outcome`),
 * `llm-meta`, `llm-prompt-text`, `llm-reply`, `llm-error`.
 */
export function LlmAsk({
  puzzle,
  question,
  puzzleKey,
  visible,
  trusted,
  open,
  guess,
  onShow,
}: {
  puzzle: Puzzle;
  question: { story: string; a: string; b: string };
  puzzleKey: string;
  visible: boolean;
  trusted: boolean;
  open: boolean;
  guess: string | null;
  /** Shows every model's answer to this puzzle (the panel's "Show their answers" step). */
  onShow: () => void;
}) {
  const settings = useLlmSettings();
  const [asked, setAsked] = useState<Asked | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  const ready = llmReady(settings);

  const ask = async () => {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setBusy(true);
    setError(null);
    const key = puzzleKey;
    try {
      const result = await askItem(
        { id: key, ...question, gold: puzzle.target.word },
        {
          endpoint: { url: settings.url.trim(), model: settings.model.trim(), apiKey: settings.apiKey || undefined },
          prompt: settings.prompt,
          sampling: { temperature: 0, maxTokens: PROMPTS[settings.prompt].maxTokens },
          concurrency: 1,
        },
        pageTransport(controller.signal),
      );
      if (abort.current !== controller) return;
      setAsked({ key, model: settings.model.trim(), prompt: settings.prompt, result });
      if (result.outcome === 'error') setError(result.reason);
    } catch (e) {
      if (abort.current !== controller || (e instanceof LlmError && e.kind === 'cancelled')) return;
      setError(explainFailure(e, settings.url, pageOrigin()));
    } finally {
      if (abort.current === controller) setBusy(false);
    }
  };

  const current = asked?.key === puzzleKey ? asked : null;
  const r = current?.result;
  const word = r?.answer ?? undefined;
  return (
    <section className="models__llm" aria-labelledby="llm-heading" data-testid="llm-panel">
      <h3 id="llm-heading" className="subhead">
        Ask a language model
      </h3>
      <p className="hint">
        Any server that speaks the OpenAI chat-completions protocol (llama.cpp, Ollama, vLLM, a hosted one) answers this
        puzzle, with the prompt below; its reply is read as one of the 18 answers.
      </p>
      <EndpointForm disabled={busy} />
      <p>
        <button
          type="button"
          className="button"
          data-testid="llm-ask"
          disabled={!ready || busy}
          onClick={() => void ask()}
        >
          {busy ? 'Asking…' : current ? 'Ask again' : 'Ask the language model'}
        </button>{' '}
        {!ready && <span className="hint">Give an endpoint and a model name first.</span>}
      </p>
      {error && (
        <p className="alert alert--error llm-error" role="alert" data-testid="llm-error">
          {error}
        </p>
      )}
      {r && r.outcome !== 'error' && (
        <>
          <p
            className="models__answer"
            data-testid="llm-answer"
            data-relation={visible ? word : undefined}
            data-outcome={visible ? r.outcome : undefined}
            aria-live="polite"
          >
            {current.model}{' '}
            {!visible ? (
              <>
                answered (hidden until you answer or reveal the proof, since it may give the puzzle away){' '}
                <button type="button" className="button button--small" data-testid="llm-show" onClick={onShow}>
                  Show their answers
                </button>
              </>
            ) : word ? (
              <>
                answers <strong>{word}</strong>
                {guess && <> ({word === guess ? 'as you did' : `you said ${guess}`})</>}
                {open && trusted && (
                  <span className={r.correct ? 'verdict--right' : 'verdict--wrong'}>
                    {r.correct ? ' ✓ right' : ' ✗ wrong'}
                  </span>
                )}
              </>
            ) : (
              <>
                gave no answer among the 18 (<strong>unparseable</strong>, counted as wrong): {r.reason}
              </>
            )}
          </p>
          <p className="models__latency" data-testid="llm-meta">
            {PROMPTS[current.prompt].label} prompt · {r.ms === null ? '' : `${Math.round(r.ms)} ms`}
            {r.tokens?.total != null && ` · ${r.tokens.prompt ?? '?'} + ${r.tokens.completion ?? '?'} tokens`}
            {r.attempts > 1 && ` · ${r.attempts} tries`}
          </p>
          <details>
            <summary>The prompt sent</summary>
            <pre className="llm-text" data-testid="llm-prompt-text" tabIndex={0}>
              {r.prompt}
            </pre>
          </details>
          {visible && (
            <details>
              <summary>Its reply, word for word</summary>
              <pre className="llm-text" data-testid="llm-reply" tabIndex={0}>
                {r.reply}
              </pre>
            </details>
          )}
        </>
      )}
    </section>
  );
}
