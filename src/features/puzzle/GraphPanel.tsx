import { useCallback, useId, useMemo } from 'react';
import type { Puzzle } from '../../core/puzzle/puzzle';
import { FamilyGraph, type ProofLight } from '../../graph/FamilyGraph';
import { GraphLegend } from '../../graph/Legend';
import { familyDescribes } from '../../graph/layout/familyClosure';
import {
  selectGraphWide,
  selectHover,
  selectProofOpen,
  selectProofStep,
  selectRevealed,
  selectShowHidden,
} from '../../state/selectors';
import { useStore } from '../../state/useStore';
import { stepFacts } from '../../ui/puzzle/proof';
import type { AttentionView } from './ModelPanel';
import { PanelHead } from './PanelHead';

// The box is as tall as the family at a readable zoom (FamilyGraph), within these bounds.
const AUTO_HEIGHT = { min: 220, max: 560 };
const AUTO_HEIGHT_WIDE = { min: 240, max: 680 };

/**
 * The family drawing with its hidden-family toggle and legend. The story's facts are drawn from
 * the start; what the story does not state (a proof step's conclusion, the hidden family with
 * its relations among the story's people, the legend's pointer to the fact that states the
 * answer) waits until the proof is open (`selectProofOpen`).
 */
export function GraphPanel({ puzzle, attention }: { puzzle: Puzzle; attention?: AttentionView | null }) {
  const hover = useStore(selectHover);
  const open = useStore(selectProofOpen);
  // The choice is remembered across puzzles, but applied only while the proof is open.
  const showHidden = useStore(selectShowHidden) && open;
  const wide = useStore(selectGraphWide);
  const proofStep = useStore(selectProofStep);
  const revealed = useStore(selectRevealed);
  const toggleId = useId();
  const highlighted = useMemo(() => new Set(hover?.factIds ?? []), [hover]);
  const proof = useMemo<ProofLight | null>(() => {
    const s = proofStep === null ? undefined : puzzle.proof[proofStep];
    if (!s || proofStep === null || !open) return null;
    const masked = proofStep === 0 && !revealed;
    return {
      ...stepFacts(puzzle, proofStep),
      head: { from: s.head.from, to: s.head.to, word: masked ? '?' : s.head.word },
    };
  }, [puzzle, proofStep, revealed, open]);
  const onHoverFact = useCallback(
    (id: number | null) => useStore.getState().highlight(id === null ? null : { factIds: [id], source: 'edge' }),
    [],
  );
  const familyKnown = useMemo(() => familyDescribes(puzzle), [puzzle]);
  const { a, b } = { a: puzzle.entities[puzzle.query[0]], b: puzzle.entities[puzzle.query[1]] };
  return (
    <section className="panel panel--graph" aria-labelledby="graph-heading">
      <PanelHead
        id="graph-heading"
        title="Family"
        tools={
          <>
            <button
              type="button"
              className="button button--small"
              aria-pressed={wide}
              data-testid="toggle-wide"
              onClick={() => useStore.getState().setGraphWide(!wide)}
            >
              {wide ? 'Narrow drawing' : 'Widen drawing'}
            </button>
            <div className="toggle">
              <input
                id={toggleId}
                type="checkbox"
                checked={showHidden}
                disabled={!familyKnown || !open}
                data-testid="toggle-hidden"
                onChange={(e) => useStore.getState().setShowHidden(e.target.checked)}
              />
              <label htmlFor={toggleId}>
                Show the hidden family
                {!familyKnown
                  ? ' (unknown for this puzzle)'
                  : !open
                    ? ' (it gives the answer away: after Reveal or Show proof)'
                    : ''}
              </label>
            </div>
          </>
        }
      />
      <FamilyGraph
        puzzle={puzzle}
        showHidden={showHidden}
        highlighted={highlighted}
        proof={proof}
        onHoverFact={onHoverFact}
        autoHeight={wide ? AUTO_HEIGHT_WIDE : AUTO_HEIGHT}
        attention={attention?.weights}
        label={`Family graph of the story: ${puzzle.entities.length} people, ${puzzle.facts.length} facts; the question asks how ${b?.name} is related to ${a?.name}`}
      />
      <GraphLegend
        memory={open && puzzle.facts.some((f) => f.kind === 'memory')}
        hidden={showHidden}
        attention={attention?.label}
      />
    </section>
  );
}
