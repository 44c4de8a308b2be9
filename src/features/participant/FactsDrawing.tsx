import { useEffect, useMemo, useState } from 'react';
import type { Puzzle } from '../../core/puzzle/puzzle';
import { QUERY_RING_GAP } from '../../graph/layout/sizes';
import { drawingLayout, drawingWidth, NARROW_QUERY } from './drawingLayout';

function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => window.matchMedia(NARROW_QUERY).matches);
  useEffect(() => {
    const media = window.matchMedia(NARROW_QUERY);
    const onChange = () => setNarrow(media.matches);
    media.addEventListener('change', onChange);
    return () => media.removeEventListener('change', onChange);
  }, []);
  return narrow;
}

/**
 * The `text+drawing` condition's picture: the story's people and the facts it states, one arrow
 * per fact labelled with its word, all drawn alike, the question's two people outlined. The
 * layout (`layoutStatedFacts`) reads only the stated facts and is seeded by the puzzle, so it is
 * the same on every reload and does not place anyone by generation (the explorer's layout puts
 * older generations above, which would count the generations for the participant). It never
 * draws the answer, a derived relation, the proof, or which facts matter.
 */
export function FactsDrawing({ puzzle, queryA, queryB }: { puzzle: Puzzle; queryA: string; queryB: string }) {
  const narrow = useNarrow();
  const layout = useMemo(() => drawingLayout(puzzle, drawingWidth(narrow)), [puzzle, narrow]);
  const { x0, y0, x1, y1 } = layout.bounds;
  return (
    <figure className="study-drawing">
      <svg
        viewBox={`${x0} ${y0} ${x1 - x0} ${y1 - y0}`}
        style={{ maxWidth: `${x1 - x0}px` }}
        role="img"
        aria-label={`A drawing of the family relations the story states; ${queryA} and ${queryB}, the question’s two people, are outlined`}
        data-testid="facts-drawing"
      >
        <defs>
          <marker id="study-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">
            <path d="M0,0 L10,5 L0,10 z" style={{ fill: 'var(--muted)' }} />
          </marker>
        </defs>
        {layout.edges.map((e) => (
          <path key={e.id} d={e.d} className="study-drawing__edge" markerEnd="url(#study-arrow)" />
        ))}
        {layout.edges.map((e) => (
          <text key={`${e.id}-label`} x={e.label.x} y={e.label.y} className="study-drawing__label">
            {e.word}
          </text>
        ))}
        {layout.nodes.map((n) => (
          <g key={n.entity} data-testid="facts-drawing-person" data-name={n.name} data-query={n.query ?? undefined}>
            {n.query && (
              <rect
                x={n.x - n.width / 2 - QUERY_RING_GAP}
                y={n.y - n.height / 2 - QUERY_RING_GAP}
                width={n.width + 2 * QUERY_RING_GAP}
                height={n.height + 2 * QUERY_RING_GAP}
                rx={(n.height + 2 * QUERY_RING_GAP) / 2}
                className="study-drawing__ring"
              />
            )}
            <rect
              x={n.x - n.width / 2}
              y={n.y - n.height / 2}
              width={n.width}
              height={n.height}
              rx={n.height / 2}
              className={`study-drawing__person${n.query ? ' study-drawing__person--query' : ''}`}
            />
            <text x={n.x} y={n.y} className="study-drawing__name">
              {n.name}
            </text>
          </g>
        ))}
      </svg>
      <figcaption>
        An arrow from Ann to Bob labelled “son” means: Bob is Ann’s son. Outlined: {queryA} and {queryB}, the question’s
        two people. Where people stand means nothing.
      </figcaption>
    </figure>
  );
}
