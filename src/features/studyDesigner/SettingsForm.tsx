import { type ComponentType, useId } from 'react';
import { kindOf, type StudyKind } from '../../study/definition/vocabulary';
import { kindSpec } from '../../study/kinds';
import { STUDY_OPTIONS } from '../../study/definition/studyOptions';
import { Conditions } from './Conditions';
import { Destinations } from './Destinations';
import { Check, Field, OptionGroup, OptionInput, TextBox } from './fields';
import { formFromFile } from './form';
import { AdaptiveSettings, KindChoice, ParaphraseSettings, ReviewSettings } from './KindSettings';
import { useStudyDesigner } from './store';

/** Each kind's own settings, first after the choice of kind. */
const KIND_FIELDS: Record<StudyKind, ComponentType> = {
  solve: SolveItems,
  paraphrase: ParaphraseSettings,
  review: ReviewSettings,
  adaptive: AdaptiveSettings,
};

/**
 * The settings, grouped as a researcher thinks of them: the kind of study first, then its own
 * settings. Every input but the conditions and the destinations is one entry of the study options
 * table (label, hint and input from there); a setting of another kind is not shown (the
 * definition takes that kind's default for it).
 */
export function SettingsForm() {
  const reset = useStudyDesigner((s) => s.reset);
  const kind = useStudyDesigner((s) => kindOf({ kind: s.form.kind }));
  const { designer } = kindSpec(kind);
  const KindFields = KIND_FIELDS[kind];
  return (
    <>
      <KindChoice />
      <KindFields />
      <Conditions kind={kind} />
      <fieldset>
        <legend>{designer.assignmentLegend}</legend>
        <div className="sd-grid">
          <OptionInput field="assignment" />
          {designer.orderFields && <OrderFields />}
        </div>
      </fieldset>
      <fieldset>
        <legend>Texts (markdown)</legend>
        <OptionInput field="consentText" />
        <OptionInput field="instructionsText" />
        <OptionInput field="completionText" />
      </fieldset>
      <OptionGroup legend="Breaks & completion" fields={['breakEvery', 'completionCode', 'redirectUrl']} />
      <OptionGroup legend="Reopened sessions" fields={['resumePolicy', 'maxAgeMinutes']} />
      <OptionGroup legend="Participants (results server)" fields={['participation', 'roomSessions', 'claimMinutes']} />
      <Destinations />
      <div className="sd-actions">
        <LoadDefinition />
        <button type="button" className="sd-small" onClick={reset} data-testid="study-reset">
          Reset to the defaults
        </button>
      </div>
    </>
  );
}

/** A puzzle-solving study's items. */
function SolveItems() {
  return (
    <>
      <OptionGroup
        legend="Items"
        fields={['studyId', 'seed', 'k', 'tasks', 'itemsPerK', 'templateSplit', 'practice', 'attentionChecks']}
      >
        <Check field="strict" label={STUDY_OPTIONS.strict.label} hint={STUDY_OPTIONS.strict.help} />
      </OptionGroup>
    </>
  );
}

function OrderFields() {
  const mode = useStudyDesigner((s) => s.form.orderMode);
  const lists = useStudyDesigner((s) => s.form.orderLists);
  const setField = useStudyDesigner((s) => s.setField);
  return (
    <>
      <Field input="orderMode" label={STUDY_OPTIONS.order.label} hint={STUDY_OPTIONS.order.help}>
        {(a) => (
          <select {...a} value={mode} onChange={(e) => setField('orderMode', e.target.value as 'session')}>
            <option value="session">each participant their own</option>
            <option value="counterbalanced">counterbalanced lists</option>
          </select>
        )}
      </Field>
      {mode === 'counterbalanced' && (
        <TextBox
          input="orderLists"
          label="Lists"
          hint="from 2 to the number of main items"
          numeric
          value={lists}
          onChange={(v) => setField('orderLists', v)}
        />
      )}
    </>
  );
}

/** Reads a definition file chosen by the researcher into the form. */
function LoadDefinition() {
  const id = useId();
  const loadForm = useStudyDesigner((s) => s.loadForm);
  const setLoadError = useStudyDesigner((s) => s.setLoadError);
  const loadError = useStudyDesigner((s) => s.loadError);
  return (
    <div className="sd-load">
      <label htmlFor={id}>Load a study definition (.json)</label>
      <input
        id={id}
        type="file"
        accept=".json,application/json"
        data-testid="study-json-load"
        aria-describedby={loadError ? `${id}-error` : undefined}
        onChange={async (e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (!file) return;
          const reading = file.size > 1_000_000 ? null : formFromFile(await file.text());
          if (!reading) setLoadError(`${file.name} is too large to be a study definition.`);
          else if (reading.ok) loadForm(reading.form);
          else setLoadError(`${file.name}: ${reading.message}`);
        }}
      />
      {loadError && (
        <p id={`${id}-error`} className="sd-error" role="alert" data-testid="study-json-error">
          {loadError}
        </p>
      )}
    </div>
  );
}
