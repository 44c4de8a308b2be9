import './table.css';

/**
 * A table's text search box (`table-search`): the label, the query as typed, and `onSearch` with
 * each new text. The table decides what it searches and resets its page.
 */
export function TableSearch({
  label,
  value,
  placeholder,
  onSearch,
  testId,
}: {
  label: string;
  value: string;
  placeholder: string;
  onSearch: (q: string) => void;
  testId: string;
}) {
  return (
    <label className="table-search">
      {label}
      <input
        type="search"
        value={value}
        placeholder={placeholder}
        onChange={(e) => onSearch(e.target.value)}
        data-testid={testId}
      />
    </label>
  );
}
