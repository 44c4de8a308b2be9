import { type ReactNode, useId } from 'react';
import { matchingPreset, OPTION_BY_FIELD, PRESET_NAMES } from '../../core/puzzle/datasetOptions';
import { TemplateFilePicker } from '../../ui/TemplateFilePicker';
import { FIELD_ORDER, FLAG, type DatasetField } from './form';
import { useDatasetBuilder } from './store';

/** One labelled input with its CLI flag, hint and error. */
function Field(props: {
  field: DatasetField;
  label: string;
  hint?: string;
  children: (a11y: { id: string; 'aria-invalid': boolean; 'aria-describedby': string | undefined }) => ReactNode;
}) {
  const id = useId();
  const error = useDatasetBuilder((s) => s.errors[props.field]);
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className="dataset__field" data-field={props.field}>
      <label htmlFor={id}>
        {props.label} <span className="cli-flag">{FLAG[props.field]}</span>
      </label>
      {props.children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': describedBy })}
      {props.hint && (
        <span id={hintId} className="hint">
          {props.hint}
        </span>
      )}
      {error && (
        <span id={errorId} className="dataset__field-error" data-testid="dataset-field-error">
          {error}
        </span>
      )}
    </div>
  );
}

function TextInput({
  field,
  label,
  hint,
  inputMode,
}: {
  field: Exclude<
    DatasetField,
    'holdout' | 'equal' | 'strict' | 'synthetic' | 'templateSplit' | 'storyOrder' | 'labels' | 'keepAmbiguous'
  >;
  label: string;
  hint?: string;
  inputMode?: 'numeric' | 'decimal' | 'text';
}) {
  const value = useDatasetBuilder((s) => s.values[field]);
  const setValue = useDatasetBuilder((s) => s.setValue);
  const disabled = useDatasetBuilder(
    (s) => (field === 'holdoutShare' && !s.values.holdout) || (field === 'combinationLength' && s.values.synthetic),
  );
  return (
    <Field field={field} label={label} hint={hint}>
      {(a11y) => (
        <input
          {...a11y}
          name={field}
          type="text"
          inputMode={inputMode}
          autoComplete="off"
          spellCheck={false}
          value={value}
          disabled={disabled}
          onChange={(e) => setValue(field, e.target.value)}
        />
      )}
    </Field>
  );
}

function Checkbox({
  field,
  label,
  hint,
}: {
  field: 'holdout' | 'equal' | 'strict' | 'synthetic' | 'templateSplit' | 'keepAmbiguous';
  label: string;
  hint: string;
}) {
  const id = useId();
  const checked = useDatasetBuilder((s) => s.values[field]);
  const setValue = useDatasetBuilder((s) => s.setValue);
  const disabled = useDatasetBuilder(
    (s) =>
      (field === 'templateSplit' && s.values.synthetic) || (field === 'keepAmbiguous' && s.values.labels !== 'clutrr'),
  );
  return (
    <div className="dataset__check" data-field={field}>
      <input
        id={id}
        name={field}
        type="checkbox"
        checked={checked}
        disabled={disabled}
        aria-describedby={`${id}-hint`}
        onChange={(e) => setValue(field, e.target.checked)}
      />
      <label htmlFor={id}>
        {label} <span className="cli-flag">{FLAG[field]}</span>
      </label>
      <span id={`${id}-hint`} className="hint">
        {hint}
      </span>
    </div>
  );
}

