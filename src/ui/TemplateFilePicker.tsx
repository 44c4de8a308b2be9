import { useId, useRef, useState } from 'react';
import { firstProblems, readTemplateFiles, summaryLine, type TemplateReading } from './templateSource';
import './templatePicker.css';

/**
 * A template file in the original CLUTRR JSON shape (amt_placeholders_clean.json, or its
 * .train.json and .test.json halves picked together): what it holds, which keys or templates
 * were skipped and why, and a button back to our bank. Controlled: the reading lives with the
 * caller, whose renderer uses `value.source`.
 */
export function TemplateFilePicker({
  value,
  onChange,
  disabled = false,
  label = 'Template file',
}: {
  value: TemplateReading | null;
  onChange: (reading: TemplateReading | null) => void;
  disabled?: boolean;
  label?: string;
}) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | null>(null);
  const pick = async (list: FileList | null) => {
    const files = [...(list ?? [])];
    if (files.length === 0) return;
    try {
      const texts = await Promise.all(files.map(async (f) => ({ name: f.name, text: await f.text() })));
      setError(null);
      onChange(readTemplateFiles(texts));
    } catch (e) {
      setError(`The file could not be read: ${(e as Error).message}`);
    }
  };
  const reset = () => {
    if (input.current) input.current.value = '';
    setError(null);
    onChange(null);
  };
  const problems = value ? firstProblems(value.problems) : null;
  return (
    <div className="template-picker" data-field="templates">
      <label htmlFor={id}>
        {label} <span className="ds-flag">--templates</span>
      </label>
      <input
        ref={input}
        id={id}
        type="file"
        accept=".json,application/json"
        multiple
        disabled={disabled}
        aria-describedby={`${id}-hint`}
        data-testid="template-file"
        onChange={(e) => void pick(e.target.files)}
      />
      <span id={`${id}-hint`} className="ds-hint">
        original JSON shape; pick x.train.json and x.test.json together for their split
      </span>
      <p className="template-summary" data-testid="template-summary" aria-live="polite">
        {value ? (
          value.source ? (
            <>
              Using <strong>{value.name}</strong>: {summaryLine(value)}
            </>
          ) : (
            <>
              <strong>{value.name}</strong> holds no usable template; using our bank
            </>
          )
        ) : (
          'Using our bank (clutrr-lab)'
        )}
      </p>
      {(value || error) && (
        <button type="button" data-testid="template-reset" disabled={disabled} onClick={reset}>
          Use our bank
        </button>
      )}
      {error && (
        <p className="ds-field-error" role="alert">
          {error}
        </p>
      )}
      {problems && problems.shown.length > 0 && (
        <div className="template-problems" role="alert" data-testid="template-problems">
          <p>
            {value!.problems.length} problem{value!.problems.length === 1 ? '' : 's'}; these parts were skipped:
          </p>
          <ul>
            {problems.shown.map((p, i) => (
              <li key={i}>{p}</li>
            ))}
            {problems.more > 0 && <li>and {problems.more} more</li>}
          </ul>
        </div>
      )}
    </div>
  );
}
