/**
 * A labelled <select> over a list of values plus "any" (null): the filter control of the
 * dataset preview and the audit table.
 */
export function FilterSelect<T extends string | number>({
  label,
  value,
  options,
  onChange,
  testId,
  anyLabel = 'any',
}: {
  label: string;
  value: T | null;
  options: readonly T[];
  onChange: (value: T | null) => void;
  testId: string;
  anyLabel?: string;
}) {
  return (
    <label>
      {label}
      <select
        value={value === null ? '' : String(value)}
        onChange={(e) =>
          onChange(e.target.value === '' ? null : (options.find((o) => String(o) === e.target.value) ?? null))
        }
        data-testid={testId}
      >
        <option value="">{anyLabel}</option>
        {options.map((o) => (
          <option key={String(o)} value={String(o)}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}
