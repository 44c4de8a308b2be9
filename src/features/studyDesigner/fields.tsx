import { createContext, type ReactNode, useContext, useId } from 'react';
import type { SinkKind } from '../../study/definition/sinks';
import { STUDY_LIMITS } from '../../study/definition/vocabulary';
import { STUDY_OPTIONS } from '../../study/definition/studyOptions';
import type { SwitchField, TextOptionField } from './form';
import { useStudyDesigner } from './store';

/**
 * The designer's inputs: a labelled field with its hint and its problems, and the inputs made
 * from the study options table (label, hint, kind of input and choices are the table's).
 */

/** The problems of the current form, by input key (see form.ts inputForProblem). */
export const Problems = createContext<ReadonlyMap<string, string[]>>(new Map());

interface A11y {
  id: string;
  name: string;
  'aria-invalid': boolean;
  'aria-describedby': string | undefined;
}

/** A labelled input with its hint and, when checkStudyDefinition objects, the problem under it. */
export function Field(props: {
  input: string;
  label: string;
  hint?: string;
  wide?: boolean;
  children: (a: A11y) => ReactNode;
}) {
  const id = useId();
  const problems = useContext(Problems).get(props.input);
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = problems ? `${id}-error` : undefined;
  return (
    <div className={props.wide ? 'sd-field sd-wide' : 'sd-field'} data-field={props.input}>
      <label htmlFor={id}>{props.label}</label>
      {props.children({
        id,
        name: props.input,
        'aria-invalid': Boolean(problems),
        'aria-describedby': [hintId, errorId].filter(Boolean).join(' ') || undefined,
      })}
      {props.hint && (
        <span id={hintId} className="hint">
          {props.hint}
        </span>
      )}
      {problems && (
        <span id={errorId} className="sd-error" data-testid="study-field-error" data-field={props.input}>
          {problems.join(' ')}
        </span>
      )}
    </div>
  );
}

/** A one-line text input in its field (numbers are typed as text, so a half-typed one stays). */
export function TextBox(props: {
  input: string;
  label: string;
  hint?: string;
  numeric?: boolean;
  placeholder?: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <Field input={props.input} label={props.label} hint={props.hint}>
      {(a) => (
        <input
          {...a}
          type="text"
          inputMode={props.numeric ? 'numeric' : 'text'}
          autoComplete="off"
          spellCheck={false}
          placeholder={props.placeholder}
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
        />
      )}
    </Field>
  );
}

/** One setting of the study options table, as its kind of input: text, select or markdown area. */
export function OptionInput({ field }: { field: TextOptionField }) {
  const option = STUDY_OPTIONS[field];
  const value = useStudyDesigner((s) => s.form[field]);
  const setField = useStudyDesigner((s) => s.setField);
  if (option.input !== 'choice' && option.input !== 'markdown') {
    return (
      <TextBox
        input={field}
        label={option.label}
        hint={option.help}
        numeric={option.input === 'number'}
        value={value}
        onChange={(v) => setField(field, v)}
      />
    );
  }
  return (
    <Field input={field} label={option.label} hint={option.help} wide={option.input === 'markdown'}>
      {(a) =>
        option.input === 'choice' ? (
          <select {...a} value={value} onChange={(e) => setField(field, e.target.value)}>
            {(option.choices ?? []).map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        ) : (
          <textarea
            {...a}
            rows={4}
            maxLength={STUDY_LIMITS.maxTextLength}
            value={value}
            onChange={(e) => setField(field, e.target.value)}
          />
        )
      }
    </Field>
  );
}

/**
 * A group of settings in the designer's grid: a fieldset of study options, then whatever else the
 * group holds (a switch, a hint) below the grid.
 */
export function OptionGroup({
  legend,
  fields,
  testId,
  children,
}: {
  legend: string;
  fields: readonly TextOptionField[];
  testId?: string;
  children?: ReactNode;
}) {
  return (
    <fieldset data-testid={testId}>
      <legend>{legend}</legend>
      <div className="sd-grid">
        {fields.map((field) => (
          <OptionInput key={field} field={field} />
        ))}
      </div>
      {children}
    </fieldset>
  );
}

/** A checkbox field of the form (the switches, and one per destination). */
export type CheckField = SwitchField | SinkKind;

export function Check(props: { field: CheckField; label: string; hint: string; onChange?: (on: boolean) => void }) {
  const id = useId();
  const checked = useStudyDesigner((s) => s.form[props.field]);
  const setField = useStudyDesigner((s) => s.setField);
  const problems = useContext(Problems).get(props.field);
  return (
    <div className="sd-check" data-field={props.field}>
      <input
        id={id}
        name={props.field}
        type="checkbox"
        checked={checked}
        aria-invalid={Boolean(problems)}
        aria-describedby={`${id}-hint${problems ? ` ${id}-error` : ''}`}
        onChange={(e) => {
          setField(props.field, e.target.checked);
          props.onChange?.(e.target.checked);
        }}
      />
      <label htmlFor={id}>{props.label}</label>
      <span id={`${id}-hint`} className="hint">
        {props.hint}
      </span>
      {problems && (
        <span id={`${id}-error`} className="sd-error" data-testid="study-field-error" data-field={props.field}>
          {problems.join(' ')}
        </span>
      )}
    </div>
  );
}

/** A problem about a whole group (e.g. "a study has from 1 to 12 conditions"). */
export function GroupProblem({ input }: { input: string }) {
  const problems = useContext(Problems).get(input);
  if (!problems) return null;
  return (
    <p className="sd-error" data-testid="study-field-error" data-field={input}>
      {problems.join(' ')}
    </p>
  );
}
