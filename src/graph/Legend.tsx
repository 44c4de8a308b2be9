import './graph.css';

/** The key to the drawing: line styles (not only colours) for each kind of fact, node shapes. */
export function GraphLegend({ memory, hidden, attention }: { memory?: boolean; hidden?: boolean; attention?: string }) {
  const lines: [string, string][] = [
    ['path', 'path fact (the chain to the answer)'],
    ['supporting', 'supporting fact (a detour between path people)'],
    ['irrelevant', 'irrelevant fact (dangles from the path)'],
    ['disconnected', 'disconnected fact (away from the path)'],
  ];
  if (memory) lines.push(['memory', 'memory fact (states the answer)']);
  if (hidden) lines.push(['background', 'hidden family (not in the story)']);
  return (
    <ul className="legend" aria-label="Legend">
      {lines.map(([kind, text]) => (
        <li key={kind}>
          <svg width="34" height="12" aria-hidden="true" className={`edge edge--${kind}`}>
            <path className="edge__line" d="M2,6 L32,6" />
            {kind === 'memory' && <path className="edge__inner" d="M2,6 L32,6" />}
          </svg>
          {text}
        </li>
      ))}
      <li>
        <span className="legend__shape legend__shape--male" aria-hidden="true" /> man{' '}
        <span className="legend__shape legend__shape--female" aria-hidden="true" /> woman{' '}
        <span className="legend__badge" aria-hidden="true">
          A
        </span>
        <span className="legend__badge" aria-hidden="true">
          B
        </span>{' '}
        the question's two people
      </li>
      <li>An arrow A → B labelled “daughter” reads “B is A's daughter”.</li>
      {attention && (
        <li data-testid="legend-attention">
          <svg width="34" height="12" aria-hidden="true" className="edge">
            <path className="edge__attention" d="M2,6 L32,6" style={{ strokeWidth: 10, strokeOpacity: 0.6 }} />
          </svg>
          {attention}'s attention: the wider and stronger the band under a fact, the more the model attended to it
        </li>
      )}
    </ul>
  );
}
