/**
 * A labelled select over a table's named choices (the collection's coverage and stories); a
 * choice sends the table back to its first page, which the caller's `onChoose` does.
 */
export function ChoiceSelect<T extends string>({
  label,
  className,
  value,
  choices,
  onChoose,
  testId,
}: {
  label: string;
  className: string;
  value: T;
  /** Each choice and the words it is shown as. */
  choices: readonly (readonly [T, string])[];
  onChoose: (value: T) => void;
  testId: string;
}) {
  return (
    <label className={className}>
      {label}
      <select value={value} onChange={(e) => onChoose(e.target.value as T)} data-testid={testId}>
        {choices.map(([choice, words]) => (
          <option key={choice} value={choice}>
            {words}
          </option>
        ))}
      </select>
    </label>
  );
}
