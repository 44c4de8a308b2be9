import { useEffect, useRef, useState } from 'react';
import { isCancelled } from '../../worker/rpc';
import { PowerClient } from '../../worker/powerClient';

/** A planner's run: its plan read from the inputs, sent to the power worker, and what came back. */
export type PowerRun<Plan, Answer> =
  | { state: 'idle' }
  | { state: 'busy' }
  | { state: 'done'; plan: Plan; answer: Answer; ms: number }
  | { state: 'error'; message: string };

/**
 * What both planners do with the power worker: read the plan (a message names a bad input),
 * ask the worker, time it, and keep the answer or the error; the worker stops with the view.
 */
export function usePowerRun<Plan, Answer>(
  read: () => { ok: true; plan: Plan } | { ok: false; message: string },
  ask: (client: PowerClient, plan: Plan) => Promise<Answer>,
): { run: PowerRun<Plan, Answer>; start: () => Promise<void> } {
  const [run, setRun] = useState<PowerRun<Plan, Answer>>({ state: 'idle' });
  const client = useRef<PowerClient | null>(null);
  useEffect(() => () => client.current?.stop(), []);
  const start = async () => {
    const got = read();
    if (!got.ok) return setRun({ state: 'error', message: got.message });
    client.current ??= new PowerClient();
    setRun({ state: 'busy' });
    const t0 = performance.now();
    try {
      const answer = await ask(client.current, got.plan);
      setRun({ state: 'done', plan: got.plan, answer, ms: performance.now() - t0 });
    } catch (e) {
      if (!isCancelled(e)) setRun({ state: 'error', message: e instanceof Error ? e.message : String(e) });
    }
  };
  return { run, start };
}

/** One input of a planner: its field, label, hint, and whether it takes a whole row of the grid. */
export interface PowerField<F extends string> {
  readonly field: F;
  readonly label: string;
  readonly hint: string;
  readonly wide?: boolean;
}

/**
 * A planner's inputs (`study-power-<field>`), its run button (`study-power-run`) and its error
 * (`study-power-error`).
 */
export function PowerInputsForm<F extends string>({
  id,
  fields,
  inputs,
  setInputs,
  run,
  start,
}: {
  id: string;
  fields: readonly PowerField<F>[];
  inputs: Readonly<Record<F, string>>;
  setInputs: (next: Record<F, string>) => void;
  run: PowerRun<unknown, unknown>;
  start: () => Promise<void>;
}) {
  return (
    <>
      <div className="sd-grid">
        {fields.map(({ field, label, hint, wide }) => (
          <div key={field} className={`sd-field${wide ? ' sd-wide' : ''}`}>
            <label htmlFor={`${id}-${field}`}>{label}</label>
            <input
              id={`${id}-${field}`}
              data-testid={`study-power-${field}`}
              inputMode={wide ? 'text' : 'decimal'}
              value={inputs[field]}
              aria-describedby={`${id}-${field}-hint`}
              onChange={(e) => setInputs({ ...inputs, [field]: e.target.value })}
            />
            <span id={`${id}-${field}-hint`} className="hint">
              {hint}
            </span>
          </div>
        ))}
      </div>
      <div className="sd-actions">
        <button
          type="button"
          data-testid="study-power-run"
          disabled={run.state === 'busy'}
          onClick={() => void start()}
        >
          {run.state === 'busy' ? 'Simulating…' : 'Run the power analysis'}
        </button>
      </div>
      {run.state === 'error' && (
        <p className="sd-error" role="alert" data-testid="study-power-error">
          {run.message}
        </p>
      )}
    </>
  );
}
