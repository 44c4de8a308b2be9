import { useId, useState } from 'react';
import type { StudyDefinition } from '../../study/definition/definition';
import { adaptiveSettings } from '../../study/kinds/adaptive';
import { ASSURANCE, type AdaptivePowerAnswer, type AdaptivePowerPlan } from '../../study/simulate/adaptivePower';
import { MAX_PARTICIPANTS } from '../../study/simulate/power';
import { type AdaptivePowerInputs, adaptiveInputsFor, adaptivePlanFromInputs, adaptivePlannedHow } from './powerPlan';
import { type PowerField, PowerInputsForm, usePowerRun } from './powerRun';
import { useStudyDesigner } from './store';
import { TableScroll } from '../../ui/TableScroll';

const FIELDS: readonly PowerField<keyof AdaptivePowerInputs>[] = [
  {
    field: 'meanThreshold',
    label: 'Mean threshold',
    hint: 'people’s true threshold k on average (3.5: Table 3 is near one half at k = 4)',
  },
  { field: 'spread', label: 'Between-person spread', hint: 'SD of the true thresholds, hops' },
  { field: 'slope', label: 'Slope', hint: 'how steeply accuracy falls past a person’s threshold' },
  { field: 'lapse', label: 'Lapse rate', hint: 'slips on easy stories' },
  {
    field: 'conditionDifference',
    label: 'Condition difference',
    hint: 'hops added to the thresholds in the second condition',
  },
  { field: 'halfWidth', label: 'Interval half-width', hint: 'the ± wanted on the mean threshold’s 95% interval, hops' },
  { field: 'participants', label: 'Participants', hint: 'the planned sample (in all)' },
  {
    field: 'pool',
    label: 'Simulated people',
    hint: 'per condition, run through the procedure (more: slower, steadier)',
  },
  { field: 'simulations', label: 'Simulated studies', hint: 'per size tried, resampled from the simulated people' },
  { field: 'seed', label: 'Seed', hint: 'the same seed gives the same answer' },
];

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
  const setPlannedN = useStudyDesigner((s) => s.setPlannedN);
  const settings = adaptiveSettings(def);
  const conditions = def.conditions.length >= 2;
  const { run, start } = usePowerRun<AdaptivePowerPlan, AdaptivePowerAnswer>(
    () => adaptivePlanFromInputs(def, inputs),
    (client, plan) => client.adaptive(plan),
  );

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
      <PowerInputsForm
        id={id}
        fields={FIELDS.filter((f) => conditions || f.field !== 'conditionDifference')}
        inputs={inputs}
        setInputs={setInputs}
        run={run}
        start={start}
      />
      {run.state === 'done' && (
        <div data-testid="study-power-result" aria-live="polite">
          <TableScroll label="Power planner's answer">
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
          </TableScroll>
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
