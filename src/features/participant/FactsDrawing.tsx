import { useMemo } from 'react';
import { standInFamily } from '../../core/formats/toPuzzle';
import type { Puzzle } from '../../core/puzzle/puzzle';
import { layoutPuzzle } from '../../graph/layout/layout';

/**
 * The `text+drawing` condition's picture: the people of the story and the facts it states, one
 * arrow per fact labelled with its word, all drawn alike. It is laid out from the facts alone (a
 * stand-in family, so the hidden family cannot place anyone), and it never draws the question's
 * answer, a derived relation, the proof, or which facts matter (the explorer's colours by fact
 * kind would give the reasoning path away).
 */
export function FactsDrawing({ puzzle }: { puzzle: Puzzle }) {
  const layout = useMemo(() => layoutPuzzle({ ...puzzle, family: standInFamily(puzzle.entities) }), [puzzle]);
  const { x0, y0, x1, y1 } = layout.storyBounds;
  const facts = layout.edges.filter((e) => e.relation === 'fact');
  return (
    <figure className="study-drawing">
      <svg
        viewBox={`${x0} ${y0} ${x1 - x0} ${y1 - y0}`}
        role="img"
        aria-label="A drawing of the family relations the story states"
        data-testid="facts-drawing"
      >
        <defs>
          <marker id="study-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">
            <path d="M0,0 L10,5 L0,10 z" fill="#4b5566" />
          </marker>
        </defs>
        {facts.map((e) => (
          <path key={e.id} d={e.d} className="study-drawing__edge" markerEnd="url(#study-arrow)" />
        ))}
        {facts.map((e) => (
          <text key={`${e.id}-label`} x={e.label.x} y={e.label.y} className="study-drawing__label">
            {e.word}
          </text>
        ))}
        {layout.nodes.map((n) => (
          <g key={n.id}>
            <rect
              x={n.x - n.width / 2}
              y={n.y - n.height / 2}
              width={n.width}
              height={n.height}
              rx={n.height / 2}
              className="study-drawing__person"
            />
            <text x={n.x} y={n.y} className="study-drawing__name">
              {n.name}
            </text>
          </g>
        ))}
      </svg>
      <figcaption>An arrow from Ann to Bob labelled “son” means: Bob is Ann’s son.</figcaption>
    </figure>
  );
}