/** A setting with a few named values (`--story-order`, `--labels`). */
function ChoiceInput({ field, label, hint }: { field: 'storyOrder' | 'labels'; label: string; hint: string }) {
  const value = useDatasetBuilder((s) => s.values[field]);
  const setValue = useDatasetBuilder((s) => s.setValue);
  return (
    <Field field={field} label={label} hint={hint}>
      {(a11y) => (
        <select {...a11y} name={field} value={value} onChange={(e) => setValue(field, e.target.value)}>
          {(OPTION_BY_FIELD[field].choices as readonly string[]).map((c) => (
            <option key={c} value={c}>
              {CHOICE_LABELS[c] ?? c}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

const CHOICE_LABELS: Record<string, string> = {
  shuffled: 'shuffled (as CLUTRR)',
  path: 'path order (for teaching)',
  family: 'family (what holds in the family)',
  clutrr: 'clutrr (CLUTRR’s own, wrong in some families)',
};

/** `--preset`: fills the tasks, rows and balance of a dataset released with the paper. */
function PresetPicker() {
  const id = useId();
  const values = useDatasetBuilder((s) => s.values);
  const applyPreset = useDatasetBuilder((s) => s.applyPreset);
  const current = matchingPreset(values) ?? '';
  return (
    <div className="dataset__field" data-field="preset">
      <label htmlFor={id}>
        Preset <span className="cli-flag">--preset</span>
      </label>
      <select
        id={id}
        name="preset"
        data-testid="dataset-preset"
        value={current}
        aria-describedby={`${id}-hint`}
        onChange={(e) => e.target.value && applyPreset(e.target.value)}
      >
        <option value="">none</option>
        {PRESET_NAMES.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      <span id={`${id}-hint`} className="hint">
        the tasks, rows per task and balance of a dataset released with the paper; with Labels: clutrr, the closest
        reproduction of the release
      </span>
    </div>
  );
}

/** `--templates`: a template file in the original shape instead of our bank. */
function TemplatesField() {
  const templates = useDatasetBuilder((s) => s.templates);
  const setTemplates = useDatasetBuilder((s) => s.setTemplates);
  const synthetic = useDatasetBuilder((s) => s.values.synthetic);
  return (
    <>
      <TemplateFilePicker value={templates} onChange={setTemplates} disabled={synthetic} />
      {templates?.source && <TemplatesOnlyField synthetic={synthetic} />}
    </>
  );
}

/** `--templates-only`, offered once a template file is loaded: no plain sentence for a fact the file does not tell. */
function TemplatesOnlyField({ synthetic }: { synthetic: boolean }) {
  const id = useId();
  const on = useDatasetBuilder((s) => s.templatesOnly);
  const setOn = useDatasetBuilder((s) => s.setTemplatesOnly);
  return (
    <div className="dataset__check" data-field="templatesOnly">
      <input
        id={id}
        name="templatesOnly"
        type="checkbox"
        checked={on}
        disabled={synthetic}
        aria-describedby={`${id}-hint`}
        data-testid="dataset-templates-only"
        onChange={(e) => setOn(e.target.checked)}
      />
      <label htmlFor={id}>
        Templates only (refuse plain sentences) <span className="cli-flag">--templates-only</span>
      </label>
      <span id={`${id}-hint`} className="hint">
        a fact none of the file’s paraphrases tells stops the run, naming the fact
      </span>
    </div>
  );
}

/** The settings the form cannot turn into a dataset, in field order, linked to their inputs. */
function ErrorSummary() {
  const errors = useDatasetBuilder((s) => s.errors);
  const fields = FIELD_ORDER.filter((f) => errors[f]);
  if (fields.length === 0) return null;
  return (
    <div className="dataset__alert" role="alert" data-testid="dataset-form-error">
      <p>
        <strong>These settings cannot be generated:</strong>
      </p>
      <ul>
        {fields.map((f) => (
          <li key={f}>
            <a
              href={`#${f}`}
              onClick={(e) => {
                e.preventDefault();
                document.querySelector<HTMLElement>(`[data-field="${f}"] input, [data-field="${f}"] select`)?.focus();
              }}
            >
              {errors[f]}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The CLI's `generate` options as a form; submitting it starts the workers. */
export function DatasetForm() {
  const generate = useDatasetBuilder((s) => s.generate);
  const cancel = useDatasetBuilder((s) => s.cancel);
  const resetForm = useDatasetBuilder((s) => s.resetForm);
  const running = useDatasetBuilder((s) => s.status === 'running');
  return (
    <form
      className="dataset__form"
      data-testid="dataset-form"
      aria-label="Dataset settings"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        generate();
      }}
    >
      <fieldset disabled={running}>
        <legend>Tasks and rows</legend>
        <PresetPicker />
        <div className="dataset__grid">
          <TextInput field="trainTasks" label="Train tasks" hint="task.k, comma-separated: 1.2,1.3 (1 clean … 7 mix)" />
          <TextInput field="trainRows" label="Rows per train task" inputMode="numeric" hint="exactly this many" />
          <TextInput field="testTasks" label="Test tasks" hint="one test file per task" />
          <TextInput field="testRows" label="Rows per test task" inputMode="numeric" hint="exactly this many" />
        </div>
      </fieldset>
      <fieldset disabled={running}>
        <legend>Patterns</legend>
        <div className="dataset__grid">
          <Checkbox
            field="holdout"
            label="Hold out patterns"
            hint="for k > 2, a share of f_comb patterns appears only in test"
          />
          <TextInput field="holdoutShare" label="Share held out" inputMode="decimal" hint="with hold out, in [0, 1)" />
          <Checkbox field="equal" label="Balance patterns" hint="every f_comb pattern about equally often" />
          <TextInput field="patterns" label="Only patterns" hint="f_comb globs, comma-separated; * is one word" />
          <Checkbox
            field="strict"
            label="Strict (sound rules only)"
            hint="proofs and uniqueness with the 14 rules that hold in every family (no uncle read as a parent’s brother when he may be an in-law)"
          />
          <ChoiceInput
            field="labels"
            label="Labels"
            hint="clutrr: the family closed as CLUTRR’s generator does, its two assumption rules included (not with strict)"
          />
          <Checkbox
            field="keepAmbiguous"
            label="Keep ambiguous patterns (as CLUTRR did)"
            hint="with clutrr labels: also stories the rules cannot decide (husband-son-grandmother), labelled as CLUTRR’s closure labels them; release-like data, not a fair test"
          />
        </div>
      </fieldset>
      <fieldset disabled={running}>
        <legend>Story text</legend>
        <div className="dataset__grid">
          <Checkbox field="synthetic" label="Plain sentences" hint="one plain sentence per fact, no paraphrases" />
          <TextInput
            field="combinationLength"
            label="Facts per paraphrase"
            inputMode="numeric"
            hint="at most 1, 2 or 3 consecutive facts"
          />
          <Checkbox
            field="templateSplit"
            label="Template split"
            hint="20% of every paraphrase list is kept for the test rows"
          />
          <ChoiceInput field="storyOrder" label="Story order" hint="the order the sentences are told in" />
        </div>
        <TemplatesField />
      </fieldset>
      <fieldset disabled={running}>
        <legend>Seed and family</legend>
        <div className="dataset__grid">
          <TextInput field="seed" label="Seed" hint="same settings and seed, same rows" />
          <TextInput field="maxLevels" label="Generations" inputMode="numeric" />
          <TextInput field="minChild" label="Fewest children" inputMode="numeric" />
          <TextInput field="maxChild" label="Most children" inputMode="numeric" />
          <TextInput field="pMarry" label="Chance to marry" inputMode="decimal" />
        </div>
      </fieldset>
      <ErrorSummary />
      <div className="dataset__actions">
        <button type="submit" className="dataset__primary" data-testid="dataset-generate" disabled={running}>
          Generate
        </button>
        <button type="button" data-testid="dataset-cancel" disabled={!running} onClick={cancel}>
          Cancel
        </button>
        <button type="button" disabled={running} onClick={resetForm}>
          Reset to CLI defaults
        </button>
      </div>
    </form>
  );
}
