import { DISPLAYS, STUDY_LIMITS, type StudyKind } from '../../study/definition/vocabulary';
import { kindSpec } from '../../study/kinds';
import { Field, GroupProblem, TextBox } from './fields';
import { useStudyDesigner } from './store';

/** A condition's two time limits, in seconds; empty for none. */
const limits = (kind: StudyKind) =>
  [
    ['perPuzzleLimitS', `Seconds per ${kindSpec(kind).words[0]}`],
    ['overallLimitS', 'Seconds overall'],
  ] as const;

/**
 * The between-subjects conditions: rows added and removed, each with its limits and, in a
 * puzzle-solving study, its display and scratchpad (collection studies show text only).
 */
export function Conditions({ kind }: { kind: StudyKind }) {
  const conditions = useStudyDesigner((s) => s.form.conditions);
  const setCondition = useStudyDesigner((s) => s.setCondition);
  const addCondition = useStudyDesigner((s) => s.addCondition);
  const removeCondition = useStudyDesigner((s) => s.removeCondition);
  const { displays } = kindSpec(kind).designer;
  return (
    <fieldset>
      <legend>Conditions</legend>
      <p className="hint">
        Between subjects: each participant gets one. A time limit shows a countdown; at 0 the trial is recorded as a
        timeout. Leave a limit empty for none.
      </p>
      {displays && (
        <p className="hint" data-testid="study-drawing-note">
          <strong>text+drawing</strong> shows, beside the story, a drawing of the stated facts only: one labelled line
          per fact the story states, nothing inferred. People are placed by a seeded layout that does not follow
          generations (the same after a reload), so the drawing does not count generations for the participant; the two
          people of the question are marked. The explorer&apos;s family-tree layout is not used in studies.
        </p>
      )}
      <GroupProblem input="conditions" />
      <ol className="sd-conditions">
        {conditions.map((c, i) => (
          <li key={c.key} data-testid="study-condition" aria-label={`Condition ${i + 1}`}>
            <GroupProblem input={`conditions.${i}`} />
            <div className="sd-grid">
              <TextBox
                input={`conditions.${i}.id`}
                label="Id"
                value={c.id}
                onChange={(v) => setCondition(i, 'id', v)}
              />
              {limits(kind).map(([limit, label]) => (
                <TextBox
                  key={limit}
                  input={`conditions.${i}.${limit}`}
                  label={label}
                  numeric
                  placeholder="none"
                  value={c[limit]}
                  onChange={(v) => setCondition(i, limit, v)}
                />
              ))}
              {displays && (
                <Field input={`conditions.${i}.display`} label="Display">
                  {(a) => (
                    <select
                      {...a}
                      value={c.display}
                      onChange={(e) => setCondition(i, 'display', e.target.value as (typeof DISPLAYS)[number])}
                    >
                      {DISPLAYS.map((d) => (
                        <option key={d} value={d}>
                          {d}
                        </option>
                      ))}
                    </select>
                  )}
                </Field>
              )}
              {displays && (
                <Field input={`conditions.${i}.scratchpad`} label="Scratchpad">
                  {(a) => (
                    <select
                      {...a}
                      value={c.scratchpad ? 'on' : 'off'}
                      onChange={(e) => setCondition(i, 'scratchpad', e.target.value === 'on')}
                    >
                      <option value="off">off</option>
                      <option value="on">on</option>
                    </select>
                  )}
                </Field>
              )}
            </div>
            <button
              type="button"
              className="sd-small"
              disabled={conditions.length <= 1}
              onClick={() => removeCondition(i)}
              aria-label={`Remove condition ${c.id || i + 1}`}
            >
              Remove
            </button>
          </li>
        ))}
      </ol>
      <button
        type="button"
        data-testid="study-add-condition"
        disabled={conditions.length >= STUDY_LIMITS.maxConditions}
        onClick={addCondition}
      >
        Add a condition
      </button>
    </fieldset>
  );
}
