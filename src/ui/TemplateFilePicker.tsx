import { useEffect, useId, useRef, useState } from 'react';
import { NO_USABLE_TEMPLATE } from '../core/text/templateFile';
import { isCancelled } from '../worker/rpc';
import { firstProblems, summaryLine, TemplateReader, type TemplateReading } from '../worker/templatesClient';
import './templatePicker.css';

/**
 * A template file in the original CLUTRR JSON shape (amt_placeholders_clean.json, or its
 * .train.json and .test.json halves picked together): what it holds, which keys or templates
 * were skipped and why, and a button back to our bank. Controlled: the reading lives with the
 * caller, whose renderer uses `value.source`. Files are read in a worker; files of
 * BIG_FILE_BYTES or more show a progress bar while they are read.
 */
/** Picks of this many bytes or more show a progress bar while they are read. */
export const BIG_FILE_BYTES = 1 << 20;

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
  const [reading, setReading] = useState<{ name: string; big: boolean; fraction: number } | null>(null);
  const reader = useRef<TemplateReader | null>(null);
  useEffect(() => () => reader.current?.dispose(), []);
  const pick = async (list: FileList | null) => {
    const files = [...(list ?? [])];
    if (files.length === 0) return;
    const name = files.map((f) => f.name).join(' + ');
    const big = files.reduce((n, f) => n + f.size, 0) >= BIG_FILE_BYTES;
    setError(null);
    setReading({ name, big, fraction: 0 });
    reader.current ??= new TemplateReader();
    try {
      const result = await reader.current.read(files, (fraction) =>
        setReading((r) => (r && r.name === name ? { ...r, fraction } : r)),
      );
      setReading(null);
      onChange(result);
    } catch (e) {
      // A newer pick or "Use our bank" took over.
      if (isCancelled(e)) return;
      setReading(null);
      setError(`The file could not be read: ${(e as Error).message}`);
    }
  };
  const reset = () => {
    reader.current?.cancel();
    if (input.current) input.current.value = '';
    setReading(null);
    setError(null);
    onChange(null);
  };
  const percent = reading ? Math.round(reading.fraction * 100) : 0;
  const problems = value ? firstProblems(value.problems) : null;
  return (
    <div className="template-picker" data-field="templates">
      <label htmlFor={id}>
        {label} <span className="cli-flag">--templates</span>
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
      <span id={`${id}-hint`} className="template-picker__hint">
        original JSON shape; pick x.train.json and x.test.json together for their split
      </span>
      <p className="template-summary" data-testid="template-summary" aria-live="polite">
        {reading ? (
          <>
            Reading <strong>{reading.name}</strong>…{reading.big && ` ${percent}%`}
          </>
        ) : value ? (
          value.source ? (
            <>
              Using <strong>{value.name}</strong>: {summaryLine(value)}
            </>
          ) : (
            <>
              <strong>{value.name}</strong> {NO_USABLE_TEMPLATE}; using our bank
            </>
          )
        ) : (
          'Using our bank (clutrr-lab)'
        )}
      </p>
      {reading?.big && (
        <progress
          className="template-progress"
          data-testid="template-progress"
          max={100}
          value={percent}
          aria-label={`Reading ${reading.name}`}
        />
      )}
      {(value || error || reading) && (
        <button type="button" data-testid="template-reset" disabled={disabled} onClick={reset}>
          Use our bank
        </button>
      )}
      {error && (
        <p className="template-picker__error" role="alert">
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
