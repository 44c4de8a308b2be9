import { useId, useMemo } from 'react';
import { PROMPTS } from '../../llm/prompt';
import { EndpointForm } from '../../llm/session/EndpointForm';
import { llmReady, useLlmSettings } from '../../llm/session/settings';
import { modelFactsText } from '../../worker/modelsClient';
import { answeredShown } from '../../study/results/figures';
import { wilson } from '../../study/results/stats';
import { fixed } from './format';
import { compareByK, LLM_COLUMN, llmItemAnswer, type ModelItemAnswer } from './modelItems';
import { useLlmCompare } from './modelsStore';
import { useResults } from './store';
import { useCompare } from './useCompare';
import './modelsCompare.css';

const pct = (correct: number, n: number) => (n > 0 ? `${correct}/${n}` : '');

/** One accuracy cell: the accuracy, its Wilson 95% interval (as the figures draw), and correct/n. */
function AccuracyCell({ testId, correct, n }: { testId: string; correct: number; n: number }) {
  const ci = wilson(correct, n);
  return (
    <td data-testid={testId} data-value={n > 0 ? correct / n : undefined} data-n={n} data-lo={ci.lo} data-hi={ci.hi}>
      {fixed(n > 0 ? correct / n : NaN, 3)}{' '}
      {n > 0 && (
        <span className="results__ci">
          [{fixed(ci.lo, 2)}, {fixed(ci.hi, 2)}] {pct(correct, n)}
        </span>
      )}
    </td>
  );
}

/** A column of the comparison: a shipped model, or the language model. */
interface Column {
  readonly id: string;
  /** The testid part: the model's name, or `llm`. */
  readonly model: string;
  readonly label: string;
}

/**
 * The models on the very items people answered: rebuilt from each row's seed (puzzle) and story
 * (as shown), answered by every main model in the models worker, and accuracy by k side by side
 * with people's. Nothing is loaded until the button is pressed.
 */
