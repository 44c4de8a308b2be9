import { useId, useState } from 'react';
import type { StudyDefinition } from '../../study/definition/definition';
import type { PowerAnswer, PowerPlan, PowerTest } from '../../study/simulate/power';
import { kindSpec } from '../../study/kinds';
import { adaptiveSettings } from '../../study/kinds/adaptive';
import { AdaptivePowerPlanner } from './AdaptivePowerPlanner';
import { type PowerInputs, planFromInputs, plannedHow, powerInputsFor } from './powerPlan';
import { type PowerField, PowerInputsForm, usePowerRun } from './powerRun';
import { useStudyDesigner } from './store';

const LABELS: { readonly [T in PowerTest]: string } = {
  decline: 'Accuracy declines with k (each person’s slope)',
  contrast: 'First vs last k (paired)',
  conditions: 'Two conditions differ (Welch)',
};

const FIELDS: readonly PowerField<keyof PowerInputs>[] = [
  {
    field: 'accuracy',
    label: 'Expected accuracy by k',
    hint: 'k:accuracy, comma-separated (default: the paper’s Table 3)',
    wide: true,
  },
  { field: 'participants', label: 'Participants', hint: 'the planned sample' },
  { field: 'itemsPerK', label: 'Items per k', hint: 'main items at each k (all tasks)' },
  { field: 'spread', label: 'Between-person spread', hint: 'SD of people’s ability, log-odds' },
  { field: 'conditionEffect', label: 'Condition difference', hint: 'log-odds added in the second condition' },
  { field: 'simulations', label: 'Simulated studies', hint: 'per size tried (1,000 at least for a figure you report)' },
  { field: 'seed', label: 'Seed', hint: 'the same seed gives the same answer' },
];

/**
 * The power planner (`study-power`): for a study with fixed items, a Monte Carlo of its own
 * analysis (accuracy by k); for an adaptive study, of its procedure and the thresholds it
 * estimates (AdaptivePowerPlanner). Both run in the power worker.
 */
export function PowerPlanner({ def }: { def: StudyDefinition }) {
  if (kindSpec(def.kind).follows) {
    const s = adaptiveSettings(def);
    return (
      <AdaptivePowerPlanner
        key={`${s.procedure}/${s.levels.join(',')}/${s.maxTrials}/${s.ciWidth}/${def.conditions.length}`}
        def={def}
      />
    );
  }
  return <SolvePowerPlanner def={def} />;
}

/**
 * The fixed-item planner: a Monte Carlo of the study's own analysis in a worker
 * (src/study/simulate/power.ts), the power at the planned sample and the participants each
 * analysis needs for 80%; "Plan N" keeps the conditions' figure for the summary and the
 * recruitment text.
 */
function SolvePowerPlanner({ def }: { def: StudyDefinition }) {
  const id = useId();
  // The view keys the planner by the study's k and items, so another design starts from its own inputs.
  const [inputs, setInputs] = useState<PowerInputs>(() => powerInputsFor(def));
  const setPlannedN = useStudyDesigner((s) => s.setPlannedN);
  const { run, start } = usePowerRun<PowerPlan, PowerAnswer>(
    () => planFromInputs(inputs),
    (client, plan) => client.plan(plan),
  );

  return (
    <section className="sd-panel" aria-labelledby={`${id}-h`} data-testid="study-power">
      <h2 id={`${id}-h`}>Power planner</h2>
      <p className="hint">
        Simulates this study many times (each person answering with the expected accuracy by k, moved by their own
        ability) and runs its analysis on each: the share of studies that find the effect is the power.
      </p>
      <PowerInputsForm id={id} fields={FIELDS} inputs={inputs} setInputs={setInputs} run={run} start={start} />
      {run.state === 'done' && (
        <div data-testid="study-power-result" aria-live="polite">
          <table className="sd-table sd-power-table">
            <thead>
              <tr>
                <th scope="col">analysis</th>
                <th scope="col">power with {run.plan.participants}</th>
                <th scope="col">N for 80%</th>
              </tr>
            </thead>
            <tbody>
              {(Object.keys(LABELS) as PowerTest[]).map((t) => (
                <tr key={t} data-testid={`study-power-${t}`}>
                  <td>{LABELS[t]}</td>
                  <td>{Math.round(run.answer.power[t] * 100)}%</td>
                  <td>{run.answer.needed[t] ?? `more than 2000`}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="hint">
            {run.answer.studies.toLocaleString('en')} simulated studies in {(run.ms / 1000).toFixed(1)} s. N for 80%:
            the smallest size tried that reached it (within 10%).
          </p>
          {run.answer.needed.conditions !== null && (
            <button
              type="button"
              data-testid="study-power-use"
              onClick={() =>
                setPlannedN({
                  participants: run.answer.needed.conditions!,
                  how: plannedHow(run.plan, run.answer, run.answer.needed.conditions!),
                })
              }
            >
              Plan {run.answer.needed.conditions} participants (80% for the conditions)
            </button>
          )}
        </div>
      )}
    </section>
  );
}
