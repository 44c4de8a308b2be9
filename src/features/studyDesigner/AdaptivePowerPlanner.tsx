import { useEffect, useId, useRef, useState } from 'react';
import type { StudyDefinition } from '../../study/definition/definition';
import { adaptiveSettings } from '../../study/kinds/adaptive';
import { ASSURANCE, type AdaptivePowerAnswer, type AdaptivePowerPlan } from '../../study/simulate/adaptivePower';
import { MAX_PARTICIPANTS } from '../../study/simulate/power';
import { isCancelled } from '../../worker/rpc';
import { PowerClient } from '../../worker/powerClient';
import { type AdaptivePowerInputs, adaptiveInputsFor, adaptivePlanFromInputs, adaptivePlannedHow } from './powerPlan';
import { useStudyDesigner } from './store';

const FIELDS: readonly [keyof AdaptivePowerInputs, string, string][] = [
  ['meanThreshold', 'Mean threshold', 'people’s true threshold k on average (3.5: Table 3 is near one half at k = 4)'],
  ['spread', 'Between-person spread', 'SD of the true thresholds, hops'],
  ['slope', 'Slope', 'how steeply accuracy falls past a person’s threshold'],
  ['lapse', 'Lapse rate', 'slips on easy stories'],
  ['conditionDifference', 'Condition difference', 'hops added to the thresholds in the second condition'],
  ['halfWidth', 'Interval half-width', 'the ± wanted on the mean threshold’s 95% interval, hops'],
  ['participants', 'Participants', 'the planned sample (in all)'],
  ['pool', 'Simulated people', 'per condition, run through the procedure (more: slower, steadier)'],
  ['simulations', 'Simulated studies', 'per size tried, resampled from the simulated people'],
  ['seed', 'Seed', 'the same seed gives the same answer'],
];

type Run =
  | { state: 'idle' }
  | { state: 'busy' }
  | { state: 'done'; plan: AdaptivePowerPlan; answer: AdaptivePowerAnswer; ms: number }
  | { state: 'error'; message: string };

const pct = (x: number) => `${Math.round(x * 100)}%`;
const more = `more than ${MAX_PARTICIPANTS}`;

/**
 * The power planner of an adaptive study (`study-power`): simulated people with a spread of true
 * thresholds answer the study's own procedure (as `study simulate`'s respondents do), then many
 * studies resampled from them give the mean threshold's interval half-width and the power to find
 * a difference between two conditions, with the participants each needs (src/study/simulate/adaptivePower.ts,
 * in the power worker).
 */
export function AdaptivePowerPlanner({ def }: { def: StudyDefinition }) {
  const id = useId();
  const [inputs, setInputs] = useState<AdaptivePowerInputs>(() => adaptiveInputsFor(def));
  const [run, setRun] = useState<Run>({ state: 'idle' });
  const setPlannedN = useStudyDesigner((s) => s.setPlannedN);
  const client = useRef<PowerClient | null>(null);
  useEffect(() => () => client.current?.stop(), []);
  const settings = adaptiveSettings(def);
  const conditions = def.conditions.length >= 2;

  const start = async () => {
    const read = adaptivePlanFromInputs(def, inputs);
    if (!read.ok) return setRun({ state: 'error', message: read.message });
    client.current ??= new PowerClient();
    setRun({ state: 'busy' });
    const t0 = performance.now();
    try {
      const answer = await client.current.adaptive(read.plan);
      setRun({ state: 'done', plan: read.plan, answer, ms: performance.now() - t0 });
    } catch (e) {
      if (!isCancelled(e)) setRun({ state: 'error', message: e instanceof Error ? e.message : String(e) });
    }
  };

  const planned = run.state === 'done' ? (conditions ? run.answer.needed.power : run.answer.needed.halfWidth) : null;
  return (
    <section className="sd-panel" aria-labelledby={`${id}-h`} data-testid="study-power" data-kind="adaptive">
      <h2 id={`${id}-h`}>Power planner</h2>
      <p className="hint">
        Simulated people, their true thresholds spread around a mean, answer this study’s{' '}
        {settings.procedure === 'quest' ? 'QUEST+' : 'staircase'} until it stops; studies resampled from them give the
        95% interval on the mean threshold
        {conditions ? ' and the power to find a difference between the first two conditions' : ''}.
      </p>
      <div className="sd-grid">
        {FIELDS.filter(([f]) => conditions || f !== 'conditionDifference').map(([field, label, hint]) => (
          <div key={field} className="sd-field">
            <label htmlFor={`${id}-${field}`}>{label}</label>
            <input
              id={`${id}-${field}`}
              data-testid={`study-power-${field}`}
              inputMode="decimal"
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
      {run.state === 'done' && (
        <div data-testid="study-power-result" aria-live="polite">
          <div className="table-scroll" tabIndex={0} role="region" aria-label="Power planner's answer">
            <table className="sd-table sd-power-table">
              <thead>
                <tr>
                  <th scope="col">question</th>
                  <th scope="col">with {run.plan.participants}</th>
                  <th scope="col">N needed</th>
                </tr>
              </thead>
              <tbody>
                <tr data-testid="study-power-halfwidth" data-needed={run.answer.needed.halfWidth ?? ''}>
                  <td>
                    95% interval on the mean threshold within ±{run.plan.halfWidth} hops ({pct(ASSURANCE)} of studies
                    {conditions ? ', per condition' : ''})
                  </td>
                  <td>
                    ±{run.answer.planned.halfWidth.toFixed(2)} on average; within ±{run.plan.halfWidth} in{' '}
                    {pct(run.answer.planned.assurance)}
                  </td>
                  <td>{run.answer.needed.halfWidth ?? more}</td>
                </tr>
                {conditions && (
                  <tr data-testid="study-power-conditions" data-needed={run.answer.needed.power ?? ''}>
                    <td>Two conditions differ by {run.plan.conditionDifference} hops (Welch, 80% power)</td>
                    <td>{pct(run.answer.planned.power ?? 0)} power</td>
                    <td>{run.answer.needed.power ?? more}</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <p className="hint" data-testid="study-power-people">
            {run.answer.people.count.toLocaleString('en')} simulated people ({run.answer.people.meanTrials.toFixed(1)}{' '}
            trials each on average; estimate − true threshold: {run.answer.people.bias >= 0 ? '+' : '−'}
            {Math.abs(run.answer.people.bias).toFixed(2)} on average, SD {run.answer.people.errorSd.toFixed(2)}; SD of
            the estimates {run.answer.people.estimateSd.toFixed(2)} hops) and {run.answer.studies.toLocaleString('en')}{' '}
            resampled studies in {(run.ms / 1000).toFixed(1)} s. N needed: the smallest size tried that reached it
            (within 10%){conditions ? '; the interval counts one condition’s participants' : ''}.
          </p>
          {planned !== null && (
            <button
              type="button"
              data-testid="study-power-use"
              onClick={() =>
                setPlannedN({ participants: planned, how: adaptivePlannedHow(run.plan, run.answer, planned) })
              }
            >
              Plan {planned} participants ({conditions ? '80% power for the conditions' : 'the interval’s half-width'})
            </button>
          )}
        </div>
      )}
    </section>
  );
}
