import { useId, useState } from 'react';
import { PROMPTS } from '../../llm/prompt';
import { explainFailure, pageOrigin, pageTransport } from '../../llm/session/ask';
import { EndpointForm } from '../../llm/session/EndpointForm';
import { llmReady, useLlmSettings } from '../../llm/session/settings';
import { wilson } from '../../study/results/stats';
import { createLlmRunStore, LLM_MAX_ROWS } from './llmRunStore';
import { TableScroll } from '../../ui/TableScroll';

/** The app's one language-model run of the models view (kept across visits, like the models' run). */
export const useLlmRun = createLlmRunStore(pageTransport, (e, url) => explainFailure(e, url, pageOrigin()));

const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');

/**
 * "Ask a language model" on the models view's k curve: the endpoint the user typed answers fresh
 * test puzzles of each k (the shipped models' kind, src/ml/testData.ts), and its accuracy by k is
 * shown with Wilson 95% intervals, unparseable replies counted. Self-contained (no props).
 * Test ids: `models-llm`, `models-llm-rows`, `models-llm-seed`, `models-llm-run`,
 * `models-llm-cancel`, `models-llm-status` (`data-status`), `models-llm-k` rows (`data-k`,
 * `data-correct`, `data-rows`, `data-unparseable`).
 */
export function LlmRun() {
  const id = useId();
  const settings = useLlmSettings();
  const run = useLlmRun();
  const [rows, setRows] = useState('20');
  const [seed, setSeed] = useState('1');
  const n = Number(rows);
  const rowsOk = Number.isInteger(n) && n >= 1 && n <= LLM_MAX_ROWS;
  const running = run.status === 'running';
  return (
    <section className="models__llm-run" aria-labelledby={`${id}-h`} data-testid="models-llm">
      <h2 id={`${id}-h`}>A language model on the same k curve</h2>
      <p className="hint">
        Fresh clean test puzzles of each k, made as the shipped models&apos; are, go to the OpenAI-compatible endpoint
        you give, and nowhere else; each reply is read as one of the 18 answers (a reply naming none counts as wrong).
      </p>
      <EndpointForm disabled={running} />
      <div className="llm-form">
        <label htmlFor={`${id}-rows`}>Puzzles per k</label>
        <input
          id={`${id}-rows`}
          data-testid="models-llm-rows"
          inputMode="numeric"
          value={rows}
          disabled={running}
          aria-invalid={!rowsOk}
          onChange={(e) => setRows(e.target.value)}
        />
        <label htmlFor={`${id}-seed`}>Seed</label>
        <input
          id={`${id}-seed`}
          data-testid="models-llm-seed"
          value={seed}
          disabled={running}
          onChange={(e) => setSeed(e.target.value)}
        />
      </div>
      {!rowsOk && <p className="hint">Puzzles per k: a whole number from 1 to {LLM_MAX_ROWS}.</p>}
      <p>
        <button
          type="button"
          className="button"
          data-testid="models-llm-run"
          disabled={running || !rowsOk || seed.trim() === '' || !llmReady(settings)}
          onClick={() =>
            void run.start(
              { url: settings.url.trim(), model: settings.model.trim(), apiKey: settings.apiKey || undefined },
              settings.prompt,
              n,
              seed.trim(),
            )
          }
        >
          Ask the language model
        </button>{' '}
        {running && (
          <button type="button" className="button" data-testid="models-llm-cancel" onClick={run.cancel}>
            Cancel
          </button>
        )}{' '}
        {running && (
          <progress value={run.progress.done} max={run.progress.total || 1} aria-label="Asking the language model" />
        )}
      </p>
      <p
        role="status"
        className={run.status === 'error' ? 'alert alert--error llm-error' : 'hint'}
        data-testid="models-llm-status"
        data-status={run.status}
      >
        {running ? `${run.progress.done} of ${run.progress.total} puzzles…` : run.message}
      </p>
      {run.run && run.byK.length > 0 && (
        <TableScroll className="model-report__table-wrap" labelledBy={`${id}-cap`}>
          <table className="model-report__table">
            <caption id={`${id}-cap`}>
              {run.run.model}, {PROMPTS[run.run.prompt].label} prompt ({PROMPTS[run.run.prompt].file}), seed{' '}
              {run.run.seed}: accuracy by k with Wilson 95% intervals
            </caption>
            <thead>
              <tr>
                <th scope="col">k</th>
                <th scope="col">Puzzles</th>
                <th scope="col">Accuracy</th>
                <th scope="col">95% interval</th>
                <th scope="col">Unparseable</th>
              </tr>
            </thead>
            <tbody>
              {run.byK.map((r) => {
                const ci = wilson(r.correct, r.rows);
                return (
                  <tr
                    key={r.k}
                    data-testid="models-llm-k"
                    data-k={r.k}
                    data-rows={r.rows}
                    data-correct={r.correct}
                    data-unparseable={r.unparseable}
                  >
                    <th scope="row">{r.k}</th>
                    <td>{r.rows}</td>
                    <td>{f3(r.rows ? r.correct / r.rows : NaN)}</td>
                    <td>
                      [{f2(ci.lo)}, {f2(ci.hi)}]
                    </td>
                    <td>
                      {r.unparseable}
                      {r.errors > 0 && ` (+${r.errors} without a reply)`}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  );
}