export function ModelsCompare() {
  const id = useId();
  // The main items people answered (flagged participants left out with the figures, resumed answers
  // too when the figures leave them out), from the results worker.
  const answered = useResults((s) => s.figures.answered);
  const resumedMode = useResults((s) => s.resumedMode);
  const items = useMemo(() => answeredShown(answered, resumedMode), [answered, resumedMode]);
  const status = useCompare((s) => s.status);
  const progress = useCompare((s) => s.progress);
  const message = useCompare((s) => s.message);
  const models = useCompare((s) => s.models);
  const rebuilt = useCompare((s) => s.rebuilt);
  const answers = useCompare((s) => s.answers);
  const ask = useCompare((s) => s.ask);
  const cancel = useCompare((s) => s.cancel);
  const llm = useLlmCompare();
  const llmSettings = useLlmSettings();
  const llmRunning = llm.status === 'asking';
  const llmAnswers = useMemo(
    () => new Map(Object.entries(llm.answers).map(([key, r]) => [key, llmItemAnswer(r)] as const)),
    [llm.answers],
  );
  const columns: Column[] = useMemo(
    () => [
      ...models.map((m) => ({ id: m.id, model: m.model, label: m.label })),
      ...(llm.run
        ? [{ id: LLM_COLUMN, model: LLM_COLUMN, label: `${llm.run.model} (${PROMPTS[llm.run.prompt].label})` }]
        : []),
    ],
    [models, llm.run],
  );

  const answerMaps = useMemo(() => {
    const maps = new Map(
      models.map((m) => [m.id, new Map(Object.entries(answers[m.id] ?? {}))] as [string, Map<string, ModelItemAnswer>]),
    );
    if (llm.run) maps.set(LLM_COLUMN, llmAnswers);
    return maps;
  }, [models, answers, llm.run, llmAnswers]);
  const answerOf = (col: Column, key: string): ModelItemAnswer | undefined =>
    col.id === LLM_COLUMN ? llmAnswers.get(key) : answers[col.id]?.[key];
  const table = useMemo(() => compareByK(items, answerMaps), [items, answerMaps]);
  const refused = items.flatMap((i) => {
    const r = rebuilt[i.key];
    return r && !r.ok ? [{ item: i, reason: r.reason }] : [];
  });
  const bracketed = items.filter((i) => {
    const r = rebuilt[i.key];
    return r?.ok && r.story === 'bracketed';
  }).length;
  // The items the models answered first, those not rebuilt after them (each by k, then id).
  const listed = [...items].sort((a, b) => Number(rebuilt[a.key]?.ok === false) - Number(rebuilt[b.key]?.ok === false));
  const notAsked = models.length > 0 ? items.filter((i) => !rebuilt[i.key]).length : 0;
  const running = status === 'rebuilding' || status === 'answering';
  if (items.length === 0) return null;

  return (
    <section className="results__models" aria-labelledby={`${id}-h`} data-testid="results-models" data-status={status}>
      <h2 id={`${id}-h`}>Models on the same items</h2>
      <p className="hint">
        Each main item is rebuilt from its row: the puzzle from its seed, k and task, the story as the participant read
        it. The shipped main models answer it in a worker of this page (each says below what it reads, what supervised
        it, what it was trained on and which of the paper&apos;s models it reimplements); the models load only when you
        ask. The text models were trained on 80% of the paraphrases (template split by their training seed, 1): a study
        told with all of them (the default) shows them some they were trained on; a study with template split “test”
        only held-out ones.
      </p>
      <div className="results__models-actions">
        <button
          type="button"
          className="results__button"
          onClick={() => void ask(items)}
          disabled={running}
          data-testid="results-models-run"
        >
          {status === 'idle' ? 'Ask the models' : 'Ask the models again'}
        </button>
        {running && (
          <button type="button" onClick={cancel} data-testid="results-models-cancel">
            Cancel
          </button>
        )}
        {running && (
          <progress
            value={progress.done}
            max={progress.total || 1}
            aria-label={progress.label}
            data-testid="results-models-progress"
          />
        )}
      </div>
      <p role="status" className={status === 'error' ? 'results__alert' : 'hint'} data-testid="results-models-status">
        {running ? `${progress.label}: ${progress.done} of ${progress.total}…` : message}
      </p>
      {notAsked > 0 && !running && (
        <p className="hint">
          {notAsked} item{notAsked === 1 ? '' : 's'} came with files loaded since: ask again to include them.
        </p>
      )}
      <details className="results__llm" data-testid="results-llm" open={llm.status !== 'idle' || undefined}>
        <summary>Ask a language model on the same items</summary>
        <p className="hint">
          Each item&apos;s story, as the participant read it, and its question go to the OpenAI-compatible endpoint you
          give (llama.cpp, Ollama, vLLM, a hosted one), and nowhere else; the reply is read as one of the 18 answers,
          and a reply naming none counts as wrong (unparseable). Its column sits beside people&apos;s and the
          models&apos;.
        </p>
        <EndpointForm disabled={llmRunning} />
        <div className="results__models-actions">
          <button
            type="button"
            className="results__button"
            disabled={llmRunning || !llmReady(llmSettings)}
            data-testid="results-llm-run"
            onClick={() =>
              void llm.ask(
                items,
                {
                  url: llmSettings.url.trim(),
                  model: llmSettings.model.trim(),
                  apiKey: llmSettings.apiKey || undefined,
                },
                llmSettings.prompt,
              )
            }
          >
            {llm.status === 'idle' ? 'Ask the language model' : 'Ask it again'}
          </button>
          {llmRunning && (
            <button type="button" onClick={llm.cancel} data-testid="results-llm-cancel">
              Cancel
            </button>
          )}
          {llmRunning && (
            <progress
              value={llm.progress.done}
              max={llm.progress.total || 1}
              aria-label="Asking the language model"
              data-testid="results-llm-progress"
            />
          )}
        </div>
        <p
          role="status"
          className={llm.status === 'error' ? 'results__alert llm-error' : 'hint'}
          data-testid="results-llm-status"
          data-status={llm.status}
        >
          {llmRunning ? `Asking ${llm.run?.model}: ${llm.progress.done} of ${llm.progress.total}…` : llm.message}
        </p>
      </details>
      {columns.length > 0 && (
        <>
          <ul className="results__models-facts" data-testid="results-models-facts" aria-label="The models asked">
            {models.map((m) => (
              <li key={m.id} data-model={m.model}>
                <strong>{m.label}</strong> <span className="mono results__ci">{m.id}</span>
                <dl>
                  {modelFactsText(m).map(([term, text]) => (
                    <div
                      key={term}
                      className={
                        term === 'Supervised by' && m.supervision !== 'answer' ? 'results__models-flag' : undefined
                      }
                    >
                      <dt>{term}</dt>
                      <dd>{text}</dd>
                    </div>
                  ))}
                </dl>
              </li>
            ))}
            {llm.run && (
              <li data-model={LLM_COLUMN}>
                <strong>{llm.run.model}</strong> <span className="mono results__ci">{llm.run.origin}</span>
                <dl>
                  <div>
                    <dt>Reads</dt>
                    <dd>the story as the participant read it, and the question</dd>
                  </div>
                  <div>
                    <dt>Prompt</dt>
                    <dd>
                      {PROMPTS[llm.run.prompt].label} ({PROMPTS[llm.run.prompt].file}); temperature 0
                    </dd>
                  </div>
                  <div>
                    <dt>Unparseable</dt>
                    <dd data-testid="results-llm-unparseable">
                      {Object.values(llm.answers).filter((r) => r.outcome === 'unparseable').length} (counted as wrong)
                    </dd>
                  </div>
                </dl>
              </li>
            )}
          </ul>
          <div className="results__table-wrap results__scroll" tabIndex={0} role="region" aria-labelledby={`${id}-cap`}>
            <table className="results__table" data-testid="results-models-table">
              <caption id={`${id}-cap`}>
                Accuracy by k with Wilson 95% intervals: people over their answers, each model over the items it was
                asked (one answer per item)
              </caption>
              <thead>
                <tr>
                  <th scope="col">k</th>
                  <th scope="col">Items</th>
                  <th scope="col">People, all items</th>
                  <th scope="col">Items asked</th>
                  <th scope="col">People, items asked</th>
                  <ModelHeads models={columns} />
                </tr>
              </thead>
              <tbody>
                {table.map((r) => {
                  const k = r.k === 0 ? 'all' : String(r.k);
                  return (
                    <tr key={k} data-testid="results-models-row" data-k={k}>
                      <th scope="row">{r.k === 0 ? 'All' : r.k}</th>
                      <td>{r.items}</td>
                      <AccuracyCell
                        testId={`results-models-people-${k}`}
                        correct={r.people.correct}
                        n={r.people.answers}
                      />
                      <td>{r.peopleAsked.items}</td>
                      <AccuracyCell
                        testId={`results-models-people-asked-${k}`}
                        correct={r.peopleAsked.correct}
                        n={r.peopleAsked.answers}
                      />
                      {columns.map((m) => {
                        const c = r.models[m.id];
                        return (
                          <AccuracyCell
                            key={m.id}
                            testId={`results-models-acc-${m.model}-${k}`}
                            correct={c?.correct ?? 0}
                            n={c?.items ?? 0}
                          />
                        );
                      })}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {bracketed > 0 && (
            <p className="hint">
              {bracketed} stor{bracketed === 1 ? 'y' : 'ies'} did not come out word for word from the generator (another
              bank or template split?): the models read the file&apos;s story with the names marked.
            </p>
          )}
          {refused.length > 0 && (
            <div className="results__models-refused" data-testid="results-models-refused" data-count={refused.length}>
              <p>
                {refused.length} item{refused.length === 1 ? '' : 's'} could not be rebuilt from{' '}
                {refused.length === 1 ? 'its' : 'their'} row (the seed makes another puzzle), so the models were not
                asked:
              </p>
              <ul>
                {refused.slice(0, 5).map(({ item, reason }) => (
                  <li key={item.key}>
                    <span className="mono">{item.puzzle_id}</span>: {reason}
                  </li>
                ))}
                {refused.length > 5 && <li>and {refused.length - 5} more.</li>}
              </ul>
            </div>
          )}
          <details className="results__models-items">
            <summary>Each item: the answer, people&apos;s accuracy and each model&apos;s answer</summary>
            <div
              className="results__table-wrap results__scroll"
              tabIndex={0}
              role="region"
              aria-labelledby={`${id}-items`}
            >
              <table className="results__table">
                <caption id={`${id}-items`}>Items ({items.length})</caption>
                <thead>
                  <tr>
                    <th scope="col">Puzzle</th>
                    <th scope="col">k</th>
                    <th scope="col">Answer</th>
                    <th scope="col">People</th>
                    <ModelHeads models={columns} />
                  </tr>
                </thead>
                <tbody>
                  {listed.map((it) => (
                    <tr key={it.key} data-testid="results-models-item" data-puzzle={it.puzzle_id}>
                      <th scope="row" className="mono">
                        {it.puzzle_id}
                      </th>
                      <td>{it.k}</td>
                      <td>{it.gold}</td>
                      <td>
                        {fixed(it.correct / it.answers, 2)}{' '}
                        <span className="results__ci">{pct(it.correct, it.answers)}</span>
                      </td>
                      {columns.map((m) => {
                        const a = answerOf(m, it.key);
                        return (
                          <td
                            key={m.id}
                            data-testid={`results-models-answer-${m.model}`}
                            data-word={a?.word}
                            data-correct={a ? String(a.correct) : undefined}
                          >
                            {a ? (
                              <>
                                {a.word} <span aria-label={a.correct ? 'right' : 'wrong'}>{a.correct ? '✓' : '✗'}</span>{' '}
                                {!Number.isNaN(a.probability) && (
                                  <span className="results__ci">{fixed(a.probability, 2)}</span>
                                )}
                              </>
                            ) : m.id !== LLM_COLUMN && rebuilt[it.key]?.ok === false ? (
                              <span className="results__ci">not rebuilt</span>
                            ) : (
                              '–'
                            )}
                          </td>
                        );
                      })}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </section>
  );
}

/** A head cell per model, after the people's columns of both tables. */
function ModelHeads({ models }: { models: readonly { id: string; label: string }[] }) {
  return models.map((m) => (
    <th key={m.id} scope="col">
      {m.label}
    </th>
  ));
}
